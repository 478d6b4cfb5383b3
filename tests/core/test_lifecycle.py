"""The lifecycle reducer, rule by rule, with intents built directly (R2-R10, R14)."""

from __future__ import annotations

from datetime import datetime, timedelta

import msgspec
import pytest

from contracts.common import AgreementState, Cause, Provenance, Role
from contracts.inputs import ChatTurn
from contracts.outputs import (
    ClarificationKind,
    ClarificationRequested,
    ProposalRefused,
    RefusalReason,
    StateChanged,
    ToolOutcome,
    described,
)
from contracts.records import Acceptances
from contracts.tools import ACCEPT_TOOL_NAME, RejectionReason
from core.intents import NO_INTENT, Acceptance, Cancellation, Proposal
from core.lifecycle.reducer import TRANSITIONS, Policy, apply_input, deadline_entries
from core.lifecycle.state import (
    CLOSED_KEPT,
    decode_scope,
    decode_session,
    empty_scope,
    empty_session,
    encode_scope,
    encode_session,
    record_id_for,
)
from tests.support.lifecycle_kit import CANCELLED as CAN
from tests.support.lifecycle_kit import EXPIRED as EXP
from tests.support.lifecycle_kit import FULFILLED as FUL
from tests.support.lifecycle_kit import OPEN as OPN
from tests.support.lifecycle_kit import PROPOSED as PRO
from tests.support.lifecycle_kit import T0, Conversation, created, only

PLAN = Proposal(terms="next time we discuss a plan, start with the conclusion")
TEA = Proposal(terms="always offer green tea first")


def proposed_by(talk: Conversation, deadline: datetime, proposal: Proposal = PLAN) -> str:
    """The record a proposal with `deadline` creates."""
    return created(talk.turn(msgspec.structs.replace(proposal, deadline_at=deadline)))


def opened_by(talk: Conversation, deadline: datetime) -> str:
    """An agreement with `deadline`, accepted by both sides."""
    rid = proposed_by(talk, deadline)
    talk.agent_accepts(rid)
    talk.turn(Acceptance())
    return rid


def test_transition_table_is_exactly_the_designed_lifecycle() -> None:
    """States: proposed -> open -> fulfilled|cancelled|expired, proposed -> cancelled|expired,
    expired -> fulfilled (R13) and nothing else; terminal states have no way out. An
    amendment (R17) keeps an open record open: every amendment cause is open -> open."""
    arrows = {(before, after) for (before, _), after in TRANSITIONS.items()}
    assert arrows == {
        (None, PRO),
        (PRO, PRO),
        (PRO, CAN),
        (PRO, EXP),
        (OPN, OPN),
        (OPN, CAN),
        (OPN, EXP),
        (OPN, FUL),
        (EXP, FUL),
    }
    amending = {cause for cause in Cause if cause.value.startswith("amendment_")}
    assert {(b, c, a) for (b, c), a in TRANSITIONS.items() if c in amending} == {
        (OPN, cause, OPN) for cause in amending
    }
    # open is reached only through the second acceptance (R5), never from a table row alone
    assert all(before not in {FUL, CAN} for before, _ in TRANSITIONS)


def test_proposal_creates_proposed_revision_one_without_acceptance_r2_r14() -> None:
    """R2: a user proposal is `proposed`, revision 1, neither side accepted; the prose
    is the terms alone and provenance sits in metadata (R14)."""
    talk = Conversation()
    step = talk.turn(PLAN, "Let's agree: next time we discuss a plan, start with the conclusion")
    change = only(step.events, StateChanged)
    assert (change.from_state, change.to_state, change.revision) == (None, PRO, 1)
    assert change.cause == Cause.PROPOSED
    assert change.acceptances == Acceptances(agent=False, user=False)
    assert change.terms == PLAN.terms
    assert described(change.event_id) == f"{change.record_id}@1"
    assert change.provenance.message_id == "m-s1-1"
    assert change.provenance.seq == 1
    record = talk.record(change.record_id)
    assert record is not None
    assert record.history[0].provenance == change.provenance
    assert step.scope_changed
    assert not step.session_changed


@pytest.mark.parametrize("role", [Role.ASSISTANT, Role.SYSTEM])
def test_non_user_turns_never_create_accept_or_cancel_r1(role: Role) -> None:
    """R1: assistant and system text never creates, accepts or cancels, whatever the intent."""
    talk = Conversation()
    rid = created(talk.turn(PLAN))
    for intent in (TEA, Acceptance(), Cancellation()):
        step = talk.turn(intent, role=role)
        assert step.events == ()
        assert not step.scope_changed
    assert talk.state_of(rid) == PRO


