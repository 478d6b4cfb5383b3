"""A small harness for the pure lifecycle: one scope, any sessions, a manual clock.

It plays the store's part with no Redis (the core is pure): keeps the scope and
session states, numbers each session's inputs 1, 2, 3, ... and remembers every
event published. Tests drive it with real input Structs and intents.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, TypedDict, TypeVar

from contracts.common import AgreementState, Provenance, Role, TodoStatus
from contracts.inputs import ChatTurn, InputEvent, TodoItem, ToolCall, ToolResult
from contracts.outputs import AgreementEvent, StateChanged, ToolOutcome
from contracts.records import AgreementRecord
from contracts.step import CoreStep
from contracts.tools import ACCEPT_TOOL_NAME, TODO_WRITE_TOOL_NAME
from contracts.view import SessionView
from core.intents import NO_INTENT, Intent
from core.interpret import interpret
from core.lifecycle.reducer import Policy, apply_input, evolve, expire_due
from core.lifecycle.state import ScopeState, SessionState, empty_scope, empty_session
from core.lifecycle.view import session_view

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)  # a Monday morning
PROPOSED, OPEN, FULFILLED, CANCELLED, EXPIRED = (
    AgreementState.PROPOSED,
    AgreementState.OPEN,
    AgreementState.FULFILLED,
    AgreementState.CANCELLED,
    AgreementState.EXPIRED,
)

# What one input did (the core's step, as the store receives it).
Step = CoreStep[ScopeState, SessionState]


class Envelope(TypedDict):
    """The fields every input event shares (a TypedDict, so mypy checks them at `**`)."""

    agent_id: str
    user_id: str
    session_id: str
    seq: int
    ts: datetime


def _call_id(envelope: Envelope) -> str:
    return f"call-{envelope['session_id']}-{envelope['seq']}"


@dataclass
class Conversation:
    """One user-agent scope; `session` names the session inputs go to by default."""

    agent_id: str = "agent-1"
    user_id: str = "user-1"
    session: str = "s1"
    now: datetime = T0
    policy: Policy = field(default_factory=Policy)
    scope: ScopeState = field(init=False)
    sessions: dict[str, SessionState] = field(default_factory=dict)
    seqs: dict[str, int] = field(default_factory=dict)
    published: list[AgreementEvent] = field(default_factory=list)
    last: Step | None = None
    last_input: tuple[InputEvent, Intent] | None = None

    def __post_init__(self) -> None:
        self.scope = empty_scope(self.agent_id, self.user_id)

    # --- time ---

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)

    # --- inputs ---

    def _next(self, session: str | None) -> Envelope:
        """The fields every input shares, for the session's next seq, stamped now."""
        name = session or self.session
        self.seqs[name] = self.seqs.get(name, 0) + 1
        return Envelope(
            agent_id=self.agent_id,
            user_id=self.user_id,
            session_id=name,
            seq=self.seqs[name],
            ts=self.now,
        )

    def apply(self, event: InputEvent, intent: Intent = NO_INTENT) -> Step:
        session = self.sessions.get(event.session_id, empty_session(event.session_id))
        provenance = Provenance(
            stream=type(event).__name__,
            entry_id=f"{event.seq}-0",
            session_id=event.session_id,
            seq=event.seq,
            message_id=event.message_id if isinstance(event, ChatTurn) else None,
            call_id=event.call_id if isinstance(event, ToolCall | ToolResult) else None,
        )
        step = apply_input(self.scope, session, event, intent, provenance, self.policy)
        # Pure and deterministic: the same input on the same state gives the same step.
        again = apply_input(self.scope, session, event, intent, provenance, self.policy)
        assert again == step
        assert step.records == folded(self.scope, step.events)
        self.last_input = (event, intent)
        self.scope = step.scope
        self.sessions[event.session_id] = step.session
        self.published.extend(step.events)
        self.last = step
        return step

    def _chat_turn(
        self, text: str, role: Role, session: str | None, timezone: str | None = None
    ) -> ChatTurn:
        envelope = self._next(session)
        message_id = f"m-{envelope['session_id']}-{envelope['seq']}"
        return ChatTurn(**envelope, role=role, text=text, message_id=message_id, timezone=timezone)

    def turn(
        self,
        intent: Intent,
        text: str = "",
        *,
        role: Role = Role.USER,
        session: str | None = None,
    ) -> Step:
        return self.apply(self._chat_turn(text, role, session), intent)

    def say(
        self,
        text: str,
        *,
        role: Role = Role.USER,
        session: str | None = None,
        timezone: str | None = None,
    ) -> Step:
        """A real chat turn, read by the real recognizer (`interpret`), then applied."""
        event = self._chat_turn(text, role, session, timezone)
        return self.apply(event, interpret(event, "UTC"))

    def tool_call(
        self, name: str, arguments: dict[str, Any], *, session: str | None = None
    ) -> Step:
        envelope = self._next(session)
        event = ToolCall(**envelope, call_id=_call_id(envelope), name=name, arguments=arguments)
        return self.apply(event)

    def agent_accepts(
        self, record_id: str, revision: int | None = None, *, session: str | None = None
    ) -> ToolOutcome:
        if revision is None:
            found = self.scope.find(record_id)
            revision = found.revision if found else 1
        step = self.tool_call(
            ACCEPT_TOOL_NAME,
            {"record_id": record_id, "expected_revision": revision},
            session=session,
        )
        return only(step.events, ToolOutcome)

    def tool_result(
        self,
        todos: list[tuple[str, str]] | None,
        *,
        ok: bool = True,
        name: str = TODO_WRITE_TOOL_NAME,
        session: str | None = None,
    ) -> Step:
        envelope = self._next(session)
        event = ToolResult(
            **envelope,
            call_id=_call_id(envelope),
            name=name,
            ok=ok,
            todos=None
            if todos is None
            else [TodoItem(content, TodoStatus(status)) for content, status in todos],
        )
        return self.apply(event)

    def sweep(self) -> CoreStep[ScopeState, None]:
        step = expire_due(self.scope, self.now)
        assert step.records == folded(self.scope, step.events)
        self.scope = step.scope
        self.published.extend(step.events)
        return step

    # --- reading ---

    def record(self, record_id: str) -> AgreementRecord | None:
        return self.scope.find(record_id)

    def changes_of(self, record_id: str) -> list[StateChanged]:
        return [
            e for e in self.published if isinstance(e, StateChanged) and e.record_id == record_id
        ]

    def state_of(self, record_id: str) -> AgreementState:
        """The record's state as published (terminal records leave the scope state)."""
        return self.changes_of(record_id)[-1].to_state

    def view(self, session: str | None = None) -> SessionView:
        return session_view(self.scope, session or self.session, self.now)


E = TypeVar("E")


def folded(before: ScopeState, events: tuple[AgreementEvent, ...]) -> tuple[AgreementRecord, ...]:
    """Each record a step's events change, folded forward from the scope before the step.

    The records a step carries for the store's history read must be exactly these.
    """
    records: dict[str, AgreementRecord] = {}
    for event in events:
        if isinstance(event, StateChanged):
            previous = records.get(event.record_id) or before.find(event.record_id)
            records[event.record_id] = evolve(previous, event)
    return tuple(records.values())


def only(events: tuple[AgreementEvent, ...], kind: type[E]) -> E:
    found = [event for event in events if isinstance(event, kind)]
    assert len(found) == 1, f"expected one {kind.__name__}, got {events!r}"
    return found[0]


def created(step: Step) -> str:
    """The id of the record a proposal step created."""
    change = only(step.events, StateChanged)
    assert change.to_state == AgreementState.PROPOSED
    assert change.revision == 1
    return change.record_id
