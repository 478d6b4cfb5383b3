# ruff: noqa: RUF001 - Chinese turns are written with their own punctuation
"""Amendment of an open agreement (R17), through the real recognizer, in both languages."""

from __future__ import annotations

from datetime import timedelta

import pytest

from contracts.common import AgreementState, Cause, Role
from contracts.outputs import (
    ClarificationKind,
    ClarificationRequested,
    ProposalRefused,
    RefusalReason,
    StateChanged,
)
from contracts.tools import RejectionReason
from core.intents import Amendment, AmendmentCancellation, without_evidence
from core.lifecycle.reducer import Policy
from core.recognition.recognizer import recognize
from tests.support.lifecycle_kit import Conversation, created, only

OPEN = AgreementState.OPEN
TEA = "always offer green tea first"
BLACK = "always offer black tea first"


def _agreed(talk: Conversation, text: str = f"Let's agree: {TEA}.") -> str:
    """An open agreement made in the conversation's current session."""
    record_id = created(talk.say(text))
    assert talk.agent_accepts(record_id).accepted
    talk.say("I accept this agreement.")
    assert talk.state_of(record_id) == OPEN
    return record_id


def _changes(talk: Conversation) -> tuple[StateChanged, ...]:
    assert talk.last is not None
    return tuple(e for e in talk.last.events if isinstance(e, StateChanged))


@pytest.mark.parametrize(
    ("text", "terms", "hint"),
    [
        (f"Let's change our agreement: {BLACK}.", BLACK, None),
        (f"Let's amend the agreement to: {BLACK}", BLACK, None),
        (f'Let\'s change our agreement "green tea": {BLACK}.', BLACK, "green tea"),
        ("我们把约定改成：每天先喝红茶。", "每天先喝红茶", None),
        ("把「绿茶」这个约定改为：每天先喝红茶", "每天先喝红茶", "绿茶"),
    ],
)
def test_amendment_phrases_are_recognized_with_terms_and_hint_r17(
    text: str, terms: str, hint: str | None
) -> None:
    """R17: "Let's change our agreement: ..." / "我们把约定改成..." state new terms, with
    an optional quoted hint naming the agreement."""
    assert without_evidence(recognize(text, Role.USER)) == Amendment(terms=terms, target_hint=hint)


@pytest.mark.parametrize(
    "text",
    [
        "Let's change our agreement?",
        "Should we change our agreement: black tea?",
        "He said: let's change our agreement: black tea.",
        "我们把约定改成什么好呢？",
    ],
)
def test_questions_and_reported_amendments_are_nothing_r1_r17(text: str) -> None:
    """R1 applies to amendments: a question or reported speech amends nothing."""
    assert without_evidence(recognize(text, Role.USER)) != Amendment(terms="black tea")
    assert not isinstance(recognize(text, Role.USER), Amendment)


@pytest.mark.parametrize(
    "text", ["Cancel the change.", "Please withdraw my amendment.", "取消这个修改"]
)
def test_cancel_the_change_is_an_amendment_cancellation_r17(text: str) -> None:
    """R17: the user may withdraw a pending amendment alone."""
    assert without_evidence(recognize(text, Role.USER)) == AmendmentCancellation()


def test_an_amendment_is_pending_while_the_old_terms_stay_current_r17() -> None:
    """R17: a new revision holds the pending amendment; the record stays open with its old
    terms in every session's memory; only the amending session sees it pending."""
    talk = Conversation()
    record_id = _agreed(talk)
    talk.say(f"Let's change our agreement: {BLACK}.")
    (proposed,) = _changes(talk)
    assert (proposed.cause, proposed.from_state, proposed.to_state) == (
        Cause.AMENDMENT_PROPOSED,
        OPEN,
        OPEN,
    )
    assert proposed.revision == 4
    assert proposed.terms == TEA
    assert proposed.amendment is not None
    assert (proposed.amendment.terms, proposed.amendment.revision) == (BLACK, 4)
    view = talk.view()
    assert [c.terms for c in view.current_agreements] == [TEA]
    assert [
        (a.record_id, a.revision, a.terms, a.current_terms, a.status)
        for a in view.pending_amendments
    ] == [(record_id, 4, BLACK, TEA, "awaiting_both")]
    other = talk.view("s2")
    assert [c.terms for c in other.current_agreements] == [TEA]
    assert other.pending_amendments == ()


