"""Fuzzing the decoding of input entries: no crash, every invalid input a typed error (R15).

Whatever a gateway or an attacker writes into an input stream, `decode_entry` either
returns an input event or raises `ContractError` with a dead-letter reason, a field
path and a bounded message: the store turns exactly that into a dead letter, so
nothing else may escape (an escaping exception would leave the entry pending forever).
The inputs: raw bytes, any JSON value, valid documents with one part replaced by any
JSON value or dropped or added, byte-level mutations of valid documents, and arbitrary
field maps. `harness/accord_harness/fuzz_atheris.py` drives the same target coverage-guided.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec
from accord_harness.fuzz_kit import fuzz_settings, hostile_text, json_values
from hypothesis import given
from hypothesis import strategies as st

from contracts.codec import MAX_FIELD_CHARS, MAX_MESSAGE_CHARS, ContractError, decode_entry
from contracts.inputs import ChatTurn, ToolCall, ToolResult
from contracts.outputs import DeadLetterReason
from contracts.streams import DATA_FIELD

VALID: list[dict[str, Any]] = [
    {
        "type": "chat_turn", "agent_id": "a", "user_id": "u", "session_id": "s", "seq": 1,
        "ts": "2027-01-01T00:00:00Z", "role": "user", "text": "Let's agree: tea first.",
        "message_id": "m", "timezone": "Asia/Shanghai",
    },
    {
        "type": "tool_call", "agent_id": "a", "user_id": "u", "session_id": "s", "seq": 2,
        "ts": "2027-01-01T00:00:01+08:00", "call_id": "c", "name": "soul_agreement_accept",
        "arguments": {"record_id": "agr-1", "expected_revision": 1},
    },
    {
        "type": "tool_result", "agent_id": "a", "user_id": "u", "session_id": "s", "seq": 3,
        "ts": "2027-01-01T00:00:02Z", "call_id": "c", "name": "todo_write", "ok": True,
        "todos": [{"content": "整理读书笔记", "status": "in_progress"}],
    },
]  # fmt: skip
EVENT_TYPES = (ChatTurn, ToolCall, ToolResult)


def decodes_or_is_refused(fields: dict[bytes, bytes]) -> None:
    """The property: an input event, or a ContractError fit for a dead letter."""
    event: object = None
    refused: ContractError | None = None
    try:
        event = decode_entry(fields)
    except ContractError as error:
        refused = error
    if refused is not None:
        assert isinstance(refused.reason, DeadLetterReason)
        assert refused.reason is not DeadLetterReason.DELIVERY_LIMIT
        assert len(refused.field) <= MAX_FIELD_CHARS
        assert len(refused.message) <= MAX_MESSAGE_CHARS
        assert str(refused)
        return
    assert isinstance(event, EVENT_TYPES)
    assert event.seq >= 1
    assert event.ts.tzinfo is not None


def entry(data: bytes) -> dict[bytes, bytes]:
    return {DATA_FIELD.encode(): data}


@fuzz_settings()
@given(st.binary(max_size=2_000))
def test_any_bytes_decode_or_are_a_typed_error(data: bytes) -> None:
    """R15: arbitrary bytes in `__data__` never escape as an untyped exception."""
    decodes_or_is_refused(entry(data))


@fuzz_settings()
@given(json_values)
def test_any_json_value_decodes_or_is_a_typed_error(value: Any) -> None:
    """R15: any JSON document, of any shape, is an event or a typed refusal."""
    decodes_or_is_refused(entry(json.dumps(value).encode()))


@fuzz_settings()
@given(st.sampled_from(VALID), st.data())
def test_valid_documents_with_one_part_replaced_or_dropped(
    base: dict[str, Any], data: st.DataObject
) -> None:
    """R15: each field replaced by any JSON value, dropped, or a new one added."""
    document = json.loads(json.dumps(base))
    key = data.draw(st.sampled_from([*document, "extra"]))
    action = data.draw(st.sampled_from(["replace", "drop", "text"]))
    if action == "drop":
        document.pop(key, None)
    elif action == "text":
        document[key] = data.draw(hostile_text)
    else:
        document[key] = data.draw(json_values)
    decodes_or_is_refused(entry(json.dumps(document).encode()))


@fuzz_settings()
@given(st.sampled_from(VALID), st.data())
def test_byte_mutations_of_valid_documents(base: dict[str, Any], data: st.DataObject) -> None:
    """R15: flipped, cut and spliced bytes of a valid entry stay a typed refusal at worst."""
    raw = bytearray(msgspec.json.encode(base))
    for _ in range(data.draw(st.integers(1, 6))):
        at = data.draw(st.integers(0, len(raw)))
        how = data.draw(st.sampled_from(["flip", "cut", "splice"]))
        if how == "flip" and at < len(raw):
            raw[at] = data.draw(st.integers(0, 255))
        elif how == "cut":
            del raw[at : at + data.draw(st.integers(1, 8))]
        else:
            raw[at:at] = data.draw(st.binary(min_size=1, max_size=8))
    decodes_or_is_refused(entry(bytes(raw)))


@fuzz_settings(share=0.5)
@given(st.dictionaries(st.binary(max_size=12), st.binary(max_size=200), max_size=4))
def test_any_field_map_decodes_or_is_a_typed_error(fields: dict[bytes, bytes]) -> None:
    """R15: entries without `__data__`, with other fields, or with binary field names."""
    decodes_or_is_refused(fields)