def test_agent_then_user_acceptance_opens_each_a_revision_r3_r5() -> None:
    """R5: agent acceptance (revision 2) then user confirmation (revision 3) -> open."""
    talk = Conversation()
    rid = created(talk.turn(PLAN))
    outcome = talk.agent_accepts(rid, 1)
    assert outcome.accepted
    assert (outcome.current_revision, outcome.state) == (2, PRO)
    step = talk.turn(Acceptance())
    change = only(step.events, StateChanged)
    assert (change.revision, change.from_state, change.to_state) == (3, PRO, OPN)
    assert change.acceptances == Acceptances(agent=True, user=True)
    assert [e.cause for e in talk.changes_of(rid)] == [
        Cause.PROPOSED,
        Cause.AGENT_ACCEPTED,
        Cause.USER_ACCEPTED,
    ]


def test_user_then_agent_acceptance_opens_r5() -> None:
    """R5: either order; the user's confirmation alone leaves it proposed."""
    talk = Conversation()
    rid = created(talk.turn(PLAN))
    assert only(talk.turn(Acceptance()).events, StateChanged).to_state == PRO
    outcome = talk.agent_accepts(rid, 2)
    assert outcome.accepted
    assert (outcome.current_revision, outcome.state) == (3, OPN)


def test_an_agent_acceptance_stamped_before_its_proposal_is_refused_r3_r5() -> None:
    """R5: acceptances come after the proposal. A call whose `ts` is earlier than the
    proposal's, though its seq is later, is `before_proposal` and changes nothing; the
    same call stamped at the proposal's instant counts."""
    talk = Conversation()
    rid = created(talk.turn(PLAN))
    talk.advance(seconds=-1)
    early = talk.agent_accepts(rid, 1)
    assert (early.accepted, early.reason) == (False, RejectionReason.BEFORE_PROPOSAL)
    assert (early.current_revision, early.state) == (1, PRO)
    assert talk.last is not None
    assert not talk.last.scope_changed
    talk.advance(seconds=1)
    assert talk.agent_accepts(rid, 1).accepted


def test_a_confirmation_stamped_before_its_proposal_does_not_count_r4_r5() -> None:
    """R5: a user confirmation stamped earlier than the proposal is no confirmation of
    it: the proposal is no candidate, so the user hears a clarification without it
    (as for a proposal past its deadline) and the record stays at revision 1. A
    proposal made before the turn's time is still confirmed by it."""
    talk = Conversation()
    older = created(talk.turn(TEA))
    talk.advance(minutes=10)
    newer = created(talk.turn(PLAN))
    talk.advance(minutes=-5)
    asked = only(talk.turn(Acceptance(target_hint="conclusion")).events, ClarificationRequested)
    assert [c.record_id for c in asked.candidates] == [older]
    assert talk.state_of(newer) == PRO
    assert talk.changes_of(newer)[-1].revision == 1
    confirmed = only(talk.turn(Acceptance()).events, StateChanged)
    assert (confirmed.record_id, confirmed.cause) == (older, Cause.USER_ACCEPTED)
    assert only(talk.turn(Acceptance()).events, ClarificationRequested).candidates == ()


# --- R3: every rejection has its own reason and carries the current revision ---


@pytest.mark.parametrize(
    "arguments",
    [
        {},
        {"record_id": "r"},
        {"expected_revision": 1},
        {"record_id": 7, "expected_revision": 1},
        {"record_id": "r", "expected_revision": "1"},
        {"record_id": "r", "expected_revision": True},
        {"record_id": "r", "expected_revision": 0},
        {"record_id": "", "expected_revision": 1},
        {"record_id": "r", "expected_revision": 1, "accepted": True},
    ],
)
def test_malformed_accept_arguments_are_rejected_r3(arguments: dict[str, object]) -> None:
    """R3: the tool takes exactly record_id and expected_revision; anything else is malformed."""
    talk = Conversation()
    created(talk.turn(PLAN))
    step = talk.tool_call(ACCEPT_TOOL_NAME, dict(arguments))
    outcome = only(step.events, ToolOutcome)
    assert not outcome.accepted
    assert outcome.reason == RejectionReason.MALFORMED_ARGUMENTS
    assert not step.scope_changed


