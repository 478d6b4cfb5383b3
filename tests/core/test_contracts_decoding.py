"""Strict decoding of input entries: every malformed input the contract names is refused
with a ContractError whose `field` names where, and a dead-letter reason (R15: bad input
never stops the worker, it is dead-lettered with the reason)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import msgspec
import pytest

from contracts.codec import (
    DEFAULT_LIMITS,
    MAX_FIELD_CHARS,
    MAX_MESSAGE_CHARS,
    ContractError,
    Limits,
    decode_entry,
    decode_event,
    entry_fields,
)
from contracts.common import MAX_SEQ
from contracts.inputs import ChatTurn, ToolCall, ToolResult
from contracts.outputs import DeadLetterReason

SCOPE = {"agent_id": "agent-1", "user_id": "user-1", "session_id": "session-1"}

CHAT_TURN: dict[str, Any] = {
    "type": "chat_turn",
    **SCOPE,
    "seq": 1,
    "ts": "2026-11-29T10:00:00+08:00",
    "role": "user",
    "text": "Let's agree: next time we discuss a plan, start with the conclusion.",
    "message_id": "m-1",
    "timezone": "Asia/Shanghai",
}
TOOL_CALL: dict[str, Any] = {
    "type": "tool_call",
    **SCOPE,
    "seq": 2,
    "ts": "2026-11-29T10:00:05+08:00",
    "call_id": "call-1",
    "name": "soul_agreement_accept",
    "arguments": {"record_id": "r-1", "expected_revision": 1},
}
TOOL_RESULT: dict[str, Any] = {
    "type": "tool_result",
    **SCOPE,
    "seq": 3,
    "ts": "2026-11-29T10:00:06+08:00",
    "call_id": "call-2",
    "name": "todo_write",
    "ok": True,
    "todos": [{"content": "Organize reading notes", "status": "pending"}],
}
EVENTS = {"chat_turn": CHAT_TURN, "tool_call": TOOL_CALL, "tool_result": TOOL_RESULT}

Change = Callable[[dict[str, Any]], None]


def _set(key: str, value: object) -> Change:
    def change(doc: dict[str, Any]) -> None:
        doc[key] = value

    return change


def _drop(key: str) -> Change:
    def change(doc: dict[str, Any]) -> None:
        del doc[key]

    return change


def _refused(doc: dict[str, Any], limits: Limits = DEFAULT_LIMITS) -> ContractError:
    raw = json.dumps(doc)
    with pytest.raises(ContractError) as caught:
        decode_event(raw, limits)
    return caught.value


def _changed(base: dict[str, Any], change: Change) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(json.dumps(base))
    change(doc)
    return doc


@pytest.mark.parametrize("kind", sorted(EVENTS))
def test_every_valid_base_event_decodes(kind: str) -> None:
    """The documents the malformed cases start from are themselves valid."""
    event = decode_event(json.dumps(EVENTS[kind]))
    assert {"chat_turn": ChatTurn, "tool_call": ToolCall, "tool_result": ToolResult}[kind] is type(
        event
    )


# (case, change, field named by the error) for each of the three input types.
COMMON_CASES: list[tuple[str, Change, str]] = [
    ("seq missing", _drop("seq"), "$.seq"),
    ("seq zero", _set("seq", 0), "$.seq"),
    ("seq negative", _set("seq", -3), "$.seq"),
    ("seq past 2**53-1", _set("seq", MAX_SEQ + 1), "$.seq"),
    ("seq as a string", _set("seq", "1"), "$.seq"),
    ("seq as a float", _set("seq", 1.0), "$.seq"),
    ("seq as a boolean", _set("seq", value=True), "$.seq"),
    ("ts missing", _drop("ts"), "$.ts"),
    ("ts not RFC 3339", _set("ts", "yesterday at noon"), "$.ts"),
    ("ts without an offset", _set("ts", "2026-11-29T10:00:00"), "$.ts"),
    ("ts a date only", _set("ts", "2026-11-29"), "$.ts"),
    ("ts an epoch number", _set("ts", 1764381600), "$.ts"),
    ("ts hour 24", _set("ts", "2026-11-29T24:00:00Z"), "$.ts"),
    ("agent_id missing", _drop("agent_id"), "$.agent_id"),
    ("user_id empty", _set("user_id", ""), "$.user_id"),
    ("session_id a number", _set("session_id", 7), "$.session_id"),
    ("type unknown", _set("type", "chat_message"), "$.type"),
    ("type missing", _drop("type"), "$.type"),
    ("unknown field", _set("priority", "high"), "$.priority"),
]


@pytest.mark.parametrize("kind", sorted(EVENTS))
@pytest.mark.parametrize(
    ("case", "change", "field"), COMMON_CASES, ids=[c[0] for c in COMMON_CASES]
)
def test_malformed_common_field_is_refused_naming_the_field(
    kind: str, case: str, change: Change, field: str
) -> None:
    """Wrong types, unknown types, missing or non-positive seq, bad timestamps: the error
    names the field and the entry is a contract violation (dead-lettered, never applied)."""
    error = _refused(_changed(EVENTS[kind], change))
    assert error.field == field, case
    assert error.reason is DeadLetterReason.CONTRACT_VIOLATION
    assert str(error).startswith(f"{field}: ")


SPECIFIC_CASES: list[tuple[str, str, Change, str]] = [
    ("chat_turn", "role unknown", _set("role", "bot"), "$.role"),
    ("chat_turn", "role missing", _drop("role"), "$.role"),
    ("chat_turn", "text a list", _set("text", ["hi"]), "$.text"),
    ("chat_turn", "message_id missing", _drop("message_id"), "$.message_id"),
    ("chat_turn", "timezone a number", _set("timezone", 8), "$.timezone"),
    ("tool_call", "arguments a string", _set("arguments", "{}"), "$.arguments"),
    ("tool_call", "call_id missing", _drop("call_id"), "$.call_id"),
    ("tool_result", "ok a string", _set("ok", "true"), "$.ok"),
    ("tool_result", "todos an object", _set("todos", {}), "$.todos"),
    (
        "tool_result",
        "todo status unknown",
        _set("todos", [{"content": "x", "status": "done"}]),
        "$.todos[0].status",
    ),
    (
        "tool_result",
        "todo content empty",
        _set(
            "todos", [{"content": "a", "status": "pending"}, {"content": "", "status": "pending"}]
        ),
        "$.todos[1].content",
    ),
    (
        "tool_result",
        "todo unknown field",
        _set("todos", [{"content": "a", "status": "pending", "done": True}]),
        "$.todos[0].done",
    ),
]


@pytest.mark.parametrize(
    ("kind", "case", "change", "field"), SPECIFIC_CASES, ids=[c[1] for c in SPECIFIC_CASES]
)
def test_malformed_type_specific_field_is_refused_naming_the_field(
    kind: str, case: str, change: Change, field: str
) -> None:
    """Wrong types inside a chat turn, tool call or tool result name the nested field."""
    error = _refused(_changed(EVENTS[kind], change))
    assert error.field == field, case
    assert error.reason is DeadLetterReason.CONTRACT_VIOLATION


@pytest.mark.parametrize(
    "zone",
    [
        "Mars/Olympus_Mons",
        "",
        "asia/shanghai",
        "../../etc/passwd",
        # A file of the host's zoneinfo directory, not an IANA zone: accepting it would
        # make validity depend on the host, and replays must agree (R15).
        "localtime",
    ],
)
def test_unknown_time_zone_is_refused_naming_the_field(zone: str) -> None:
    """A chat turn's `timezone` must be an IANA zone of the pinned tz database."""
    error = _refused(_changed(CHAT_TURN, _set("timezone", zone)))
    assert error.field == "$.timezone"
    assert error.reason is DeadLetterReason.CONTRACT_VIOLATION
    assert repr(zone) in error.message


