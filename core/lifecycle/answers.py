"""The answers an input may owe, each built on one envelope.

Every answer to an input (a tool outcome, a clarification, a refused proposal, an
unverified claim) shares its id, addressing and time with the others: `envelope`
makes them in one place (`event_id = "{session}#{seq}:{kind}"`, sealed with its content
digest by the reducer, `contracts.outputs.sealed`).
"""

from __future__ import annotations

from datetime import datetime
from typing import TypedDict, overload

from contracts.inputs import ChatTurn, ToolCall
from contracts.outputs import (
    Candidate,
    ClarificationKind,
    ClarificationRequested,
    ProposalRefused,
    RefusalReason,
    input_event_id,
)
from contracts.records import AgreementRecord
from core.lifecycle.context import Outcome


class Envelope(TypedDict):
    """The fields of every answer to an input: its id, its addressing and its time."""

    event_id: str
    agent_id: str
    user_id: str
    session_id: str
    seq: int
    at: datetime


class TurnEnvelope(Envelope):
    """An answer to a chat turn also names the message it answers."""

    message_id: str


@overload
def envelope(event: ChatTurn, kind: str) -> TurnEnvelope: ...
@overload
def envelope(event: ToolCall, kind: str) -> Envelope: ...
def envelope(event: ChatTurn | ToolCall, kind: str) -> Envelope | TurnEnvelope:
    """The envelope of the answer of `kind` to `event`."""
    fields = Envelope(
        event_id=input_event_id(event.session_id, event.seq, kind),
        agent_id=event.agent_id,
        user_id=event.user_id,
        session_id=event.session_id,
        seq=event.seq,
        at=event.ts,
    )
    if isinstance(event, ChatTurn):
        return TurnEnvelope(**fields, message_id=event.message_id)
    return fields


def refusal(turn: ChatTurn, reason: RefusalReason, limit: int) -> Outcome:
    """A proposal (or amendment) past a scope limit: no record, only this answer."""
    refused = ProposalRefused(**envelope(turn, "proposal_refused"), reason=reason, limit=limit)
    return Outcome(answers=(refused,))


def clarify(
    turn: ChatTurn, kind: ClarificationKind, listed: tuple[AgreementRecord, ...]
) -> Outcome:
    """Nothing changes; the user is asked which of `listed` is meant (R4, R8, R17)."""
    # Candidates are built field by field on purpose (CONTRIBUTING.md, "Repeated shapes").
    asked = ClarificationRequested(
        **envelope(turn, "clarification"),
        kind=kind,
        candidates=tuple(
            Candidate(
                record_id=r.record_id,
                revision=r.revision,
                terms=r.terms,
                state=r.state,
                amendment_terms=None if r.amendment is None else r.amendment.terms,
            )
            for r in listed
        ),
    )
    return Outcome(answers=(asked,))
