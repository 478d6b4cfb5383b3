"""The todo delivery adapter and the todo continuity tracking (R11, R12, R13).

It verifies a state update, not the work behind a todo: a successful `todo_write`
result in the binding's session that moves the same continuous item (same content,
same `origin_seq`) from `pending`/`in_progress` to `completed`.

Continuity: the k-th item with a given content in a snapshot continues the k-th item
with that content in the previous successful snapshot; otherwise it starts a new run
with `origin_seq` = this result's seq. So an item missing from one snapshot and back
in a later one is a new item, and a removed-and-re-added item never satisfies a
binding taken before it went away.
"""

from __future__ import annotations

from contracts.common import TodoStatus
from contracts.inputs import ToolResult
from contracts.records import Binding, TodoBinding
from contracts.tools import TODO_WRITE_TOOL_NAME
from core.intents import Proposal
from core.lifecycle.state import SessionState, TrackedTodo

UNFINISHED = frozenset({TodoStatus.PENDING, TodoStatus.IN_PROGRESS})

# What one tracked item costs beyond its content's UTF-8 bytes, at most: msgpack's array
# and string headers (1 + 3), the status (up to 12) and the origin_seq (up to 9). So
# `tracked_bytes` is an upper bound of what the session state stores for its todos.
ITEM_OVERHEAD_BYTES = 25


def track(previous: tuple[TrackedTodo, ...], result: ToolResult) -> tuple[TrackedTodo, ...]:
    """The tracked list after one successful snapshot (see the module docstring)."""
    snapshot = result.todos or ()
    if len(snapshot) == len(previous) and all(
        item.content == was.content for item, was in zip(snapshot, previous, strict=True)
    ):
        # The usual snapshot: the same items in the same order, statuses perhaps moved.
        # The k-th item of a content is then the k-th before it, so each continues the one
        # in its place (kept as it was when its status did not move either).
        return tuple(
            was
            if item.status == was.status
            else TrackedTodo(item.content, item.status, was.origin_seq)
            for item, was in zip(snapshot, previous, strict=True)
        )
    runs: dict[str, list[int]] = {}
    for item in previous:
        runs.setdefault(item.content, []).append(item.origin_seq)
    seen: dict[str, int] = {}
    tracked: list[TrackedTodo] = []
    for written in result.todos or ():
        occurrence = seen.get(written.content, 0)
        seen[written.content] = occurrence + 1
        earlier = runs.get(written.content, [])
        origin = earlier[occurrence] if occurrence < len(earlier) else result.seq
        tracked.append(TrackedTodo(written.content, written.status, origin))
    return tuple(tracked)


def _item_bytes(item: TrackedTodo) -> int:
    return len(item.content.encode()) + ITEM_OVERHEAD_BYTES


def tracked_bytes(todos: tuple[TrackedTodo, ...]) -> int:
    """The stored size of a tracking, counted as an upper bound (ITEM_OVERHEAD_BYTES)."""
    return sum(_item_bytes(item) for item in todos)


def within_bytes(todos: tuple[TrackedTodo, ...], limit: int) -> bool:
    """`tracked_bytes(todos) <= limit`, mostly without encoding a content: a character
    takes at most 4 bytes in UTF-8, so a tracking within the limit at 4 bytes a character
    is within it (every successful todo_write's snapshot is checked)."""
    overhead = ITEM_OVERHEAD_BYTES * len(todos)
    if 4 * sum(len(item.content) for item in todos) + overhead <= limit:
        return True
    return tracked_bytes(todos) <= limit


def capped(
    todos: tuple[TrackedTodo, ...], bound: frozenset[str], limit: int
) -> tuple[TrackedTodo, ...]:
    """The tracking within `limit` bytes, never losing what a binding needs.

    Every item whose content a live binding of the session names is kept, with every
    other item of that content, so the k-th-occurrence continuity of those contents stays
    exact and their delivery can still be verified (R12), even past the limit. The other
    items are kept in snapshot order up to the first that no longer fits: a prefix, so an
    item kept always continues the run it continued. What is left out is not tracked: a
    later proposal cannot bind it (R11) until a snapshot within the limit holds it again,
    as a new item.
    """
    if tracked_bytes(todos) <= limit:
        return todos
    room = limit - tracked_bytes(tuple(item for item in todos if item.content in bound))
    kept: list[TrackedTodo] = []
    full = False
    for item in todos:
        if item.content in bound:
            kept.append(item)
            continue
        full = full or _item_bytes(item) > room
        if not full:
            kept.append(item)
            room -= _item_bytes(item)
    return tuple(kept)


def is_successful_snapshot(result: ToolResult) -> bool:
    # A failed write changes nothing, not even the tracking (R12).
    return result.name == TODO_WRITE_TOOL_NAME and result.ok and result.todos is not None


class TodoAdapter:
    """Binds "mark todo X as completed" proposals and verifies their delivery."""

    def bind(self, proposal: Proposal, session: SessionState) -> Binding | None:
        target = proposal.todo_target
        if target is None:
            # "finish todo X" has no target: the recognizer sets one only for "mark" (R11).
            return None
        matches = [
            item for item in session.todos if item.content == target and item.status in UNFINISHED
        ]
        if len(matches) != 1:
            return None
        return TodoBinding(
            session_id=session.session_id, content=target, origin_seq=matches[0].origin_seq
        )

    def observe(self, session: SessionState, result: ToolResult) -> SessionState:
        if not is_successful_snapshot(result):
            return session
        todos = track(session.todos, result)
        if todos == session.todos:
            return session
        return SessionState(session_id=session.session_id, todos=todos)

    def delivered(self, binding: Binding, before: SessionState, after: SessionState) -> bool:
        if binding.session_id != after.session_id:
            return False

        def status_in(state: SessionState) -> TodoStatus | None:
            for item in state.todos:
                if item.content == binding.content and item.origin_seq == binding.origin_seq:
                    return item.status
            return None

        return status_in(before) in UNFINISHED and status_in(after) == TodoStatus.COMPLETED


TODO_ADAPTER = TodoAdapter()