@pytest.mark.parametrize("zone", ["Asia/Shanghai", "America/New_York", "UTC", "Europe/London"])
def test_known_time_zones_and_an_absent_one_decode(zone: str) -> None:
    """Real IANA zones decode; so does a turn without a zone (the default applies later)."""
    turn = decode_event(json.dumps(_changed(CHAT_TURN, _set("timezone", zone))))
    assert isinstance(turn, ChatTurn)
    assert turn.timezone == zone
    bare = decode_event(json.dumps(_changed(CHAT_TURN, _drop("timezone"))))
    assert isinstance(bare, ChatTurn)
    assert bare.timezone is None


def test_text_over_the_configured_limit_is_refused_naming_the_field() -> None:
    """Text size is a deployment setting: the same turn passes one limit and fails a lower one."""
    # 15 + 20 UTF-8 bytes: the limit counts bytes, not characters.
    text = "我们约定：" + "x" * 20  # noqa: RUF001 - the Chinese full-width colon is the point
    doc = _changed(CHAT_TURN, _set("text", text))
    size = len(text.encode("utf-8"))
    assert isinstance(decode_event(json.dumps(doc), Limits(max_text_bytes=size)), ChatTurn)
    error = _refused(doc, Limits(max_text_bytes=size - 1))
    assert error.field == "$.text"
    assert error.reason is DeadLetterReason.OVERSIZE
    assert str(size - 1) in error.message


