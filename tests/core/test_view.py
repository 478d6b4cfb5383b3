"""The session view as of an instant (R6, R7)."""

from __future__ import annotations

from datetime import timedelta

import msgspec

from contracts.outputs import ClarificationRequested, ProposalRefused, StateChanged, ToolOutcome
from contracts.records import AgreementRecord
from contracts.view import CurrentAgreement, PendingProposal, SessionView
from core.intents import Acceptance, Proposal
from core.lifecycle.view import session_view
from tests.support.lifecycle_kit import T0, Conversation, created

PLAN = Proposal(terms="next time we discuss a plan, start with the conclusion")


def _open(talk: Conversation, proposal: Proposal, session: str = "s1") -> str:
    rid = created(talk.turn(proposal, session=session))
    talk.agent_accepts(rid, session=session)
    talk.turn(Acceptance(), session=session)
    return rid


def test_open_agreement_is_current_memory_in_every_session_of_the_scope_only_r6() -> None:
    """Open records belong to the scope: current memory in a later session, in no other scope."""
    talk = Conversation()
    rid = _open(talk, PLAN)
    expected = (CurrentAgreement(record_id=rid, terms=PLAN.terms),)
    assert talk.view("s1").current_agreements == expected
    assert talk.view("s9").current_agreements == expected
    assert Conversation(user_id="someone-else").view("s1").current_agreements == ()


def test_pending_proposals_are_listed_apart_with_status_in_their_own_session_r6() -> None:
    talk = Conversation()
    both = created(talk.turn(PLAN))
    agent = created(talk.turn(Proposal(terms="agent", deadline_at=T0 + timedelta(days=1))))
    user = created(talk.turn(Proposal(terms="user")))
    talk.agent_accepts(agent)
    talk.turn(Acceptance(target_hint="user"))
    view = talk.view()
    assert view.current_agreements == ()
    assert [(p.record_id, p.status, p.revision) for p in view.pending_proposals] == [
        (both, "awaiting_both", 1),
        (agent, "awaiting_user", 2),
        (user, "awaiting_agent", 2),
    ]
    assert view.pending_proposals[1].deadline_at == T0 + timedelta(days=1)
    assert talk.view("s2").pending_proposals == ()


def test_view_filters_by_deadline_itself_before_any_sweep_r6_r9() -> None:
    """At the deadline an open agreement leaves memory and a proposal leaves the list,
    even though no input or sweep has expired them yet."""
    talk = Conversation()
    deadline = T0 + timedelta(hours=1)
    _open(talk, msgspec.structs.replace(PLAN, deadline_at=deadline))
    created(talk.turn(Proposal(terms="tea", deadline_at=deadline)))
    assert len(talk.view().current_agreements) == 1
    assert len(talk.view().pending_proposals) == 1
    talk.advance(hours=1)
    assert talk.view().current_agreements == ()
    assert talk.view().pending_proposals == ()


def test_a_view_as_of_an_instant_shows_only_what_was_so_then_r6() -> None:
    """R6 as of T: a proposal made after T is not pending at T, an agreement opened
    after T is not current memory at T, and from each one's time on it is shown. A
    view of a past instant is the present state seen then: what is shown was so at T;
    what changed after T (here the acceptances) leaves the entry out until its time."""
    talk = Conversation()
    talk.advance(minutes=10)
    plan = created(talk.turn(PLAN))  # T0+10
    talk.advance(minutes=10)
    talk.agent_accepts(plan)  # T0+20
    talk.advance(minutes=10)
    talk.turn(Acceptance())  # T0+30: open
    talk.advance(minutes=10)
    tea = created(talk.turn(Proposal(terms="always offer green tea first")))  # T0+40

    def at(minutes: int) -> SessionView:
        return session_view(talk.scope, "s1", T0 + timedelta(minutes=minutes))

    assert (at(0).current_agreements, at(0).pending_proposals) == ((), ())
    assert (at(25).current_agreements, at(25).pending_proposals) == ((), ())
    assert [c.record_id for c in at(30).current_agreements] == [plan]
    assert at(35).pending_proposals == ()
    assert [c.record_id for c in at(40).current_agreements] == [plan]
    assert [p.record_id for p in at(40).pending_proposals] == [tea]
    assert at(40).as_of == T0 + timedelta(minutes=40)


def test_a_view_as_of_an_instant_before_an_amendment_keeps_the_agreement_only_r6_r17() -> None:
    """R6, R17 as of T: an amendment proposed after T is not pending at T; the agreement
    it amends, open since before T with its current terms, is current memory at T.
    Once the amendment is accepted, its terms show from the acceptance on only."""
    talk = Conversation()
    plan = _open(talk, PLAN)  # all at T0
    talk.advance(minutes=10)
    talk.say("Let's change our agreement: start with the reasons.")
    before = session_view(talk.scope, "s1", T0 + timedelta(minutes=5))
    assert before.current_agreements == (CurrentAgreement(record_id=plan, terms=PLAN.terms),)
    assert before.pending_amendments == ()
    after = session_view(talk.scope, "s1", talk.now)
    assert [a.terms for a in after.pending_amendments] == ["start with the reasons"]
    assert after.current_agreements == before.current_agreements
    # Accepted by both at T0+20: the new terms are current from then on. Before, the
    # view leaves the agreement out rather than show terms that were not current then.
    talk.advance(minutes=10)
    assert talk.agent_accepts(plan).accepted
    talk.say("I accept this agreement.")
    amended = CurrentAgreement(record_id=plan, terms="start with the reasons")
    assert session_view(talk.scope, "s1", talk.now).current_agreements == (amended,)
    assert session_view(talk.scope, "s1", T0 + timedelta(minutes=15)).current_agreements == ()


def test_no_view_or_event_field_grants_growth_or_maturity_credit_r7() -> None:
    """R7: views and agreement events carry memory, state and pending work only."""
    structs: tuple[type[msgspec.Struct], ...] = (
        SessionView,
        CurrentAgreement,
        PendingProposal,
        StateChanged,
        ToolOutcome,
        ClarificationRequested,
        ProposalRefused,
        AgreementRecord,
    )
    names = {field.name for struct in structs for field in msgspec.structs.fields(struct)}
    forbidden = ("growth", "matur", "credit", "score", "level", "qualif", "agreed", "reward")
    assert "terms" in names
    assert not [name for name in names if any(word in name for word in forbidden)]
