"""Output events on `agreement-events:{p}` and `dead-letters:{p}`.

Every event has a deterministic `event_id`, so a subscriber drops duplicates by id: what
it describes (`{record_id}@{revision}`, `{session_id}#{seq}:{kind}`, `dlq:{stream}:{entry_id}`)
and a digest of its content after a `~` (`sealed`). The same input processed again gives
the same id; an id never names two different contents, even when a Redis failover lost
a commit that a subscriber had already read and a later input made that revision again
otherwise (DESIGN 5): the second one has an id of its own.
"""

from __future__ import annotations

import enum
import hashlib
from typing import Annotated, TypeVar

import msgspec

from contracts.common import (
    AgreementState,
    Cause,
    Ident,
    Instant,
    Provenance,
    Revision,
    Seq,
    Traceparent,
)
from contracts.records import Acceptances, Amendment, Binding, Evidence
from contracts.tools import RejectionReason

_OUTPUT = {"tag_field": "type", "frozen": True, "kw_only": True}
# Deliberately repeated: each wire type spells out its fields (the shared ones too)
# rather than inheriting them, so the struct reads as its schema does (contracts/schemas).


class StateChanged(msgspec.Struct, tag="agreement.state_changed", **_OUTPUT):
    """A committed change of one record. `event_id = "{record_id}@{revision}~{digest}"`."""

    event_id: str
    record_id: Ident
    agent_id: Ident
    user_id: Ident
    session_id: Ident
    revision: Revision
    from_state: AgreementState | None
    to_state: AgreementState
    cause: Cause
    terms: str
    at: Instant
    provenance: Provenance
    deadline_at: Instant | None = None
    acceptances: Acceptances = Acceptances()
    binding: Binding | None = None
    # The pending amendment after this change (R17), else None.
    amendment: Amendment | None = None
    # The amendment a change concerns when it is no longer pending: the one just
    # applied, cancelled or lapsed (R17).
    settled_amendment: Amendment | None = None
    evidence: Evidence | None = None
    # The worker's span that committed this event, in the trace of the input that made
    # it (W3C trace context); None when the input was untraced or the worker does not trace.
    traceparent: Traceparent | None = None


class ToolOutcome(msgspec.Struct, tag="agreement.tool_outcome", **_OUTPUT):
    """The answer to one `soul_agreement_accept` call, for the gateway to give the model."""

    event_id: str
    agent_id: Ident
    user_id: Ident
    session_id: Ident
    seq: Seq
    call_id: Ident
    accepted: bool
    at: Instant
    record_id: str | None = None
    reason: RejectionReason | None = None
    # The record's revision after this call (a changed record needs a fresh view).
    current_revision: Revision | None = None
    state: AgreementState | None = None
    # The worker's span that committed this event, in the trace of the input that made
    # it (W3C trace context); None when the input was untraced or the worker does not trace.
    traceparent: Traceparent | None = None


class Candidate(msgspec.Struct, frozen=True, kw_only=True):
    record_id: Ident
    revision: Revision
    terms: str
    state: AgreementState
    # The terms of the record's pending amendment, when that is what is meant (R17).
    amendment_terms: str | None = None


class ClarificationKind(enum.StrEnum):
    CONFIRMATION = "confirmation"
    CANCELLATION = "cancellation"
    AMENDMENT = "amendment"
    AMENDMENT_CANCELLATION = "amendment_cancellation"


class ClarificationRequested(
    msgspec.Struct,
    tag="agreement.clarification_requested",
    **_OUTPUT,
):
    """An ambiguous confirmation or cancellation: nothing changed, clearer terms needed."""

    event_id: str
    agent_id: Ident
    user_id: Ident
    session_id: Ident
    seq: Seq
    kind: ClarificationKind
    candidates: tuple[Candidate, ...]
    at: Instant
    message_id: str | None = None
    # The worker's span that committed this event, in the trace of the input that made
    # it (W3C trace context); None when the input was untraced or the worker does not trace.
    traceparent: Traceparent | None = None


class RefusalReason(enum.StrEnum):
    TOO_MANY_RECORDS = "too_many_records"
    TERMS_TOO_LONG = "terms_too_long"


class ProposalRefused(msgspec.Struct, tag="agreement.proposal_refused", **_OUTPUT):
    """A proposal phrase that was recognized but not recorded, and why."""

    event_id: str
    agent_id: Ident
    user_id: Ident
    session_id: Ident
    seq: Seq
    reason: RefusalReason
    at: Instant
    message_id: str | None = None
    limit: int | None = None
    # The worker's span that committed this event, in the trace of the input that made
    # it (W3C trace context); None when the input was untraced or the worker does not trace.
    traceparent: Traceparent | None = None


