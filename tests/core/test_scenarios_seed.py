# ruff: noqa: RUF001 - real Chinese turns use full-width punctuation
"""Every paragraph of the seed (`seed/agreements.md`) as an executable scenario.

Each scenario runs twice, in English and in Chinese: real user and assistant turns go
through the real recognizer (`core.interpret`) and the pure lifecycle, as the
worker runs them, with tool calls and todo results as the gateway writes them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

import pytest

from contracts.common import Cause, Role
from contracts.outputs import (
    ClarificationKind,
    ClarificationRequested,
    StateChanged,
    ToolOutcome,
)
from contracts.records import Acceptances, TodoBinding
from contracts.tools import ACCEPT_TOOL_NAME, RejectionReason
from tests.support.lifecycle_kit import (
    CANCELLED,
    EXPIRED,
    FULFILLED,
    OPEN,
    PROPOSED,
    Conversation,
    created,
    only,
)


@dataclass(frozen=True)
class Phrasebook:
    plan: str  # the seed's own proposal example
    plan_terms: str
    tea: str
    accept: str
    accept_tea: str
    cancel: str
    cancel_tea: str
    assistant_okay: str
    user_okay: tuple[str, ...]
    within_two_hours: str
    todo: str
    mark: str
    mark_within_two_hours: str
    finish: str
    done: str
    text_claim: str
    not_agreements: tuple[str, ...]


# EN and ZH are parallel on purpose: the same scenarios, said in each language, so the
# two phrasebooks have one shape line by line (a duplicate scan pairs them; that is the
# point: every scenario below runs once per phrasebook; CONTRIBUTING.md, "Repeated shapes").
EN = Phrasebook(
    plan="Let's agree: next time we discuss a plan, start with the conclusion "
    "and then explain the reasons.",
    plan_terms="next time we discuss a plan, start with the conclusion "
    "and then explain the reasons",
    tea="Let's agree: always offer green tea first.",
    accept="I accept this agreement.",
    accept_tea='I accept this agreement: "green tea"',
    cancel="Cancel this agreement.",
    cancel_tea='Cancel this agreement "green tea"',
    assistant_okay="Okay, agreed. I accept this agreement.",
    user_okay=("ok", "sure", "Okay, agreed."),
    within_two_hours="Let's agree: within 2 hours, send me a summary of the meeting.",
    todo="Organize reading notes",
    mark='Let\'s agree: next time mark todo "Organize reading notes" as completed.',
    mark_within_two_hours='Let\'s agree: mark todo "Organize reading notes" as completed '
    "within 2 hours.",
    finish="Let's agree: finish todo Organize reading notes.",
    done="Done! I finished the reading notes.",
    text_claim="I marked Organize reading notes as completed.",
    not_agreements=(
        "I'll send it tomorrow.",
        "Remember that I like tea.",
        "Please organize my reading notes now.",
    ),
)

# Line by line the same fields as EN, deliberately (see above).
ZH = Phrasebook(
    plan="我们约定：下次讨论计划时，先说结论再解释原因。",
    plan_terms="下次讨论计划时，先说结论再解释原因",
    tea="我们约定：总是先推荐绿茶。",
    accept="我接受这个约定。",
    accept_tea="我接受这个约定「绿茶」",
    cancel="取消这个约定。",
    cancel_tea="取消这个约定「绿茶」",
    assistant_okay="好的，同意。我接受这个约定。",
    user_okay=("好的", "行", "好的，同意。"),
    within_two_hours="我们约定：2小时内发给我一份会议总结。",
    todo="整理读书笔记",
    mark="我们约定：下次把待办「整理读书笔记」标记为完成。",
    mark_within_two_hours="我们约定：两小时内把待办「整理读书笔记」标记为完成。",
    finish="我们约定：完成待办整理读书笔记。",
    done="完成了！读书笔记整理好了。",
    text_claim="我已经把整理读书笔记标记为完成了。",
    not_agreements=("我明天发给你。", "记住我喜欢喝茶。", "现在帮我整理读书笔记。"),
)

LANGUAGES = pytest.mark.parametrize("say", [EN, ZH], ids=["en", "zh"])


def _agree(talk: Conversation, say: Phrasebook, text: str) -> str:
    """Proposal, the agent's acceptance as offered, the user's confirmation: open."""
    return _accept_both(talk, say, created(talk.say(text)))


def _accept_both(talk: Conversation, say: Phrasebook, rid: str) -> str:
    assert talk.agent_accepts(rid).accepted
    talk.say(say.accept)
    assert talk.state_of(rid) == OPEN
    return rid


def _agree_on_the_todo(talk: Conversation, say: Phrasebook, text: str) -> str:
    """`_agree` on a mark-todo proposal after a snapshot with the todo pending: bound."""
    talk.tool_result([(say.todo, "pending")])
    return _agree(talk, say, text)


# --- "The bridge handles a narrow set of explicit future-agreement phrases" ---


@LANGUAGES
def test_promises_saved_facts_and_one_off_tasks_are_not_agreements_r1(say: Phrasebook) -> None:
    talk = Conversation()
    for text in say.not_agreements:
        assert talk.say(text).events == ()
    assert talk.scope.records == ()


# --- "Proposal and acceptance", items 1-3 ---


@LANGUAGES
def test_proposal_then_agent_then_user_opens_r2_r3_r5(say: Phrasebook) -> None:
    """1: proposed with no acceptance; 2: the agent's tool call is only its acceptance;
    3: the user's confirmation makes both, and the record is open."""
    talk = Conversation()
    step = talk.say(say.plan)
    change = only(step.events, StateChanged)
    assert (change.to_state, change.revision, change.acceptances) == (PROPOSED, 1, Acceptances())
    assert change.terms == say.plan_terms
    outcome = talk.agent_accepts(change.record_id, 1)
    assert (outcome.accepted, outcome.state, outcome.current_revision) == (True, PROPOSED, 2)
    assert talk.view().pending_proposals[0].status == "awaiting_user"
    opened = only(talk.say(say.accept).events, StateChanged)
    assert (opened.from_state, opened.to_state, opened.revision) == (PROPOSED, OPEN, 3)
    assert [c.terms for c in talk.view().current_agreements] == [say.plan_terms]


