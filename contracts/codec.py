"""Strict decoding of input entries, with errors that name the offending field.

One decoder per type, built once (msgspec's advice). Limits that a deployment
configures (text size, snapshot size, argument size) are checked after decoding,
because msgspec constraints are static.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC
from functools import cache
from importlib import resources
from typing import Any, cast

import msgspec

from contracts.common import Ident, Seq
from contracts.inputs import ChatTurn, InputEvent, TodoItem, ToolCall, ToolResult
from contracts.outputs import DeadLetterReason
from contracts.streams import DATA_FIELD
from contracts.tools import ACCEPT_TOOL_NAME, TODO_WRITE_TOOL_NAME


@dataclass(frozen=True, slots=True)
class Limits:
    """Sizes past which an input is refused. Defaults suit chat; all configurable."""

    max_entry_bytes: int = 256 * 1024
    max_text_bytes: int = 64 * 1024
    max_todos: int = 500
    max_todo_content_bytes: int = 2 * 1024
    max_argument_bytes: int = 4 * 1024
    # The window around an entry's id time (when Redis stored it) that its `ts` must
    # fall in, in seconds: a gateway's clock skew and queueing behind, never a turn
    # stamped decades away (which would expire agreements or overflow deadline
    # arithmetic). Checked only where the entry id is known (`decode_entry(entry_ms=)`).
    max_ts_behind_s: int = 10 * 366 * 86_400
    max_ts_ahead_s: int = 60 * 86_400


DEFAULT_LIMITS = Limits()


# msgspec quotes the offending value in its message, and a field path can be an
# unknown key of any length: both are clipped so one hostile entry cannot flood a log
# line or a dead letter's `detail`.
MAX_FIELD_CHARS = 256
MAX_MESSAGE_CHARS = 512


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


class ContractError(ValueError):
    """An input that violates the wire contract. `field` names where (`$` for the whole)."""

    def __init__(self, field: str, message: str, reason: DeadLetterReason) -> None:
        field = _clip(field, MAX_FIELD_CHARS)
        message = _clip(message, MAX_MESSAGE_CHARS)
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message
        self.reason = reason


_DECODER: msgspec.json.Decoder[InputEvent] = msgspec.json.Decoder(InputEvent)
_DATA_KEY = DATA_FIELD.encode()
_AT_PATH = re.compile(r" - at `(?P<path>[^`]+)`$")
# msgspec names a missing or unknown field in the message, not in the path.
_NAMED = re.compile(r"(?:missing required|contains unknown) field `(?P<name>[^`]+)`")


def _field_of(error: msgspec.ValidationError) -> tuple[str, str]:
    text = str(error)
    message = text
    path = "$"
    at = _AT_PATH.search(text)
    if at:
        path = at.group("path")
        message = text[: at.start()]
    named = _NAMED.search(message)
    if named:
        path = f"{path}.{named.group('name')}"
    return path, message


@cache
def _known_zones() -> frozenset[str]:
    # The zone list of the pinned tzdata package, not whatever the host's zoneinfo
    # directory holds: host files such as `localtime` would make the same entry valid
    # on one worker and a dead letter on another, and replays must agree (R15).
    return frozenset(resources.files("tzdata").joinpath("zones").read_text("utf-8").split())


def _zone_is_known(name: str) -> bool:
    return name in _known_zones()


def _check_limits(event: InputEvent, limits: Limits, raw_bytes: int) -> InputEvent:
    """Refuse what is over a limit, or drop it when accord never reads it (the event
    then goes on without that part: its envelope still moves the session on)."""
    # A decoded string is never longer in UTF-8 than its JSON text in the entry
    # (escapes only lengthen the JSON, and msgspec refuses lone surrogates), so a
    # string check is skipped when the whole entry is within that string's limit.
    # Tool arguments are re-encoded, which can lengthen them (`1e2` -> `100.0`):
    # they are always measured.
    oversize = DeadLetterReason.OVERSIZE
    if isinstance(event, ChatTurn):
        if (
            raw_bytes > limits.max_text_bytes
            and len(event.text.encode("utf-8")) > limits.max_text_bytes
        ):
            raise ContractError("$.text", f"longer than {limits.max_text_bytes} bytes", oversize)
        if event.timezone is not None and not _zone_is_known(event.timezone):
            raise ContractError(
                "$.timezone",
                f"unknown IANA time zone {event.timezone!r}",
                DeadLetterReason.CONTRACT_VIOLATION,
            )
    elif isinstance(event, ToolCall):
        size = len(msgspec.json.encode(event.arguments))
        if size > limits.max_argument_bytes:
            if event.name != ACCEPT_TOOL_NAME:
                # Another tool's arguments (a 5 KB `write_file`) are never read.
                return msgspec.structs.replace(event, arguments={})
            raise ContractError(
                "$.arguments", f"longer than {limits.max_argument_bytes} bytes", oversize
            )
    elif isinstance(event, ToolResult) and event.todos is not None:
        try:
            _check_todos(event.todos, limits, raw_bytes)
        except ContractError:
            if event.name == TODO_WRITE_TOOL_NAME and event.ok:
                raise
            # Only a successful todo_write's snapshot is ever read (R12).
            return msgspec.structs.replace(event, todos=None)
    return event


def check_ts(event: InputEvent, entry_ms: int, limits: Limits = DEFAULT_LIMITS) -> None:
    """Refuse a `ts` outside the window around the entry's id time (`Limits`)."""
    ts_ms = event.ts.timestamp() * 1000
    if ts_ms < entry_ms - limits.max_ts_behind_s * 1000:
        raise ContractError(
            "$.ts",
            f"more than {limits.max_ts_behind_s} s before the entry was stored",
            DeadLetterReason.CONTRACT_VIOLATION,
        )
    if ts_ms > entry_ms + limits.max_ts_ahead_s * 1000:
        raise ContractError(
            "$.ts",
            f"more than {limits.max_ts_ahead_s} s after the entry was stored",
            DeadLetterReason.CONTRACT_VIOLATION,
        )


