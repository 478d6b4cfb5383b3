"""The session view the agent's context builder reads (R6, R7).

There is deliberately no growth, maturity or credit field anywhere (R7).
"""

from __future__ import annotations

import msgspec

from contracts.common import Ident, Instant, Revision
from contracts.records import PendingStatus


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


class SessionView(msgspec.Struct, frozen=True, kw_only=True):
    agent_id: Ident
    user_id: Ident
    session_id: Ident
    as_of: Instant
    # The scope's open, unexpired agreements, whichever session made them.
    current_agreements: tuple[CurrentAgreement, ...] = ()
    # This session's proposals still waiting for one or both sides. Never "agreed".
    pending_proposals: tuple[PendingProposal, ...] = ()
