"""The todo delivery adapter: continuity tracking, binding and verification (R10-R13)."""

from __future__ import annotations

from datetime import timedelta

import msgspec
from hypothesis import example, given
from hypothesis import strategies as st

from contracts.common import AgreementState, Cause, TodoStatus
from contracts.inputs import TodoItem, ToolResult
from contracts.outputs import StateChanged
from contracts.records import TodoBinding
from core.intents import Acceptance, Proposal
from core.intents import Amendment as AmendmentIntent
from core.lifecycle.reducer import Policy
from core.lifecycle.state import SessionState, TrackedTodo, encode_session
from core.lifecycle.todo import (
    ITEM_OVERHEAD_BYTES,
    TODO_ADAPTER,
    capped,
    track,
    tracked_bytes,
    within_bytes,
)
from tests.support.lifecycle_kit import T0, Conversation, created, only

NOTES = "Organize reading notes"
MARK = Proposal(terms=f'mark todo "{NOTES}" as completed', todo_target=NOTES)


def _result(seq: int, *items: tuple[str, str], ok: bool = True) -> ToolResult:
    return ToolResult(
        agent_id="a",
        user_id="u",
        session_id="s1",
        seq=seq,
        ts=T0,
        call_id=f"c{seq}",
        name="todo_write",
        ok=ok,
        todos=[TodoItem(content, TodoStatus(status)) for content, status in items],
    )


# --- continuity tracking ---


def test_an_item_keeps_the_seq_of_the_snapshot_that_first_held_it() -> None:
    """origin_seq = seq of the first successful snapshot of the item's unbroken run."""
    first = track((), _result(3, (NOTES, "pending")))
    second = track(first, _result(7, (NOTES, "in_progress"), ("Buy milk", "pending")))
    assert second == (
        TrackedTodo(NOTES, TodoStatus.IN_PROGRESS, 3),
        TrackedTodo("Buy milk", TodoStatus.PENDING, 7),
    )


def test_an_item_removed_and_added_again_is_a_new_item_r12() -> None:
    """DESIGN 1: missing from one snapshot and back later gives a new origin_seq."""
    held = track((), _result(1, (NOTES, "pending")))
    gone = track(held, _result(2, ("Other", "pending")))
    back = track(gone, _result(3, (NOTES, "pending")))
    assert [t.origin_seq for t in back if t.content == NOTES] == [3]


def test_duplicate_contents_continue_by_occurrence() -> None:
    """The k-th item of a content continues the k-th one before; an extra one is new."""
    one = track((), _result(1, (NOTES, "pending")))
    two = track(one, _result(4, (NOTES, "completed"), (NOTES, "pending")))
    assert [(t.status, t.origin_seq) for t in two] == [
        (TodoStatus.COMPLETED, 1),
        (TodoStatus.PENDING, 4),
    ]


def _track_by_runs(
    previous: tuple[TrackedTodo, ...], result: ToolResult
) -> tuple[TrackedTodo, ...]:
    """The continuity rule as the module docstring states it, item by item."""
    seen: dict[str, int] = {}
    tracked = []
    for written in result.todos or ():
        earlier = [item.origin_seq for item in previous if item.content == written.content]
        occurrence = seen.get(written.content, 0)
        seen[written.content] = occurrence + 1
        origin = earlier[occurrence] if occurrence < len(earlier) else result.seq
        tracked.append(TrackedTodo(written.content, written.status, origin))
    return tuple(tracked)


_contents = st.sampled_from([NOTES, "Buy milk", "读书笔记"])
_statuses = st.sampled_from(["pending", "in_progress", "completed"])


@given(st.lists(st.lists(st.tuples(_contents, _statuses), max_size=5), min_size=1, max_size=5))
@example([[(NOTES, "pending"), (NOTES, "pending")], [(NOTES, "completed"), (NOTES, "pending")]])
def test_tracking_follows_the_continuity_rule_over_any_snapshots_r12(
    snapshots: list[list[tuple[str, str]]],
) -> None:
    """R12: over any run of snapshots (repeated contents, items gone and back, the same
    items with statuses moved, which `track` handles without its general pass), each
    item continues the k-th earlier item of its content, else starts at its own seq."""
    tracked: tuple[TrackedTodo, ...] = ()
    for seq, items in enumerate(snapshots, start=1):
        result = _result(seq, *items)
        expected = _track_by_runs(tracked, result)
        tracked = track(tracked, result)
        assert tracked == expected
    # A snapshot that repeats the last one exactly keeps the tracking as it was.
    again = _result(len(snapshots) + 1, *snapshots[-1])
    assert track(tracked, again) == tracked


