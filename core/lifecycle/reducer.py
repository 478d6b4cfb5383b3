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

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Final, Literal

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
from contracts.records import (
    Acceptances,
    AgreementRecord,
    Amendment,
    Binding,
    Evidence,
    HistoryEntry,
    PassedBy,
    TodoBinding,
)
from contracts.tools import ACCEPT_TOOL_NAME, RejectionReason
from core.intents import (
    Acceptance,
    AmendmentCancellation,
    Cancellation,
    Claims,
    Intent,
    Proposal,
)
from core.intents import Amendment as AmendmentIntent
from core.lifecycle import acceptance, claims, targets
from core.lifecycle.delivery import DeliveryAdapter
from core.lifecycle.state import (
    CLOSED_KEPT,
    ClosedRecord,
    ScopeState,
    SessionState,
    record_id_for,
)
from core.lifecycle.todo import TODO_ADAPTER

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
    # R17: an amendment of an open agreement is pending on it, old terms current, until
    # both sides accept it again (either order; the second one replaces the terms), the
    # user withdraws it, or it lapses because the agreement closes (recorded first).
    (OPEN, Cause.AMENDMENT_PROPOSED): OPEN,
    (OPEN, Cause.AMENDMENT_AGENT_ACCEPTED): OPEN,
    (OPEN, Cause.AMENDMENT_USER_ACCEPTED): OPEN,
    (OPEN, Cause.AMENDMENT_CANCELLED): OPEN,
    (OPEN, Cause.AMENDMENT_LAPSED): OPEN,
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


def change(  # noqa: PLR0913 - one change and everything it may carry
    record: AgreementRecord,
    cause: Cause,
    at: datetime,
    provenance: Provenance,
    acceptances: Acceptances | None = None,
    *,
    evidence: Evidence | None = None,
    amendment: Amendment | msgspec.UnsetType | None = msgspec.UNSET,
    settled: Amendment | None = None,
) -> StateChanged:
    """Decide one change of an existing record: the next revision, per the table.

    `amendment` is the pending amendment after the change (unset: unchanged);
    `settled` an amendment that stops being pending here: when it has both
    acceptances its terms, deadline and binding replace the current ones (R17).
    """
    accepted = record.acceptances if acceptances is None else acceptances
    pending = record.amendment if isinstance(amendment, msgspec.UnsetType) else amendment
    terms, deadline_at, binding = record.terms, record.deadline_at, record.binding
    if settled is not None and settled.acceptances.agent and settled.acceptances.user:
        terms, deadline_at, binding = settled.terms, settled.deadline_at, settled.binding
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
        terms=terms,
        at=at,
        provenance=provenance,
        deadline_at=deadline_at,
        acceptances=accepted,
        binding=binding,
        amendment=pending,
        settled_amendment=settled,
        evidence=evidence,
    )


def closing(
    record: AgreementRecord,
    cause: Cause,
    at: datetime,
    provenance: Provenance,
    evidence: Evidence | None = None,
) -> tuple[StateChanged, ...]:
    """A closing change, after the lapse of a pending amendment when there is one (R17)."""
    if record.amendment is None:
        return (change(record, cause, at, provenance, evidence=evidence),)
    lapse = change(
        record,
        Cause.AMENDMENT_LAPSED,
        at,
        provenance,
        evidence=evidence,
        amendment=None,
        settled=record.amendment,
    )
    return lapse, change(evolve(record, lapse), cause, at, provenance, evidence=evidence)


