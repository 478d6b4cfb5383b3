"""Planning one scope's unit: gate each session, apply the core, write the commit plan.

Per session the ordering gate (store/gate.py) says what to apply, park, ack as a
duplicate or dead-letter as late; the core is applied in seq order per session,
threading the scope state through the scope's sessions. The result is the unit's
`UnitPlan` (store/commit_plan.py) with what to report and to remember if it passes.
"""

from __future__ import annotations

import itertools
import secrets
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Generic

import msgspec

from contracts.codec import decode_event
from contracts.inputs import InputEvent
from contracts.outputs import DeadLetter, DeadLetterReason
from contracts.records import AgreementRecord
from store import keys
from store.admission import Admission, error_text
from store.commit_plan import (
    KeyTable,
    PlainLane,
    SessionWrite,
    UnitPlan,
    parked_data,
    session_write,
)
from store.config import StoreConfig
from store.core_port import CorePort, CoreStep, ScopeT, SessionT
from store.gate import UNLIMITED, Arrival, GatePlan, ParkedEntry, in_order_from, plan_session
from store.keys import APPLIED_FIELD_PREFIX
from store.loading import KeyNames, deadline_members, gap_stale
from store.parked_limits import (
    PartitionRoom,
    over_partition_room,
    over_session_limits,
    parked_delta,
)
from store.state_cache import NO_PARKED, ScopeSnapshot, SessionSnapshot
from store.unit import Event, PlainUnit, SessionMove, Unit, UnitBuild
from store.work import ScopeId, ScopeWork

# Parked entries were checked against the limits when they arrived; a later, smaller
# limit must not strand them, so they are decoded again without limits.
_NO_LIMITS = UNLIMITED