def test_failed_or_foreign_results_do_not_touch_the_tracking_r12() -> None:
    """A failed todo_write, another tool's result, or one with no snapshot change nothing."""
    session = SessionState(session_id="s1", todos=(TrackedTodo(NOTES, TodoStatus.PENDING, 1),))
    failed = _result(2, (NOTES, "completed"), ok=False)
    other = msgspec.structs.replace(_result(3, (NOTES, "completed")), name="bash")
    no_snapshot = msgspec.structs.replace(_result(4), todos=None)
    same = _result(5, (NOTES, "pending"))
    for result in (failed, other, no_snapshot, same):
        assert TODO_ADAPTER.observe(session, result) is session


# --- binding (R11) ---


def _session(*items: tuple[str, TodoStatus, int]) -> SessionState:
    return SessionState(session_id="s1", todos=tuple(TrackedTodo(*item) for item in items))


def test_mark_proposal_binds_the_unique_unfinished_item_r11() -> None:
    for status in (TodoStatus.PENDING, TodoStatus.IN_PROGRESS):
        binding = TODO_ADAPTER.bind(MARK, _session((NOTES, status, 12)))
        assert binding == TodoBinding(session_id="s1", content=NOTES, origin_seq=12)


def test_no_binding_without_a_unique_unfinished_exact_match_r11() -> None:
    """Completed only, two unfinished, a near match or no target: no binding."""
    unbound = [
        (MARK, _session((NOTES, TodoStatus.COMPLETED, 1))),
        (MARK, _session((NOTES, TodoStatus.PENDING, 1), (NOTES, TodoStatus.IN_PROGRESS, 2))),
        (MARK, _session((NOTES.lower(), TodoStatus.PENDING, 1))),
        (MARK, _session()),
        (Proposal(terms=f"finish todo {NOTES}"), _session((NOTES, TodoStatus.PENDING, 1))),
    ]
    for proposal, session in unbound:
        assert TODO_ADAPTER.bind(proposal, session) is None


def test_a_completed_duplicate_does_not_prevent_binding_the_unfinished_one_r11() -> None:
    session = _session((NOTES, TodoStatus.COMPLETED, 1), (NOTES, TodoStatus.PENDING, 5))
    binding = TODO_ADAPTER.bind(MARK, session)
    assert binding is not None
    assert binding.origin_seq == 5


# --- verification through the reducer (R12, R13) ---


def _bound_open_agreement(talk: Conversation, proposal: Proposal = MARK) -> str:
    talk.tool_result([(NOTES, "pending"), ("Buy milk", "pending")])
    rid = created(talk.turn(proposal))
    record = talk.record(rid)
    assert record is not None
    assert record.binding == TodoBinding(session_id="s1", content=NOTES, origin_seq=1)
    talk.agent_accepts(rid)
    talk.turn(Acceptance())
    assert talk.state_of(rid) == AgreementState.OPEN
    return rid


def test_completing_the_bound_item_fulfils_the_open_agreement_r12() -> None:
    talk = Conversation()
    rid = _bound_open_agreement(talk)
    step = talk.tool_result([(NOTES, "completed"), ("Buy milk", "pending")])
    change = only(step.events, StateChanged)
    assert (change.record_id, change.cause) == (rid, Cause.DELIVERY_VERIFIED)
    assert (change.from_state, change.to_state) == (AgreementState.OPEN, AgreementState.FULFILLED)
    assert change.provenance.call_id == "call-s1-5"
    assert step.session_changed
    assert talk.record(rid) is None


def test_in_progress_then_completed_fulfils_r12() -> None:
    talk = Conversation()
    rid = _bound_open_agreement(talk)
    assert talk.tool_result([(NOTES, "in_progress")]).events == ()
    talk.tool_result([(NOTES, "completed")])
    assert talk.state_of(rid) == AgreementState.FULFILLED


def test_failed_write_another_item_or_another_session_does_not_fulfil_r12() -> None:
    talk = Conversation()
    rid = _bound_open_agreement(talk)
    assert talk.tool_result([(NOTES, "completed")], ok=False).events == ()
    assert talk.tool_result([(NOTES, "pending"), ("Buy milk", "completed")]).events == ()
    assert talk.tool_result([(NOTES, "pending")], session="s2").events == ()
    assert talk.tool_result([(NOTES, "completed")], session="s2").events == ()
    assert talk.tool_result([(NOTES, "completed")], name="bash").events == ()
    assert talk.state_of(rid) == AgreementState.OPEN


def test_removed_and_re_added_item_does_not_fulfil_r12() -> None:
    talk = Conversation()
    rid = _bound_open_agreement(talk)
    talk.tool_result([("Buy milk", "pending")])
    talk.tool_result([(NOTES, "pending"), ("Buy milk", "pending")])
    step = talk.tool_result([(NOTES, "completed"), ("Buy milk", "pending")])
    assert step.events == ()
    assert step.session_changed
    assert talk.state_of(rid) == AgreementState.OPEN