@LANGUAGES
def test_user_then_agent_opens_r5(say: Phrasebook) -> None:
    talk = Conversation()
    rid = created(talk.say(say.plan))
    confirmed = only(talk.say(say.accept).events, StateChanged)
    assert (confirmed.to_state, confirmed.acceptances) == (
        PROPOSED,
        Acceptances(agent=False, user=True),
    )
    assert talk.view().pending_proposals[0].status == "awaiting_agent"
    outcome = talk.agent_accepts(rid, 2)
    assert (outcome.accepted, outcome.state, outcome.current_revision) == (True, OPEN, 3)


# --- "The acceptance tool takes only the existing target and revision" ---


@LANGUAGES
def test_the_tool_takes_only_target_and_revision_r3(say: Phrasebook) -> None:
    talk = Conversation()
    rid = created(talk.say(say.plan))
    step = talk.tool_call(
        ACCEPT_TOOL_NAME, {"record_id": rid, "expected_revision": 1, "fulfilled": True}
    )
    assert only(step.events, ToolOutcome).reason == RejectionReason.MALFORMED_ARGUMENTS
    assert talk.state_of(rid) == PROPOSED


# --- "Use the actual current values from the proposal ..." ---


@LANGUAGES
def test_stale_revision_needs_a_fresh_view_r3(say: Phrasebook) -> None:
    """The user confirmed first, so revision 1 is stale; the view offers revision 2."""
    talk = Conversation()
    rid = created(talk.say(say.plan))
    talk.say(say.accept)
    stale = talk.agent_accepts(rid, 1)
    assert (stale.accepted, stale.reason, stale.current_revision) == (
        False,
        RejectionReason.STALE_REVISION,
        2,
    )
    fresh = talk.view().pending_proposals[0]
    assert talk.agent_accepts(fresh.record_id, fresh.revision).accepted
    assert talk.state_of(rid) == OPEN


@LANGUAGES
def test_assistant_okay_is_not_acceptance_and_user_okay_resolves_nothing_r3_r4(
    say: Phrasebook,
) -> None:
    talk = Conversation()
    rid = created(talk.say(say.plan))
    assert talk.say(say.assistant_okay, role=Role.ASSISTANT).events == ()
    for text in say.user_okay:
        assert talk.say(text).events == ()
    assert talk.changes_of(rid)[-1].revision == 1
    assert talk.view().pending_proposals[0].status == "awaiting_both"


@LANGUAGES
def test_ambiguous_confirmation_stays_unresolved_r4(say: Phrasebook) -> None:
    talk = Conversation()
    plan, tea = created(talk.say(say.plan)), created(talk.say(say.tea))
    step = talk.say(say.accept)
    asked = only(step.events, ClarificationRequested)
    assert asked.kind == ClarificationKind.CONFIRMATION
    assert {c.record_id for c in asked.candidates} == {plan, tea}
    assert not step.scope_changed
    resolved = only(talk.say(say.accept_tea).events, StateChanged)
    assert (resolved.record_id, resolved.cause) == (tea, Cause.USER_ACCEPTED)


