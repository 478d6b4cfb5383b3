"""The agreement record and its history, as published and as stored (R2, R5, R14)."""

from __future__ import annotations

from typing import Literal

import msgspec

from contracts.common import AgreementState, Cause, Ident, Instant, Provenance, Revision, Seq


class Acceptances(msgspec.Struct, frozen=True, kw_only=True):
    """Which side has recorded its acceptance. Neither is implied by a proposal (R2)."""

    agent: bool = False
    user: bool = False


class TodoBinding(msgspec.Struct, frozen=True, kw_only=True, tag="todo", tag_field="kind"):
    """Delivery binding to one continuous todo item of the original session (R11).

    Taken from the session's real todo snapshot by the host, never from the model.
    """

    session_id: Ident
    content: str
    origin_seq: Seq


# A tagged union so a later artifact kind adds a member without touching the reducer.
Binding = TodoBinding


class HistoryEntry(msgspec.Struct, frozen=True, kw_only=True):
    """One committed change: every change is a new revision (DESIGN section 1)."""

    revision: Revision
    state: AgreementState
    cause: Cause
    at: Instant
    provenance: Provenance


class AgreementRecord(msgspec.Struct, frozen=True, kw_only=True):
    """An agreement between one user and one agent.

    `terms` is the memory prose: the terms alone, never receipts or diagnostics (R14).
    Everything else (state, binding, provenance) is metadata.
    """

    record_id: Ident
    agent_id: Ident
    user_id: Ident
    # The session where it was proposed: pending proposals belong to it alone (R6).
    session_id: Ident
    state: AgreementState
    revision: Revision
    terms: str
    created_at: Instant
    deadline_at: Instant | None = None
    acceptances: Acceptances = Acceptances()
    binding: Binding | None = None
    history: tuple[HistoryEntry, ...] = ()


PendingStatus = Literal["awaiting_agent", "awaiting_user", "awaiting_both"]