def test_malformed_call_naming_a_known_record_reports_its_revision_r3() -> None:
    """R3: even a malformed call hears the named record's current revision and state."""
    talk = Conversation()
    rid = created(talk.turn(PLAN))
    step = talk.tool_call(ACCEPT_TOOL_NAME, {"record_id": rid, "expected_revision": 1, "x": 1})
    outcome = only(step.events, ToolOutcome)
    assert outcome.reason == RejectionReason.MALFORMED_ARGUMENTS
    assert (outcome.record_id, outcome.current_revision, outcome.state) == (rid, 1, PRO)


def test_unknown_record_is_rejected_without_revision_r3() -> None:
    talk = Conversation()
    created(talk.turn(PLAN))
    outcome = talk.agent_accepts("agr-nope", 1)
    assert outcome.reason == RejectionReason.UNKNOWN_RECORD
    assert (outcome.current_revision, outcome.state) == (None, None)


def test_record_of_another_scope_is_unknown_not_leaked_r3() -> None:
    """A record id from another user's scope is `unknown_record`: no existence leak."""
    alice = Conversation(user_id="alice")
    rid = created(alice.turn(PLAN))
    bob = Conversation(user_id="bob")
    outcome = bob.agent_accepts(rid, 1)
    assert outcome.reason == RejectionReason.UNKNOWN_RECORD
    assert outcome.current_revision is None


def test_proposal_of_another_session_is_rejected_as_other_session_r3() -> None:
    """A pending proposal belongs to its own session; the agent of s2 cannot accept it."""
    talk = Conversation()
    rid = created(talk.turn(PLAN))
    outcome = talk.agent_accepts(rid, 1, session="s2")
    assert outcome.reason == RejectionReason.OTHER_SESSION
    assert (outcome.current_revision, outcome.state) == (1, PRO)
    assert talk.state_of(rid) == PRO


def test_stale_revision_is_rejected_with_current_revision_r3() -> None:
    """A changed record needs a fresh view: the user confirmed first, revision is now 2."""
    talk = Conversation()
    rid = created(talk.turn(PLAN))
    talk.turn(Acceptance())
    step = talk.tool_call(ACCEPT_TOOL_NAME, {"record_id": rid, "expected_revision": 1})
    outcome = only(step.events, ToolOutcome)
    assert outcome.reason == RejectionReason.STALE_REVISION
    assert outcome.current_revision == 2
    assert not step.scope_changed
    assert talk.agent_accepts(rid, 2).accepted


def test_wrong_state_open_record_is_rejected_r3() -> None:
    talk = Conversation()
    rid = created(talk.turn(PLAN))
    talk.turn(Acceptance())
    talk.agent_accepts(rid, 2)
    outcome = talk.agent_accepts(rid, 3)
    assert outcome.reason == RejectionReason.WRONG_STATE
    assert (outcome.current_revision, outcome.state) == (3, OPN)


def test_second_agent_acceptance_is_already_accepted_r3() -> None:
    """A retried call after success hears `already_accepted`, with either revision."""
    talk = Conversation()
    rid = created(talk.turn(PLAN))
    assert talk.agent_accepts(rid, 1).accepted
    assert talk.agent_accepts(rid, 1).reason == RejectionReason.ALREADY_ACCEPTED
    again = talk.agent_accepts(rid, 2)
    assert again.reason == RejectionReason.ALREADY_ACCEPTED
    assert again.current_revision == 2


def test_acceptance_at_or_after_the_deadline_is_past_deadline_r3_r9() -> None:
    """The deadline is exclusive: a call stamped at the deadline is too late, and the
    proposal expires (revision 2) in the same step."""
    talk = Conversation()
    deadline = T0 + timedelta(hours=1)
    rid = proposed_by(talk, deadline)
    talk.advance(hours=1)
    step = talk.tool_call(ACCEPT_TOOL_NAME, {"record_id": rid, "expected_revision": 1})
    outcome = only(step.events, ToolOutcome)
    assert outcome.reason == RejectionReason.PAST_DEADLINE
    assert (outcome.current_revision, outcome.state) == (2, EXP)
    expiry = only(step.events, StateChanged)
    assert (expiry.cause, expiry.at) == (Cause.DEADLINE_REACHED, deadline)


