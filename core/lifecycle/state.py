"""The core's state: one scope's live records and one session's todo tracking.

Both are frozen msgspec Structs that the store keeps as opaque msgpack bytes
(`encode_*` / `decode_*`). Neither holds the ordering gate's next seq: that is the
store's. Terminal records leave `ScopeState` (they live on in the published events
and the store's record history), except an expired record with a binding, which a
late verified delivery may still fulfil (R13).
"""

from __future__ import annotations

import hashlib
import struct
from datetime import datetime

import msgspec

from contracts.common import AgreementState, TodoStatus
from contracts.records import Acceptances, AgreementRecord, Binding
from core.lifecycle.transitions import LIVE

# How many closed records a scope remembers for answering the agent (see ClosedRecord).
CLOSED_KEPT = 16


class ClosedRecord(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """What the agent's acceptance check needs of a record that left the live state.

    Without it a call naming a just-cancelled or just-expired record would hear
    `unknown_record` or `past_deadline` depending on whether a sweep happened to run
    first; with it the answer depends only on the inputs (R15). Only the last
    CLOSED_KEPT closures are kept, in closing order, so the state stays bounded.
    """

    record_id: str
    session_id: str
    state: AgreementState
    revision: int
    deadline_at: datetime | None
    acceptances: Acceptances


# ScopeState, SessionState and ClosedRecord are not tracked by the garbage collector
# (`gc=False`): they are immutable trees, rebuilt and never mutated, so they are in no
# reference cycle; the worker's state cache keeps thousands of them, which every older
# collection walked again (worker/gc_tuning.py).
class ScopeState(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """The live records of one user-agent scope, in creation order (DESIGN section 1)."""

    agent_id: str
    user_id: str
    records: tuple[AgreementRecord, ...] = ()
    closed: tuple[ClosedRecord, ...] = ()

    def find(self, record_id: str) -> AgreementRecord | None:
        for record in self.records:
            if record.record_id == record_id:
                return record
        return None

    def find_closed(self, record_id: str) -> ClosedRecord | None:
        for record in self.closed:
            if record.record_id == record_id:
                return record
        return None

    def bindings_in(self, session_id: str) -> tuple[Binding, ...]:
        """Every binding of a record the scope keeps that names `session_id`: the
        record's own and its pending amendment's. Their delivery is verified against
        that session's todo tracking (R12, R17), so it must keep the items they name."""
        return tuple(
            binding
            for record in self.records
            for binding in (record.binding, record.amendment.binding if record.amendment else None)
            if binding is not None and binding.session_id == session_id
        )

    def live_count(self, at: datetime) -> int:
        """Records that count against the scope's limit: live, not past due at `at`.

        Past-due records of other sessions may not be materialized yet; counting them
        would make a refusal depend on when the sweeper ran.
        """
        return sum(
            record.state in LIVE and (record.deadline_at is None or at < record.deadline_at)
            for record in self.records
        )


class TrackedTodo(msgspec.Struct, frozen=True, array_like=True):
    """One todo item of the session's last successful snapshot, with its continuity id.

    `origin_seq` is the seq of the successful `todo_write` whose snapshot first held
    the item in its current unbroken run (DESIGN section 1).
    """

    content: str
    status: TodoStatus
    origin_seq: int


class SessionState(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """Per-session core data: the todo continuity tracking (R11, R12)."""

    session_id: str
    todos: tuple[TrackedTodo, ...] = ()


def empty_scope(agent_id: str, user_id: str) -> ScopeState:
    return ScopeState(agent_id=agent_id, user_id=user_id)


def empty_session(session_id: str) -> SessionState:
    return SessionState(session_id=session_id)


def record_id_for(agent_id: str, user_id: str, session_id: str, seq: int) -> str:
    """The deterministic id of the record a proposal at (session, seq) creates.

    Length-prefixed like the partition hash, so no choice of ids can collide by
    concatenation; a replay from empty derives the same ids.
    """
    parts = [agent_id.encode(), user_id.encode(), session_id.encode(), str(seq).encode()]
    message = b"".join(struct.pack(">I", len(part)) + part for part in parts)
    return "agr-" + hashlib.sha256(message).hexdigest()[:24]


_SCOPE_ENCODER = msgspec.msgpack.Encoder()
_SCOPE_DECODER = msgspec.msgpack.Decoder(ScopeState)
_SESSION_DECODER = msgspec.msgpack.Decoder(SessionState)


def encode_scope(scope: ScopeState) -> bytes:
    return _SCOPE_ENCODER.encode(scope)


def decode_scope(data: bytes) -> ScopeState:
    return _SCOPE_DECODER.decode(data)


def encode_session(session: SessionState) -> bytes:
    return _SCOPE_ENCODER.encode(session)


def decode_session(data: bytes) -> SessionState:
    return _SESSION_DECODER.decode(data)