def _check_todos(todos: list[TodoItem], limits: Limits, raw_bytes: int) -> None:
    oversize = DeadLetterReason.OVERSIZE
    if len(todos) > limits.max_todos:
        raise ContractError("$.todos", f"more than {limits.max_todos} items", oversize)
    if raw_bytes <= limits.max_todo_content_bytes:
        return  # no item's content can be longer than the entry (see _check_limits)
    for index, item in enumerate(todos):
        if len(item.content.encode("utf-8")) > limits.max_todo_content_bytes:
            raise ContractError(
                f"$.todos[{index}].content",
                f"longer than {limits.max_todo_content_bytes} bytes",
                oversize,
            )


def decode_event(data: bytes | str, limits: Limits = DEFAULT_LIMITS) -> InputEvent:
    """Decode one event's JSON document; raise ContractError naming the field."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if len(raw) > limits.max_entry_bytes:
        raise ContractError(
            "$", f"entry longer than {limits.max_entry_bytes} bytes", DeadLetterReason.OVERSIZE
        )
    try:
        event: InputEvent = _DECODER.decode(raw)
    except msgspec.ValidationError as error:
        path, message = _field_of(error)
        raise ContractError(path, message, DeadLetterReason.CONTRACT_VIOLATION) from error
    except msgspec.DecodeError as error:
        raise ContractError("$", f"not JSON: {error}", DeadLetterReason.UNDECODABLE) from error
    except RecursionError as error:
        # A few hundred KiB of `[` nest deeper than the interpreter allows: without this
        # the entry would escape the dead-letter path and poison its consumer.
        raise ContractError(
            "$", "nested too deeply to decode", DeadLetterReason.UNDECODABLE
        ) from error
    event = _check_limits(event, limits, len(raw))
    if event.ts.utcoffset():
        # One canonical form for every stored time: the instant in UTC. A `ts` sent with
        # an offset (`+08:00`) would otherwise be stored with it while a scope is cached
        # and as `Z` after a reload, so a replay would not store the same bytes. The
        # user's zone for deadlines comes from `timezone`, never from this offset.
        event = msgspec.structs.replace(event, ts=event.ts.astimezone(UTC))
    return event


def decode_entry(
    fields: Mapping[bytes, bytes] | Mapping[str, str] | Mapping[str, bytes],
    limits: Limits = DEFAULT_LIMITS,
    entry_ms: int | None = None,
) -> InputEvent:
    """Decode a stream entry: its `__data__` field holds the event's JSON.

    With `entry_ms` (the entry id's time) its `ts` must lie in the window of `limits`.
    """
    event = _decode_fields(fields, limits)
    if entry_ms is not None:
        check_ts(event, entry_ms, limits)
    return event


def _decode_fields(
    fields: Mapping[bytes, bytes] | Mapping[str, str] | Mapping[str, bytes], limits: Limits
) -> InputEvent:
    # The worker's entries come from redis-py with bytes keys: one lookup, not a scan that
    # decodes every key (the scan cost more than the JSON decode on the hot path).
    by_name = cast("Mapping[Any, bytes | str]", fields)
    data = by_name.get(_DATA_KEY)
    if data is not None:
        return decode_event(data, limits)
    for key, value in fields.items():
        name = key.decode("utf-8", "replace") if isinstance(key, bytes) else key
        if name == DATA_FIELD:
            data = value
    if data is None:
        raise ContractError(
            DATA_FIELD, f"entry has no {DATA_FIELD} field", DeadLetterReason.UNDECODABLE
        )
    return decode_event(data, limits)


class Envelope(msgspec.Struct, frozen=True):
    """Who and where an input is, read leniently from a document whose body is refused."""

    agent_id: Ident
    user_id: Ident
    session_id: Ident
    seq: Seq


_ENVELOPE: msgspec.json.Decoder[Envelope] = msgspec.json.Decoder(Envelope)


def decode_envelope(
    fields: Mapping[bytes, bytes] | Mapping[str, str] | Mapping[str, bytes],
    limits: Limits = DEFAULT_LIMITS,
) -> Envelope | None:
    """The envelope of an entry, when its ids and seq are valid whatever the rest is.

    None when there is none: not JSON, over the entry limit, nested past the
    interpreter's depth, or an id or seq that breaks the contract (such values are
    never logged or kept as ids).
    """
    by_name = cast("Mapping[Any, bytes | str]", fields)
    data = by_name.get(_DATA_KEY, by_name.get(DATA_FIELD))
    if data is None:
        return None
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if len(raw) > limits.max_entry_bytes:
        return None
    try:
        return _ENVELOPE.decode(raw)
    except (msgspec.DecodeError, RecursionError):
        return None


def encode(value: msgspec.Struct) -> bytes:
    return msgspec.json.encode(value)


def entry_fields(value: msgspec.Struct) -> dict[str, bytes]:
    """The fields of a stream entry carrying `value` (the one `__data__` field)."""
    return {DATA_FIELD: msgspec.json.encode(value)}
