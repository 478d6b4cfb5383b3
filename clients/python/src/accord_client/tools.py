"""The acceptance tool for the model runtime: its definition and its result text (R3).

Both come from `contracts/tools/soul_agreement_accept.json` (generated from the
published `AcceptArguments` schema, docs/gateway.md "The accept tool"; the client reads
its copy, `accord_client/contracts/tools/`).
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any, Literal

from accord_client.contracts.outputs import ToolOutcome
from accord_client.contracts.tools import ACCEPT_TOOL_NAME

Api = Literal["openai_chat", "openai_responses", "anthropic", "gemini"]

_TOOLS = resources.files("accord_client.contracts").joinpath("tools")
_DEFINITIONS: dict[str, Any] = json.loads(
    _TOOLS.joinpath(f"{ACCEPT_TOOL_NAME}.json").read_text("utf-8")
)
RESULT_TEXTS: dict[str, str] = _DEFINITIONS["result_texts"]


def accept_tool(api: Api) -> dict[str, Any]:
    """`soul_agreement_accept` in the tool format of `api`, ready to register as it is."""
    definition: dict[str, Any] = json.loads(json.dumps(_DEFINITIONS[api]))
    return definition


def tool_result_text(outcome: ToolOutcome | None) -> str:
    """What the model sees as the tool's result; None stands for a timed-out call."""
    if outcome is None:
        return RESULT_TEXTS["timeout"]
    reason = outcome.reason.value if outcome.reason else "unknown"
    values: dict[str, object] = {
        "record_id": outcome.record_id or "the record",
        "current_revision": outcome.current_revision,
        "state": outcome.state.value if outcome.state else "unknown",
        "reason": reason,
    }
    if outcome.accepted:
        return RESULT_TEXTS["accepted"].format(**values)
    template = RESULT_TEXTS.get(reason, RESULT_TEXTS["rejected_other"])
    return template.format(**values)