def evolve(record: AgreementRecord | None, event: StateChanged) -> AgreementRecord:
    """Fold one committed change into its record; every change appends history.

    The entry keeps the terms (deadline, binding) when this change set them, so the
    history holds every version (R17), and the amendment the change concerns.
    """
    version = (event.terms, event.deadline_at, event.binding)
    sets_terms = record is None or version != (record.terms, record.deadline_at, record.binding)
    entry = HistoryEntry(
        revision=event.revision,
        state=event.to_state,
        cause=event.cause,
        at=event.at,
        provenance=event.provenance,
        terms=event.terms if sets_terms else None,
        deadline_at=event.deadline_at if sets_terms else None,
        binding=event.binding if sets_terms else None,
        amendment=event.amendment or event.settled_amendment,
        evidence=event.evidence,
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
        terms=event.terms,
        deadline_at=event.deadline_at,
        acceptances=event.acceptances,
        binding=event.binding,
        amendment=event.amendment,
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
    passed: PassedBy = "watermark" if session_id is None else "input"
    evidence = Evidence(passed=passed, passed_at=now)
    return tuple(
        # History time is the deadline, so a late sweep and a replay agree.
        expiry
        for record in due
        for expiry in closing(
            record,
            Cause.DEADLINE_REACHED,
            record.deadline_at or now,
            Provenance(session_id=record.session_id),
            evidence,
        )
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


# --- user turns: proposal (R1, R2, R11), confirmation (R4), cancellation (R8),
# amendment (R17); assistant turns: claims (R18) ---


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
        # R18: an assistant's claims are checked against the state, which stays as it is.
        if isinstance(intent, Claims) and turn.role == Role.ASSISTANT:
            return _Outcome(answers=claims.unverified(scope, session, turn, intent.claims))
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
    if isinstance(intent, AmendmentIntent):
        return _amend(
            scope=scope,
            session=session,
            turn=turn,
            amendment=intent,
            provenance=provenance,
            policy=policy,
        )
    if isinstance(intent, Acceptance | Cancellation | AmendmentCancellation):
        return _targeted(scope, turn, intent, provenance)
    return _Outcome()


def _refused(turn: ChatTurn, terms: str, scope: ScopeState, policy: Policy) -> _Outcome | None:
    """The refusal a proposal gets past the scope's limits, else None."""
    if len(terms) > policy.max_terms_chars:
        return _refusal(turn, RefusalReason.TERMS_TOO_LONG, policy.max_terms_chars)
    if scope.live_count(turn.ts) >= policy.max_records_per_scope:
        return _refusal(turn, RefusalReason.TOO_MANY_RECORDS, policy.max_records_per_scope)
    return None


def _refusal(turn: ChatTurn, reason: RefusalReason, limit: int) -> _Outcome:
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


def _bind(terms: Proposal, session: SessionState) -> Binding | None:
    return next((b for adapter in ADAPTERS.values() if (b := adapter.bind(terms, session))), None)


def _stated(intent: Proposal | AmendmentIntent, turn: ChatTurn) -> Evidence:
    """R16: the rule and span that matched, and how the deadline was read."""
    return Evidence(
        input_at=turn.ts,
        rule=intent.rule,
        span=intent.span,
        deadline=intent.deadline,
        resolution=None if not isinstance(intent, AmendmentIntent) else _resolution(intent),
        hint_span=intent.hint_span if isinstance(intent, AmendmentIntent) else None,
    )


def _resolution(
    intent: Acceptance | Cancellation | AmendmentCancellation | AmendmentIntent,
) -> Literal["only_candidate", "quoted_hint"]:
    return "only_candidate" if intent.target_hint is None else "quoted_hint"


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
    refused = _refused(turn, proposal.terms, scope, policy)
    if refused is not None:
        return refused
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
        binding=_bind(proposal, session),
        evidence=_stated(proposal, turn),
    )
    return _Outcome(changes=(created,))


def _amend(  # noqa: PLR0913 - as _on_turn
    *,
    scope: ScopeState,
    session: SessionState,
    turn: ChatTurn,
    amendment: AmendmentIntent,
    provenance: Provenance,
    policy: Policy,
) -> _Outcome:
    """R17: new terms for the one identified open agreement, pending both acceptances."""
    amendable = tuple(
        record
        for record in scope.records
        if record.state == OPEN and not acceptance.past_deadline(record, turn.ts)
    )
    target, listed = targets.resolve(amendable, amendment.target_hint)
    if target is None:
        return _clarify(turn, ClarificationKind.AMENDMENT, listed)
    if len(amendment.terms) > policy.max_terms_chars:
        # An amendment adds no record, so only the terms limit applies.
        return _refusal(turn, RefusalReason.TERMS_TOO_LONG, policy.max_terms_chars)
    # The binding comes from the amending session's own todo snapshot, as a proposal's.
    as_proposal = Proposal(terms=amendment.terms, todo_target=amendment.todo_target)
    pending = Amendment(
        revision=target.revision + 1,
        session_id=turn.session_id,
        terms=amendment.terms,
        proposed_at=turn.ts,
        deadline_at=amendment.deadline_at,
        binding=_bind(as_proposal, session),
    )
    if target.amendment is not None and _same_amendment(target.amendment, pending):
        return _Outcome()  # the same input again (as in _propose)
    proposed = change(
        target,
        Cause.AMENDMENT_PROPOSED,
        turn.ts,
        provenance,
        evidence=_stated(amendment, turn),
        amendment=pending,
        # A newer amendment replaces a pending one, which the history keeps.
        settled=target.amendment,
    )
    return _Outcome(changes=(proposed,))


def _same_amendment(pending: Amendment, again: Amendment) -> bool:
    """Whether `again` is the pending amendment stated by the same input once more."""

    def said(a: Amendment) -> tuple[object, ...]:
        return (a.session_id, a.proposed_at, a.terms, a.deadline_at, a.binding)

    return said(pending) == said(again)


def _targeted(
    scope: ScopeState,
    turn: ChatTurn,
    intent: Acceptance | Cancellation | AmendmentCancellation,
    provenance: Provenance,
) -> _Outcome:
    """Confirm, cancel or withdraw the one record meant, else ask which (R4, R8, R17)."""
    kind, candidates = _candidates(scope, turn, intent)
    target, listed = targets.resolve(candidates, intent.target_hint)
    if target is None:
        return _clarify(turn, kind, listed)
    evidence = Evidence(
        input_at=turn.ts,
        rule=intent.rule,
        span=intent.span,
        resolution=_resolution(intent),
        hint_span=intent.hint_span,
    )
    decide = _USER_ACTS[kind]
    return _Outcome(changes=decide(target, turn.ts, provenance, evidence))


def _candidates(
    scope: ScopeState,
    turn: ChatTurn,
    intent: Acceptance | Cancellation | AmendmentCancellation,
) -> tuple[ClarificationKind, tuple[AgreementRecord, ...]]:
    """What the user's act may mean: the kind of act and its candidate records."""
    session_id, ts = turn.session_id, turn.ts
    live = tuple(r for r in scope.records if not acceptance.past_deadline(r, ts))
    if isinstance(intent, Acceptance):
        # This session's proposals and amendments still awaiting the user.
        return ClarificationKind.CONFIRMATION, tuple(
            r
            for r in live
            if (r.state == PROPOSED and r.session_id == session_id and not r.acceptances.user)
            or (
                r.amendment is not None
                and r.amendment.session_id == session_id
                and not r.amendment.acceptances.user
            )
        )
    if isinstance(intent, Cancellation):
        return ClarificationKind.CANCELLATION, tuple(
            r
            for r in live
            if r.state == OPEN or (r.state == PROPOSED and r.session_id == session_id)
        )
    return ClarificationKind.AMENDMENT_CANCELLATION, tuple(
        r for r in live if r.amendment is not None and r.amendment.session_id == session_id
    )


def _user_accepts(
    record: AgreementRecord, at: datetime, provenance: Provenance, evidence: Evidence
) -> tuple[StateChanged, ...]:
    pending = record.amendment
    if pending is None:
        accepted = Acceptances(agent=record.acceptances.agent, user=True)
        return (change(record, Cause.USER_ACCEPTED, at, provenance, accepted, evidence=evidence),)
    confirmed = _accept_amendment(
        record, pending, "user", at=at, provenance=provenance, evidence=evidence
    )
    return (confirmed,)


def _user_cancels(
    record: AgreementRecord, at: datetime, provenance: Provenance, evidence: Evidence
) -> tuple[StateChanged, ...]:
    return closing(record, Cause.USER_CANCELLED, at, provenance, evidence)


def _user_withdraws(
    record: AgreementRecord, at: datetime, provenance: Provenance, evidence: Evidence
) -> tuple[StateChanged, ...]:
    withdrawn = change(
        record,
        Cause.AMENDMENT_CANCELLED,
        at,
        provenance,
        evidence=evidence,
        amendment=None,
        settled=record.amendment,
    )
    return (withdrawn,)


_USER_ACTS: Final[
    dict[
        ClarificationKind,
        Callable[[AgreementRecord, datetime, Provenance, Evidence], tuple[StateChanged, ...]],
    ]
] = {
    ClarificationKind.CONFIRMATION: _user_accepts,
    ClarificationKind.CANCELLATION: _user_cancels,
    ClarificationKind.AMENDMENT_CANCELLATION: _user_withdraws,
}


def _accept_amendment(  # noqa: PLR0913 - the amendment, the side and the change's data
    record: AgreementRecord,
    pending: Amendment,
    side: Literal["agent", "user"],
    *,
    at: datetime,
    provenance: Provenance,
    evidence: Evidence,
) -> StateChanged:
    """One side's acceptance of a pending amendment; the second replaces the terms (R17)."""
    accepted = Acceptances(
        agent=pending.acceptances.agent or side == "agent",
        user=pending.acceptances.user or side == "user",
    )
    updated = msgspec.structs.replace(pending, acceptances=accepted)
    cause = Cause.AMENDMENT_AGENT_ACCEPTED if side == "agent" else Cause.AMENDMENT_USER_ACCEPTED
    if accepted.agent and accepted.user:
        # The second acceptance replaces the terms, as R5's second acceptance opens.
        return change(
            record, cause, at, provenance, evidence=evidence, amendment=None, settled=updated
        )
    return change(record, cause, at, provenance, evidence=evidence, amendment=updated)


def _clarify(
    turn: ChatTurn, kind: ClarificationKind, listed: tuple[AgreementRecord, ...]
) -> _Outcome:
    asked = ClarificationRequested(
        event_id=input_event_id(turn.session_id, turn.seq, "clarification"),
        agent_id=turn.agent_id,
        user_id=turn.user_id,
        session_id=turn.session_id,
        seq=turn.seq,
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
        at=turn.ts,
        message_id=turn.message_id,
    )
    return _Outcome(answers=(asked,))


# --- the agent's acceptance tool (R3, R17) ---


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
        evidence = Evidence(input_at=call.ts, arguments=arguments)
        if record.amendment is not None:
            accepted_change = _accept_amendment(
                record,
                record.amendment,
                "agent",
                at=call.ts,
                provenance=provenance,
                evidence=evidence,
            )
        else:
            accepted = Acceptances(agent=True, user=record.acceptances.user)
            accepted_change = change(
                record, Cause.AGENT_ACCEPTED, call.ts, provenance, accepted, evidence=evidence
            )
        changes = (accepted_change,)
        record = evolve(record, accepted_change)
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
        delivery
        for record in scope.records
        if record.binding is not None
        and record.state in {OPEN, EXPIRED}
        and ADAPTERS[type(record.binding)].delivered(record.binding, session, after)
        for delivery in closing(
            record,
            Cause.DELIVERY_VERIFIED,
            result.ts,
            provenance,
            Evidence(
                input_at=result.ts,
                origin_seq=record.binding.origin_seq,
                snapshot_seq=result.seq,
            ),
        )
    )
    return _Outcome(changes=delivered, session=after)
