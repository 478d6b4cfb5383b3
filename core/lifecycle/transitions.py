"""The lifecycle table: every arrow a record may take, and nothing else.

`TRANSITIONS` is the whole state machine, in the manner of h11's `_state.py`; check
it against the seed. Handlers never restate it: they ask `acts_on(cause)` which states
an input may act on, so an input that fits no arrow changes nothing (it may still owe
an answer).
"""

from __future__ import annotations

from typing import Final

from contracts.common import AgreementState, Cause
from contracts.records import Acceptances, AgreementRecord

PROPOSED: Final = AgreementState.PROPOSED
OPEN: Final = AgreementState.OPEN
FULFILLED: Final = AgreementState.FULFILLED
CANCELLED: Final = AgreementState.CANCELLED
EXPIRED: Final = AgreementState.EXPIRED

# (state before, cause) -> state after.
TRANSITIONS: Final[dict[tuple[AgreementState | None, Cause], AgreementState]] = {
    # R2: an explicit user proposal creates `proposed`, revision 1, no acceptance.
    (None, Cause.PROPOSED): PROPOSED,
    # R3, R4, R5: each acceptance is its own revision; either order. The record is
    # `open` once both are recorded (see `after`), until then still `proposed`.
    (PROPOSED, Cause.AGENT_ACCEPTED): PROPOSED,
    (PROPOSED, Cause.USER_ACCEPTED): PROPOSED,
    # R8: an explicit user cancellation closes a proposal or a current agreement.
    (PROPOSED, Cause.USER_CANCELLED): CANCELLED,
    (OPEN, Cause.USER_CANCELLED): CANCELLED,
    # R9: the deadline closes the acceptance and memory window; expiry is not fulfilment.
    (PROPOSED, Cause.DEADLINE_REACHED): EXPIRED,
    (OPEN, Cause.DEADLINE_REACHED): EXPIRED,
    # R12: verified delivery of the binding fulfils an open agreement...
    (OPEN, Cause.DELIVERY_VERIFIED): FULFILLED,
    # R13: ...and a late one an expired agreement, whose history keeps `expired`.
    (EXPIRED, Cause.DELIVERY_VERIFIED): FULFILLED,
    # R17: an amendment of an open agreement is pending on it, old terms current, until
    # both sides accept it again (either order; the second one replaces the terms), the
    # user withdraws it, or it lapses because the agreement closes (recorded first).
    (OPEN, Cause.AMENDMENT_PROPOSED): OPEN,
    (OPEN, Cause.AMENDMENT_AGENT_ACCEPTED): OPEN,
    (OPEN, Cause.AMENDMENT_USER_ACCEPTED): OPEN,
    (OPEN, Cause.AMENDMENT_CANCELLED): OPEN,
    (OPEN, Cause.AMENDMENT_LAPSED): OPEN,
}

# Cause -> the states it may act on, read off the table once (handlers test every
# record of a scope against these, on every input).
_ACTS_ON: Final[dict[Cause, frozenset[AgreementState]]] = {
    cause: frozenset(
        before for (before, acting), _ in TRANSITIONS.items() if acting is cause and before
    )
    for cause in Cause
}

# States a deadline can still end: the records that are live (R9).
LIVE: Final = _ACTS_ON[Cause.DEADLINE_REACHED]


def acts_on(cause: Cause) -> frozenset[AgreementState]:
    """The states of an existing record that `cause` has an arrow from."""
    return _ACTS_ON[cause]


def after(state: AgreementState | None, cause: Cause, acceptances: Acceptances) -> AgreementState:
    """The state an arrow leads to; a proposal with both acceptances recorded is open (R5)."""
    reached = TRANSITIONS[(state, cause)]
    if reached == PROPOSED and acceptances.agent and acceptances.user:
        return OPEN
    return reached


def retained(record: AgreementRecord) -> bool:
    """Whether a record stays in the scope's live state.

    Live records do. An expired record stays only if it has a binding *and* was open
    (both acceptances recorded) before it expired: late delivery (R13) may close an
    expired *agreement*, and a proposal that expired unaccepted never became an
    agreement, so no todo write can fulfil it. Everything else is terminal: it lives on
    in the published events, the store's history and, briefly, the scope's closed list
    (`ClosedRecord`).
    """
    if record.state in LIVE:
        return True
    both = record.acceptances.agent and record.acceptances.user
    return record.state == EXPIRED and record.binding is not None and both