@LANGUAGES
def test_replies_describe_committed_state_a_proposal_is_not_agreed_r6(say: Phrasebook) -> None:
    """A proposal the agent accepted is still pending: never current memory."""
    talk = Conversation()
    rid = created(talk.say(say.plan))
    talk.agent_accepts(rid)
    view = talk.view()
    assert view.current_agreements == ()
    assert [(p.record_id, p.status) for p in view.pending_proposals] == [(rid, "awaiting_user")]


# --- "Only open, unexpired agreements count as current agreement memory ..." ---


@LANGUAGES
def test_memory_is_open_unexpired_agreements_and_pending_is_apart_r6_r7(say: Phrasebook) -> None:
    talk = Conversation()
    plan = _agree(talk, say, say.plan)
    soon = _agree(talk, say, say.within_two_hours)
    tea = created(talk.say(say.tea))
    view = talk.view()
    assert [c.record_id for c in view.current_agreements] == [plan, soon]
    assert [p.record_id for p in view.pending_proposals] == [tea]
    talk.advance(hours=2)
    assert [c.record_id for c in talk.view().current_agreements] == [plan]


# --- "Cancellation, deadlines and completion" ---


@LANGUAGES
def test_cancellation_closes_the_identified_current_agreement_r8(say: Phrasebook) -> None:
    talk = Conversation()
    rid = _agree(talk, say, say.plan)
    closed = only(talk.say(say.cancel).events, StateChanged)
    assert (closed.record_id, closed.from_state, closed.to_state) == (rid, OPEN, CANCELLED)
    assert talk.view().current_agreements == ()


@LANGUAGES
def test_cancellation_with_two_possible_targets_asks_instead_of_choosing_r8(
    say: Phrasebook,
) -> None:
    talk = Conversation()
    plan = _agree(talk, say, say.plan)
    tea = _agree(talk, say, say.tea)
    step = talk.say(say.cancel)
    asked = only(step.events, ClarificationRequested)
    assert asked.kind == ClarificationKind.CANCELLATION
    assert {c.record_id for c in asked.candidates} == {plan, tea}
    assert not step.scope_changed
    assert only(talk.say(say.cancel_tea).events, StateChanged).record_id == tea
    assert talk.state_of(plan) == OPEN


@LANGUAGES
def test_a_deadline_expires_the_record_and_expiry_is_not_fulfilment_r9(say: Phrasebook) -> None:
    talk = Conversation()
    step = talk.say(say.within_two_hours)
    proposal = only(step.events, StateChanged)
    assert proposal.deadline_at == talk.now + timedelta(hours=2)
    rid = _accept_both(talk, say, proposal.record_id)
    talk.advance(hours=1, minutes=59)
    assert [c.record_id for c in talk.view().current_agreements] == [rid]
    talk.advance(minutes=1)
    assert talk.view().current_agreements == ()  # the view filters before any sweep
    expired = only(talk.sweep().events, StateChanged)
    assert (expired.to_state, expired.cause, expired.at) == (
        EXPIRED,
        Cause.DEADLINE_REACHED,
        proposal.deadline_at,
    )
    assert FULFILLED not in {c.to_state for c in talk.changes_of(rid)}


@LANGUAGES
def test_a_deadline_in_the_terms_schedules_nothing_but_expiry_r9(say: Phrasebook) -> None:
    """A future time in the terms adds no reminder or task: only the record and its
    deadline for the expiry transition."""
    talk = Conversation()
    step = talk.say(say.within_two_hours)
    assert [type(e) for e in step.events] == [StateChanged]


@LANGUAGES
def test_no_delivery_from_tool_success_done_idle_time_or_free_text_r10(say: Phrasebook) -> None:
    talk = Conversation()
    rid = _agree_on_the_todo(talk, say, say.mark)
    talk.tool_result([("Write report", "completed")], name="bash")
    talk.say(say.done, role=Role.ASSISTANT)
    talk.say(say.done)
    talk.say(say.text_claim)
    talk.advance(days=30)
    talk.sweep()
    assert talk.state_of(rid) == OPEN
    assert [c.record_id for c in talk.view().current_agreements] == [rid]


# --- "Todo-state delivery adapter" ---


@LANGUAGES
def test_verified_todo_delivery_fulfils_in_the_original_session_r11_r12(say: Phrasebook) -> None:
    """The seed's todo scenario end to end; the binding comes from the real snapshot."""
    talk = Conversation()
    talk.tool_result([("Buy milk", "completed"), (say.todo, "pending")])
    talk.tool_result([("Buy milk", "completed"), (say.todo, "in_progress")])
    rid = _agree(talk, say, say.mark)
    record = talk.record(rid)
    assert record is not None
    assert record.binding == TodoBinding(session_id="s1", content=say.todo, origin_seq=1)
    step = talk.tool_result([("Buy milk", "completed"), (say.todo, "completed")])
    done = only(step.events, StateChanged)
    assert (done.from_state, done.to_state, done.cause) == (
        OPEN,
        FULFILLED,
        Cause.DELIVERY_VERIFIED,
    )
    assert talk.view().current_agreements == ()


