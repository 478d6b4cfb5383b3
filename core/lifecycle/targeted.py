"""The user's acts on a record already there: confirm (R4), cancel (R8), withdraw (R17).

Each act has its candidates (the states the table lets its cause act on, narrowed by
session, and never a record or amendment proposed after the act's `ts`, R5), resolves
the one record meant (`targets.resolve`) or asks which, and then decides its changes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from contracts.common import Cause
from contracts.inputs import ChatTurn
from contracts.outputs import ClarificationKind, StateChanged
from contracts.records import Acceptances, AgreementRecord, Evidence
from core.intents import Acceptance, AmendmentCancellation, Cancellation
from core.lifecycle import targets
from core.lifecycle.acceptance import before_proposal, past_deadline
from core.lifecycle.amendment import accept_amendment
from core.lifecycle.answers import clarify
from core.lifecycle.changes import Grounds, change, closing
from core.lifecycle.context import Context, Outcome
from core.lifecycle.proposal import resolution
from core.lifecycle.transitions import PROPOSED, acts_on

_CONFIRMABLE: Final = acts_on(Cause.USER_ACCEPTED)
_AMENDMENT_CONFIRMABLE: Final = acts_on(Cause.AMENDMENT_USER_ACCEPTED)
_CANCELLABLE: Final = acts_on(Cause.USER_CANCELLED)
_WITHDRAWABLE: Final = acts_on(Cause.AMENDMENT_CANCELLED)

UserAct = Acceptance | Cancellation | AmendmentCancellation


def targeted(context: Context, turn: ChatTurn, intent: UserAct) -> Outcome:
    """Confirm, cancel or withdraw the one record meant, else ask which."""
    kind, candidates = _candidates(context, turn, intent)
    target, listed = targets.resolve(candidates, intent.target_hint)
    if target is None:
        return clarify(turn, kind, listed)
    evidence = Evidence(
        input_at=turn.ts,
        rule=intent.rule,
        span=intent.span,
        resolution=resolution(intent),
        hint_span=intent.hint_span,
    )
    decide = _USER_ACTS[kind]
    return Outcome(changes=decide(target, Grounds(turn.ts, context.provenance, evidence)))


def _candidates(
    context: Context, turn: ChatTurn, intent: UserAct
) -> tuple[ClarificationKind, tuple[AgreementRecord, ...]]:
    """What the user's act may mean: the kind of act and its candidate records."""
    session_id, ts = turn.session_id, turn.ts
    live = tuple(r for r in context.scope.records if not past_deadline(r, ts))
    if isinstance(intent, Acceptance):
        # This session's proposals and amendments still awaiting the user, made at or
        # before the turn's time: a confirmation stamped earlier than a proposal does
        # not count for it (R5), as one past its deadline does not (R9). With nothing
        # left, the clarification lists no candidates.
        return ClarificationKind.CONFIRMATION, tuple(
            r
            for r in live
            if not before_proposal(r, ts)
            and (
                (r.state in _CONFIRMABLE and r.session_id == session_id and not r.acceptances.user)
                or (
                    r.amendment is not None
                    and r.state in _AMENDMENT_CONFIRMABLE
                    and r.amendment.session_id == session_id
                    and not r.amendment.acceptances.user
                )
            )
        )
    if isinstance(intent, Cancellation):
        # Any current agreement of the scope, and this session's own proposals, proposed
        # at or before the turn's time: a cancellation stamped earlier is no evidence
        # against a record that did not exist yet (R5, R8), as for a confirmation. The
        # agreement is what closes, so a pending amendment's later time does not matter.
        return ClarificationKind.CANCELLATION, tuple(
            r
            for r in live
            if r.created_at <= ts
            and r.state in _CANCELLABLE
            and (r.state != PROPOSED or r.session_id == session_id)
        )
    # This session's pending amendments, proposed at or before the turn's time (R5, R17).
    return ClarificationKind.AMENDMENT_CANCELLATION, tuple(
        r
        for r in live
        if r.amendment is not None
        and r.state in _WITHDRAWABLE
        and r.amendment.session_id == session_id
        and not before_proposal(r, ts)
    )


def _user_accepts(record: AgreementRecord, grounds: Grounds) -> tuple[StateChanged, ...]:
    pending = record.amendment
    if pending is None:
        accepted = Acceptances(agent=record.acceptances.agent, user=True)
        return (change(record, Cause.USER_ACCEPTED, grounds, accepted),)
    return (accept_amendment(record, pending, "user", grounds),)


def _user_cancels(record: AgreementRecord, grounds: Grounds) -> tuple[StateChanged, ...]:
    return closing(record, Cause.USER_CANCELLED, grounds)


def _user_withdraws(record: AgreementRecord, grounds: Grounds) -> tuple[StateChanged, ...]:
    withdrawn = change(
        record, Cause.AMENDMENT_CANCELLED, grounds, amendment=None, settled=record.amendment
    )
    return (withdrawn,)


_USER_ACTS: Final[
    dict[ClarificationKind, Callable[[AgreementRecord, Grounds], tuple[StateChanged, ...]]]
] = {
    ClarificationKind.CONFIRMATION: _user_accepts,
    ClarificationKind.CANCELLATION: _user_cancels,
    ClarificationKind.AMENDMENT_CANCELLATION: _user_withdraws,
}