class UnitPlanner(Generic[ScopeT, SessionT]):
    """Plans the units of one partition (pure but for the version tokens it draws)."""

    def __init__(
        self,
        partition: int,
        core: CorePort[ScopeT, SessionT],
        config: StoreConfig,
        names: KeyNames,
        admission: Admission,
    ) -> None:
        self.partition = partition
        self.core = core
        self.config = config
        self.names = names
        self.admission = admission
        # Versions are tokens unique to one commit (a random prefix per processor and a
        # counter), not counts. When Redis loses acknowledged writes (a power cut under
        # appendfsync everysec, a failover to a lagging replica) a count is reached again
        # with other content and would pass a stale check; a token never comes back.
        self._token_prefix = secrets.token_hex(8) + "."
        # What the partition may still park in the batch being planned (the processor
        # sets it before each round; None: the partition limits are off).
        self.room: PartitionRoom | None = None
        # The step that ended the plain lane's attempt at the scope being planned (it
        # touched a record, an event or the scope): (its event, the scope and session it
        # was applied to, the step). `unit` plans the scope again from the same state and
        # takes this step instead of applying the core to the same input twice (the core
        # is pure); a proposal's recognition and resolution is the costliest step there is.
        self._replay: tuple[InputEvent, ScopeT, SessionT, CoreStep[ScopeT, SessionT]] | None = None
        self._tokens = itertools.count(1)
        # The version every key the commit being planned writes gets: one token per
        # commit (unique to it, which is all a version must be), drawn by `next_commit`.
        self.version = self.next_commit()

    def next_commit(self) -> str:
        """Draw the version token of the next commit (also its commit mark)."""
        self.version = f"{self._token_prefix}{next(self._tokens):x}"
        return self.version

    def unit(  # noqa: PLR0913  (a unit's inputs, and whether the mark vouches for them)
        self,
        table: KeyTable,
        scope_id: ScopeId,
        work: ScopeWork,
        before: ScopeSnapshot[ScopeT],
        sessions: dict[str, SessionSnapshot[SessionT]],
        *,
        trusted: bool = False,
    ) -> Unit[ScopeT, SessionT]:
        """The scope's unit; `trusted`: planned from the processor's cache alone under a
        known commit mark, so it carries no versions to check (docs/store.md)."""
        build: UnitBuild[ScopeT, SessionT] = UnitBuild(
            before.state, table, UnitPlan(trusted=trusted)
        )
        # Only right after the lane's attempt at this scope (the processor plans it next).
        replay, self._replay = self._replay, None
        build.replay = replay
        names = self.names.scope_names(*scope_id)
        prefix = names.session_prefix
        for session_id in sorted(work.sessions()) if work.skip_gap else sorted(work.arrivals):
            session = sessions[session_id]
            arrivals = work.arrivals.get(session_id)
            if (
                arrivals
                and not session.parked
                and session_id not in work.skip_gap
                and in_order_from(session.next_seq, arrivals)
            ):
                self._in_order(build, scope_id, prefix, session_id, arrivals, session)
            else:
                self._session(build, scope_id, session_id, work, session)
        plan = build.plan
        build.count("dead_letter", len(plan.letters) + len(plan.parked_letters))
        if build.sessions_after:
            # The sessions' applied seqs go to the scope's view hash (commit.lua).
            plan.view_key = table(names.view)
        scope_after = None
        if build.applied_any:
            # An unchanged scope has the deadlines it had: no scan of its records.
            deadlines = (
                deadline_members(self.core, scope_id, build.scope)
                if build.scope_changed
                else before.deadlines
            )
            state_bytes = self.scope_writes(
                plan, table, scope_id, build.scope, before, deadlines, build.records,
                build.events, build.scope_changed,
            )  # fmt: skip
            version = self.version if build.scope_changed else before.version
            scope_after = ScopeSnapshot(version, build.scope, deadlines, state_bytes)
        return Unit(scope_id, plan, build.outcomes, build.events, scope_after, build.sessions_after)

    def plain(  # noqa: PLR0913, PLR0917  (a unit's inputs, and the lane it joins)
        self,
        table: KeyTable,
        lane: PlainLane,
        scope_id: ScopeId,
        work: ScopeWork,
        before: ScopeSnapshot[ScopeT],
        sessions: dict[str, SessionSnapshot[SessionT]],
    ) -> PlainUnit[ScopeT, SessionT] | None:
        """The scope as a plain unit of `lane`, or None when it is not one (then `unit`
        plans it). For a trusted scope only: one planned from the cache under the mark.

        Almost every scope of a live gateway's read is plain: its sessions go on in
        order and their turns change nothing but the seq (and a todo list's tracking).
        The core runs on every input of the scope, the lane's writes added as it goes;
        if a step touches the scope (a record, an event or a scope change) or fails,
        what was added to `table` and `lane` is taken back. Since the core is pure, a
        scope that turns out not plain is planned again from the same state by `unit`,
        which plans what this would have (tests/store/test_store_plain.py compares them).
        """
        self._replay = None
        if work.skip_gap or not work.arrivals or self.config.session_retention_ms:
            return None
        mark = table.mark(), len(lane.entries), len(lane.acks)
        try:
            unit = self._plain_unit(table, lane, scope_id, work, before, sessions)
        except Exception:  # noqa: BLE001  (`unit` plans the failure: the input is refused)
            unit = None
        if unit is None:
            # Not plain after all: nothing of it stays in the call.
            table.rollback(mark[0])
            del lane.entries[mark[1] :], lane.acks[mark[2] :]
            return None
        lane.units += 1
        return unit

    def _plain_unit(  # noqa: PLR0913, PLR0917  (one pass over the scope's inputs)
        self,
        table: KeyTable,
        lane: PlainLane,
        scope_id: ScopeId,
        work: ScopeWork,
        before: ScopeSnapshot[ScopeT],
        sessions: dict[str, SessionSnapshot[SessionT]],
    ) -> PlainUnit[ScopeT, SessionT] | None:
        """`plain`'s one pass: the core applied to each input in order, each session's
        writes added to the lane as it goes; None as soon as an input is out of order or
        refused at admission (its letter is written in order, by `unit`), a session has
        parked entries, or a step touches more than its session (`plain` then takes
        back what was added). Raises what the core raises."""
        core = self.core
        apply = core.apply
        names = self.names.scope_names(*scope_id)
        prefix = names.session_prefix
        entries, acks, index, fresh = lane.entries, lane.acks, table.index, table.fresh
        arrivals_of = work.arrivals
        entries += (table(names.view), len(arrivals_of))
        moves: list[SessionMove[SessionT]] = []
        scope = before.state
        applied = 0
        for session_id in sorted(arrivals_of) if len(arrivals_of) > 1 else arrivals_of:
            snapshot = sessions[session_id]
            if snapshot.parked:
                return None
            session = snapshot.core
            if session is None:
                session = core.decode_session(snapshot.raw_core, session_id)
            changed = False
            next_seq = snapshot.next_seq
            for arrival in arrivals_of[session_id]:
                event = arrival.event
                # Exactly the next seqs (`gate.in_order_from`), none refused.
                if event is None or event.seq != next_seq:
                    return None
                next_seq += 1
                step = apply(scope, session, event, arrival.stream, arrival.entry_id)
                if step.scope_changed or step.events or step.records:
                    self._replay = (event, scope, session, step)
                    return None
                scope, session = step.scope, step.session
                changed = changed or step.session_changed
                # The table's own index first: a stream is in it after its first ack.
                acks += (index.get(arrival.stream) or table(arrival.stream), arrival.entry_id)
                applied += 1
            # What the cache keeps, as `_in_order` keeps it: the state as stored (encoded),
            # or decoded while it was never stored.
            if changed:
                encoded = core.encode_session(session)
                moves.append((snapshot, next_seq, encoded, None, len(encoded)))
                blob = table.blob(encoded)
            else:
                raw_core = snapshot.raw_core
                kept = session if raw_core is None else None
                moves.append((snapshot, next_seq, raw_core, kept, snapshot.core_bytes))
                blob = 0
            # A session's key is named once in a commit: no look-up for an earlier name.
            # Its name and its view field as store/keys.py writes them (`ident` and
            # `applied_field`), spelled out: once per session of the lane.
            entries += (
                fresh(f"{prefix}{len(session_id)}:{session_id}"),
                next_seq,
                APPLIED_FIELD_PREFIX + session_id,
                blob,
            )
        scope_after = None
        if scope is not before.state:
            # Unchanged, as the steps say, but another object: remembered as `unit` would.
            scope_after = ScopeSnapshot(before.version, scope, before.deadlines, before.state_bytes)
        return PlainUnit(scope_id, applied, moves, scope_after)

    def isolated(
        self, table: KeyTable, scope_id: ScopeId, work: ScopeWork, reason: str
    ) -> Unit[ScopeT, SessionT]:
        """A unit that cannot be committed: its entries become dead letters, nothing else.

        Its state stays as it is (and its parked entries parked), so the partition goes on
        and an operator can repair the keys; the gap skipper passes over it with the reason.
        """
        plan = UnitPlan()
        events: list[Event] = []
        for arrivals in work.arrivals.values():
            for arrival in arrivals:
                letter = arrival.letter or self.admission.letter_of(
                    arrival,
                    DeadLetterReason.UNCOMMITTABLE,
                    f"its scope cannot be committed: {reason}",
                )
                plan.letters.append(table.letter(letter))
                events.append(letter)
        outcomes = {"dead_letter": len(events)} if events else {}
        return Unit(scope_id, plan, outcomes, events)

    def expiry(
        self,
        table: KeyTable,
        scope_id: ScopeId,
        before: ScopeSnapshot[ScopeT],
        cutoff: int,
        stale: Iterable[str],
    ) -> tuple[UnitPlan, list[Event]]:
        """One scope's expiry commit and its events."""
        step = self.core.expire(before.state, datetime.fromtimestamp(cutoff / 1000, tz=UTC))
        plan = UnitPlan()
        self.scope_writes(
            plan, table, scope_id, step.scope, before,
            deadline_members(self.core, scope_id, step.scope),
            {record.record_id: record for record in step.records}, step.events,
            step.scope_changed, stale=stale,
        )  # fmt: skip
        return plan, list(step.events)

    def scope_writes(  # noqa: PLR0913, PLR0917  (the parts of one scope's commit)
        self,
        plan: UnitPlan,
        table: KeyTable,
        scope_id: ScopeId,
        scope: ScopeT,
        before: ScopeSnapshot[ScopeT],
        deadlines: dict[str, int],
        records: dict[str, AgreementRecord],
        events: Iterable[Event],
        scope_changed: bool,  # noqa: FBT001
        stale: Iterable[str] = (),
    ) -> int:
        """The scope part of a unit: version check, state, records, deadline index, events.

        Returns the scope state's encoded size after it, for the state cache's budget.
        """
        if not plan.trusted:
            plan.scope_key = table(self.names.scope(*scope_id))
            plan.scope_version = before.version
        if deadlines is not before.deadlines or stale:
            removed = ({*before.deadlines, *stale}) - deadlines.keys()
            added = {m: ms for m, ms in deadlines.items() if before.deadlines.get(m) != ms}
            plan.deadlines_removed = sorted(removed)
            plan.deadlines_added = [x for member, ms in sorted(added.items()) for x in (ms, member)]
        state_bytes = before.state_bytes
        if scope_changed:
            plan.scope_key = table(self.names.scope(*scope_id))
            encoded = self.core.encode_scope(scope)
            state_bytes = len(encoded)
            plan.scope_state = table.blob(encoded)
            # The language-neutral view document changes only with the records.
            plan.view_key = table(self.names.view(*scope_id))
            view = self.core.scope_view(scope)
            plan.view_document = table.json(view)
            # The scopes index moves with the scope's state, never with a plain turn.
            plan.scope_member = keys.scope_member(*scope_id)
            plan.scope_open = bool(view.agreements)
            if self.config.record_retention_ms:
                plan.scope_idle = not self.core.holds_records(scope)
        for rid, record in records.items():
            # A record the core no longer keeps is final: with record retention on, its
            # key gets the retention as its time to live (docs/store.md, "Retention").
            final = self.config.record_retention_ms > 0 and not self.core.keeps(record)
            written = plan.final_records if final else plan.records
            written += (table(keys.record_key(self.partition, rid)), table.json(record))
        plan.events = [table.json(event) for event in events if not isinstance(event, DeadLetter)]
        return state_bytes

    def _gate(
        self, session_id: str, work: ScopeWork, before: SessionSnapshot[SessionT]
    ) -> GatePlan:
        """The session's gate plan; past the parked limits, with its gap given up."""
        arrivals = work.arrivals.get(session_id, ())
        skip = session_id in work.skip_gap and gap_stale(before, work.skip_seen_by)
        plan = plan_session(before.next_seq, before.skipped, before.parked, arrivals, skip_gap=skip)
        if (
            plan.park
            and not plan.skipped_now
            and (
                over_session_limits(self.config, before, plan)
                or over_partition_room(self.room, plan)
            )
        ):
            # A flood of early entries behind one gap: give the gap up now rather than
            # hold them all (past the limits memory, not time, is what runs out).
            plan = plan_session(
                before.next_seq, before.skipped, before.parked, arrivals, skip_gap=True
            )
        return plan

    def _session(
        self,
        build: UnitBuild[ScopeT, SessionT],
        scope_id: ScopeId,
        session_id: str,
        work: ScopeWork,
        before: SessionSnapshot[SessionT],
    ) -> None:
        """Gate one session's inputs and apply the ready ones to the scope in `build`."""
        plan = self._gate(session_id, work, before)
        table = build.table
        if plan.duplicates or plan.late or plan.conflicting:
            self._not_applied(build, plan)
        names = self.names.session(*scope_id, session_id)
        if not (plan.apply or plan.park or plan.skipped_now):
            if (plan.duplicates or plan.late or plan.conflicting) and not build.plan.trusted:
                # Nothing to write, but acking them rests on the next seq and skipped
                # ranges as this processor saw them (perhaps cached): the commit checks
                # they are still Redis's. After Redis lost writes they are not, and the
                # input must be applied again, not acked as a duplicate. (A trusted unit
                # rests on the commit mark, which says the same for the whole partition.)
                build.plan.sessions.append(SessionWrite(table(names.key), before.version))
            return
        session = before.core
        if session is None:
            session = self.core.decode_session(before.raw_core, session_id)
        session, session_changed = self._apply_ready(build, plan.apply, session, session_id)
        build.applied_any |= bool(plan.apply)
        self._park(build, plan)
        if plan.skipped_now:
            build.plan.gaps_skipped += 1
            build.plan.seqs_skipped += plan.skipped_now[1] - plan.skipped_now[0] + 1
        parked_after: dict[int, ParkedEntry] = {}
        if before.parked or plan.park:
            parked_after = {seq: e for seq, e in before.parked.items() if seq >= plan.next_seq}
            parked_after.update(
                (seq, ParkedEntry(a.stream, a.entry_id, parked_data(a))) for seq, a in plan.park
            )
            self._count_parked(build.plan, before.parked, parked_after)
        encoded = self.core.encode_session(session) if session_changed else None
        version = None if build.plan.trusted else before.version
        write = session_write(table, names, version, before, plan, encoded, parked_after)
        if self.config.session_retention_ms:
            write.idle_member = names.member
        build.plan.sessions.append(write)
        # The cache keeps the session's state as stored, encoded (a third of its decoded
        # size), and decodes it again when the session comes back. Unchanged, it is what
        # was loaded; only a state never stored is kept decoded.
        raw_core, core = (encoded, None) if encoded is not None else (before.raw_core, None)
        if raw_core is None:
            core = session
        # Field by field on purpose (CONTRIBUTING.md, "Repeated shapes").
        build.sessions_after[session_id] = SessionSnapshot(
            version=self.version,
            next_seq=plan.next_seq,
            skipped=plan.skipped,
            parked=parked_after or NO_PARKED,
            raw_core=raw_core,
            core=core,
            core_bytes=before.core_bytes if encoded is None else len(encoded),
        )

    def _in_order(  # noqa: PLR0913, PLR0917  (one session's inputs, its scope's names)
        self,
        build: UnitBuild[ScopeT, SessionT],
        scope_id: ScopeId,
        prefix: str,
        session_id: str,
        arrivals: list[Arrival],
        before: SessionSnapshot[SessionT],
    ) -> None:
        """A session whose arrivals are exactly its next seqs, with nothing parked and no
        gap to skip: a conversation going on, almost every session of a live gateway's
        read. What `_session` would do for it, without the gate's plan or the parked
        bookkeeping (tests/store/test_store_units.py compares the two plans)."""
        session = before.core
        if session is None:
            session = self.core.decode_session(before.raw_core, session_id)
        next_seq = before.next_seq
        session, changed = self._apply_ready(
            build, enumerate(arrivals, next_seq), session, session_id
        )
        build.applied_any = True
        next_seq += len(arrivals)
        table = build.table
        trusted = build.plan.trusted
        write = SessionWrite(
            table(prefix + keys.ident(session_id)),
            None if trusted else before.version,
            next_seq=next_seq,
            applied_field=keys.applied_field(session_id),
        )
        raw_core, core, core_bytes = before.raw_core, None, before.core_bytes
        if changed:
            raw_core = self.core.encode_session(session)
            core_bytes = len(raw_core)
            write.core = table.blob(raw_core)
        elif raw_core is None:
            core = session  # a state never stored is kept decoded (as in `_session`)
        if self.config.session_retention_ms:
            write.idle_member = keys.session_member(*scope_id, session_id)
        build.plan.sessions.append(write)
        build.sessions_after[session_id] = SessionSnapshot(
            self.version, next_seq, before.skipped, NO_PARKED, raw_core, core, None, core_bytes
        )

    def _apply_ready(
        self,
        build: UnitBuild[ScopeT, SessionT],
        ready: Iterable[tuple[int, Arrival | ParkedEntry]],
        session: SessionT,
        session_id: str,
    ) -> tuple[SessionT, bool]:
        """Apply the plan's ready inputs in seq order, threading scope and session."""
        # The loop every applied input passes through: lookups bound once, acks appended
        # in place and outcomes counted once per session.
        session_changed = False
        acks, table, records = build.plan.acks, build.table, build.records
        applied = drained = 0
        for seq, source in ready:
            event: InputEvent | None = None
            if isinstance(source, Arrival):
                if source.letter is not None:
                    build.letter(source.letter)  # refused: its place in the order
                    continue
                event = source.event
            elif not source.data:
                drained += 1  # a refused input's place: lettered
                continue
            try:
                if event is None:
                    event = decode_event(source.data, _NO_LIMITS)
                step = self._step(build, session, event, source)
            except Exception as error:  # noqa: BLE001  (any failure of one input is isolated)
                # The core is pure: the state before this input is intact, so the input
                # is refused alone and its session goes on with the next seq.
                self._refuse(build, source, seq, session_id, error)
                continue
            build.scope, session = step.scope, step.session
            build.scope_changed |= step.scope_changed
            session_changed |= step.session_changed
            if step.events:
                build.events.extend(step.events)
            for record in step.records:
                records[record.record_id] = record
            if isinstance(source, Arrival):
                acks += (table(source.stream), source.entry_id)
                applied += 1
            else:
                drained += 1
        build.count("applied", applied)
        build.count("drained", drained)
        return session, session_changed

    def _step(
        self,
        build: UnitBuild[ScopeT, SessionT],
        session: SessionT,
        event: InputEvent,
        source: Arrival | ParkedEntry,
    ) -> CoreStep[ScopeT, SessionT]:
        """The core applied to one input: the plain lane's step, when it was this very
        input on this state (the scope threaded to it the same object, the session,
        decoded apart, the same value); the core is pure, so it gives the same step."""
        replay = build.replay
        if (
            replay is not None
            and replay[0] is event
            and replay[1] is build.scope
            and replay[2] == session
        ):
            return replay[3]
        return self.core.apply(build.scope, session, event, source.stream, source.entry_id)

    def _refuse(
        self,
        build: UnitBuild[ScopeT, SessionT],
        source: Arrival | ParkedEntry,
        seq: int,
        session_id: str,
        error: Exception,
    ) -> None:
        """Dead-letter one input the core could not apply (`uncommittable`, error named)."""
        letter = self.admission.letter_of(
            source,
            DeadLetterReason.UNCOMMITTABLE,
            f"applying seq {seq} failed: {error_text(error)}",
        )
        letter = msgspec.structs.replace(letter, session_id=session_id, seq=seq)
        if isinstance(source, Arrival):
            build.letter(letter)
        else:
            build.plan.parked_letters.append(build.table.json(letter))
            build.events.append(letter)

    def _park(self, build: UnitBuild[ScopeT, SessionT], plan: GatePlan) -> None:
        """Ack the entries the plan parks (their payload goes to the parked hash)."""
        for _, arrival in plan.park:
            if arrival.letter is not None:
                # Refused: its letter now, and an empty place kept in the order.
                build.letter(arrival.letter)
            else:
                build.ack(arrival)
                build.count("parked")

    def _count_parked(
        self, plan: UnitPlan, before: Mapping[int, ParkedEntry], after: Mapping[int, ParkedEntry]
    ) -> None:
        """The unit's change of the partition's parked totals, taken from the room left."""
        entries, size = parked_delta(before, after)
        plan.parked_entries += entries
        plan.parked_bytes += size
        if self.room is not None:
            self.room.entries -= entries
            self.room.size -= size

    def _not_applied(self, build: UnitBuild[ScopeT, SessionT], plan: GatePlan) -> None:
        """Ack the plan's duplicates; turn its late arrivals into dead letters."""
        for arrival in plan.duplicates:
            if arrival.letter is not None:
                build.letter(arrival.letter)  # refused: its letter, whatever its seq
                continue
            build.ack(arrival)
            build.count("duplicate")
        for arrival, stream, entry_id in plan.conflicting:
            build.letter(
                self.admission.letter_of(
                    arrival,
                    DeadLetterReason.CONFLICTING_DUPLICATE,
                    f"seq {arrival.seq}: {arrival.stream} {arrival.entry_id} differs from"
                    f" {stream} {entry_id}, which is kept",
                )
            )
        for arrival in plan.late:
            build.letter(
                arrival.letter or self.admission.letter_of(
                    arrival,
                    DeadLetterReason.LATE_AFTER_GAP_SKIP,
                    f"seq {arrival.seq} arrived after its gap was skipped",
                )
            )  # fmt: skip