@pytest.mark.parametrize("agent_first", [True, False])
def test_both_acceptances_in_either_order_replace_the_terms_r17(*, agent_first: bool) -> None:
    """R17: the agent's call naming the amendment's revision and the user's confirmation,
    in either order; the second replaces the terms; history keeps every version."""
    talk = Conversation()
    record_id = _agreed(talk)
    talk.say(f"Let's change our agreement: {BLACK}.")
    if agent_first:
        assert talk.agent_accepts(record_id, 4).accepted
        first = _changes(talk)[0]
        assert first.cause == Cause.AMENDMENT_AGENT_ACCEPTED
        assert talk.view().pending_amendments[0].status == "awaiting_user"
        talk.say("I accept this agreement.")
    else:
        talk.say("I accept this agreement.")
        first = _changes(talk)[0]
        assert first.cause == Cause.AMENDMENT_USER_ACCEPTED
        assert talk.view().pending_amendments[0].status == "awaiting_agent"
        assert talk.agent_accepts(record_id, 4).reason == RejectionReason.STALE_REVISION
        assert talk.agent_accepts(record_id, 5).accepted
    assert first.terms == TEA  # one acceptance replaces nothing
    applied = _changes(talk)[-1]
    assert applied.terms == BLACK
    assert applied.amendment is None
    assert applied.settled_amendment is not None
    assert applied.to_state == OPEN
    assert [c.terms for c in talk.view().current_agreements] == [BLACK]
    assert talk.view().pending_amendments == ()
    record = talk.record(record_id)
    assert record is not None
    assert record.terms == BLACK
    versions = [e.terms for e in record.history if e.terms is not None]
    assert versions == [TEA, BLACK]
    assert len(record.history) == record.revision


def test_the_agent_naming_the_old_revision_is_stale_r3_r17() -> None:
    """R17: acceptances of the earlier terms do not count; the old revision is stale."""
    talk = Conversation()
    record_id = _agreed(talk)
    talk.say(f"Let's change our agreement: {BLACK}.")
    outcome = talk.agent_accepts(record_id, 3)
    assert (outcome.accepted, outcome.reason, outcome.current_revision) == (
        False,
        RejectionReason.STALE_REVISION,
        4,
    )
    assert talk.record(record_id).amendment.acceptances.agent is False  # type: ignore[union-attr]
    assert talk.agent_accepts(record_id, 4).accepted
    again = talk.agent_accepts(record_id, 5)
    assert again.reason == RejectionReason.ALREADY_ACCEPTED


def test_only_the_amending_session_accepts_the_amendment_r3_r17() -> None:
    """R17 as R3: another session's agent call is other_session, its user's confirmation
    has no candidate; the agreement's own session is no exception."""
    talk = Conversation()
    record_id = _agreed(talk)
    talk.say(f"Let's change our agreement: {BLACK}.", session="s2")
    assert talk.agent_accepts(record_id, 4).reason == RejectionReason.OTHER_SESSION
    talk.say("I accept this agreement.")
    asked = only(talk.last.events, ClarificationRequested)  # type: ignore[union-attr]
    assert asked.candidates == ()
    assert talk.view("s2").pending_amendments[0].record_id == record_id
    assert talk.view().pending_amendments == ()
    assert talk.agent_accepts(record_id, 4, session="s2").accepted


def _amended_then_back_five_minutes() -> tuple[Conversation, str]:
    """An agreement, an amendment proposed 10 minutes later, and the clock set back to
    5 minutes before that amendment (after the agreement, before its change)."""
    talk = Conversation()
    record_id = _agreed(talk)
    talk.advance(minutes=10)
    talk.say(f"Let's change our agreement: {BLACK}.")
    talk.advance(minutes=-5)
    return talk, record_id


