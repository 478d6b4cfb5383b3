"""The agreement lifecycle: the only place where agreement state changes.

Everything that moves a record lives in this file, in the manner of h11's
`_state.py`. `TRANSITIONS` is the whole state machine; check it against the seed.
The handlers below *decide* which changes an input causes (each a `StateChanged`
event) and `evolve` folds one event into a record. An input that the rules refuse
changes nothing: it may only owe an answer (a tool outcome, a clarification, a
refused proposal).

Time is an argument, never a clock: an input acts at its own `ts`, and before it
acts every record whose deadline is at or before that `ts` expires, with the
deadline as history time, so the outcome depends only on event time (DESIGN 3).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Final

import msgspec

from contracts.common import AgreementState, Cause, Provenance, Role
from contracts.inputs import ChatTurn, InputEvent, ToolCall, ToolResult
from contracts.outputs import (
    AgreementEvent,
    Candidate,
    ClarificationKind,
    ClarificationRequested,
    ProposalRefused,
    RefusalReason,
    StateChanged,
    ToolOutcome,
    input_event_id,
    state_changed_event_id,
)
from contracts.records import Acceptances, AgreementRecord, Binding, HistoryEntry, TodoBinding
from contracts.tools import ACCEPT_TOOL_NAME, RejectionReason
from worker.core import acceptance, targets
from worker.core.delivery import DeliveryAdapter
from worker.core.intents import Acceptance, Cancellation, Intent, Proposal
from worker.core.state import (
    CLOSED_KEPT,
    ClosedRecord,
    ScopeState,
    SessionState,
    record_id_for,
)
from worker.core.todo import TODO_ADAPTER

PROPOSED: Final = AgreementState.PROPOSED
OPEN: Final = AgreementState.OPEN
FULFILLED: Final = AgreementState.FULFILLED
CANCELLED: Final = AgreementState.CANCELLED
EXPIRED: Final = AgreementState.EXPIRED

# (state before, cause) -> state after. Handlers only pick records whose arrow is
# listed here, so an input that fits no arrow changes nothing (it may owe an answer).
TRANSITIONS: Final[dict[tuple[AgreementState | None, Cause], AgreementState]] = {
    # R2: an explicit user proposal creates `proposed`, revision 1, no acceptance.
    (None, Cause.PROPOSED): PROPOSED,
    # R3, R4, R5: each acceptance is its own revision; either order. The record is
    # `open` once both are recorded (see `_after`), until then still `proposed`.
    (PROPOSED, Cause.AGENT_ACCEPTED): PROPOSED,
    (PROPOSED, Cause.USER_ACCEPTED): PROPOSED,
    # R8: an explicit user cancellation closes a proposal or a current agreement.
    (PROPOSED, Cause.USER_CANCELLED): CANCELLED,
    (OPEN, Cause.USER_CANCELLED): CANCELLED,
    # R9: the deadline closes the acceptance and memory window; expiry is not fulfilment.
    (PROPOSED, Cause.DEADLINE_REACHED): EXPIRED,
    (OPEN, Cause.DEADLINE_REACHED): EXPIRED,
    # R12: verified delivery of the binding fulfils an open agreement...
    (OPEN, Cause.DELIVERY_VERIFIED): FULFILLED,
    # R13: ...and a late one an expired agreement, whose history keeps `expired`.
    (EXPIRED, Cause.DELIVERY_VERIFIED): FULFILLED,
}

# States a deadline can still end (built once: `_expire` runs before every input).
_LIVE: Final = frozenset({PROPOSED, OPEN})

# Binding kind -> the adapter that verifies it (DESIGN 3, "Delivery adapters").
ADAPTERS: Final[dict[type[Binding], DeliveryAdapter]] = {TodoBinding: TODO_ADAPTER}


@dataclass(frozen=True)
class Policy:
    """Limits that keep one scope bounded; a refused proposal creates no record."""

    max_records_per_scope: int = 50
    max_terms_chars: int = 1000


class Step(msgspec.Struct, frozen=True):
    """What one input (or one expiry sweep) did: new states and the events to publish.

    `session` is None only for `expire_due`, which concerns no session. A msgspec
    Struct, not a frozen dataclass: one is built per input, and a frozen dataclass's
    `__init__` (one `object.__setattr__` per field) cost about 1 us of it.
    """

    scope: ScopeState
    session: SessionState | None
    events: tuple[AgreementEvent, ...]
    scope_changed: bool
    session_changed: bool


def _after(state: AgreementState | None, cause: Cause, acceptances: Acceptances) -> AgreementState:
    after = TRANSITIONS[(state, cause)]
    if after == PROPOSED and acceptances.agent and acceptances.user:
        return OPEN  # R5: both recorded acceptances make it open.
    return after


def _retained(record: AgreementRecord) -> bool:
    """Whether a record stays in the scope's live state.

    Proposed and open records do. An expired record stays only if it has a binding
    *and* was open (both acceptances recorded) before it expired: late delivery
    (R13) may close an expired *agreement*, and a proposal that expired unaccepted
    never became an agreement, so no todo write can fulfil it. Everything else is
    terminal: it lives on in the published events, the store's history and, briefly,
    the scope's closed list (`ClosedRecord`).
    """
    if record.state in {PROPOSED, OPEN}:
        return True
    both = record.acceptances.agent and record.acceptances.user
    return record.state == EXPIRED and record.binding is not None and both


def change(
    record: AgreementRecord,
    cause: Cause,
    at: datetime,
    provenance: Provenance,
    acceptances: Acceptances | None = None,
) -> StateChanged:
    """Decide one change of an existing record: the next revision, per the table."""
    accepted = record.acceptances if acceptances is None else acceptances
    revision = record.revision + 1
    return StateChanged(
        event_id=state_changed_event_id(record.record_id, revision),
        record_id=record.record_id,
        agent_id=record.agent_id,
        user_id=record.user_id,
        session_id=record.session_id,
        revision=revision,
        from_state=record.state,
        to_state=_after(record.state, cause, accepted),
        cause=cause,
        terms=record.terms,
        at=at,
        provenance=provenance,
        deadline_at=record.deadline_at,
        acceptances=accepted,
        binding=record.binding,
    )


def evolve(record: AgreementRecord | None, event: StateChanged) -> AgreementRecord:
    """Fold one committed change into its record; every change appends history."""
    entry = HistoryEntry(
        revision=event.revision,
        state=event.to_state,
        cause=event.cause,
        at=event.at,
        provenance=event.provenance,
    )
    if record is None:
        return AgreementRecord(
            record_id=event.record_id,
            agent_id=event.agent_id,
            user_id=event.user_id,
            session_id=event.session_id,
            state=event.to_state,
            revision=event.revision,
            terms=event.terms,
            created_at=event.at,
            deadline_at=event.deadline_at,
            acceptances=event.acceptances,
            binding=event.binding,
            history=(entry,),
        )
    return msgspec.structs.replace(
        record,
        state=event.to_state,
        revision=event.revision,
        acceptances=event.acceptances,
        history=(*record.history, entry),
    )


def _commit(scope: ScopeState, changes: tuple[StateChanged, ...]) -> ScopeState:
    if not changes:
        return scope
    records = {record.record_id: record for record in scope.records}
    for event in changes:
        records[event.record_id] = evolve(records.get(event.record_id), event)
    kept = tuple(record for record in records.values() if _retained(record))
    closing = tuple(
        ClosedRecord(r.record_id, r.session_id, r.state, r.revision, r.deadline_at, r.acceptances)
        for r in records.values()
        if not _retained(r)
    )
    closed = (*scope.closed, *closing)[-CLOSED_KEPT:]
    return msgspec.structs.replace(scope, records=kept, closed=closed)


def _expire(
    scope: ScopeState, now: datetime, *, session_id: str | None = None
) -> tuple[StateChanged, ...]:
    """Expiry of every record whose deadline is at or before `now` (R9), in deadline order.

    With `session_id`, only the records proposed in that session.
    """
    due = [
        record
        for record in scope.records
        if record.state in _LIVE
        and acceptance.past_deadline(record, now)
        and (session_id is None or record.session_id == session_id)
    ]
    if not due:
        return ()  # the usual case, before every input: skip the sort and the tuple
    due.sort(key=lambda record: record.deadline_at or now)
    return tuple(
        # History time is the deadline, so a late sweep and a replay agree.
        change(
            record,
            Cause.DEADLINE_REACHED,
            record.deadline_at or now,
            Provenance(session_id=record.session_id),
        )
        for record in due
    )


def expire_due(scope: ScopeState, now: datetime) -> Step:
    """The sweeper's step: expire what is due at `now`; no session is involved."""
    changes = _expire(scope, now)
    return Step(
        scope=_commit(scope, changes),
        session=None,
        events=changes,
        scope_changed=bool(changes),
        session_changed=False,
    )


