"""The agent's `soul_agreement_accept` call (R3, R17): one check per rejection reason.

Checks run in a fixed order so each call gets exactly one reason: the arguments
must be exactly `{"record_id", "expected_revision"}`; the record must exist in this
scope (a record of another scope is `unknown_record`, so nothing leaks across
scopes) and belong to this session; then its deadline at the call's time, its state,
a call stamped before the proposal, and the agent's earlier acceptance; only then the
revision, so a retried call after a success hears `already_accepted` rather than
`stale_revision`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final

import msgspec

from contracts.common import Cause
from contracts.records import AgreementRecord
from contracts.tools import AcceptArguments, RejectionReason
from core.lifecycle.state import ClosedRecord
from core.lifecycle.transitions import acts_on

_ACCEPTABLE: Final = acts_on(Cause.AGENT_ACCEPTED)
_AMENDMENT_ACCEPTABLE: Final = acts_on(Cause.AMENDMENT_AGENT_ACCEPTED)


def parse_arguments(arguments: dict[str, Any]) -> AcceptArguments | None:
    """The call's arguments, or None when they are not exactly the two fields."""
    try:
        return msgspec.convert(arguments, AcceptArguments, strict=True)
    except msgspec.ValidationError:
        return None


def past_deadline(record: AgreementRecord | ClosedRecord, at: datetime) -> bool:
    """Deadlines are exclusive instants: at the deadline the record is already past due."""
    return record.deadline_at is not None and at >= record.deadline_at


def before_proposal(record: AgreementRecord | ClosedRecord, at: datetime) -> bool:
    """An acceptance stamped earlier than what it accepts: the proposal, or the pending
    amendment when there is one (R5, R17). It does not count, whatever its seq.

    A closed record keeps no proposal time; any acceptance of it is refused by its
    state, which is checked first.
    """
    if not isinstance(record, AgreementRecord):
        return False
    proposed_at = record.created_at if record.amendment is None else record.amendment.proposed_at
    return at < proposed_at


def rejection(
    record: AgreementRecord | ClosedRecord | None,
    arguments: AcceptArguments,
    session_id: str,
    at: datetime,
) -> RejectionReason | None:
    """Why the agent cannot accept `record` now, or None when it can.

    What it accepts is the record's pending amendment when it has one (R17): then the
    amending session owns it, an open record is in the right state, and only an
    acceptance of the amendment counts as already given.
    """
    if record is None:
        return RejectionReason.UNKNOWN_RECORD
    pending = record.amendment if isinstance(record, AgreementRecord) else None
    if pending is None:
        owner, accepted = record.session_id, record.acceptances.agent
        acceptable = record.state in _ACCEPTABLE
    else:
        owner, accepted = pending.session_id, pending.acceptances.agent
        acceptable = record.state in _AMENDMENT_ACCEPTABLE
    checks = (
        (owner != session_id, RejectionReason.OTHER_SESSION),
        (past_deadline(record, at), RejectionReason.PAST_DEADLINE),
        (not acceptable, RejectionReason.WRONG_STATE),
        (before_proposal(record, at), RejectionReason.BEFORE_PROPOSAL),
        (accepted, RejectionReason.ALREADY_ACCEPTED),
        (record.revision != arguments.expected_revision, RejectionReason.STALE_REVISION),
    )
    for failed, reason in checks:
        if failed:
            return reason
    return None
