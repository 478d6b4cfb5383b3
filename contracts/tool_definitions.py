"""`soul_agreement_accept` as data a model runtime registers as it is (R3).

From the published JSON Schema of `AcceptArguments`, the tool's definition in the
function-calling formats of the common model APIs, and the text the model receives as
the tool's result for each outcome. `contracts/tools/soul_agreement_accept.json` is
generated from here (`python -m contracts.tool_definitions`) and kept current by
tests/core/test_tool_definitions.py; the Python and TypeScript clients read that file.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from contracts.schema import WIRE_TYPE_BY_NAME, schema_document
from contracts.tools import ACCEPT_TOOL_NAME, RejectionReason

PATH = Path(__file__).parent / "tools" / f"{ACCEPT_TOOL_NAME}.json"

DESCRIPTION = (
    "Accept a pending agreement proposal on the agent's behalf. Only for a proposal listed "
    "among this session's pending proposals: pass its record_id and its current revision "
    "exactly as listed. Saying 'agreed' in prose does not accept anything; only this call does."
)
_RECORD_ID = "The record_id of the pending proposal, exactly as listed in the context."
_REVISION = "The proposal's current revision, exactly as listed in the context."

# The tool result text per outcome. `{record_id}`, `{current_revision}`, `{state}` and
# `{reason}` are filled from the ToolOutcome; a reason this table does not know (a newer
# worker) gets `rejected_other`.
RESULT_TEXTS: dict[str, str] = {
    "accepted": "Accepted: your acceptance of {record_id} is recorded (now {state}, "
    "revision {current_revision}). It is an agreement only once the user has accepted too.",
    RejectionReason.MALFORMED_ARGUMENTS: "Not accepted: the arguments must be exactly "
    '{{"record_id": string, "expected_revision": integer}}.',
    RejectionReason.UNKNOWN_RECORD: "Not accepted: there is no record {record_id}. Use a "
    "record_id from the pending proposals in your context.",
    RejectionReason.OTHER_SESSION: "Not accepted: {record_id} was proposed in another "
    "session; only this session's pending proposals can be accepted.",
    RejectionReason.STALE_REVISION: "Not accepted: {record_id} has changed and is now at "
    "revision {current_revision}. Re-read its terms before accepting that revision.",
    RejectionReason.WRONG_STATE: "Not accepted: {record_id} is {state}, not a pending proposal.",
    RejectionReason.PAST_DEADLINE: "Not accepted: {record_id} is past its deadline.",
    RejectionReason.ALREADY_ACCEPTED: "Not accepted: you have already accepted {record_id}; "
    "it is waiting for the user.",
    RejectionReason.BEFORE_PROPOSAL: "Not accepted: the call is dated before {record_id} "
    "was proposed, so it cannot accept it. Accept only a proposal listed in your context.",
    "rejected_other": "Not accepted ({reason}).",
    "timeout": "No answer yet: the acceptance was not confirmed in time. Do not tell the "
    "user it was accepted.",
}


def _parameters() -> dict[str, Any]:
    """The published schema's body, with descriptions, without document-level keys."""
    document = schema_document(WIRE_TYPE_BY_NAME["accept_arguments"])
    properties = json.loads(json.dumps(document["properties"]))
    properties["record_id"]["description"] = _RECORD_ID
    properties["expected_revision"]["description"] = _REVISION
    return {
        "type": "object",
        "properties": properties,
        "required": document["required"],
        "additionalProperties": document["additionalProperties"],
    }


def definitions() -> dict[str, Any]:
    parameters = _parameters()
    # Gemini's `parameters` take an OpenAPI 3.0 subset: types and descriptions only.
    gemini = {
        "type": "object",
        "properties": {
            name: {"type": spec["type"], "description": spec["description"]}
            for name, spec in parameters["properties"].items()
        },
        "required": parameters["required"],
    }
    return {
        "name": ACCEPT_TOOL_NAME,
        "description": DESCRIPTION,
        "parameters": parameters,
        # POST /v1/chat/completions, "tools": [...]
        "openai_chat": {
            "type": "function",
            "function": {
                "name": ACCEPT_TOOL_NAME,
                "description": DESCRIPTION,
                "parameters": parameters,
            },
        },
        # POST /v1/responses, "tools": [...]
        "openai_responses": {
            "type": "function",
            "name": ACCEPT_TOOL_NAME,
            "description": DESCRIPTION,
            "parameters": parameters,
        },
        # POST /v1/messages, "tools": [...]
        "anthropic": {
            "name": ACCEPT_TOOL_NAME,
            "description": DESCRIPTION,
            "input_schema": parameters,
        },
        # generateContent, "tools": [{"functionDeclarations": [...]}]
        "gemini": {
            "name": ACCEPT_TOOL_NAME,
            "description": DESCRIPTION,
            "parameters": gemini,
        },
        "result_texts": {str(key): text for key, text in RESULT_TEXTS.items()},
    }


def render() -> str:
    return json.dumps(definitions(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    PATH.parent.mkdir(exist_ok=True)
    PATH.write_text(render(), encoding="utf-8")
    sys.stdout.write(f"wrote {PATH}\n")