class ClaimKind(enum.StrEnum):
    AGREEMENT = "agreement"
    DELIVERY = "delivery"


class ClaimUnverified(msgspec.Struct, tag="agreement.claim_unverified", **_OUTPUT):
    """An assistant turn claims an agreement or a delivery the state does not back (R18).

    Advisory: nothing changed. `event_id = "{session_id}#{seq}:claim_unverified@{start}"`.
    `span` is [start, end) of the claim phrase in the turn's text (code points);
    `checked` the records it was checked against (the scope's open agreements, or
    the open agreements bound to the named todo). The claim's words are not repeated
    (R14): the span locates them in the gateway's own copy of the message.
    """

    event_id: str
    agent_id: Ident
    user_id: Ident
    session_id: Ident
    seq: Seq
    kind: ClaimKind
    span: tuple[int, int]
    checked: tuple[str, ...]
    at: Instant
    message_id: str | None = None
    # The worker's span that committed this event, in the trace of the input that made
    # it (W3C trace context); None when the input was untraced or the worker does not trace.
    traceparent: Traceparent | None = None


AgreementEvent = (
    StateChanged | ToolOutcome | ClarificationRequested | ProposalRefused | ClaimUnverified
)


class DeadLetterReason(enum.StrEnum):
    UNDECODABLE = "undecodable"
    CONTRACT_VIOLATION = "contract_violation"
    OVERSIZE = "oversize"
    WRONG_PARTITION = "wrong_partition"
    LATE_AFTER_GAP_SKIP = "late_after_gap_skip"
    DELIVERY_LIMIT = "delivery_limit"
    CONFLICTING_DUPLICATE = "conflicting_duplicate"
    # Its unit could not be applied or written (a key of another type, a failing step);
    # the detail names the cause. The rest of the partition goes on.
    UNCOMMITTABLE = "uncommittable"


class DeadLetter(msgspec.Struct, tag="agreement.dead_letter", **_OUTPUT):
    """An input entry that could not be applied, kept with everything needed to replay it.

    `event_id = "dlq:{stream}:{entry_id}~{digest}"`.
    """

    event_id: str
    stream: str
    entry_id: str
    reason: DeadLetterReason
    detail: Annotated[str, msgspec.Meta(max_length=2048)]
    delivery_count: int
    at: Instant
    # The entry's original fields; text-bearing fields only where configured to keep them.
    fields: dict[str, str]
    session_id: str | None = None
    seq: int | None = None


OutputEvent = AgreementEvent | DeadLetter
Sealable = TypeVar("Sealable", bound=OutputEvent)

# What separates an id's description from its content digest; a description's own `~`
# (an id may hold one) is never the last one.
SEAL = "~"
# 48 bits of BLAKE2b: ids of one record revision or one input collide by chance about
# once in 2**24 differing contents, and only one revision or input ever has a few.
_DIGEST_BYTES = 6
_SEAL_ENCODER = msgspec.msgpack.Encoder()


def state_changed_event_id(record_id: str, revision: int) -> str:
    return f"{record_id}@{revision}"


def input_event_id(session_id: str, seq: int, kind: str) -> str:
    """Id of an event caused by one input that is not a record change (outcome, etc.)."""
    return f"{session_id}#{seq}:{kind}"


def dead_letter_event_id(stream: str, entry_id: str) -> str:
    return f"dlq:{stream}:{entry_id}"


def sealed(event: Sealable) -> Sealable:
    """`event` with `~{digest}` of its content appended to its id.

    The digest covers every field but the trace context (a `traceparent` names the
    worker's span, which a second processing of the same input changes, not what the
    event says), the described id included, so an `event_id` never names two contents.
    Called once per event where it is made; sealing twice is a caller's bug.
    """
    bare = (
        event
        if isinstance(event, DeadLetter) or event.traceparent is None
        else msgspec.structs.replace(event, traceparent=None)
    )
    digest = hashlib.blake2b(_SEAL_ENCODER.encode(bare), digest_size=_DIGEST_BYTES).hexdigest()
    return msgspec.structs.replace(event, event_id=f"{event.event_id}{SEAL}{digest}")


def described(event_id: str) -> str:
    """What an event id describes, without its content digest (`sealed`)."""
    head, seal, _ = event_id.rpartition(SEAL)
    return head if seal else event_id