def test_acceptances_stamped_before_the_amendment_do_not_count_r3_r5_r17() -> None:
    """R5 for an amendment: the agent's call and the user's confirmation stamped before
    the amendment was proposed are refused (`before_proposal`; a clarification without
    candidates), although the agreement itself is older; at its time both count."""
    talk, record_id = _amended_then_back_five_minutes()
    early = talk.agent_accepts(record_id)
    assert (early.reason, early.current_revision) == (RejectionReason.BEFORE_PROPOSAL, 4)
    asked = only(talk.say("I accept this agreement.").events, ClarificationRequested)
    assert asked.candidates == ()
    talk.advance(minutes=5)
    assert talk.agent_accepts(record_id).accepted
    talk.say("I accept this agreement.")
    record = talk.record(record_id)
    assert record is not None
    assert (record.terms, record.revision) == (BLACK, 6)


def test_a_withdrawal_stamped_before_the_amendment_does_not_withdraw_it_r5_r17() -> None:
    """R17 with R5: "cancel the change" stamped before the amendment was proposed is no
    withdrawal of it (a clarification without candidates, nothing changes), although
    the agreement itself is older; at the amendment's time it withdraws it."""
    talk, record_id = _amended_then_back_five_minutes()
    talk.say("Cancel the change.")
    asked = only(talk.last.events, ClarificationRequested)  # type: ignore[union-attr]
    assert (asked.kind, asked.candidates) == (ClarificationKind.AMENDMENT_CANCELLATION, ())
    assert _changes(talk) == ()
    talk.advance(minutes=5)
    assert [a.terms for a in talk.view().pending_amendments] == [BLACK]
    talk.say("Cancel the change.")
    (withdrawn,) = _changes(talk)
    assert (withdrawn.record_id, withdrawn.cause) == (record_id, Cause.AMENDMENT_CANCELLED)


def test_a_cancellation_stamped_between_agreement_and_amendment_closes_the_agreement_r8_r17() -> (
    None
):
    """R8: what a cancellation closes is the agreement, which existed at the turn's time
    even though its pending amendment did not yet: it is cancelled (the amendment lapses
    first, R17)."""
    talk, record_id = _amended_then_back_five_minutes()
    talk.say("Cancel this agreement.")
    lapsed, cancelled = _changes(talk)
    assert (lapsed.cause, cancelled.cause) == (Cause.AMENDMENT_LAPSED, Cause.USER_CANCELLED)
    assert cancelled.record_id == record_id
    assert cancelled.to_state == AgreementState.CANCELLED


def test_an_open_record_without_amendment_is_wrong_state_for_the_agent_r3() -> None:
    """R3 unchanged: accepting an open agreement with nothing pending is wrong_state."""
    talk = Conversation()
    record_id = _agreed(talk)
    assert talk.agent_accepts(record_id, 3).reason == RejectionReason.WRONG_STATE


def test_cancel_the_change_keeps_the_agreement_open_r17() -> None:
    """R17: withdrawing the amendment is its own revision; the agreement stays open with
    its terms, and a later acceptance of the withdrawn amendment is wrong_state."""
    talk = Conversation()
    record_id = _agreed(talk)
    talk.say(f"Let's change our agreement: {BLACK}.")
    talk.say("Cancel the change.")
    (withdrawn,) = _changes(talk)
    assert (withdrawn.cause, withdrawn.to_state, withdrawn.terms) == (
        Cause.AMENDMENT_CANCELLED,
        OPEN,
        TEA,
    )
    assert withdrawn.amendment is None
    assert withdrawn.settled_amendment is not None
    assert withdrawn.settled_amendment.terms == BLACK
    assert talk.view().pending_amendments == ()
    assert [c.terms for c in talk.view().current_agreements] == [TEA]
    assert talk.agent_accepts(record_id, 5).reason == RejectionReason.WRONG_STATE


def test_cancel_the_change_with_nothing_pending_asks_r17() -> None:
    """R17: no pending amendment of this session: nothing changes, a clarification."""
    talk = Conversation()
    _agreed(talk)
    talk.say("取消这个修改")
    asked = only(talk.last.events, ClarificationRequested)  # type: ignore[union-attr]
    assert (asked.kind, asked.candidates) == (ClarificationKind.AMENDMENT_CANCELLATION, ())
    assert _changes(talk) == ()


