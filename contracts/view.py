"""The session view the agent's context builder reads (R6, R7).

There is deliberately no growth, maturity or credit field anywhere (R7).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import msgspec

from contracts.common import Ident, Instant, Revision
from contracts.records import PendingStatus

# Deliberately repeated: each wire type spells out its fields (the shared ones too)
# rather than inheriting them, so the struct reads as its schema does (contracts/schemas).
# The session view and the scope document hold the same items, the document with their
# session and unfiltered by deadline. Readers build one from the other field by field
# on purpose (CONTRIBUTING.md, "Repeated shapes").


class CurrentAgreement(msgspec.Struct, frozen=True, kw_only=True):
    """One entry of current agreement memory: the terms, and the id to refer to it."""

    record_id: Ident
    terms: str


class PendingProposal(msgspec.Struct, frozen=True, kw_only=True):
    """A proposal of this session, with what `soul_agreement_accept` needs."""

    record_id: Ident
    revision: Revision
    terms: str
    status: PendingStatus
    deadline_at: Instant | None = None


class PendingAmendment(msgspec.Struct, frozen=True, kw_only=True):
    """An amendment this session proposed to an open agreement (R17).

    `terms` are the proposed new terms; `current_terms` stay in force until both
    sides accept. `revision` is what `soul_agreement_accept` must name.
    """

    record_id: Ident
    revision: Revision
    terms: str
    current_terms: str
    status: PendingStatus
    deadline_at: Instant | None = None


class SessionView(msgspec.Struct, frozen=True, kw_only=True):
    agent_id: Ident
    user_id: Ident
    session_id: Ident
    as_of: Instant
    # The scope's open, unexpired agreements, whichever session made them.
    current_agreements: tuple[CurrentAgreement, ...] = ()
    # This session's proposals still waiting for one or both sides. Never "agreed".
    pending_proposals: tuple[PendingProposal, ...] = ()
    # This session's amendments of open agreements still waiting (R17).
    pending_amendments: tuple[PendingAmendment, ...] = ()


# --------------------------------------------------------------------------------------
# The scope's view document: what the commit writes to Redis for readers in any language.
#
# It holds every record that can appear in some session's view, with its deadline, and
# no `as_of`: a reader filters by deadline at its own read time (R9), so a document
# written before a deadline never shows an expired agreement as current after it.
#
# Each entry also says `since` when it has held as shown (event time, the `ts` of the
# input that made it so). A view as of an instant before that leaves the entry out, so
# a view as of T never lists a proposal made after T, nor an agreement that was not
# yet open at T (R6). The view of a past instant is the present state seen then, not
# a history: an entry changed after T is left out until its change, never shown as it
# was (the record's history has every revision). Documents written before this field
# have no `since`: their entries show at any instant.

# Bumped only when a reader must tell documents apart; fields are only ever added
# (docs/contracts.md, Schema evolution), so a reader of version N reads 1..N.
# 2: pending amendments (R17); a version-1 reader would show none of them.
SCOPE_VIEW_SCHEMA_VERSION = 2


class OpenAgreement(msgspec.Struct, frozen=True, kw_only=True):
    """An open record of the scope: current memory until its deadline (R6, R9).

    `since`: when it became open with these terms (its opening, or the accepted
    amendment that set them, R17).
    """

    record_id: Ident
    terms: str
    deadline_at: Instant | None = None
    since: Instant | None = None


class ScopeProposal(msgspec.Struct, frozen=True, kw_only=True):
    """A proposal still waiting, with its session: it is pending only there (R6).

    `since`: when it reached this revision and status (its proposal, or its last
    acceptance).
    """

    record_id: Ident
    session_id: Ident
    revision: Revision
    terms: str
    status: PendingStatus
    deadline_at: Instant | None = None
    since: Instant | None = None


class ScopeAmendment(msgspec.Struct, frozen=True, kw_only=True):
    """A pending amendment of an open record, with the session that may accept it (R17).

    Shown while the agreement itself is live (`agreement_deadline_at`); `deadline_at`
    is the deadline of the new terms. `since`: when the record reached this revision
    (the amendment's proposal, or its last acceptance).
    """

    record_id: Ident
    session_id: Ident
    revision: Revision
    terms: str
    current_terms: str
    status: PendingStatus
    deadline_at: Instant | None = None
    agreement_deadline_at: Instant | None = None
    since: Instant | None = None


class ScopeViewDocument(msgspec.Struct, frozen=True, kw_only=True):
    """The JSON value of field `doc` of `view:{p}:<scope>`, rewritten by every commit
    that changes the scope's records. Unfiltered: readers drop what is past its deadline.
    """

    schema_version: Annotated[int, msgspec.Meta(ge=1)] = SCOPE_VIEW_SCHEMA_VERSION
    agent_id: Ident
    user_id: Ident
    agreements: tuple[OpenAgreement, ...] = ()
    proposals: tuple[ScopeProposal, ...] = ()
    amendments: tuple[ScopeAmendment, ...] = ()


class ScopeView(msgspec.Struct, frozen=True, kw_only=True):
    """A scope's view as of an instant: current memory and every session's pending proposals."""

    agent_id: Ident
    user_id: Ident
    as_of: Instant
    current_agreements: tuple[CurrentAgreement, ...] = ()
    pending_proposals: tuple[ScopeProposal, ...] = ()
    pending_amendments: tuple[ScopeAmendment, ...] = ()


def _live(
    deadline_at: datetime | None, since: datetime | None, as_of: datetime, *, now: bool
) -> bool:
    """Shown at `as_of`: held as shown by then (`since`, unless `now`), and not yet past due.

    Deadlines are exclusive instants: at the deadline the record is already past due.
    """
    held = now or since is None or since <= as_of
    return held and (deadline_at is None or as_of < deadline_at)


def scope_view_as_of(
    document: ScopeViewDocument, as_of: datetime, *, now: bool = False
) -> ScopeView:
    """The scope's view at `as_of` (R6, R9): the document without what is past its
    deadline then, nor what was not yet so then (`since`).

    `now=True` when `as_of` is the reader's clock read for the present rather than an
    instant asked for: current memory is then the committed state, whatever its `since`
    (the clock that stamped it, the gateway's, may run ahead of the reader's, and a
    proposal hidden from the next turn's view could not be accepted, R3); only the
    deadlines apply at `as_of` (R9).
    """
    return ScopeView(
        agent_id=document.agent_id,
        user_id=document.user_id,
        as_of=as_of,
        current_agreements=tuple(
            CurrentAgreement(record_id=a.record_id, terms=a.terms)
            for a in document.agreements
            if _live(a.deadline_at, a.since, as_of, now=now)
        ),
        pending_proposals=tuple(
            p for p in document.proposals if _live(p.deadline_at, p.since, as_of, now=now)
        ),
        pending_amendments=tuple(
            a
            for a in document.amendments
            if _live(a.agreement_deadline_at, a.since, as_of, now=now)
        ),
    )


def session_view_as_of(
    document: ScopeViewDocument, session_id: str, as_of: datetime, *, now: bool = False
) -> SessionView:
    """One session's view at `as_of` (R6): the scope's memory, this session's proposals
    (`now`: as in `scope_view_as_of`)."""
    scope = scope_view_as_of(document, as_of, now=now)
    return SessionView(
        agent_id=document.agent_id,
        user_id=document.user_id,
        session_id=session_id,
        as_of=as_of,
        current_agreements=scope.current_agreements,
        pending_proposals=tuple(
            PendingProposal(
                record_id=p.record_id,
                revision=p.revision,
                terms=p.terms,
                status=p.status,
                deadline_at=p.deadline_at,
            )
            for p in scope.pending_proposals
            if p.session_id == session_id
        ),
        pending_amendments=tuple(
            PendingAmendment(
                record_id=a.record_id,
                revision=a.revision,
                terms=a.terms,
                current_terms=a.current_terms,
                status=a.status,
                deadline_at=a.deadline_at,
            )
            for a in scope.pending_amendments
            if a.session_id == session_id
        ),
    )