def test_acceptance_just_before_the_deadline_counts_r3_r9() -> None:
    talk = Conversation()
    rid = proposed_by(talk, T0 + timedelta(hours=1))
    talk.advance(minutes=59, seconds=59)
    assert talk.agent_accepts(rid, 1).accepted


def test_other_tool_calls_change_nothing_and_say_nothing_r3_r10() -> None:
    talk = Conversation()
    rid = created(talk.turn(PLAN))
    step = talk.tool_call("search", {"record_id": rid, "expected_revision": 1})
    assert step.events == ()
    assert not step.scope_changed


# --- R4: user confirmation resolves exactly one proposal of this session ---


def test_confirmation_with_two_candidates_asks_and_changes_nothing_r4() -> None:
    talk = Conversation()
    plan, tea = created(talk.turn(PLAN)), created(talk.turn(TEA))
    step = talk.turn(Acceptance())
    asked = only(step.events, ClarificationRequested)
    assert asked.kind == ClarificationKind.CONFIRMATION
    assert [c.record_id for c in asked.candidates] == [plan, tea]
    assert described(asked.event_id) == "s1#3:clarification"
    assert not step.scope_changed


def test_confirmation_hint_picks_the_one_matching_proposal_r4() -> None:
    talk = Conversation()
    created(talk.turn(PLAN))
    tea = created(talk.turn(TEA))
    step = talk.turn(Acceptance(target_hint="「Green Tea」"))
    change = only(step.events, StateChanged)
    assert (change.record_id, change.cause) == (tea, Cause.USER_ACCEPTED)


def test_confirmation_hint_matching_nothing_lists_every_candidate_r4() -> None:
    talk = Conversation()
    created(talk.turn(PLAN))
    created(talk.turn(TEA))
    asked = only(talk.turn(Acceptance(target_hint="coffee")).events, ClarificationRequested)
    assert len(asked.candidates) == 2


def test_confirmation_hint_matching_several_lists_only_those_r4() -> None:
    talk = Conversation()
    created(talk.turn(PLAN))
    created(talk.turn(TEA))
    created(talk.turn(Proposal(terms="offer green tea after lunch")))
    asked = only(talk.turn(Acceptance(target_hint="green tea")).events, ClarificationRequested)
    assert [c.terms for c in asked.candidates] == [TEA.terms, "offer green tea after lunch"]


def test_confirmation_with_nothing_pending_asks_with_no_candidates_r4() -> None:
    talk = Conversation()
    asked = only(talk.turn(Acceptance()).events, ClarificationRequested)
    assert asked.candidates == ()


def test_confirmation_ignores_other_sessions_and_already_confirmed_proposals_r4() -> None:
    """Only this session's proposals awaiting the user's acceptance are candidates."""
    talk = Conversation()
    mine = created(talk.turn(PLAN))
    created(talk.turn(TEA, session="s2"))
    assert only(talk.turn(Acceptance()).events, StateChanged).record_id == mine
    asked = only(talk.turn(Acceptance()).events, ClarificationRequested)
    assert asked.candidates == ()


# --- R8: cancellation ---


def test_cancellation_closes_the_one_open_agreement_from_a_later_session_r8() -> None:
    talk = Conversation()
    rid = created(talk.turn(PLAN))
    talk.agent_accepts(rid)
    talk.turn(Acceptance())
    step = talk.turn(Cancellation(), session="s2")
    change = only(step.events, StateChanged)
    assert (change.from_state, change.to_state, change.cause) == (OPN, CAN, Cause.USER_CANCELLED)
    assert change.provenance.session_id == "s2"
    assert change.session_id == "s1"  # the record still names where it was made
    assert talk.record(rid) is None  # terminal: it leaves the live scope state


def test_cancellation_with_two_targets_asks_instead_of_choosing_r8() -> None:
    talk = Conversation()
    plan = created(talk.turn(PLAN))
    talk.agent_accepts(plan)
    talk.turn(Acceptance())
    tea = created(talk.turn(TEA))
    step = talk.turn(Cancellation())
    asked = only(step.events, ClarificationRequested)
    assert asked.kind == ClarificationKind.CANCELLATION
    assert {(c.record_id, c.state) for c in asked.candidates} == {(plan, OPN), (tea, PRO)}
    assert not step.scope_changed
    change = only(talk.turn(Cancellation(target_hint="tea")).events, StateChanged)
    assert (change.record_id, change.to_state) == (tea, CAN)


