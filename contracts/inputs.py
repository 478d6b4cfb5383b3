"""Input events: what the chat gateway XADDs to `chat-turn`, `tool-call`, `tool-result`.

Each carries the scope (`agent_id`, `user_id`), the session and its per-session `seq`
(shared across the three streams: 1, 2, 3, ... with no gaps by contract) and `ts`.
The tag field `type` tells the three apart, so one decoder reads any stream.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from contracts.common import Ident, Instant, Role, Seq, TodoStatus, Traceparent

# `gc=False`: an input is decoded from one JSON document, a tree that no code mutates,
# so it can be in no reference cycle, and the garbage collector need not track it.
# The worker decodes one per entry: tracked, they set off most of its collections
# (docs/performance.md, "Settings that trade memory for speed"; worker/gc_tuning.py).
_INPUT = {
    "tag_field": "type",
    "frozen": True,
    "kw_only": True,
    "forbid_unknown_fields": True,
    "gc": False,
}
# Deliberately repeated: each wire type spells out its fields (the shared ones too)
# rather than inheriting them, so the struct reads as its schema does (contracts/schemas).


class TodoItem(msgspec.Struct, frozen=True, forbid_unknown_fields=True, gc=False):  # see _INPUT
    """One item of a session's todo list, as the todo tool reports it."""

    content: Annotated[str, msgspec.Meta(min_length=1)]
    status: TodoStatus


class ChatTurn(msgspec.Struct, tag="chat_turn", **_INPUT):
    """A turn of the conversation; only `user` turns can propose, confirm or cancel (R1)."""

    agent_id: Ident
    user_id: Ident
    session_id: Ident
    seq: Seq
    ts: Instant
    role: Role
    text: str
    message_id: Ident
    # The user's IANA time zone when the gateway knows it; checked against tzdata.
    timezone: str | None = None
    # The gateway's span when it wrote this input (W3C trace context); None: untraced.
    traceparent: Traceparent | None = None


class ToolCall(msgspec.Struct, tag="tool_call", **_INPUT):
    """A tool call the model made; `soul_agreement_accept` is the agent's acceptance (R3)."""

    agent_id: Ident
    user_id: Ident
    session_id: Ident
    seq: Seq
    ts: Instant
    call_id: Ident
    name: Ident
    # Kept as a plain JSON object: malformed `soul_agreement_accept` arguments are a
    # rejection the model must hear about (R3), not an undecodable entry.
    arguments: dict[str, Any]
    # The gateway's span when it wrote this input (W3C trace context); None: untraced.
    traceparent: Traceparent | None = None


class ToolResult(msgspec.Struct, tag="tool_result", **_INPUT):
    """A tool's result; a successful `todo_write` carries the session's todo list (R12)."""

    agent_id: Ident
    user_id: Ident
    session_id: Ident
    seq: Seq
    ts: Instant
    call_id: Ident
    name: Ident
    ok: bool
    # For `todo_write`: the session's whole todo list after the write.
    todos: list[TodoItem] | None = None
    # The gateway's span when it wrote this input (W3C trace context); None: untraced.
    traceparent: Traceparent | None = None


InputEvent = ChatTurn | ToolCall | ToolResult

# Which stream each input type travels on (the family name; see contracts.streams).
INPUT_STREAM_OF: dict[type[msgspec.Struct], str] = {
    ChatTurn: "chat-turn",
    ToolCall: "tool-call",
    ToolResult: "tool-result",
}