def test_completion_before_both_acceptances_is_not_delivery_r12() -> None:
    """Delivery counts only once the record is open: a proposal is not an agreement."""
    talk = Conversation()
    talk.tool_result([(NOTES, "pending")])
    rid = created(talk.turn(MARK))
    assert talk.tool_result([(NOTES, "completed")]).events == ()
    talk.agent_accepts(rid)
    talk.turn(Acceptance())
    assert talk.tool_result([(NOTES, "completed")]).events == ()
    assert talk.state_of(rid) == AgreementState.OPEN


def test_late_delivery_fulfils_an_expired_agreement_and_keeps_its_history_r13() -> None:
    talk = Conversation()
    deadline = T0 + timedelta(hours=1)
    rid = _bound_open_agreement(talk, msgspec.structs.replace(MARK, deadline_at=deadline))
    talk.advance(hours=2)
    talk.sweep()
    record = talk.record(rid)
    assert record is not None  # an expired agreement with a binding stays live (R13)
    assert record.state == AgreementState.EXPIRED
    assert talk.view().current_agreements == ()
    step = talk.tool_result([(NOTES, "completed"), ("Buy milk", "pending")])
    change = only(step.events, StateChanged)
    assert (change.from_state, change.to_state) == (
        AgreementState.EXPIRED,
        AgreementState.FULFILLED,
    )
    states = [e.to_state for e in talk.changes_of(rid)]
    assert states[-2:] == [AgreementState.EXPIRED, AgreementState.FULFILLED]
    assert [e.revision for e in talk.changes_of(rid)] == [1, 2, 3, 4, 5]


def test_late_delivery_in_the_same_step_as_lazy_expiry_r13() -> None:
    """No sweep ran: the todo write first expires the record (at its deadline), then fulfils."""
    talk = Conversation()
    deadline = T0 + timedelta(hours=1)
    rid = _bound_open_agreement(talk, msgspec.structs.replace(MARK, deadline_at=deadline))
    talk.advance(hours=2)
    step = talk.tool_result([(NOTES, "completed")])
    changes = [e for e in step.events if isinstance(e, StateChanged)]
    assert [(e.cause, e.at) for e in changes] == [
        (Cause.DEADLINE_REACHED, deadline),
        (Cause.DELIVERY_VERIFIED, talk.now),
    ]
    assert talk.state_of(rid) == AgreementState.FULFILLED


def test_a_proposal_that_expired_unaccepted_is_never_fulfilled_r13() -> None:
    """Late delivery closes an expired *agreement*; an expired proposal never became one,
    so it leaves the live state at expiry and a later todo write does nothing."""
    talk = Conversation()
    talk.tool_result([(NOTES, "pending")])
    proposal = msgspec.structs.replace(MARK, deadline_at=T0 + timedelta(hours=1))
    rid = created(talk.turn(proposal))
    talk.agent_accepts(rid)
    talk.advance(hours=2)
    step = talk.tool_result([(NOTES, "completed")])
    assert [e.to_state for e in step.events if isinstance(e, StateChanged)] == [
        AgreementState.EXPIRED
    ]
    assert talk.record(rid) is None


# --- the stored tracking's byte limit (Policy.max_todo_state_bytes) ---


def _items(*contents: str, status: str = "pending") -> list[tuple[str, str]]:
    return [(content, status) for content in contents]


def test_the_tracking_is_kept_whole_up_to_its_limit_and_cut_one_byte_past() -> None:
    """An item counts its content's UTF-8 bytes plus ITEM_OVERHEAD_BYTES; at the limit
    nothing is left out, one byte below it the last item is."""
    todos = track((), _result(1, ("读书笔记", "pending"), ("Buy milk", "completed")))
    size = tracked_bytes(todos)
    assert size == len("读书笔记".encode()) + len(b"Buy milk") + 2 * ITEM_OVERHEAD_BYTES
    assert capped(todos, frozenset(), size) == todos
    assert capped(todos, frozenset(), size - 1) == todos[:1]


@given(
    st.lists(st.text(max_size=12), max_size=6).map(
        lambda contents: tuple(TrackedTodo(c, TodoStatus.PENDING, 1) for c in contents)
    ),
    st.integers(0, 400),
)
def test_the_quick_limit_check_agrees_with_the_count_r12(
    todos: tuple[TrackedTodo, ...], limit: int
) -> None:
    """R12 (the tracking that verifies a delivery is kept within its byte limit):
    `within_bytes` skips encoding when 4 bytes a character fit, for every successful
    snapshot; its answer is the count's, for any text (astral characters take 4 bytes)."""
    assert within_bytes(todos, limit) == (tracked_bytes(todos) <= limit)