def test_default_limit_refuses_text_past_64_kib() -> None:
    """Without configuration, text over 64 KiB is refused as oversize."""
    doc = _changed(CHAT_TURN, _set("text", "a" * (64 * 1024 + 1)))
    error = _refused(doc)
    assert (error.field, error.reason) == ("$.text", DeadLetterReason.OVERSIZE)


def test_arguments_over_the_configured_limit_are_refused_naming_the_field() -> None:
    """Tool-call arguments are bounded by `Limits.max_argument_bytes` (their JSON size)."""
    size = len(msgspec.json.encode(TOOL_CALL["arguments"]))
    assert isinstance(
        decode_event(json.dumps(TOOL_CALL), Limits(max_argument_bytes=size)), ToolCall
    )
    error = _refused(TOOL_CALL, Limits(max_argument_bytes=size - 1))
    assert (error.field, error.reason) == ("$.arguments", DeadLetterReason.OVERSIZE)


def test_todo_snapshot_over_the_configured_limits_is_refused_naming_the_field() -> None:
    """Too many todos name `$.todos`; one oversize item names its index."""
    items = [{"content": f"item {i}", "status": "pending"} for i in range(3)]
    doc = _changed(TOOL_RESULT, _set("todos", items))
    assert isinstance(decode_event(json.dumps(doc), Limits(max_todos=3)), ToolResult)
    error = _refused(doc, Limits(max_todos=2))
    assert (error.field, error.reason) == ("$.todos", DeadLetterReason.OVERSIZE)
    items[2]["content"] = "long item"
    error = _refused(_changed(TOOL_RESULT, _set("todos", items)), Limits(max_todo_content_bytes=8))
    assert (error.field, error.reason) == ("$.todos[2].content", DeadLetterReason.OVERSIZE)


def test_entry_over_the_configured_size_is_refused_before_decoding() -> None:
    """An oversize entry is refused whole (`$`) without parsing it."""
    raw = json.dumps(CHAT_TURN).encode()
    assert isinstance(decode_event(raw, Limits(max_entry_bytes=len(raw))), ChatTurn)
    with pytest.raises(ContractError) as caught:
        decode_event(raw, Limits(max_entry_bytes=len(raw) - 1))
    assert (caught.value.field, caught.value.reason) == ("$", DeadLetterReason.OVERSIZE)


