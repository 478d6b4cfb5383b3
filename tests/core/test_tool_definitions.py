"""`soul_agreement_accept` as data for model runtimes, and the tool result texts (R3).

The agent accepts only through this tool with exactly `record_id` and
`expected_revision`: every format published here must say exactly that, and every
outcome must have a text for the model that never calls a refused call accepted.
"""

from __future__ import annotations

import json
import re
from typing import Any

import msgspec
import pytest
from jsonschema import Draft202012Validator

from accord_client import accept_tool, tool_result_text
from accord_client.contracts.outputs import ToolOutcome
from accord_client.tools import RESULT_TEXTS
from contracts import tool_definitions
from contracts.tools import ACCEPT_TOOL_NAME, RejectionReason
from tests.support.paths import ROOT

PUBLISHED = json.loads((ROOT / "contracts/schemas/accept_arguments.schema.json").read_text())


def test_the_committed_file_is_current() -> None:
    """contracts/tools/soul_agreement_accept.json is what the generator makes now."""
    assert tool_definitions.PATH.read_text("utf-8") == tool_definitions.render()


def _parameters(api: str, tool: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = {
        "openai_chat": lambda: tool["function"]["parameters"],
        "openai_responses": lambda: tool["parameters"],
        "anthropic": lambda: tool["input_schema"],
        "gemini": lambda: tool["parameters"],
    }[api]()
    return found


@pytest.mark.parametrize("api", ["openai_chat", "openai_responses", "anthropic", "gemini"])
def test_every_format_names_the_tool_and_exactly_its_two_arguments(api: str) -> None:
    """R3: the same name, the two required arguments with the published types."""
    tool = accept_tool(api)  # type: ignore[arg-type]
    name = tool["function"]["name"] if api == "openai_chat" else tool["name"]
    assert name == ACCEPT_TOOL_NAME
    parameters = _parameters(api, tool)
    assert parameters["required"] == ["record_id", "expected_revision"]
    assert set(parameters["properties"]) == set(PUBLISHED["properties"])
    for field, spec in parameters["properties"].items():
        assert spec["type"] == PUBLISHED["properties"][field]["type"]
        assert spec["description"]


@pytest.mark.parametrize("api", ["openai_chat", "openai_responses", "anthropic"])
def test_json_schema_formats_refuse_what_the_worker_refuses(api: str) -> None:
    """Where the API takes JSON Schema, it is the published one: extra or missing
    fields, a zero revision or an empty id are refused, the exact shape passes."""
    validator = Draft202012Validator(_parameters(api, accept_tool(api)))  # type: ignore[arg-type]
    assert validator.is_valid({"record_id": "agr-1", "expected_revision": 2})
    for bad in (
        {"record_id": "agr-1"},
        {"record_id": "agr-1", "expected_revision": 2, "binding": {}},
        {"record_id": "agr-1", "expected_revision": 0},
        {"record_id": "", "expected_revision": 1},
    ):
        assert not validator.is_valid(bad), bad


def _outcome(**changes: Any) -> ToolOutcome:
    example = json.loads((ROOT / "contracts/examples/tool_outcome.rejected.json").read_text())
    return msgspec.convert({**example, **changes}, ToolOutcome)


@pytest.mark.parametrize("reason", list(RejectionReason))
def test_every_rejection_has_a_text_that_says_not_accepted(reason: RejectionReason) -> None:
    """R3: a rejection is never worded as an acceptance; placeholders are all filled."""
    text = tool_result_text(_outcome(reason=reason.value))
    assert reason.value in RESULT_TEXTS
    assert text.startswith("Not accepted")
    assert not re.search(r"\{\w+\}", text)


def test_the_mapping_fills_the_outcome() -> None:
    """Accepted names the record and its new state; a stale revision names the current one;
    a timeout never claims success."""
    accepted = tool_result_text(_outcome(accepted=True, reason=None, current_revision=3))
    assert accepted.startswith("Accepted: ")
    assert "agr-710cd6a194fe7d630c4c97a0" in accepted
    assert "revision 3" in accepted
    stale = tool_result_text(_outcome(reason="stale_revision", current_revision=2))
    # The same sentence the TypeScript client's test expects (clients/typescript/test).
    assert stale == (
        "Not accepted: agr-710cd6a194fe7d630c4c97a0 has changed and is now at revision 2. "
        "Re-read its terms before accepting that revision."
    )
    malformed = tool_result_text(_outcome(reason="malformed_arguments"))
    assert malformed == (
        'Not accepted: the arguments must be exactly {"record_id": string, '
        '"expected_revision": integer}.'
    )
    assert "not" in tool_result_text(None).lower()
    assert "Accepted" not in tool_result_text(None)
