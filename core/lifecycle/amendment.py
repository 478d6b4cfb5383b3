"""Amendments of an open agreement (R17): proposed, accepted by both sides, or replaced.

An amendment sits on its record with its own acceptances while the old terms stay
current; the second acceptance replaces terms, deadline and binding. Withdrawal is a
user act (`targeted`), lapse is part of the closing change (`changes.closing`).
"""

from __future__ import annotations

from typing import Final, Literal

import msgspec

from contracts.common import Cause
from contracts.inputs import ChatTurn
from contracts.outputs import ClarificationKind, RefusalReason, StateChanged
from contracts.records import Acceptances, AgreementRecord, Amendment
from core.intents import Amendment as AmendmentIntent
from core.intents import Proposal
from core.lifecycle import targets
from core.lifecycle.acceptance import past_deadline
from core.lifecycle.answers import clarify, refusal
from core.lifecycle.changes import Grounds, change
from core.lifecycle.context import NOTHING, Context, Outcome
from core.lifecycle.proposal import bind, stated
from core.lifecycle.transitions import acts_on

_AMENDABLE: Final = acts_on(Cause.AMENDMENT_PROPOSED)


def amend(context: Context, turn: ChatTurn, amendment: AmendmentIntent) -> Outcome:
    """New terms for the one identified open agreement, pending both acceptances."""
    amendable = tuple(
        record
        for record in context.scope.records
        if record.state in _AMENDABLE and not past_deadline(record, turn.ts)
    )
    target, listed = targets.resolve(amendable, amendment.target_hint)
    if target is None:
        return clarify(turn, ClarificationKind.AMENDMENT, listed)
    limit = context.policy.max_terms_chars
    if len(amendment.terms) > limit:
        # An amendment adds no record, so only the terms limit applies.
        return refusal(turn, RefusalReason.TERMS_TOO_LONG, limit)
    # The binding comes from the amending session's own todo snapshot, as a proposal's.
    as_proposal = Proposal(terms=amendment.terms, todo_target=amendment.todo_target)
    pending = Amendment(
        revision=target.revision + 1,
        session_id=turn.session_id,
        terms=amendment.terms,
        proposed_at=turn.ts,
        deadline_at=amendment.deadline_at,
        binding=bind(as_proposal, context.session),
    )
    if target.amendment is not None and _same_amendment(target.amendment, pending):
        return NOTHING  # the same input again (as in `proposal.propose`)
    proposed = change(
        target,
        Cause.AMENDMENT_PROPOSED,
        Grounds(turn.ts, context.provenance, stated(amendment, turn)),
        amendment=pending,
        # A newer amendment replaces a pending one, which the history keeps.
        settled=target.amendment,
    )
    return Outcome(changes=(proposed,))


def _same_amendment(pending: Amendment, again: Amendment) -> bool:
    """Whether `again` is the pending amendment stated by the same input once more."""

    def said(a: Amendment) -> tuple[object, ...]:
        return (a.session_id, a.proposed_at, a.terms, a.deadline_at, a.binding)

    return said(pending) == said(again)


def accept_amendment(
    record: AgreementRecord, pending: Amendment, side: Literal["agent", "user"], grounds: Grounds
) -> StateChanged:
    """One side's acceptance of a pending amendment; the second replaces the terms."""
    accepted = Acceptances(
        agent=pending.acceptances.agent or side == "agent",
        user=pending.acceptances.user or side == "user",
    )
    updated = msgspec.structs.replace(pending, acceptances=accepted)
    cause = Cause.AMENDMENT_AGENT_ACCEPTED if side == "agent" else Cause.AMENDMENT_USER_ACCEPTED
    if accepted.agent and accepted.user:
        # The second acceptance replaces the terms, as R5's second acceptance opens.
        return change(record, cause, grounds, amendment=None, settled=updated)
    return change(record, cause, grounds, amendment=updated)