def test_an_amendment_lapses_when_its_agreement_expires_r9_r17() -> None:
    """R17: the agreement closes first (its deadline): the lapse is recorded, then expiry."""
    talk = Conversation()
    record_id = _agreed(talk, "Let's agree: send the summary within 30 minutes.")
    talk.say(f"Let's change our agreement: {BLACK}.")
    talk.advance(minutes=31)
    talk.say("hello")
    lapse, expiry = _changes(talk)
    assert (lapse.cause, lapse.to_state, lapse.revision) == (Cause.AMENDMENT_LAPSED, OPEN, 5)
    assert lapse.settled_amendment is not None
    assert (expiry.cause, expiry.to_state, expiry.revision) == (
        Cause.DEADLINE_REACHED,
        AgreementState.EXPIRED,
        6,
    )
    assert lapse.at == expiry.at == lapse.deadline_at
    assert expiry.amendment is None
    assert talk.state_of(record_id) == AgreementState.EXPIRED


def test_an_amendment_lapses_when_the_sweeper_expires_its_agreement_r17() -> None:
    """R17: the same through the watermark-gated sweep (no session input)."""
    talk = Conversation()
    _agreed(talk, "Let's agree: send the summary within 30 minutes.")
    talk.say(f"Let's change our agreement: {BLACK}.")
    talk.advance(minutes=31)
    step = talk.sweep()
    assert [e.cause for e in step.events if isinstance(e, StateChanged)] == [
        Cause.AMENDMENT_LAPSED,
        Cause.DEADLINE_REACHED,
    ]


def test_an_amendment_lapses_when_its_agreement_is_cancelled_r8_r17() -> None:
    """R17: cancelling the agreement itself lapses the pending amendment first."""
    talk = Conversation()
    _agreed(talk)
    talk.say(f"Let's change our agreement: {BLACK}.")
    talk.say("Cancel this agreement.")
    assert [(c.cause, c.to_state) for c in _changes(talk)] == [
        (Cause.AMENDMENT_LAPSED, OPEN),
        (Cause.USER_CANCELLED, AgreementState.CANCELLED),
    ]


def test_an_amendment_lapses_when_its_agreement_is_fulfilled_r12_r17() -> None:
    """R17: verified delivery of the current binding fulfils; the amendment lapses first."""
    talk = Conversation()
    talk.tool_result([("Organize reading notes", "pending")])
    _agreed(talk, 'Let\'s agree: mark todo "Organize reading notes" as completed.')
    talk.say(f"Let's change our agreement: {BLACK}.")
    talk.tool_result([("Organize reading notes", "completed")])
    assert [(c.cause, c.to_state) for c in _changes(talk)] == [
        (Cause.AMENDMENT_LAPSED, OPEN),
        (Cause.DELIVERY_VERIFIED, AgreementState.FULFILLED),
    ]


def test_the_amendment_brings_its_own_deadline_and_binding_r9_r11_r17() -> None:
    """R17: deadline and binding are replaced with the terms: the new terms' deadline
    (none when they have none) and a binding from the amending session's snapshot."""
    talk = Conversation()
    record_id = _agreed(talk, "Let's agree: send the summary within 30 minutes.")
    talk.tool_result([("Buy milk", "pending")])
    talk.say('Let\'s change our agreement: mark todo "Buy milk" as completed within 2 hours.')
    pending = talk.record(record_id).amendment  # type: ignore[union-attr]
    assert pending is not None
    assert pending.deadline_at == talk.now + timedelta(hours=2)
    assert pending.binding is not None
    assert pending.binding.content == "Buy milk"
    assert talk.agent_accepts(record_id).accepted
    talk.say("I accept this agreement.")
    record = talk.record(record_id)
    assert record is not None
    assert record.deadline_at == pending.deadline_at
    assert record.binding == pending.binding
    talk.advance(minutes=45)  # past the old deadline, not the new one
    talk.say("hello")
    assert talk.state_of(record_id) == OPEN
    talk.tool_result([("Buy milk", "completed")])
    assert talk.state_of(record_id) == AgreementState.FULFILLED