def deadline_entries(scope: ScopeState) -> tuple[tuple[str, datetime], ...]:
    """(record_id, deadline_at) of the records that can still expire, for the store's index."""
    return tuple(
        (record.record_id, record.deadline_at)
        for record in scope.records
        if record.deadline_at is not None and record.state in {PROPOSED, OPEN}
    )


class _Outcome(msgspec.Struct, frozen=True):
    changes: tuple[StateChanged, ...] = ()
    answers: tuple[AgreementEvent, ...] = ()
    session: SessionState | None = None


def apply_input(  # noqa: PLR0913, PLR0917 - the agreed interface (core_api): each argument is distinct data
    scope: ScopeState,
    session: SessionState,
    event: InputEvent,
    intent: Intent,
    provenance: Provenance,
    policy: Policy,
) -> Step:
    """Apply one input at its own time. `intent` is NO_INTENT unless a user chat turn."""
    # Only this session's records are expired here: its seq order guarantees that every
    # earlier input of the session has been applied, so an acceptance or delivery stamped
    # before the deadline has already counted. Another session's records past their
    # deadline are left to that session's next input or to the watermark-gated sweeper
    # (DESIGN 3); until then the handlers treat them as past due (`_current`), so a
    # concurrent session can neither pre-empt an in-time input nor act on a dead record.
    expiries = _expire(scope, event.ts, session_id=event.session_id)
    current = _commit(scope, expiries)
    if isinstance(event, ChatTurn):
        outcome = _on_turn(
            scope=current,
            session=session,
            turn=event,
            intent=intent,
            provenance=provenance,
            policy=policy,
        )
    elif isinstance(event, ToolCall):
        outcome = _on_call(current, event, provenance)
    else:
        outcome = _on_result(current, session, event, provenance)
    new_session = session if outcome.session is None else outcome.session
    changes = expiries + outcome.changes
    return Step(
        scope=_commit(current, outcome.changes),
        session=new_session,
        events=changes + outcome.answers,
        scope_changed=bool(changes),
        # Only a handler that returns a session can change it: no compare for the rest.
        session_changed=outcome.session is not None and new_session != session,
    )


