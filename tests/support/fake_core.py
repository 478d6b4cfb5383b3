"""A small, order-sensitive stand-in for the lifecycle core, for the store's tests.

It implements `store.core_port.CorePort` with the same contract types as the real
core, and it keeps a log of every (session, seq) it applied, so applying an input
twice or out of order shows up as a different state:

- a user chat turn `propose <terms> [deadline=<epoch ms>]` creates a record
  `{session}/{seq}` (state proposed, revision 1);
- a tool call `accept` with `{"record_id": ...}` opens a proposed record of the same
  session (revision + 1), else answers with a rejection outcome;
- everything else only appends to the logs;
- `expire` turns proposed and open records past their deadline into `expired`
  (history time = the deadline); they then leave the scope state.

Deliberately a second, tiny implementation: events, outcomes and the scope document
are built field by field as the real core builds them (core/lifecycle/changes.py,
tools.py, view.py), and a duplicate scan pairs those places (and contracts' explain
and view documents, which copy the same record fields, and any long call by keyword,
such as worker/app.py's). Sharing the core's builders would make the store's tests
depend on the code they stand apart from, and contracts has no builder of these to
share; the one shared reading is contracts' own `session_view_as_of`, which every
client uses (CONTRIBUTING.md, "Repeated shapes").
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import msgspec

from contracts.common import AgreementState, Cause, Provenance, Role
from contracts.inputs import ChatTurn, InputEvent, ToolCall
from contracts.outputs import (
    AgreementEvent,
    StateChanged,
    ToolOutcome,
    input_event_id,
    state_changed_event_id,
)
from contracts.records import Acceptances, AgreementRecord, HistoryEntry
from contracts.step import provenance_of
from contracts.tools import RejectionReason
from contracts.view import (
    OpenAgreement,
    ScopeProposal,
    ScopeViewDocument,
    SessionView,
    session_view_as_of,
)
from store.core_port import CoreStep


class FakeScope(msgspec.Struct, frozen=True, kw_only=True):
    agent_id: str
    user_id: str
    records: tuple[AgreementRecord, ...] = ()
    # Every applied input as "session#seq", in application order.
    log: tuple[str, ...] = ()


class FakeSession(msgspec.Struct, frozen=True, kw_only=True):
    session_id: str
    seqs: tuple[int, ...] = ()


_LIVE = {AgreementState.PROPOSED, AgreementState.OPEN}


def _change(
    record: AgreementRecord,
    to: AgreementState,
    cause: Cause,
    at: datetime,
    provenance: Provenance,
) -> tuple[AgreementRecord, StateChanged]:
    revision = record.revision + 1
    entry = HistoryEntry(revision=revision, state=to, cause=cause, at=at, provenance=provenance)
    acceptances = Acceptances(agent=True, user=True) if to is AgreementState.OPEN else None
    new = msgspec.structs.replace(
        record,
        state=to,
        revision=revision,
        history=(*record.history, entry),
        acceptances=acceptances or record.acceptances,
    )
    return new, _event(new, record.state, cause, at, provenance)


# Field by field like the real core's `change`, on purpose (see the module docstring).
def _event(
    record: AgreementRecord,
    from_state: AgreementState | None,
    cause: Cause,
    at: datetime,
    provenance: Provenance,
) -> StateChanged:
    return StateChanged(
        event_id=state_changed_event_id(record.record_id, record.revision),
        record_id=record.record_id,
        agent_id=record.agent_id,
        user_id=record.user_id,
        session_id=record.session_id,
        revision=record.revision,
        from_state=from_state,
        to_state=record.state,
        cause=cause,
        terms=record.terms,
        at=at,
        provenance=provenance,
        deadline_at=record.deadline_at,
        acceptances=record.acceptances,
    )


def _propose(scope: FakeScope, turn: ChatTurn, provenance: Provenance) -> AgreementRecord:
    words = turn.text.split()[1:]
    deadline = None
    terms = []
    for word in words:
        if word.startswith("deadline="):
            deadline = datetime.fromtimestamp(int(word.split("=", 1)[1]) / 1000, tz=UTC)
        else:
            terms.append(word)
    return AgreementRecord(
        record_id=f"{turn.session_id}/{turn.seq}",
        agent_id=scope.agent_id,
        user_id=scope.user_id,
        session_id=turn.session_id,
        state=AgreementState.PROPOSED,
        revision=1,
        terms=" ".join(terms),
        created_at=turn.ts,
        deadline_at=deadline,
        history=(
            HistoryEntry(
                revision=1,
                state=AgreementState.PROPOSED,
                cause=Cause.PROPOSED,
                at=turn.ts,
                provenance=provenance,
            ),
        ),
    )


class FakeCore:
    """`CorePort[FakeScope, FakeSession]`."""

    def decode_scope(self, data: bytes | None, agent_id: str, user_id: str) -> FakeScope:
        if data is None:
            return FakeScope(agent_id=agent_id, user_id=user_id)
        return msgspec.msgpack.decode(data, type=FakeScope)

    def decode_session(self, data: bytes | None, session_id: str) -> FakeSession:
        if data is None:
            return FakeSession(session_id=session_id)
        return msgspec.msgpack.decode(data, type=FakeSession)

    def encode_scope(self, scope: FakeScope) -> bytes:
        return msgspec.msgpack.encode(scope)

    def encode_session(self, session: FakeSession) -> bytes:
        return msgspec.msgpack.encode(session)

    def apply(
        self, scope: FakeScope, session: FakeSession, event: InputEvent, stream: str, entry_id: str
    ) -> CoreStep[FakeScope, FakeSession]:
        provenance = provenance_of(stream, entry_id, event)
        records = list(scope.records)
        events: list[AgreementEvent] = []
        changed: list[AgreementRecord] = []
        if (
            isinstance(event, ChatTurn)
            and event.role is Role.USER
            and event.text.startswith("propose")
        ):
            record = _propose(scope, event, provenance)
            records.append(record)
            changed.append(record)
            events.append(_event(record, None, Cause.PROPOSED, event.ts, provenance))
        elif isinstance(event, ToolCall) and event.name == "accept":
            target = str(event.arguments.get("record_id"))
            index = next(
                (
                    i
                    for i, r in enumerate(records)
                    if r.record_id == target
                    and r.session_id == event.session_id
                    and r.state is AgreementState.PROPOSED
                ),
                None,
            )
            if index is None:
                events.append(_outcome(event, accepted=False))
            else:
                record, change = _change(
                    records[index], AgreementState.OPEN, Cause.AGENT_ACCEPTED, event.ts, provenance
                )
                records[index] = record
                changed.append(record)
                events.extend((change, _outcome(event, accepted=True, record=record)))
        new_scope = msgspec.structs.replace(
            scope, records=tuple(records), log=(*scope.log, f"{event.session_id}#{event.seq}")
        )
        new_session = msgspec.structs.replace(session, seqs=(*session.seqs, event.seq))
        return CoreStep(new_scope, new_session, tuple(events), tuple(changed), True, True)  # noqa: FBT003

    def expire(self, scope: FakeScope, now: datetime) -> CoreStep[FakeScope, None]:
        kept: list[AgreementRecord] = []
        events: list[AgreementEvent] = []
        changed: list[AgreementRecord] = []
        for record in scope.records:
            if record.state in _LIVE and record.deadline_at and record.deadline_at <= now:
                expired, change = _change(
                    record,
                    AgreementState.EXPIRED,
                    Cause.DEADLINE_REACHED,
                    record.deadline_at,
                    Provenance(session_id=record.session_id),
                )
                changed.append(expired)
                events.append(change)
            else:
                kept.append(record)
        new_scope = msgspec.structs.replace(scope, records=tuple(kept))
        return CoreStep(
            new_scope, None, tuple(events), tuple(changed), bool(changed), session_changed=False
        )

    def deadlines(self, scope: FakeScope) -> Sequence[tuple[str, datetime]]:
        return [
            (r.record_id, r.deadline_at)
            for r in scope.records
            if r.state in _LIVE and r.deadline_at is not None
        ]

    def scope_view(self, scope: FakeScope) -> ScopeViewDocument:
        # Like core.lifecycle.view.scope_view_document, on purpose (the module docstring).
        return ScopeViewDocument(
            agent_id=scope.agent_id,
            user_id=scope.user_id,
            agreements=tuple(
                OpenAgreement(record_id=r.record_id, terms=r.terms, deadline_at=r.deadline_at)
                for r in scope.records
                if r.state is AgreementState.OPEN
            ),
            proposals=tuple(
                ScopeProposal(
                    record_id=r.record_id,
                    session_id=r.session_id,
                    revision=r.revision,
                    terms=r.terms,
                    status="awaiting_both",
                    deadline_at=r.deadline_at,
                )
                for r in scope.records
                if r.state is AgreementState.PROPOSED
            ),
        )

    def view(
        self, scope: FakeScope, session_id: str, as_of: datetime, *, now: bool = False
    ) -> SessionView:
        # The same reading a client does of the document: contracts' own filter.
        return session_view_as_of(self.scope_view(scope), session_id, as_of, now=now)

    def keeps(self, record: AgreementRecord) -> bool:
        # Expiry is the fake's only way out of the scope's records.
        return record.state in _LIVE

    def holds_records(self, scope: FakeScope) -> bool:
        return any(record.state in _LIVE for record in scope.records)

    def needs_session(self, scope: FakeScope, session_id: str) -> bool:
        # The fake keeps a session's state while a record it proposed is live (the real
        # core: while a kept record is bound to one of its todos).
        return any(record.session_id == session_id for record in scope.records)


def _outcome(
    call: ToolCall, *, accepted: bool, record: AgreementRecord | None = None
) -> ToolOutcome:
    # Like core.lifecycle.tools' outcome, on purpose (the module docstring).
    return ToolOutcome(
        event_id=input_event_id(call.session_id, call.seq, "tool_outcome"),
        agent_id=call.agent_id,
        user_id=call.user_id,
        session_id=call.session_id,
        seq=call.seq,
        call_id=call.call_id,
        accepted=accepted,
        at=call.ts,
        record_id=record.record_id if record else None,
        reason=None if accepted else RejectionReason.UNKNOWN_RECORD,
        current_revision=record.revision if record else None,
        state=record.state if record else None,
    )