def test_the_target_is_the_single_open_agreement_or_the_quoted_one_r17() -> None:
    """R17: two open agreements and no hint: a clarification listing both; a quoted hint
    picks one; proposals are no targets."""
    talk = Conversation()
    tea = _agreed(talk)
    walk = _agreed(talk, "Let's agree: take a walk after lunch.")
    talk.say("Let's agree: reply in English.")  # proposed, not open
    talk.say(f"Let's change our agreement: {BLACK}.")
    asked = only(talk.last.events, ClarificationRequested)  # type: ignore[union-attr]
    assert asked.kind == ClarificationKind.AMENDMENT
    assert {c.record_id for c in asked.candidates} == {tea, walk}
    assert _changes(talk) == ()
    talk.say('Let\'s change our agreement "walk": take a walk after dinner.')
    (proposed,) = _changes(talk)
    assert proposed.record_id == walk


def test_no_open_agreement_means_a_clarification_r17() -> None:
    """R17: an amendment with nothing open to amend changes nothing."""
    talk = Conversation()
    talk.say("Let's agree: reply in English.")
    talk.say("我们把约定改成：用中文回复。")
    asked = only(talk.last.events, ClarificationRequested)  # type: ignore[union-attr]
    assert (asked.kind, asked.candidates) == (ClarificationKind.AMENDMENT, ())


def test_a_newer_amendment_replaces_the_pending_one_r17() -> None:
    """R17: amending again before acceptance replaces the pending amendment (history
    keeps both); acceptances of the earlier amendment do not carry over."""
    talk = Conversation()
    record_id = _agreed(talk)
    talk.say(f"Let's change our agreement: {BLACK}.")
    assert talk.agent_accepts(record_id, 4).accepted
    talk.say("Let's change our agreement: always offer water first.")
    (again,) = _changes(talk)
    assert again.amendment is not None
    assert (again.amendment.terms, again.amendment.acceptances.agent) == (
        "always offer water first",
        False,
    )
    assert again.settled_amendment is not None
    assert again.settled_amendment.terms == BLACK


def test_a_confirmation_lists_amendments_with_their_terms_r4_r17() -> None:
    """R4 with R17: a proposal and an amendment both awaiting the user are ambiguous; the
    candidate for the amendment carries its new terms; a quoted hint of them picks it."""
    talk = Conversation()
    record_id = _agreed(talk)
    talk.say("Let's agree: reply in English.")
    talk.say(f"Let's change our agreement: {BLACK}.")
    talk.say("I accept this agreement.")
    asked = only(talk.last.events, ClarificationRequested)  # type: ignore[union-attr]
    by_id = {c.record_id: c.amendment_terms for c in asked.candidates}
    assert by_id[record_id] == BLACK
    talk.say('I accept this agreement "black tea".')
    (accepted,) = _changes(talk)
    assert (accepted.record_id, accepted.cause) == (record_id, Cause.AMENDMENT_USER_ACCEPTED)


def test_amended_terms_over_the_limit_are_refused_r17() -> None:
    """R17 with the policy: new terms longer than the limit change nothing."""
    talk = Conversation(policy=Policy(max_terms_chars=40))
    _agreed(talk)
    talk.say("Let's change our agreement: " + "very " * 20 + "long.")
    refused = only(talk.last.events, ProposalRefused)  # type: ignore[union-attr]
    assert refused.reason == RefusalReason.TERMS_TOO_LONG
    assert _changes(talk) == ()


def test_assistant_amendments_change_nothing_r1_r17() -> None:
    """R1: an assistant's "Let's change our agreement" amends nothing."""
    talk = Conversation()
    _agreed(talk)
    talk.say(f"Let's change our agreement: {BLACK}.", role=Role.ASSISTANT)
    assert _changes(talk) == ()


def test_the_same_amendment_input_again_changes_nothing_r15_r17() -> None:
    """R15 with R17: the amendment's input applied again right after itself adds no revision."""
    talk = Conversation()
    _agreed(talk)
    talk.say(f"Let's change our agreement: {BLACK}.")
    assert talk.last_input is not None
    step = talk.apply(*talk.last_input)
    assert step.events == ()
    assert not step.scope_changed
