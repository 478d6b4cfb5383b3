"""The agreement record and its history, as published and as stored (R2, R5, R14)."""

from __future__ import annotations

from typing import Literal

import msgspec

from contracts.common import AgreementState, Cause, Ident, Instant, Provenance, Revision, Seq
from contracts.tools import AcceptArguments

# Deliberately repeated: a record, its history entries and its amendment each spell out
# the fields they carry (terms, deadline, binding ...): each is a stored shape of its own.


# Records and their parts are never tracked by the garbage collector (`gc=False`): frozen
# trees in no cycle, held by the thousand in the worker's cached scope states, where
# tracked they were walked by every full collection (worker/gc_tuning.py).
class Acceptances(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """Which side has recorded its acceptance. Neither is implied by a proposal (R2)."""

    agent: bool = False
    user: bool = False


class TodoBinding(
    msgspec.Struct, frozen=True, kw_only=True, tag="todo", tag_field="kind", gc=False
):
    """Delivery binding to one continuous todo item of the original session (R11).

    Taken from the session's real todo snapshot by the host, never from the model.
    """

    session_id: Ident
    content: str
    origin_seq: Seq


# A tagged union so a later artifact kind adds a member without touching the reducer.
Binding = TodoBinding


class Amendment(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, gc=False):
    """New terms proposed for an open agreement, pending both acceptances again (R17).

    The agreement's current terms stay in force until both sides accept; only the
    amending session can accept or see it as pending.
    """

    # The revision that proposed it; acceptances name the record's current revision.
    revision: Revision
    session_id: Ident
    terms: str
    proposed_at: Instant
    deadline_at: Instant | None = None
    binding: Binding | None = None
    acceptances: Acceptances = Acceptances()


Resolution = Literal["only_candidate", "quoted_hint"]
PassedBy = Literal["input", "watermark"]


class DeadlineEvidence(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, gc=False):
    """A deadline as written in the terms, the convention applied and the instant (R16).

    `written` is part of the terms, so storing it keeps to R14.
    """

    written: str
    timezone: str
    convention: str | None = None
    resolved: Instant | None = None


class Evidence(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, gc=False):
    """Why one revision happened, beyond its provenance (R16). Never message text (R14).

    - `input_at`: the causing input's `ts`;
    - `rule`, `span`: the grammar rule that matched and its character span
      [start, end) in the message (code points of the original text);
    - `deadline`: how the deadline in the terms was read;
    - `arguments`: the agent's `soul_agreement_accept` arguments (the revision it named);
    - `resolution`, `hint_span`: how a confirmation or cancellation found its target;
    - `origin_seq`, `snapshot_seq`: the bound todo item's run and the successful
      `todo_write` whose snapshot first showed it completed;
    - `passed`, `passed_at`: what passed the deadline of an expiry: an input of the
      session (its `ts`) or the sweeper's watermark (its instant). Which one comes
      first depends on timing, so replays compare records without these two.
    """

    input_at: Instant | None = None
    rule: str | None = None
    span: tuple[int, int] | None = None
    deadline: DeadlineEvidence | None = None
    arguments: AcceptArguments | None = None
    resolution: Resolution | None = None
    hint_span: tuple[int, int] | None = None
    origin_seq: Seq | None = None
    snapshot_seq: Seq | None = None
    passed: PassedBy | None = None
    passed_at: Instant | None = None


class HistoryEntry(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, gc=False):
    """One committed change: every change is a new revision (DESIGN section 1).

    `terms` (with `deadline_at` and `binding`) is set on the revisions that set the
    terms: the proposal and an accepted amendment, so history keeps every version
    (R17). `amendment` is the amendment a revision concerns: proposed, accepted,
    applied, cancelled or lapsed.
    """

    revision: Revision
    state: AgreementState
    cause: Cause
    at: Instant
    provenance: Provenance
    terms: str | None = None
    deadline_at: Instant | None = None
    binding: Binding | None = None
    amendment: Amendment | None = None
    evidence: Evidence | None = None


class AgreementRecord(msgspec.Struct, frozen=True, kw_only=True, gc=False):
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
    # A pending amendment of this open agreement (R17), else None.
    amendment: Amendment | None = None


PendingStatus = Literal["awaiting_agent", "awaiting_user", "awaiting_both"]