# --- user turns: proposal (R1, R2, R11), confirmation (R4), cancellation (R8) ---


def _on_turn(  # noqa: PLR0913 - the turn and everything it is judged against
    *,
    scope: ScopeState,
    session: SessionState,
    turn: ChatTurn,
    intent: Intent,
    provenance: Provenance,
    policy: Policy,
) -> _Outcome:
    if turn.role != Role.USER:
        # R1: assistant, system and tool text never creates, accepts or cancels.
        return _Outcome()
    if isinstance(intent, Proposal):
        return _propose(
            scope=scope,
            session=session,
            turn=turn,
            proposal=intent,
            provenance=provenance,
            policy=policy,
        )
    if isinstance(intent, Acceptance):
        waiting = tuple(
            record
            for record in scope.records
            if record.session_id == turn.session_id
            and record.state == PROPOSED
            and not record.acceptances.user
        )
        return _targeted(waiting, intent.target_hint, turn, provenance, Cause.USER_ACCEPTED)
    if isinstance(intent, Cancellation):
        closable = tuple(
            record
            for record in scope.records
            if not acceptance.past_deadline(record, turn.ts)
            and (
                record.state == OPEN
                or (record.state == PROPOSED and record.session_id == turn.session_id)
            )
        )
        return _targeted(closable, intent.target_hint, turn, provenance, Cause.USER_CANCELLED)
    return _Outcome()


def _propose(  # noqa: PLR0913 - as _on_turn
    *,
    scope: ScopeState,
    session: SessionState,
    turn: ChatTurn,
    proposal: Proposal,
    provenance: Provenance,
    policy: Policy,
) -> _Outcome:
    record_id = record_id_for(turn.agent_id, turn.user_id, turn.session_id, turn.seq)
    if scope.find(record_id) is not None:
        # The same input again while its record is live. (Exactly once is the store's
        # ordering gate: redelivered inputs never reach the core in normal operation.)
        return _Outcome()
    refusal: tuple[RefusalReason, int] | None = None
    if len(proposal.terms) > policy.max_terms_chars:
        refusal = (RefusalReason.TERMS_TOO_LONG, policy.max_terms_chars)
    elif scope.live_count(turn.ts) >= policy.max_records_per_scope:
        refusal = (RefusalReason.TOO_MANY_RECORDS, policy.max_records_per_scope)
    if refusal is not None:
        reason, limit = refusal
        refused = ProposalRefused(
            event_id=input_event_id(turn.session_id, turn.seq, "proposal_refused"),
            agent_id=turn.agent_id,
            user_id=turn.user_id,
            session_id=turn.session_id,
            seq=turn.seq,
            reason=reason,
            at=turn.ts,
            message_id=turn.message_id,
            limit=limit,
        )
        return _Outcome(answers=(refused,))
    binding = next(
        (b for adapter in ADAPTERS.values() if (b := adapter.bind(proposal, session))), None
    )
    created = StateChanged(
        event_id=state_changed_event_id(record_id, 1),
        record_id=record_id,
        agent_id=turn.agent_id,
        user_id=turn.user_id,
        session_id=turn.session_id,
        revision=1,
        from_state=None,
        to_state=_after(None, Cause.PROPOSED, Acceptances()),
        cause=Cause.PROPOSED,
        terms=proposal.terms,
        at=turn.ts,
        provenance=provenance,
        deadline_at=proposal.deadline_at,
        binding=binding,
    )
    return _Outcome(changes=(created,))