def test_the_count_bounds_what_the_session_state_stores() -> None:
    """The upper bound holds for the widest status and origin_seq: the stored session
    state grows by no more than the counted bytes (and the list's own header, which
    grows by at most 4 bytes from an empty list)."""
    widest = tuple(TrackedTodo("x" * 300, TodoStatus.IN_PROGRESS, 2**63 - 1) for _ in range(50))
    empty = len(encode_session(SessionState(session_id="s1")))
    stored = len(encode_session(SessionState(session_id="s1", todos=widest)))
    assert stored - empty <= tracked_bytes(widest) + 4


def test_past_the_limit_the_rest_is_cut_at_the_first_item_that_does_not_fit() -> None:
    """The unbound items are kept as a prefix: a small item after one that did not fit
    is left out too, so a kept item always continues its own run. Bound items are kept
    whatever the limit, even 0."""
    todos = track((), _result(1, *_items("a", "b" * 100, "c")))
    limit = tracked_bytes(todos[:1]) + ITEM_OVERHEAD_BYTES + 1
    assert [t.content for t in capped(todos, frozenset(), limit)] == ["a"]
    assert [t.content for t in capped(todos, frozenset({"c"}), 0)] == ["c"]


def test_past_the_limit_bound_items_stay_tracked_and_are_still_delivered_r12() -> None:
    """R12: a write over the limit keeps the item an open agreement is bound to (and
    every item of its content) and leaves out the rest from the first that does not
    fit; completing the bound item in a later write over the limit still fulfils the
    agreement."""
    fillers = [f"filler {n}" for n in range(10)]
    limit = 2 * (len(NOTES) + ITEM_OVERHEAD_BYTES) + len(fillers[0]) + ITEM_OVERHEAD_BYTES
    talk = Conversation(policy=Policy(max_todo_state_bytes=limit))
    rid = _bound_open_agreement(talk)
    talk.tool_result([*_items(*fillers), (NOTES, "in_progress"), (NOTES, "pending")])
    tracked = [t.content for t in talk.sessions["s1"].todos]
    assert tracked == [fillers[0], NOTES, NOTES]
    talk.tool_result([(NOTES, "in_progress"), *_items("x" * limit)])
    assert [t.content for t in talk.sessions["s1"].todos] == [NOTES]
    step = talk.tool_result([*_items(*fillers), (NOTES, "completed"), (NOTES, "pending")])
    change = only(step.events, StateChanged)
    assert (change.record_id, change.cause) == (rid, Cause.DELIVERY_VERIFIED)


def test_an_item_left_out_cannot_be_bound_until_a_write_within_the_limit_r11() -> None:
    """R11: a proposal binds only what the tracking holds; an item left out past the
    limit gets no binding, and a later write within the limit tracks it again as a new
    item (its own seq as origin_seq), which a proposal then binds."""
    talk = Conversation(policy=Policy(max_todo_state_bytes=ITEM_OVERHEAD_BYTES + len(NOTES)))
    talk.tool_result([("Buy milk", "pending"), (NOTES, "pending")])
    assert [t.content for t in talk.sessions["s1"].todos] == ["Buy milk"]
    unbound = talk.record(created(talk.turn(MARK)))
    assert unbound is not None
    assert unbound.binding is None
    talk.tool_result([(NOTES, "pending")])
    bound = talk.record(created(talk.turn(MARK)))
    assert bound is not None
    assert bound.binding == TodoBinding(session_id="s1", content=NOTES, origin_seq=3)


def test_a_pending_amendments_binding_keeps_its_item_past_the_limit_r11_r17() -> None:
    """R17: an amendment brings its own binding; its item stays tracked past the limit,
    while the items of another session's bindings are not kept for this one."""
    limit = len(NOTES) + len("Buy milk") + 2 * ITEM_OVERHEAD_BYTES
    talk = Conversation(policy=Policy(max_todo_state_bytes=limit))
    talk.tool_result([(NOTES, "pending"), ("Buy milk", "pending")])
    talk.tool_result([(NOTES, "pending")], session="s2")
    rid = created(talk.turn(Proposal(terms="plan first")))
    talk.agent_accepts(rid)
    talk.turn(Acceptance())
    amended = talk.turn(AmendmentIntent(terms=MARK.terms, todo_target=NOTES))
    pending = only(amended.events, StateChanged).amendment
    assert pending is not None
    assert pending.binding == TodoBinding(session_id="s1", content=NOTES, origin_seq=1)
    talk.tool_result([("Buy milk", "pending"), (NOTES, "pending"), ("x" * 50, "pending")])
    assert [t.content for t in talk.sessions["s1"].todos] == ["Buy milk", NOTES]
    talk.tool_result([("x" * 50, "pending"), (NOTES, "pending")], session="s2")
    assert [t.content for t in talk.sessions["s2"].todos] == ["x" * 50]