def test_cancellation_never_reaches_another_sessions_pending_proposal_r8() -> None:
    talk = Conversation()
    rid = created(talk.turn(PLAN))
    asked = only(talk.turn(Cancellation(), session="s2").events, ClarificationRequested)
    assert asked.candidates == ()
    assert talk.state_of(rid) == PRO


def test_a_cancellation_stamped_before_its_proposal_does_not_close_it_r5_r8() -> None:
    """R8 closes only on hard evidence, and an act on a record comes after the record
    (R5): a cancellation stamped earlier than a proposal, though its seq is later, does
    not count that proposal among its candidates, as a confirmation stamped that early
    does not (and as a record past its deadline is left out). Naming it gets a
    clarification without it and the record stays at revision 1; a proposal made
    before the turn's time is still cancelled by it; with nothing left, the
    clarification lists no candidates."""
    talk = Conversation()
    older = created(talk.turn(TEA))
    talk.advance(minutes=10)
    newer = created(talk.turn(PLAN))
    talk.advance(minutes=-5)
    step = talk.turn(Cancellation(target_hint="conclusion"))
    asked = only(step.events, ClarificationRequested)
    assert asked.kind == ClarificationKind.CANCELLATION
    assert [c.record_id for c in asked.candidates] == [older]
    assert not step.scope_changed
    assert talk.state_of(newer) == PRO
    assert talk.changes_of(newer)[-1].revision == 1
    cancelled = only(talk.turn(Cancellation()).events, StateChanged)
    assert (cancelled.record_id, cancelled.to_state) == (older, CAN)
    assert only(talk.turn(Cancellation()).events, ClarificationRequested).candidates == ()
    assert talk.state_of(newer) == PRO
    talk.advance(minutes=5)
    closed = only(talk.turn(Cancellation()).events, StateChanged)
    assert (closed.record_id, closed.to_state) == (newer, CAN)


def test_a_cancellation_stamped_before_an_agreement_was_proposed_leaves_it_open_r5_r8() -> None:
    """R8 from another session: an open agreement is cancellable from any session of
    the scope, but not by a turn stamped before the agreement was proposed. The
    agreement stays current memory (R6)."""
    talk = Conversation()
    talk.advance(minutes=10)
    rid = created(talk.turn(PLAN))
    talk.agent_accepts(rid)
    talk.turn(Acceptance())
    talk.advance(minutes=-5)
    step = talk.turn(Cancellation(), session="s2")
    assert only(step.events, ClarificationRequested).candidates == ()
    assert not step.scope_changed
    assert talk.state_of(rid) == OPN
    talk.advance(minutes=5)
    assert [c.record_id for c in talk.view("s2").current_agreements] == [rid]


# --- R9: deadlines ---


def test_deadline_expires_an_open_agreement_and_expiry_is_not_fulfilment_r9() -> None:
    talk = Conversation()
    deadline = T0 + timedelta(days=1)
    rid = opened_by(talk, deadline)
    assert deadline_entries(talk.scope) == ((rid, deadline),)
    talk.advance(days=2)
    step = talk.sweep()
    change = only(step.events, StateChanged)
    assert (change.from_state, change.to_state, change.cause) == (OPN, EXP, Cause.DEADLINE_REACHED)
    assert change.at == deadline  # history time is the deadline, whenever the sweep runs
    assert change.provenance == Provenance(session_id="s1")
    assert step.session is None
    assert not step.session_changed
    assert talk.view().current_agreements == ()
    assert deadline_entries(talk.scope) == ()
    assert FUL not in {e.to_state for e in talk.changes_of(rid)}


def test_expiry_is_materialized_before_an_input_in_deadline_order_r9() -> None:
    """Any input stamped past deadlines first expires those records, earliest first."""
    talk = Conversation()
    late = proposed_by(talk, T0 + timedelta(hours=2))
    early = proposed_by(talk, T0 + timedelta(hours=1), TEA)
    talk.advance(hours=3)
    step = talk.tool_call("search", {})
    assert [e.record_id for e in step.events if isinstance(e, StateChanged)] == [early, late]
    assert step.scope_changed
    assert talk.scope.records == ()  # expired without binding: leaves the live state


