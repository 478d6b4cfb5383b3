"""The AsyncAPI 3.0 document of every input and output channel, generated from the contracts.

The payload schemas come from the msgspec Structs themselves (one source of truth),
so the document cannot drift from the code: `accord asyncapi --check` (in
scripts/check) fails when the committed `docs/asyncapi.json` is not what this
module generates, and the official `@asyncapi/parser` validates it (harness/node).

FastStream's own generator is not used for the payloads: a handler typed with a
msgspec Struct makes it fail, and its channel names would be the literal stream
names, whose Redis Cluster hash tag `{p}` AsyncAPI reads as a parameter. Here the
partition is a channel parameter whose value carries the braces.
"""

from __future__ import annotations

import json
from importlib.metadata import version as dist_version
from typing import Any

import msgspec

from contracts.inputs import ChatTurn, ToolCall, ToolResult
from contracts.outputs import (
    ClarificationRequested,
    DeadLetter,
    ProposalRefused,
    StateChanged,
    ToolOutcome,
)
from contracts.streams import AGREEMENT_EVENTS, CHAT_TURN, DEAD_LETTERS, TOOL_CALL, TOOL_RESULT

_REF = "#/components/schemas/{name}"

# (message name, type, summary) per channel; the order is the document's order.
_INPUTS: tuple[tuple[str, str, type[msgspec.Struct], str], ...] = (
    ("chatTurn", CHAT_TURN, ChatTurn, "A chat turn (user, assistant or system text)."),
    ("toolCall", TOOL_CALL, ToolCall, "A tool call by the agent, e.g. soul_agreement_accept."),
    ("toolResult", TOOL_RESULT, ToolResult, "A tool result; todo_write carries the snapshot."),
)
_EVENTS: tuple[tuple[str, type[msgspec.Struct], str], ...] = (
    ("stateChanged", StateChanged, "A committed change of one record (event_id record@rev)."),
    ("toolOutcome", ToolOutcome, "The answer to one soul_agreement_accept call."),
    (
        "clarificationRequested",
        ClarificationRequested,
        "An ambiguous confirmation or cancellation: nothing changed.",
    ),
    ("proposalRefused", ProposalRefused, "A recognized proposal that was not recorded."),
)

_PARTITION = {
    "description": (
        "The partition's Redis Cluster hash tag, braces included: `{0}`, `{1}`, ... "
        "The partition of a scope is stable_hash(agent_id, user_id) % P "
        "(contracts/partition.py, docs/partitions.md)."
    ),
    "examples": ["{0}", "{1}"],
}

_ENTRY_LAYOUT = (
    "Each stream entry carries the event's JSON document in the single field `__data__`: "
    "`XADD {address} * __data__ '<json>'`."
)


def _clean(node: Any) -> Any:  # noqa: ANN401  (JSON tree)
    """msgspec emits OpenAPI's object `discriminator`; AsyncAPI's is a string. Drop it:
    every member already pins its `type` tag with an enum of one value."""
    if isinstance(node, dict):
        return {k: _clean(v) for k, v in node.items() if k != "discriminator"}
    if isinstance(node, list):
        return [_clean(v) for v in node]
    return node


def _message(name: str, struct: type[msgspec.Struct], summary: str) -> dict[str, Any]:
    return {
        "name": name,
        "title": struct.__name__,
        "summary": summary,
        "contentType": "application/json",
        "payload": {"$ref": _REF.format(name=struct.__name__)},
    }


def _channel(address: str, messages: list[str], description: str) -> dict[str, Any]:
    return {
        "address": address + ":{partition}",
        "description": description + " " + _ENTRY_LAYOUT.format(address=address + ":{p}"),
        "parameters": {"partition": _PARTITION},
        "messages": {m: {"$ref": f"#/components/messages/{m}"} for m in messages},
    }


def _operation(action: str, summary: str, channel: str, names: list[str]) -> dict[str, Any]:
    """An operation that does `action` (send or receive) with messages `names` of `channel`."""
    return {
        "action": action,
        "summary": summary,
        "channel": {"$ref": f"#/channels/{channel}"},
        "messages": [{"$ref": f"#/channels/{channel}/messages/{name}"} for name in names],
    }


def document() -> dict[str, Any]:
    """The whole AsyncAPI 3.0.0 document as a JSON-ready dict."""
    structs = [t for _, _, t, _ in _INPUTS] + [t for _, t, _ in _EVENTS] + [DeadLetter]
    _, components = msgspec.json.schema_components(structs, ref_template=_REF)
    channels: dict[str, Any] = {}
    operations: dict[str, Any] = {}
    messages: dict[str, Any] = {}
    for name, family, struct, summary in _INPUTS:
        messages[name] = _message(name, struct, summary)
        channels[name] = _channel(family, [name], f"Input stream `{family}` (the gateway writes).")
        operations[f"receive{name[0].upper()}{name[1:]}"] = _operation(
            "receive", f"accord workers read {family} in consumer group `accord`.", name, [name]
        )
    event_names = [name for name, _, _ in _EVENTS]
    for name, struct, summary in _EVENTS:
        messages[name] = _message(name, struct, summary)
    channels["agreementEvents"] = _channel(
        AGREEMENT_EVENTS,
        event_names,
        f"Output stream `{AGREEMENT_EVENTS}`: agreement events, told apart by `type`; "
        "drop duplicates by `event_id`.",
    )
    operations["sendAgreementEvents"] = _operation(
        "send",
        "accord publishes agreement events, in commit order per partition.",
        "agreementEvents",
        event_names,
    )
    messages["deadLetter"] = _message(
        "deadLetter", DeadLetter, "An input entry that could not be applied, with the reason."
    )
    channels["deadLetters"] = _channel(
        DEAD_LETTERS,
        ["deadLetter"],
        f"Output stream `{DEAD_LETTERS}`: inputs that were undecodable, violated the "
        "contract or kept failing; `accord dlq requeue` puts them back.",
    )
    operations["sendDeadLetters"] = _operation(
        "send", "accord dead-letters an input entry it cannot apply.", "deadLetters", ["deadLetter"]
    )
    return {
        "asyncapi": "3.0.0",
        "info": {
            "title": "accord",
            "version": dist_version("accord"),
            "description": (
                "Explicit user-agent agreements as a verifiable lifecycle, on Redis Streams. "
                "A chat gateway writes chat turns, tool calls and tool results; accord "
                "publishes agreement events. Rules R1-R15: DESIGN.md."
            ),
        },
        "defaultContentType": "application/json",
        "servers": {
            "redis": {
                "host": "localhost:6379",
                "protocol": "redis",
                "description": (
                    "Redis 6.2 or later, or Valkey: one server or a Cluster (keys carry {p}"
                    " hash tags)."
                ),
            }
        },
        "channels": channels,
        "operations": operations,
        "components": {"messages": messages, "schemas": _clean(components)},
    }


def render() -> str:
    """The document as committed: sorted keys off (document order), 2-space JSON."""
    return json.dumps(document(), indent=2, ensure_ascii=False) + "\n"
