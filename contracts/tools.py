"""The agent's acceptance tool `soul_agreement_accept` (R3)."""

from __future__ import annotations

import enum

import msgspec

from contracts.common import Ident, Revision

ACCEPT_TOOL_NAME = "soul_agreement_accept"
TODO_WRITE_TOOL_NAME = "todo_write"


class AcceptArguments(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Exactly the existing target and its current revision; nothing else is accepted."""

    record_id: Ident
    expected_revision: Revision


class RejectionReason(enum.StrEnum):
    """Why a `soul_agreement_accept` call did not accept (R3): one reason per check."""

    MALFORMED_ARGUMENTS = "malformed_arguments"
    UNKNOWN_RECORD = "unknown_record"
    OTHER_SESSION = "other_session"
    STALE_REVISION = "stale_revision"
    WRONG_STATE = "wrong_state"
    PAST_DEADLINE = "past_deadline"
    ALREADY_ACCEPTED = "already_accepted"
    # The call's `ts` is earlier than the proposal (or amendment) it names: acceptances
    # come after the proposal (R5), whatever order the session's seqs put them in.
    BEFORE_PROPOSAL = "before_proposal"