@pytest.mark.parametrize("role", list(Role))
def test_a_turn_with_no_intent_changes_nothing_and_still_expires_what_is_due_r1_r9(
    role: Role,
) -> None:
    """R1: a turn of any role in which nothing was recognized creates, accepts or cancels
    nothing (the reducer decides this without running a handler, for nearly every turn);
    R9: the same turn stamped past a deadline of its session still expires the record
    first, so the shortcut never skips an expiry."""
    talk = Conversation()
    rid = opened_by(talk, T0 + timedelta(hours=1))
    scope, session = talk.scope, talk.sessions["s1"]
    step = talk.turn(NO_INTENT, "sounds good, thanks", role=role)
    assert step.scope is scope
    assert step.session is session
    assert (step.events, step.records) == ((), ())
    assert not step.scope_changed
    assert not step.session_changed
    talk.advance(hours=2)
    step = talk.turn(NO_INTENT, "anything else?", role=role)
    change = only(step.events, StateChanged)
    assert (change.record_id, change.to_state) == (rid, EXP)
    assert step.scope_changed
    assert talk.state_of(rid) == EXP


def test_another_sessions_input_does_not_preempt_an_in_time_acceptance_r9_r15() -> None:
    """An input of session s2 stamped after s1's deadline does not expire s1's proposal.

    s1's own acceptance, stamped before the deadline but processed after s2's input
    (sessions are processed concurrently), still counts: decisions use event time.
    """
    talk = Conversation()
    deadline = T0 + timedelta(hours=1)
    rid = proposed_by(talk, deadline)
    talk.advance(hours=2)
    other = talk.tool_call("search", {}, session="s2")
    assert not [e for e in other.events if isinstance(e, StateChanged)]
    assert talk.record(rid) is not None
    talk.now = deadline - timedelta(minutes=1)  # s1's next input was stamped in time
    outcome = talk.agent_accepts(rid)
    assert outcome.accepted
    talk.turn(Acceptance())
    assert talk.state_of(rid) == OPN


def test_another_session_cannot_cancel_an_agreement_past_its_deadline_r8_r9() -> None:
    """A past-due open agreement of s1, not yet swept, is no cancellation target for s2."""
    talk = Conversation()
    deadline = T0 + timedelta(hours=1)
    rid = opened_by(talk, deadline)
    talk.advance(hours=2)
    step = talk.turn(Cancellation(), session="s2")
    assert not [e for e in step.events if isinstance(e, StateChanged)]
    asked = only(step.events, ClarificationRequested)
    assert asked.candidates == ()
    assert talk.state_of(rid) == OPN  # expiry is left to s1's next input or the sweeper
    swept = only(talk.sweep().events, StateChanged)
    assert (swept.record_id, swept.to_state, swept.at) == (rid, EXP, deadline)


def test_past_due_records_of_other_sessions_do_not_count_against_the_limit() -> None:
    """The live-record cap counts only records not past due at the proposal's time."""
    talk = Conversation(policy=Policy(max_records_per_scope=1))
    proposed_by(talk, T0 + timedelta(hours=1))
    talk.advance(hours=2)
    step = talk.turn(TEA, session="s2")
    assert only(step.events, StateChanged).to_state == AgreementState.PROPOSED


def test_sweep_with_nothing_due_changes_nothing_r9() -> None:
    talk = Conversation()
    proposed_by(talk, T0 + timedelta(hours=2))
    step = talk.sweep()
    assert (step.events, step.scope_changed) == ((), False)


# --- policy: bounded scopes ---


def test_terms_too_long_are_refused_without_a_record() -> None:
    talk = Conversation(policy=Policy(max_terms_chars=10))
    step = talk.turn(Proposal(terms="x" * 11))
    refused = only(step.events, ProposalRefused)
    assert (refused.reason, refused.limit) == (RefusalReason.TERMS_TOO_LONG, 10)
    assert described(refused.event_id) == "s1#1:proposal_refused"
    assert talk.scope.records == ()


def test_proposals_past_the_live_record_limit_are_refused_until_one_closes() -> None:
    talk = Conversation(policy=Policy(max_records_per_scope=2))
    first = created(talk.turn(PLAN))
    created(talk.turn(TEA))
    refused = only(talk.turn(Proposal(terms="third")).events, ProposalRefused)
    assert refused.reason == RefusalReason.TOO_MANY_RECORDS
    talk.turn(Cancellation(target_hint=PLAN.terms))
    assert talk.state_of(first) == CAN
    created(talk.turn(Proposal(terms="third")))


# --- determinism, duplicates, encoding ---


