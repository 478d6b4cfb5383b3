"""The session view as of an instant (R6, R7): what the agent's context builder reads.

Current agreement memory is the scope's open records not past their deadline,
whichever session made them, as terms only (R14). This session's own proposals are
listed apart with what `soul_agreement_accept` needs, and so are its pending
amendments of open agreements, whose current terms stay in memory until both sides
accept (R17). The view filters by deadline itself, so a sweep that has not run yet never
shows an expired agreement as current; and by each entry's `since`, so a view as of an
instant never shows what was not yet so then (a proposal made later, an agreement
opened later).
"""

from __future__ import annotations

from datetime import datetime

from contracts.common import AgreementState
from contracts.records import Acceptances, AgreementRecord, PendingStatus
from contracts.view import (
    OpenAgreement,
    ScopeAmendment,
    ScopeProposal,
    ScopeViewDocument,
    SessionView,
    session_view_as_of,
)
from core.lifecycle.state import ScopeState
from core.lifecycle.transitions import OPEN


def pending_status(acceptances: Acceptances) -> PendingStatus:
    if acceptances.agent:
        return "awaiting_user"
    if acceptances.user:
        return "awaiting_agent"
    return "awaiting_both"


def changed_at(record: AgreementRecord) -> datetime:
    """Since when the record has been as it is now: the latest time among its revisions
    (inputs apply in seq order, but their `ts` need not rise with it)."""
    return max((entry.at for entry in record.history), default=record.created_at)


def open_since(record: AgreementRecord) -> datetime:
    """Since when an open record has been open with its current terms: its opening, or
    the accepted amendment that set them (R17), at the latest time up to that revision.

    Later revisions (an amendment proposed, one side accepting it, withdrawn, lapsed)
    leave its terms as they are, so they do not move it. Searched from the newest
    revision, where an agreement just opened finds it at once.
    """
    history = record.history
    begun = len(history) - 1
    while begun > 0 and history[begun].terms is None and history[begun - 1].state == OPEN:
        begun -= 1
    return max((entry.at for entry in history[: begun + 1]), default=record.created_at)


def session_view(
    scope: ScopeState, session_id: str, as_of: datetime, *, now: bool = False
) -> SessionView:
    """The session's view at `as_of`, read through the scope's view document.

    One path for every reader: the worker, the CLI and the console go through
    `contracts.view.session_view_as_of` as the gateway's client does, so the view
    the agent gets cannot differ by who reads it (R6, R9). `now`: `as_of` is the
    reader's clock for the present, so every committed entry shows whatever its `since`.
    """
    return session_view_as_of(scope_view_document(scope), session_id, as_of, now=now)


# View entries are built field by field on purpose (CONTRIBUTING.md, "Repeated shapes").
def scope_view_document(scope: ScopeState) -> ScopeViewDocument:
    """Every open record, pending proposal and pending amendment of the scope, with deadlines.

    Not filtered by deadline: the document outlives the instant it is written, so its
    readers filter at their own read time (`contracts.view.session_view_as_of`, R6, R9).
    """
    return ScopeViewDocument(
        agent_id=scope.agent_id,
        user_id=scope.user_id,
        agreements=tuple(
            OpenAgreement(
                record_id=r.record_id,
                terms=r.terms,
                deadline_at=r.deadline_at,
                since=open_since(r),
            )
            for r in scope.records
            if r.state == AgreementState.OPEN
        ),
        proposals=tuple(
            ScopeProposal(
                record_id=r.record_id,
                session_id=r.session_id,
                revision=r.revision,
                terms=r.terms,
                status=pending_status(r.acceptances),
                deadline_at=r.deadline_at,
                since=changed_at(r),
            )
            for r in scope.records
            if r.state == AgreementState.PROPOSED
        ),
        amendments=tuple(
            ScopeAmendment(
                record_id=r.record_id,
                session_id=r.amendment.session_id,
                revision=r.revision,
                terms=r.amendment.terms,
                current_terms=r.terms,
                status=pending_status(r.amendment.acceptances),
                deadline_at=r.amendment.deadline_at,
                agreement_deadline_at=r.deadline_at,
                since=changed_at(r),
            )
            for r in scope.records
            if r.amendment is not None and r.state == AgreementState.OPEN
        ),
    )