def _targeted(
    candidates: tuple[AgreementRecord, ...],
    hint: str | None,
    turn: ChatTurn,
    provenance: Provenance,
    cause: Cause,
) -> _Outcome:
    """Confirm or cancel the one record meant, else ask which (R4, R8)."""
    target, listed = targets.resolve(candidates, hint)
    if target is not None:
        accepted = target.acceptances
        if cause == Cause.USER_ACCEPTED:
            accepted = Acceptances(agent=accepted.agent, user=True)
        return _Outcome(changes=(change(target, cause, turn.ts, provenance, accepted),))
    kind = (
        ClarificationKind.CONFIRMATION
        if cause == Cause.USER_ACCEPTED
        else ClarificationKind.CANCELLATION
    )
    asked = ClarificationRequested(
        event_id=input_event_id(turn.session_id, turn.seq, "clarification"),
        agent_id=turn.agent_id,
        user_id=turn.user_id,
        session_id=turn.session_id,
        seq=turn.seq,
        kind=kind,
        candidates=tuple(
            Candidate(record_id=r.record_id, revision=r.revision, terms=r.terms, state=r.state)
            for r in listed
        ),
        at=turn.ts,
        message_id=turn.message_id,
    )
    return _Outcome(answers=(asked,))


# --- the agent's acceptance tool (R3) ---


def _on_call(
    scope: ScopeState,
    call: ToolCall,
    provenance: Provenance,
) -> _Outcome:
    if call.name != ACCEPT_TOOL_NAME:
        return _Outcome()  # other tools are not agreements (R10)
    raw_id = call.arguments.get("record_id")
    record_id = raw_id if isinstance(raw_id, str) else None
    record: AgreementRecord | ClosedRecord | None = None
    if record_id is not None:
        # A closed record still answers the agent (wrong state, past deadline).
        record = scope.find(record_id) or scope.find_closed(record_id)
    arguments = acceptance.parse_arguments(call.arguments)
    if arguments is None:
        reason: RejectionReason | None = RejectionReason.MALFORMED_ARGUMENTS
    else:
        reason = acceptance.rejection(record, arguments, call.session_id, call.ts)
    changes: tuple[StateChanged, ...] = ()
    if reason is None and isinstance(record, AgreementRecord):
        accepted = Acceptances(agent=True, user=record.acceptances.user)
        changes = (change(record, Cause.AGENT_ACCEPTED, call.ts, provenance, accepted),)
        record = evolve(record, changes[0])
    outcome = ToolOutcome(
        event_id=input_event_id(call.session_id, call.seq, "tool_outcome"),
        agent_id=call.agent_id,
        user_id=call.user_id,
        session_id=call.session_id,
        seq=call.seq,
        call_id=call.call_id,
        accepted=reason is None,
        at=call.ts,
        record_id=record_id,
        reason=reason,
        current_revision=None if record is None else record.revision,
        state=None if record is None else record.state,
    )
    return _Outcome(changes=changes, answers=(outcome,))


# --- tool results: only verified delivery (R10, R12, R13) ---


def _on_result(
    scope: ScopeState,
    session: SessionState,
    result: ToolResult,
    provenance: Provenance,
) -> _Outcome:
    after = session
    for adapter in ADAPTERS.values():
        after = adapter.observe(after, result)
    # Tracking unchanged means no item moved, so nothing can have been delivered.
    if after == session:
        return _Outcome()
    delivered = tuple(
        change(record, Cause.DELIVERY_VERIFIED, result.ts, provenance)
        for record in scope.records
        if record.binding is not None
        and record.state in {OPEN, EXPIRED}
        and ADAPTERS[type(record.binding)].delivered(record.binding, session, after)
    )
    return _Outcome(changes=delivered, session=after)