def test_same_input_on_same_state_gives_same_step_r15() -> None:
    scope, session = empty_scope("a", "u"), empty_session("s")
    turn = ChatTurn(
        agent_id="a",
        user_id="u",
        session_id="s",
        seq=4,
        ts=T0,
        role=Role.USER,
        text="",
        message_id="m",
    )
    one = apply_input(scope, session, turn, PLAN, Provenance(seq=4), Policy())
    two = apply_input(scope, session, turn, PLAN, Provenance(seq=4), Policy())
    assert one == two
    assert one.events[0].record_id == record_id_for("a", "u", "s", 4)  # type: ignore[union-attr]


def test_record_ids_are_derived_and_unambiguous() -> None:
    """Ids depend only on (agent, user, session, seq); length prefixes avoid collisions."""
    assert record_id_for("a", "u", "s", 1) == record_id_for("a", "u", "s", 1)
    assert record_id_for("a", "u", "s", 1) != record_id_for("a", "u", "s", 2)
    assert record_id_for("ab", "c", "s", 1) != record_id_for("a", "bc", "s", 1)


def test_the_same_proposal_input_twice_creates_one_record_r15() -> None:
    talk = Conversation()
    step = talk.turn(PLAN)
    again = talk.apply(msgspec.structs.replace(_last_turn(talk), text="again"), PLAN)
    assert len(talk.scope.records) == 1
    assert again.events == ()
    assert step.scope_changed


def _last_turn(talk: Conversation) -> ChatTurn:
    return ChatTurn(
        agent_id=talk.agent_id,
        user_id=talk.user_id,
        session_id="s1",
        seq=talk.seqs["s1"],
        ts=talk.now,
        role=Role.USER,
        text="",
        message_id="m",
    )


def test_no_intent_user_turn_changes_nothing_r10() -> None:
    talk = Conversation()
    rid = created(talk.turn(PLAN))
    talk.agent_accepts(rid)
    talk.turn(Acceptance())
    step = talk.turn(NO_INTENT, "done!")
    assert step.events == ()
    assert talk.state_of(rid) == OPN


def test_states_round_trip_through_msgpack() -> None:
    """The store keeps states as opaque bytes; decoding gives back the same state."""
    talk = Conversation()
    talk.tool_result([("Organize reading notes", "pending")])
    rid = created(
        talk.turn(
            Proposal(
                terms='mark todo "Organize reading notes" as completed',
                deadline_at=T0 + timedelta(days=1),
                todo_target="Organize reading notes",
            )
        )
    )
    talk.agent_accepts(rid)
    assert decode_scope(encode_scope(talk.scope)) == talk.scope
    session = talk.sessions["s1"]
    assert decode_session(encode_session(session)) == session


def test_closed_records_still_answer_the_agent_with_state_and_revision_r3() -> None:
    """A cancelled record is `wrong_state`, an expired one `past_deadline`, whether or
    not a sweep ran first: the answer depends only on the inputs (R15)."""
    talk = Conversation()
    cancelled = created(talk.turn(PLAN))
    talk.turn(Cancellation())
    outcome = talk.agent_accepts(cancelled, 2)
    assert (outcome.reason, outcome.current_revision, outcome.state) == (
        RejectionReason.WRONG_STATE,
        2,
        CAN,
    )
    deadline = T0 + timedelta(hours=1)
    swept, lazy = Conversation(), Conversation()
    for talk in (swept, lazy):
        rid = proposed_by(talk, deadline, TEA)
        talk.advance(hours=2)
    swept.sweep()
    answers = [t.agent_accepts(rid, 1) for t in (swept, lazy)]
    assert answers[0] == answers[1]
    assert (answers[0].reason, answers[0].state) == (RejectionReason.PAST_DEADLINE, EXP)


def test_only_the_last_closures_are_remembered() -> None:
    """The closed list is bounded: past CLOSED_KEPT closures the oldest is unknown."""
    talk = Conversation(policy=Policy(max_records_per_scope=CLOSED_KEPT + 5))
    ids = [created(talk.turn(Proposal(terms=f"terms {n:03d}"))) for n in range(CLOSED_KEPT + 1)]
    for n in range(CLOSED_KEPT + 1):
        talk.turn(Cancellation(target_hint=f"terms {n:03d}"))
    assert len(talk.scope.closed) == CLOSED_KEPT
    assert talk.agent_accepts(ids[0], 2).reason == RejectionReason.UNKNOWN_RECORD
    assert talk.agent_accepts(ids[1], 2).reason == RejectionReason.WRONG_STATE