@LANGUAGES
def test_todo_binding_only_for_mark_with_a_unique_unfinished_match_r11(say: Phrasebook) -> None:
    cases = [
        ([(say.todo, "pending")], say.finish),  # "finish todo X" does not bind
        ([(say.todo, "completed")], say.mark),  # nothing unfinished
        ([(say.todo, "pending"), (say.todo, "in_progress")], say.mark),  # not unique
        ([("Other", "pending")], say.mark),  # no such item
    ]
    for snapshot, text in cases:
        talk = Conversation()
        talk.tool_result(snapshot)
        record = talk.record(created(talk.say(text)))
        assert record is not None
        assert record.binding is None


@LANGUAGES
def test_no_fulfilment_from_failure_other_item_session_re_added_item_or_text_r12(
    say: Phrasebook,
) -> None:
    talk = Conversation()
    talk.tool_result([(say.todo, "pending"), ("Buy milk", "pending")])
    rid = _agree(talk, say, say.mark)
    talk.tool_result([(say.todo, "completed"), ("Buy milk", "pending")], ok=False)
    talk.tool_result([(say.todo, "pending"), ("Buy milk", "completed")])
    talk.tool_result([(say.todo, "pending")], session="s2")
    talk.tool_result([(say.todo, "completed")], session="s2")
    talk.say(say.text_claim)
    talk.tool_result([("Buy milk", "completed")])  # removed...
    talk.tool_result([(say.todo, "pending")])  # ...and added again: a new item
    talk.tool_result([(say.todo, "completed")])
    assert talk.state_of(rid) == OPEN
    assert FULFILLED not in {c.to_state for c in talk.changes_of(rid)}


@LANGUAGES
def test_late_verified_delivery_fulfils_an_expired_record_and_keeps_its_history_r13(
    say: Phrasebook,
) -> None:
    talk = Conversation()
    rid = _agree_on_the_todo(talk, say, say.mark_within_two_hours)
    talk.advance(hours=3)
    talk.sweep()
    assert talk.state_of(rid) == EXPIRED
    talk.tool_result([(say.todo, "completed")])
    assert [(c.to_state, c.revision) for c in talk.changes_of(rid)] == [
        (PROPOSED, 1),
        (PROPOSED, 2),
        (OPEN, 3),
        (EXPIRED, 4),
        (FULFILLED, 5),
    ]


@LANGUAGES
def test_state_binding_and_provenance_stay_in_metadata_memory_is_terms_r14(
    say: Phrasebook,
) -> None:
    talk = Conversation()
    rid = _agree_on_the_todo(talk, say, say.mark)
    [memory] = talk.view().current_agreements
    assert memory.terms in say.mark
    assert "soul_agreement_accept" not in memory.terms
    assert rid not in memory.terms
    opened = talk.changes_of(rid)[-1]
    assert opened.provenance.message_id == "m-s1-4"
    assert opened.provenance.seq == 4
    assert opened.binding is not None


# --- Scope and session (DESIGN section 1) ---


@LANGUAGES
def test_open_agreement_is_memory_in_a_later_session_of_the_scope_only_r6_r8(
    say: Phrasebook,
) -> None:
    """Opened in s1: current memory in s2 of the same scope, in no other scope; s2 may
    cancel it."""
    talk = Conversation()
    rid = _agree(talk, say, say.plan)
    assert [c.record_id for c in talk.view("s2").current_agreements] == [rid]
    stranger = Conversation(user_id="another-user")
    assert stranger.view("s2").current_agreements == ()
    assert stranger.agent_accepts(rid, 3).reason == RejectionReason.UNKNOWN_RECORD
    closed = only(talk.say(say.cancel, session="s2").events, StateChanged)
    assert (closed.record_id, closed.to_state) == (rid, CANCELLED)


@LANGUAGES
def test_a_pending_proposal_cannot_be_accepted_or_confirmed_from_another_session_r3_r4(
    say: Phrasebook,
) -> None:
    talk = Conversation()
    rid = created(talk.say(say.plan))
    assert talk.view("s2").pending_proposals == ()
    assert talk.agent_accepts(rid, 1, session="s2").reason == RejectionReason.OTHER_SESSION
    asked = only(talk.say(say.accept, session="s2").events, ClarificationRequested)
    assert asked.candidates == ()
    assert talk.changes_of(rid)[-1].revision == 1
