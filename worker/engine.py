"""The real core behind the store's CorePort (store/core_port.py).

The store is generic and never imports `worker`; this adapter is the one place that
joins them: recognize and resolve deadlines (`interpret`) and run the lifecycle
reducer, whose step (`contracts.step.CoreStep`, with the full records it changed for
the store's history read) goes to the store as it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from contracts.inputs import ChatTurn, InputEvent, ToolResult
from contracts.records import AgreementRecord
from contracts.step import CoreStep, provenance_of
from contracts.view import ScopeViewDocument, SessionView
from core.intents import NO_INTENT
from core.interpret import interpret
from core.lifecycle import state as core_state
from core.lifecycle.reducer import (
    Policy,
    apply_input,
    deadline_entries,
    expire_due,
    quiet_step,
)
from core.lifecycle.state import ScopeState, SessionState
from core.lifecycle.todo import is_successful_snapshot
from core.lifecycle.transitions import retained
from core.lifecycle.view import scope_view_document, session_view
from worker.observability import get_logger

_log = get_logger("accord.engine")


@dataclass(frozen=True)
class Engine:
    """CorePort[ScopeState, SessionState] over core."""

    default_timezone: str = "UTC"
    policy: Policy = field(default_factory=Policy)

    def decode_scope(self, data: bytes | None, agent_id: str, user_id: str) -> ScopeState:
        if not data:
            return core_state.empty_scope(agent_id, user_id)
        return core_state.decode_scope(data)

    def decode_session(self, data: bytes | None, session_id: str) -> SessionState:
        if not data:
            return core_state.empty_session(session_id)
        return core_state.decode_session(data)

    def encode_scope(self, scope: ScopeState) -> bytes:
        return core_state.encode_scope(scope)

    def encode_session(self, session: SessionState) -> bytes:
        return core_state.encode_session(session)

    def apply(
        self,
        scope: ScopeState,
        session: SessionState,
        event: InputEvent,
        stream: str,
        entry_id: str,
    ) -> CoreStep[ScopeState, SessionState]:
        intent = (
            interpret(event, self.default_timezone) if isinstance(event, ChatTurn) else NO_INTENT
        )
        quiet = quiet_step(scope, session, event, intent)
        if quiet is not None:
            return quiet  # most inputs: no provenance to build, it would go unread
        provenance = provenance_of(stream, entry_id, event)
        step = apply_input(scope, session, event, intent, provenance, self.policy)
        if isinstance(event, ToolResult) and is_successful_snapshot(event):
            self._report_capped(event, step.session)
        return step

    def _report_capped(self, result: ToolResult, session: SessionState) -> None:
        """Says so when the session's todo tracking left items out past its byte limit
        (core.lifecycle.todo.capped): the tracking holds one item per written item
        otherwise. Counts only, never the items' content (docs/security.md)."""
        written = len(result.todos or ())
        if len(session.todos) < written:
            _log.warning(
                "todo_state_capped",
                session_id=result.session_id,
                seq=result.seq,
                written=written,
                kept=len(session.todos),
                limit_bytes=self.policy.max_todo_state_bytes,
            )

    def expire(self, scope: ScopeState, now: datetime) -> CoreStep[ScopeState, None]:
        return expire_due(scope, now)

    def deadlines(self, scope: ScopeState) -> Sequence[tuple[str, datetime]]:
        return deadline_entries(scope)

    def view(
        self, scope: ScopeState, session_id: str, as_of: datetime, *, now: bool = False
    ) -> SessionView:
        return session_view(scope, session_id, as_of, now=now)

    def scope_view(self, scope: ScopeState) -> ScopeViewDocument:
        return scope_view_document(scope)

    def keeps(self, record: AgreementRecord) -> bool:
        return retained(record)

    def holds_records(self, scope: ScopeState) -> bool:
        return bool(scope.records)

    def needs_session(self, scope: ScopeState, session_id: str) -> bool:
        return bool(scope.bindings_in(session_id))
