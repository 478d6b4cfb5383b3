"""A user's proposal (R1, R2, R11, R16): a new record, or a refusal past the scope's limits."""

from __future__ import annotations

from typing import Literal

from contracts.common import Cause
from contracts.inputs import ChatTurn
from contracts.outputs import RefusalReason, StateChanged, state_changed_event_id
from contracts.records import Acceptances, Binding, Evidence
from core.intents import Acceptance, AmendmentCancellation, Cancellation, Proposal
from core.intents import Amendment as AmendmentIntent
from core.lifecycle.answers import refusal
from core.lifecycle.context import NOTHING, Context, Outcome
from core.lifecycle.delivery import ADAPTERS
from core.lifecycle.state import SessionState, record_id_for
from core.lifecycle.transitions import after


def propose(context: Context, turn: ChatTurn, proposal: Proposal) -> Outcome:
    """Revision 1 of a new `proposed` record, bound to a todo when the terms name one."""
    scope, policy = context.scope, context.policy
    record_id = record_id_for(turn.agent_id, turn.user_id, turn.session_id, turn.seq)
    if scope.find(record_id) is not None:
        # The same input again while its record is live. (Exactly once is the store's
        # ordering gate: redelivered inputs never reach the core in normal operation.)
        return NOTHING
    if len(proposal.terms) > policy.max_terms_chars:
        return refusal(turn, RefusalReason.TERMS_TOO_LONG, policy.max_terms_chars)
    if scope.live_count(turn.ts) >= policy.max_records_per_scope:
        return refusal(turn, RefusalReason.TOO_MANY_RECORDS, policy.max_records_per_scope)
    created = StateChanged(
        event_id=state_changed_event_id(record_id, 1),
        record_id=record_id,
        agent_id=turn.agent_id,
        user_id=turn.user_id,
        session_id=turn.session_id,
        revision=1,
        from_state=None,
        to_state=after(None, Cause.PROPOSED, Acceptances()),
        cause=Cause.PROPOSED,
        terms=proposal.terms,
        at=turn.ts,
        provenance=context.provenance,
        deadline_at=proposal.deadline_at,
        binding=bind(proposal, context.session),
        evidence=stated(proposal, turn),
    )
    return Outcome(changes=(created,))


def bind(terms: Proposal, session: SessionState) -> Binding | None:
    """The first binding an adapter takes from the session's own state (R11)."""
    return next((b for adapter in ADAPTERS.values() if (b := adapter.bind(terms, session))), None)


def stated(intent: Proposal | AmendmentIntent, turn: ChatTurn) -> Evidence:
    """R16: the rule and span that matched, and how the deadline was read."""
    return Evidence(
        input_at=turn.ts,
        rule=intent.rule,
        span=intent.span,
        deadline=intent.deadline,
        resolution=None if not isinstance(intent, AmendmentIntent) else resolution(intent),
        hint_span=intent.hint_span if isinstance(intent, AmendmentIntent) else None,
    )


def resolution(
    intent: Acceptance | Cancellation | AmendmentCancellation | AmendmentIntent,
) -> Literal["only_candidate", "quoted_hint"]:
    """R16: how the record meant was found."""
    return "only_candidate" if intent.target_hint is None else "quoted_hint"
