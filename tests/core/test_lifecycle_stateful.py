"""A stateful property test of the lifecycle against a small independent model.

Hypothesis drives random sequences of proposals (some binding a todo, some with a
deadline), agent acceptances with right and wrong revisions and malformed
arguments, user confirmations and cancellations with and without a hint, amendments
of open agreements (R17: proposed, accepted by either side in either order,
withdrawn, lapsing when the agreement closes), todo writes that succeed or fail,
time steps, sweeps, noise, redelivery of the last input, and acceptances,
cancellations and withdrawals stamped behind the clock, in two sessions of one scope.
The model below is written from the rules (R2-R13, R17), not from the reducer: plain
mutable records and a few loops.

Invariants at every step: the reducer agrees with the model on every record's state,
revision and acceptances and on every answer; revisions rise by exactly one per
committed change; `open` implies both acceptances; `fulfilled` implies a verified
todo delivery in the binding's session; current memory holds only open records not
past their deadline; terminal states never change except expired -> fulfilled; the
same input on the same state gives the same step (checked inside the harness).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from contracts.common import AgreementState, Cause, Role
from contracts.outputs import (
    AgreementEvent,
    ClarificationRequested,
    ProposalRefused,
    StateChanged,
    ToolOutcome,
)
from contracts.tools import ACCEPT_TOOL_NAME, RejectionReason
from core.intents import (
    NO_INTENT,
    Acceptance,
    Amendment,
    AmendmentCancellation,
    Cancellation,
    Proposal,
)
from core.lifecycle.reducer import Policy
from core.lifecycle.state import CLOSED_KEPT, record_id_for
from tests.support.lifecycle_kit import CANCELLED, EXPIRED, FULFILLED, OPEN, PROPOSED, Conversation

SESSIONS = ("s1", "s2")
WORDS = ("plan", "tea", "walk")
CONTENTS = ("notes", "milk")
UNFINISHED = ("pending", "in_progress")
MAX_RECORDS = 6


@dataclass
class Change:
    """A pending amendment as R17 describes it."""

    session: str
    terms: str
    deadline: datetime | None
    proposed_at: datetime
    agent: bool = False
    user: bool = False


@dataclass
class Model:
    """One agreement as the rules describe it."""

    record_id: str
    session: str
    terms: str
    deadline: datetime | None
    binding: tuple[str, str, int] | None
    proposed_at: datetime
    state: AgreementState = PROPOSED
    revision: int = 1
    agent: bool = False
    user: bool = False
    change: Change | None = None

    def move(self, state: AgreementState) -> None:
        self.state = state
        self.revision += 1

    def close(self, state: AgreementState) -> None:
        """R17: a pending amendment lapses (its own revision) before the record closes."""
        if self.change is not None:
            self.change = None
            self.revision += 1
        self.move(state)

    def existed_at(self, now: datetime) -> bool:
        """Whether the record had been proposed at `now`: a cancellation stamped earlier
        does not close it (R5, R8)."""
        return now >= self.proposed_at

    def awaited_since(self) -> datetime:
        """When what an acceptance would accept was proposed: the amendment, else the record."""
        return self.proposed_at if self.change is None else self.change.proposed_at

    def texts(self) -> tuple[str, ...]:
        return (self.terms,) if self.change is None else (self.terms, self.change.terms)

    def live(self) -> bool:
        """In the reducer's live state: pending or open, or an expired agreement
        (both accepted) whose binding may still be delivered late (R13)."""
        if self.state in {PROPOSED, OPEN}:
            return True
        return self.state == EXPIRED and self.binding is not None and self.agent and self.user


@dataclass
class World:
    records: dict[str, Model] = field(default_factory=dict)
    # per session: content -> (status, origin_seq), from the last successful snapshot
    todos: dict[str, dict[str, tuple[str, int]]] = field(default_factory=dict)
    # ids of records that left the live state, in the order they left
    closed: list[str] = field(default_factory=list)
    live: set[str] = field(default_factory=set)

    def expire(self, now: datetime, session: str | None = None) -> None:
        """Expire what is due; an input expires only its own session's records (R9, R15)."""
        for record in self.records.values():
            due = record.deadline is not None and record.deadline <= now
            mine = session is None or record.session == session
            if due and mine and record.state in {PROPOSED, OPEN}:
                record.close(EXPIRED)
        self.settle()

    def settle(self) -> None:
        """Note the records that just left the live state (creation order within a step)."""
        for record in self.records.values():
            if record.record_id in self.live and not record.live():
                self.closed.append(record.record_id)
        self.live = {r.record_id for r in self.records.values() if r.live()}

    def known(self, record_id: str) -> Model | None:
        """A record the reducer still answers about: live, or among the last closed."""
        model = self.records.get(record_id)
        if model is None or model.live() or record_id in self.closed[-CLOSED_KEPT:]:
            return model
        return None