@pytest.mark.parametrize("raw", [b"", b"{", b"\xff\xfe", b'{"type": "chat_turn",}'])
def test_bytes_that_are_not_json_are_undecodable(raw: bytes) -> None:
    """Not JSON at all: the whole entry (`$`) is undecodable."""
    with pytest.raises(ContractError) as caught:
        decode_event(raw)
    assert (caught.value.field, caught.value.reason) == ("$", DeadLetterReason.UNDECODABLE)


@pytest.mark.parametrize("raw", ["[]", "null", '"chat_turn"', "42"])
def test_json_that_is_not_an_object_is_a_contract_violation(raw: str) -> None:
    """Valid JSON of the wrong shape names the document root."""
    with pytest.raises(ContractError) as caught:
        decode_event(raw)
    assert (caught.value.field, caught.value.reason) == ("$", DeadLetterReason.CONTRACT_VIOLATION)


def test_entry_without_the_data_field_names_it() -> None:
    """The entry layout: the event lives in `__data__`; an entry without it is undecodable."""
    with pytest.raises(ContractError) as caught:
        decode_entry({b"body": json.dumps(CHAT_TURN).encode()})
    assert (caught.value.field, caught.value.reason) == ("__data__", DeadLetterReason.UNDECODABLE)


def test_entry_fields_round_trip_through_the_data_field() -> None:
    """What `entry_fields` writes, `decode_entry` reads back (bytes or str fields alike)."""
    turn = decode_event(json.dumps(CHAT_TURN))
    fields = entry_fields(turn)
    assert list(fields) == ["__data__"]
    assert decode_entry({k.encode(): v for k, v in fields.items()}) == turn
    assert decode_entry({k: v.decode() for k, v in fields.items()}) == turn


def test_largest_seq_decodes() -> None:
    """2**53-1 is the largest seq a double (Lua, JavaScript) holds exactly; it is accepted."""
    event = decode_event(json.dumps(_changed(CHAT_TURN, _set("seq", MAX_SEQ))))
    assert event.seq == MAX_SEQ


def test_limits_are_configurable_per_field() -> None:
    """Limits is a plain frozen value: a deployment overrides any size and keeps the rest."""
    limits = Limits(max_text_bytes=10)
    assert limits.max_text_bytes == 10
    assert limits.max_entry_bytes == Limits().max_entry_bytes
    with pytest.raises(AttributeError):
        limits.max_text_bytes = 11  # type: ignore[misc]


@pytest.mark.parametrize(
    "change",
    [_set("type", "x" * 5000), _set("role", "y" * 5000), _set("z" * 3000, 1)],
    ids=["huge tag", "huge enum value", "huge unknown field"],
)
def test_error_text_stays_bounded_for_hostile_input(change: Change) -> None:
    """An error echoes at most a bounded prefix of the input, and still names the field
    first: a hostile entry cannot flood logs or a dead letter's detail."""
    error = _refused(_changed(CHAT_TURN, change))
    assert len(error.field) <= MAX_FIELD_CHARS
    assert len(error.message) <= MAX_MESSAGE_CHARS
    assert len(str(error)) <= MAX_FIELD_CHARS + MAX_MESSAGE_CHARS + 2
    assert error.field.startswith("$.")


def test_deeply_nested_arguments_are_undecodable_not_a_crash() -> None:
    """100,000 nested arrays fit in an entry but not in the interpreter's stack: the
    decoder refuses them as undecodable instead of raising RecursionError (R15: the
    worker never stops on bad input)."""
    nested = "[" * 100_000 + "]" * 100_000
    raw = json.dumps({**TOOL_CALL, "arguments": {"x": 0}}).replace("0}", nested + "}", 1)
    with pytest.raises(ContractError) as caught:
        decode_event(raw)
    assert (caught.value.field, caught.value.reason) == ("$", DeadLetterReason.UNDECODABLE)
