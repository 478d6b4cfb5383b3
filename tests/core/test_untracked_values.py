"""The values built per input are not tracked by the garbage collector (worker/gc_tuning.py).

Decoded inputs, the gate's arrivals, the core's steps and the states the worker caches
are msgspec Structs declared `gc=False`. That is safe only because they are immutable
trees that hold no reference back to themselves, and worth it because the worker builds
them per entry and caches thousands: tracked, they set off about half its collections
(docs/performance.md, "Settings that trade memory for speed"). These tests keep them untracked,
on real inputs (the bench workload's turns, tool calls and todo snapshots) and on a whole
agreement flow through the core.
"""

from __future__ import annotations

import gc
import json

from accord_harness.bench.workload import build

from contracts.codec import decode_event
from contracts.inputs import ToolResult
from core.intents import Acceptance, Proposal
from core.lifecycle.state import decode_scope, decode_session, encode_scope, encode_session
from store.gate import Arrival
from tests.support.lifecycle_kit import Conversation, created


def test_every_decoded_input_and_its_todo_items_are_untracked() -> None:
    """A chat turn, a tool call (its arguments a JSON object) and a todo snapshot, as the
    gateway writes them: none is tracked, nor is an arrival holding one."""
    workload = build(sessions=20, blocks=2, partitions=1)
    kinds = set()
    for document in workload.documents:
        data = json.dumps(document).encode()
        event = decode_event(data)
        kinds.add(type(event).__name__)
        assert not gc.is_tracked(event), type(event).__name__
        if isinstance(event, ToolResult):
            assert not any(gc.is_tracked(item) for item in event.todos or ())
        assert not gc.is_tracked(Arrival("chat-turn:{0}", "1-0", event, data))
    assert kinds == {"ChatTurn", "ToolCall", "ToolResult"}


def test_the_cores_steps_and_states_are_untracked_through_a_whole_flow_r12() -> None:
    """R12's flow (propose with a todo target, both accept, the todo completed): every
    step, scope and session the core builds is untracked, and so are the states decoded
    from what the store keeps; closed records too."""
    talk = Conversation()
    talk.tool_result([("Organize reading notes", "pending")])
    rid = created(
        talk.turn(
            Proposal(
                terms='mark todo "Organize reading notes" as completed',
                todo_target="Organize reading notes",
            )
        )
    )
    talk.agent_accepts(rid)
    talk.turn(Acceptance())
    step = talk.tool_result([("Organize reading notes", "completed")])
    assert step.scope_changed, "the delivery closed the agreement"
    assert step.scope.closed, "the fulfilled agreement joined the closed list"
    for value in (step, step.scope, step.session, *step.scope.closed):
        assert not gc.is_tracked(value), type(value).__name__
    # The records, their history, evidence and acceptances (cached in scope states).
    assert step.records
    for record in step.records:
        parts: list[object] = [record, record.acceptances, record.binding, *record.history]
        parts += [entry.evidence for entry in record.history]
        for part in parts:
            assert not gc.is_tracked(part), type(part).__name__
    assert not gc.is_tracked(decode_scope(encode_scope(step.scope)))
    assert not gc.is_tracked(decode_session(encode_session(step.session)))