def _rejection(
    model: Model | None, session: str, now: datetime, revision: object
) -> RejectionReason | None:
    """R3, in the order the rule states its conditions (state before revision); R5: an
    acceptance stamped before its proposal does not count."""
    if model is None:
        return RejectionReason.UNKNOWN_RECORD
    change = model.change  # R17: a pending amendment is what the agent accepts
    checks = [
        ((change.session if change else model.session) != session, RejectionReason.OTHER_SESSION),
        (model.deadline is not None and now >= model.deadline, RejectionReason.PAST_DEADLINE),
        (change is None and model.state != PROPOSED, RejectionReason.WRONG_STATE),
        (now < model.awaited_since(), RejectionReason.BEFORE_PROPOSAL),
        (change.agent if change else model.agent, RejectionReason.ALREADY_ACCEPTED),
        (model.revision != revision, RejectionReason.STALE_REVISION),
    ]
    return next((reason for failed, reason in checks if failed), None)


def _only_deadline_closes(events: tuple[AgreementEvent, ...]) -> bool:
    """Every state change is a deadline close, or the lapse of a pending amendment
    recorded just before its own record's deadline close (R9, R17)."""
    changes = [e for e in events if isinstance(e, StateChanged)]
    for index, event in enumerate(changes):
        if event.cause == Cause.DEADLINE_REACHED:
            continue
        following = changes[index + 1] if index + 1 < len(changes) else None
        lapse_before_expiry = (
            event.cause == Cause.AMENDMENT_LAPSED
            and following is not None
            and following.record_id == event.record_id
            and following.cause == Cause.DEADLINE_REACHED
        )
        if not lapse_before_expiry:
            return False
    return True


def _bound_first(models: list[Model], data: st.DataObject) -> list[Model]:
    """Half the time, only the records with a binding (if any): delivery needs them open."""
    bound = [m for m in models if m.binding is not None]
    only_bound: bool = data.draw(st.booleans())
    return bound if bound and only_bound else models


class LifecycleMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.talk = Conversation(policy=Policy(max_records_per_scope=MAX_RECORDS))
        self.world = World()
        self.counter = 0
        self.fresh = False  # the last input was the last thing that happened

    # --- helpers ---

    def _session_seq(self, session: str) -> int:
        return self.talk.seqs.get(session, 0) + 1

    def _match(self, candidates: list[Model], hint: str | None) -> list[Model]:
        if hint is None:
            return candidates
        return [c for c in candidates if any(hint in text for text in c.texts())]

    def _expect_targeted(
        self, candidates: list[Model], hint: str | None, events: tuple[AgreementEvent, ...]
    ) -> Model | None:
        matching = self._match(candidates, hint)
        if len(matching) == 1:
            return matching[0]
        asked = [e for e in events if isinstance(e, ClarificationRequested)]
        assert len(asked) == 1
        listed = matching or candidates
        assert [c.record_id for c in asked[0].candidates] == [m.record_id for m in listed]
        return None

    def _hint(self, data: st.DataObject) -> str | None:
        """Mostly no hint or a live record's exact terms; sometimes a word shared by many."""
        live = [t for m in self.world.records.values() if m.live() for t in m.texts()]
        exact = st.sampled_from(live) if live else st.none()
        return data.draw(st.one_of(st.none(), exact, st.sampled_from(WORDS)))

    def _target(self, data: st.DataObject) -> str:
        """Mostly a live proposal, sometimes any record ever made, or one never made."""
        records = self.world.records.values()
        proposals = [m.record_id for m in records if m.state == PROPOSED or m.change]
        anything = [m.record_id for m in records] + ["agr-unknown"]
        pool = anything if not proposals or data.draw(st.integers(0, 3)) == 0 else proposals
        record_id: str = data.draw(st.sampled_from(pool))
        return record_id

    @initialize(session=st.sampled_from(SESSIONS), ok=st.booleans())
    def start_with_todos(self, session: str, *, ok: bool) -> None:
        """Most conversations start with an unfinished todo list (the seed's todo scenario)."""
        self._write(session, [("notes", "pending"), ("milk", "in_progress")], ok=ok)

    # --- rules: inputs ---

    @rule(
        session=st.sampled_from(SESSIONS),
        word=st.sampled_from(WORDS),
        deadline_minutes=st.none() | st.sampled_from([30, 90, 240]),
        todo=st.none() | st.sampled_from(CONTENTS),
    )
    def propose(
        self, session: str, word: str, deadline_minutes: int | None, todo: str | None
    ) -> None:
        self._propose(session, word, deadline_minutes, todo)

    def _unfinished(self) -> list[tuple[str, str]]:
        return [
            (session, content)
            for session, tracked in self.world.todos.items()
            for content, (status, _) in tracked.items()
            if status in UNFINISHED
        ]

    @precondition(lambda self: bool(self._unfinished()))
    @rule(data=st.data(), deadline_minutes=st.none() | st.sampled_from([30, 90, 240]))
    def propose_marking_a_tracked_todo(
        self, data: st.DataObject, deadline_minutes: int | None
    ) -> None:
        """R11: "mark todo X as completed" while X is unfinished in the session."""
        session, content = data.draw(st.sampled_from(self._unfinished()))
        self._propose(session, "plan", deadline_minutes, content)

    @precondition(lambda self: bool(self._unfinished()))
    @rule(data=st.data(), ok=st.booleans())
    def complete_a_tracked_todo(self, data: st.DataObject, *, ok: bool) -> None:
        """A todo_write that completes one unfinished item and keeps the rest (R12)."""
        unfinished = self._unfinished()
        promised = [
            (m.binding[0], m.binding[1])
            for m in self.world.records.values()
            if m.binding is not None and m.state == OPEN
        ]
        wanted = [item for item in unfinished if item in promised]
        prefer_promised: bool = data.draw(st.booleans())
        if wanted and prefer_promised:
            unfinished = wanted
        session, content = data.draw(st.sampled_from(unfinished))
        tracked = self.world.todos[session]
        snapshot = [(c, "completed" if c == content else s) for c, (s, _) in tracked.items()]
        self._write(session, snapshot, ok=ok)

    def _propose(
        self, session: str, word: str, deadline_minutes: int | None, todo: str | None
    ) -> None:
        self.counter += 1
        terms = f"{word} #{self.counter:03d}"
        if todo is not None:
            terms = f'mark todo "{todo}" as completed, {terms}'
        now = self.talk.now
        deadline = None if deadline_minutes is None else now + timedelta(minutes=deadline_minutes)
        proposal = Proposal(terms=terms, deadline_at=deadline, todo_target=todo)
        self.world.expire(now, session)
        seq = self._session_seq(session)
        step = self.talk.turn(proposal, terms, session=session)
        live = [
            r
            for r in self.world.records.values()
            if r.state in {PROPOSED, OPEN} and (r.deadline is None or now < r.deadline)
        ]
        if len(live) >= MAX_RECORDS:
            assert [type(e) for e in step.events if not isinstance(e, StateChanged)] == [
                ProposalRefused
            ]
        else:
            tracked = self.world.todos.get(session, {})
            binding = None
            if todo is not None and todo in tracked and tracked[todo][0] in UNFINISHED:
                binding = (session, todo, tracked[todo][1])
            rid = record_id_for(self.talk.agent_id, self.talk.user_id, session, seq)
            self.world.records[rid] = Model(rid, session, terms, deadline, binding, now)
        self.world.settle()
        self.fresh = True

    @rule(
        data=st.data(),
        elsewhere=st.sampled_from([False] * 4 + [True]),
        revision_offset=st.sampled_from([0, 0, 0, 0, -1, 1]),
        malformed=st.sampled_from([False] * 9 + [True]),
    )
    def agent_accepts(
        self,
        data: st.DataObject,
        revision_offset: int,
        *,
        elsewhere: bool,
        malformed: bool,
    ) -> None:
        record_id = self._target(data)
        model = self.world.records.get(record_id)
        session = model.session if model else "s1"
        if elsewhere:
            session = "s2" if session == "s1" else "s1"
        expected_revision = (model.revision if model else 1) + revision_offset
        self._agent_call(record_id, session, expected_revision, malformed=malformed)

    @precondition(lambda self: any(m.state == PROPOSED for m in self.world.records.values()))
    @rule(data=st.data())
    def agent_accepts_as_offered(self, data: st.DataObject) -> None:
        """The agent does what the view offers: a proposal of its session, current revision."""
        offered = [m for m in self.world.records.values() if m.state == PROPOSED]
        model = data.draw(st.sampled_from(_bound_first(offered, data)))
        self._agent_call(model.record_id, model.session, model.revision, malformed=False)

    def _agent_call(
        self, record_id: str, session: str, expected_revision: int, *, malformed: bool
    ) -> None:
        arguments: dict[str, object] = {
            "record_id": record_id,
            "expected_revision": max(expected_revision, 1),
        }
        if malformed:
            arguments["fulfilled"] = True  # the model never submits a flag (R11)
        now = self.talk.now
        self.world.expire(now, session)
        step = self.talk.tool_call(ACCEPT_TOOL_NAME, arguments, session=session)
        outcome = next(e for e in step.events if isinstance(e, ToolOutcome))
        visible = self.world.known(record_id)
        reason = RejectionReason.MALFORMED_ARGUMENTS if malformed else None
        reason = reason or _rejection(visible, session, now, arguments["expected_revision"])
        if reason is None:
            assert visible is not None
            if visible.change is not None:
                visible.change.agent = True
                self._settle_change(visible)
            else:
                visible.agent = True
                visible.move(OPEN if visible.user else PROPOSED)
        assert (outcome.accepted, outcome.reason) == (reason is None, reason)
        if visible is not None:
            assert (outcome.current_revision, outcome.state) == (visible.revision, visible.state)
        else:
            assert outcome.current_revision is None
        self.world.settle()
        self.fresh = True

    @precondition(
        lambda self: any(m.state == PROPOSED and not m.user for m in self.world.records.values())
    )
    @rule(data=st.data())
    def user_confirms_by_terms(self, data: st.DataObject) -> None:
        """The user names the proposal's terms in its own session."""
        waiting = [m for m in self.world.records.values() if m.state == PROPOSED and not m.user]
        model = data.draw(st.sampled_from(_bound_first(waiting, data)))
        self._confirm(model.session, model.terms)

    @rule(data=st.data(), session=st.sampled_from(SESSIONS))
    def user_confirms(self, data: st.DataObject, session: str) -> None:
        self._confirm(session, self._hint(data))

    def _confirm(self, session: str, hint: str | None) -> None:
        self.world.expire(self.talk.now, session)
        now = self.talk.now
        candidates = [
            r
            for r in self.world.records.values()
            if (r.deadline is None or now < r.deadline)
            and now >= r.awaited_since()
            and (
                (r.session == session and r.state == PROPOSED and not r.user)
                or (r.change is not None and r.change.session == session and not r.change.user)
            )
        ]
        step = self.talk.turn(Acceptance(target_hint=hint), "I accept", session=session)
        target = self._expect_targeted(candidates, hint, step.events)
        if target is not None and target.change is not None:
            target.change.user = True
            self._settle_change(target)
        elif target is not None:
            target.user = True
            target.move(OPEN if target.agent else PROPOSED)
        self.world.settle()
        self.fresh = True

    def _targets(self, session: str, keep: Callable[[Model], bool]) -> list[Model]:
        """Expire what is due as `session` speaks; then the unexpired records `keep` keeps."""
        now = self.talk.now
        self.world.expire(now, session)
        return [
            r
            for r in self.world.records.values()
            if (r.deadline is None or now < r.deadline) and keep(r)
        ]

    @rule(data=st.data(), session=st.sampled_from(SESSIONS))
    def user_cancels(self, data: st.DataObject, session: str) -> None:
        self._cancel(session, self._hint(data))

    def _cancel(self, session: str, hint: str | None) -> None:
        """R8: an open record of the scope or a proposal of this session, made at or
        before the turn's time (R5)."""
        now = self.talk.now
        candidates = self._targets(
            session,
            lambda r: (
                r.existed_at(now)
                and (r.state == OPEN or (r.state == PROPOSED and r.session == session))
            ),
        )
        step = self.talk.turn(Cancellation(target_hint=hint), "cancel", session=session)
        target = self._expect_targeted(candidates, hint, step.events)
        if target is not None:
            target.close(CANCELLED)
        self.world.settle()
        self.fresh = True

    # --- amendments (R17) ---

    def _settle_change(self, model: Model) -> None:
        """One more acceptance of the pending amendment; both replace terms, deadline, binding."""
        change = model.change
        assert change is not None
        if change.agent and change.user:
            model.terms, model.deadline, model.binding = change.terms, change.deadline, None
            model.change = None
        model.move(OPEN)

    @rule(
        data=st.data(),
        session=st.sampled_from(SESSIONS),
        word=st.sampled_from(WORDS),
        deadline_minutes=st.none() | st.sampled_from([30, 90, 240]),
    )
    def user_amends(
        self, data: st.DataObject, session: str, word: str, deadline_minutes: int | None
    ) -> None:
        hint = self._hint(data)
        candidates = self._targets(session, lambda r: r.state == OPEN)
        now = self.talk.now
        self.counter += 1
        terms = f"{word} v{self.counter:03d}"
        deadline = None if deadline_minutes is None else now + timedelta(minutes=deadline_minutes)
        amendment = Amendment(terms=terms, deadline_at=deadline, target_hint=hint)
        step = self.talk.turn(amendment, "change", session=session)
        target = self._expect_targeted(candidates, hint, step.events)
        if target is not None:
            target.change = Change(session, terms, deadline, now)
            target.move(OPEN)
        self.world.settle()
        self.fresh = True

    @precondition(lambda self: any(m.change for m in self.world.records.values()))
    @rule(data=st.data(), stale=st.booleans())
    def agent_accepts_amendment_as_offered(self, data: st.DataObject, *, stale: bool) -> None:
        """The agent accepts a pending amendment in its session, or names the old revision."""
        offered = [m for m in self.world.records.values() if m.change is not None]
        model = data.draw(st.sampled_from(offered))
        assert model.change is not None
        revision = model.revision - 1 if stale else model.revision
        self._agent_call(model.record_id, model.change.session, revision, malformed=False)

    @rule(data=st.data(), session=st.sampled_from(SESSIONS))
    def user_withdraws_amendment(self, data: st.DataObject, session: str) -> None:
        self._withdraw(session, self._hint(data))

    def _withdraw(self, session: str, hint: str | None) -> None:
        """R17: this session's pending amendment, proposed at or before the turn's time (R5)."""
        now = self.talk.now
        candidates = self._targets(
            session,
            lambda r: (
                r.change is not None and r.change.session == session and now >= r.change.proposed_at
            ),
        )
        withdrawal = AmendmentCancellation(target_hint=hint)
        step = self.talk.turn(withdrawal, "cancel the change", session=session)
        target = self._expect_targeted(candidates, hint, step.events)
        if target is not None:
            target.change = None
            target.move(OPEN)
        self.world.settle()
        self.fresh = True

    @rule(
        session=st.sampled_from(SESSIONS),
        statuses=st.fixed_dictionaries(
            {c: st.sampled_from([None, "pending", "in_progress", "completed"]) for c in CONTENTS}
        ),
        ok=st.booleans(),
    )
    def todo_write(self, session: str, statuses: dict[str, str | None], *, ok: bool) -> None:
        snapshot = [(content, status) for content, status in statuses.items() if status]
        self._write(session, snapshot, ok=ok)

    def _write(self, session: str, snapshot: list[tuple[str, str]], *, ok: bool) -> None:
        seq = self._session_seq(session)
        self.world.expire(self.talk.now, session)
        step = self.talk.tool_result(snapshot, ok=ok, session=session)
        if ok:
            before = self.world.todos.get(session, {})
            after = {
                content: (status, before[content][1] if content in before else seq)
                for content, status in snapshot
            }
            self.world.todos[session] = after
            for record in self.world.records.values():
                if record.binding is None or record.binding[0] != session:
                    continue
                agreement = record.state == OPEN or (record.state == EXPIRED and record.live())
                _, content, origin = record.binding
                was = before.get(content)
                now = after.get(content)
                moved = (
                    was is not None
                    and was[1] == origin
                    and was[0] in UNFINISHED
                    and now == ("completed", origin)
                )
                if agreement and moved:
                    record.close(FULFILLED)
        else:
            assert not step.session_changed
        self.world.settle()
        self.fresh = True

    @rule(session=st.sampled_from(SESSIONS), role=st.sampled_from([Role.ASSISTANT, Role.USER]))
    def noise(self, session: str, role: Role) -> None:
        """Assistant "okay, agreed", a user's "done", another tool's success: nothing (R3, R10)."""
        self.world.expire(self.talk.now, session)
        intent = Acceptance() if role == Role.ASSISTANT else NO_INTENT
        changes = self.talk.turn(intent, "okay, agreed. done!", role=role, session=session).events
        changes += self.talk.tool_result(None, name="bash", session=session).events
        assert _only_deadline_closes(changes)
        self.world.settle()
        self.fresh = True

    @precondition(lambda self: self.fresh and self.talk.last_input is not None)
    @rule()
    def redeliver_last_input(self) -> None:
        """A redelivered input right after itself commits nothing new (R15)."""
        assert self.talk.last_input is not None
        event, intent = self.talk.last_input
        step = self.talk.apply(event, intent)
        assert not step.scope_changed
        assert not step.session_changed

    @precondition(lambda self: any(m.live() for m in self.world.records.values()))
    @rule(
        data=st.data(),
        minutes=st.sampled_from([1, 15, 30]),
        act=st.sampled_from(["agent", "confirm", "cancel", "withdraw"]),
    )
    def act_stamped_earlier(self, data: st.DataObject, minutes: int, act: str) -> None:
        """An acceptance, cancellation or withdrawal whose `ts` lags the clock (a
        gateway's clock behind): it counts only for what was proposed at or before its
        time (R5, R8, R17)."""
        live = [m for m in self.world.records.values() if m.live()]
        model = data.draw(st.sampled_from(live))
        amending = model.session if model.change is None else model.change.session
        hint = data.draw(st.sampled_from([None, *model.texts()]))
        self.talk.advance(minutes=-minutes)
        try:
            if act == "agent":
                self._agent_call(model.record_id, amending, model.revision, malformed=False)
            elif act == "confirm":
                self._confirm(model.session, hint)
            elif act == "cancel":
                self._cancel(data.draw(st.sampled_from(SESSIONS)), hint)
            else:
                self._withdraw(amending, hint)
        finally:
            self.talk.advance(minutes=minutes)
        self.fresh = False

    # --- rules: time ---

    # Steps that add up to the deadlines exactly, so the exclusive boundary is hit.
    @rule(minutes=st.sampled_from([1, 15, 30, 60]))
    def time_passes(self, minutes: int) -> None:
        self.talk.advance(minutes=minutes)
        self.fresh = False

    @rule()
    def sweep(self) -> None:
        self.world.expire(self.talk.now)
        step = self.talk.sweep()
        assert all(isinstance(e, StateChanged) for e in step.events)
        assert _only_deadline_closes(step.events)
        self.fresh = False

    # --- invariants ---

    @invariant()
    def reducer_agrees_with_the_model(self) -> None:
        live = {r.record_id: r for r in self.talk.scope.records}
        assert set(live) == {m.record_id for m in self.world.records.values() if m.live()}
        closed = [c.record_id for c in self.talk.scope.closed]
        assert closed == self.world.closed[-CLOSED_KEPT:]
        for model in self.world.records.values():
            changes = self.talk.changes_of(model.record_id)
            # revision rises by exactly one per committed change, from 1
            assert [c.revision for c in changes] == list(range(1, model.revision + 1))
            assert changes[-1].to_state == model.state
            assert (changes[-1].acceptances.agent, changes[-1].acceptances.user) == (
                model.agent,
                model.user,
            )
            assert (changes[-1].terms, changes[-1].deadline_at) == (model.terms, model.deadline)
            pending = changes[-1].amendment
            if model.change is None:
                assert pending is None
            else:
                assert pending is not None
                assert (pending.terms, pending.session_id, pending.deadline_at) == (
                    model.change.terms,
                    model.change.session,
                    model.change.deadline,
                )
                assert (pending.acceptances.agent, pending.acceptances.user) == (
                    model.change.agent,
                    model.change.user,
                )
            if model.record_id in live:
                record = live[model.record_id]
                assert (record.state, record.revision) == (model.state, model.revision)
                assert len(record.history) == record.revision

    @invariant()
    def open_implies_both_acceptances(self) -> None:
        for event in self.talk.published:
            if isinstance(event, StateChanged) and event.to_state == OPEN:
                assert event.acceptances.agent
                assert event.acceptances.user

    @invariant()
    def fulfilled_implies_verified_delivery_of_the_binding(self) -> None:
        for event in self.talk.published:
            if isinstance(event, StateChanged) and event.to_state == FULFILLED:
                assert event.cause == Cause.DELIVERY_VERIFIED
                assert event.binding is not None
                assert event.provenance.session_id == event.binding.session_id
                assert event.provenance.call_id is not None
                assert event.acceptances.agent
                assert event.acceptances.user

    @invariant()
    def terminal_states_never_change_except_late_delivery(self) -> None:
        for event in self.talk.published:
            if isinstance(event, StateChanged):
                assert event.from_state not in {FULFILLED, CANCELLED}
                if event.from_state == EXPIRED:
                    assert event.to_state == FULFILLED

    @invariant()
    def current_memory_is_open_and_not_past_deadline(self) -> None:
        now = self.talk.now
        expected = {
            m.record_id
            for m in self.world.records.values()
            if m.state == OPEN and (m.deadline is None or now < m.deadline)
        }
        for session in SESSIONS:
            view = self.talk.view(session)
            assert {c.record_id for c in view.current_agreements} == expected
            pending = {
                m.record_id
                for m in self.world.records.values()
                if m.session == session
                and m.state == PROPOSED
                and (m.deadline is None or now < m.deadline)
            }
            assert {p.record_id for p in view.pending_proposals} == pending
            amending = {
                (m.record_id, m.change.terms)
                for m in self.world.records.values()
                if m.change is not None
                and m.change.session == session
                and (m.deadline is None or now < m.deadline)
            }
            assert {(a.record_id, a.terms) for a in view.pending_amendments} == amending
            # R17: current memory holds the current terms, never a pending amendment's
            assert {c.terms for c in view.current_agreements} == {
                m.terms for m in self.world.records.values() if m.record_id in expected
            }


# At least 1,000 examples in CI (the bar); about 20 s of CPU.
LifecycleMachine.TestCase.settings = settings(
    max_examples=1000,
    stateful_step_count=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@pytest.mark.slow
@pytest.mark.timeout(600)
class TestLifecycleAgainstModel(LifecycleMachine.TestCase):  # type: ignore[misc,valid-type]
    """Random sequences of inputs, every invariant after every step (R2-R13, R15)."""
