"""The session view as of an instant (R6, R7): what the agent's context builder reads.

Current agreement memory is the scope's open records not past their deadline,
whichever session made them, as terms only (R14). This session's own proposals are
listed apart with what `soul_agreement_accept` needs, and so are its pending
amendments of open agreements, whose current terms stay in memory until both sides
accept (R17). The view filters by deadline itself, so a sweep that has not run yet never
shows an expired agreement as current.
"""

from __future__ import annotations

from datetime import datetime

from contracts.common import AgreementState
from contracts.records import Acceptances, PendingStatus
from contracts.view import (
    OpenAgreement,
    ScopeAmendment,
    ScopeProposal,
    ScopeViewDocument,
    SessionView,
    session_view_as_of,
)
from core.lifecycle.state import ScopeState


def pending_status(acceptances: Acceptances) -> PendingStatus:
    if acceptances.agent:
        return "awaiting_user"
    if acceptances.user:
        return "awaiting_agent"
    return "awaiting_both"


def session_view(scope: ScopeState, session_id: str, as_of: datetime) -> SessionView:
    """The session's view at `as_of`, read through the scope's view document.

    One path for every reader: the worker, the CLI and the console go through
    `contracts.view.session_view_as_of` as the gateway's client does, so the view
    the agent gets cannot differ by who reads it (R6, R9).
    """
    return session_view_as_of(scope_view_document(scope), session_id, as_of)


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
            OpenAgreement(record_id=r.record_id, terms=r.terms, deadline_at=r.deadline_at)
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
            )
            for r in scope.records
            if r.amendment is not None and r.state == AgreementState.OPEN
        ),
    )
