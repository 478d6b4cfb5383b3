"""Exactly once, in order: one partition's input entries into one atomic commit (R15).

Entry point for the worker (stable):

    processor = PartitionProcessor(redis, partition, core, StoreConfig(...))
    report = await processor.process(entries)     # entries: Sequence[Entry]
    skipped = await processor.skip_stale_gaps()   # gap timeout; returns gaps skipped
    expired = await processor.sweep_expired()     # watermark-gated expiry; returns events

`redis` is a `redis.asyncio.Redis` or `RedisCluster` (decode_responses=False). An
`Entry` (contracts.streams) is `(stream, entry_id, fields, delivery_count)` as read; all
entries of one call belong to this partition's streams (anything else is a caller
error: ValueError). `process` never acks an entry it did not apply, park, recognise as a
duplicate or dead-letter; if it raises, every entry of the batch stays pending and is
redelivered. `BatchReport` has `outcomes`
(entries per outcome: applied, drained, parked, duplicate, dead_letter, retry_exhausted),
`events` (the agreement events committed) and `gap_skips`.

How a batch goes (docs/store.md), one module a step:
1. admission (`store/admission.py`): decode each entry; undecodable, contract-violating,
   oversize, wrong-partition and wrong-stream entries become dead letters (entries past
   the delivery limit are tried alone after the rest, `store/suspects.py`);
2. loading (`store/loading.py`): group the rest into units (one scope with all its
   sessions in the batch) and take their state from the processor's cache of what it
   committed, loading the rest in one round trip (`store/lua/load.lua`);
3. planning (`store/units.py`): per session, the ordering gate (`store/gate.py`) says
   what to apply, park, ack as a duplicate or dead-letter as late; the core is applied in
   seq order per session, threading the scope state through the scope's sessions; the
   result is the unit's typed commit plan (`store/commit_plan.py`);
4. commit (`store/commit.py`): one EVALSHA (`store/lua/commit.lua`) checks every unit's
   versions before writing it, commits the passing units (state, parked entries, history
   records, deadline index, agreement events, XACK) and returns the failed ones, which
   are dropped from the cache, reloaded and retried.
Crash tests stop a batch between the steps through one seam (`store/crash.py`).
"""

from __future__ import annotations

import asyncio
import functools
import operator
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Generic

import msgspec

from contracts.outputs import DeadLetter
from contracts.streams import Entry, as_text, input_streams
from store import keys, suspects
from store.admission import Admission
from store.commit import CommitResult, Committer, commit_chunks, commit_with_retry, planned
from store.commit_plan import KeyTable, PlainLane, UnitPlan
from store.compaction import Compaction, compact_idle_sessions
from store.config import StoreConfig
from store.core_port import CorePort, ScopeT, SessionT
from store.crash import CrashHook, no_crash
from store.loading import KeyNames, StateLoader
from store.ownership import Fence
from store.parked_limits import room_left
from store.record_index import prune_records_index
from store.retention import trim_applied
from store.scope_index import prune_scopes_index
from store.scripts import AnyRedis
from store.state_cache import ScopeSnapshot, SessionSnapshot
from store.unit import Event, PlainUnit, Unit
from store.units import UnitPlanner
from store.watermark import server_ms, unfinished_ms, watermark_ms
from store.work import ScopeId, ScopeWork

# An entry's stream and delivery count, read for every entry of a batch without a
# Python-level loop.
_STREAM = operator.attrgetter("stream")
_DELIVERIES = operator.attrgetter("delivery_count")


@dataclass(slots=True)
class BatchReport:
    outcomes: Counter[str] = field(default_factory=Counter)
    events: list[Event] = field(default_factory=list)
    gap_skips: int = 0
    # Scopes whose unit could not be committed, with why (their inputs are dead letters).
    isolated: dict[ScopeId, str] = field(default_factory=dict)
    # Entries past the delivery limit tried alone in this batch, as "<stream> <id>":
    # tries so far (store/suspects.py); past `suspect_attempts` they were given up.
    suspects: dict[str, int] = field(default_factory=dict)


class PartitionProcessor(Generic[ScopeT, SessionT]):
    def __init__(
        self,
        redis: AnyRedis,
        partition: int,
        core: CorePort[ScopeT, SessionT],
        config: StoreConfig | None = None,
        crash: CrashHook = no_crash,
    ) -> None:
        self.redis = redis
        self.partition = partition
        self.core = core
        self.config = config or StoreConfig()
        self.input_streams = frozenset(input_streams(partition))
        # Crash tests stop the process at named steps (store/crash.py); production passes.
        self.crash = crash
        self.admission = Admission(partition, self.config)
        self.names = KeyNames(partition)
        self.state = StateLoader(redis, partition, core, self.config)
        self.planner = UnitPlanner(partition, core, self.config, self.names, self.admission)
        self.committer = Committer(redis, partition, self.config)
        # Scopes the periodic work passed over (take_isolated), for the worker to log.
        self._isolated: dict[ScopeId, str] = {}
        # Partition ownership (store/ownership.py): when set, every commit runs only while
        # the partition's lease holds this token, else raises LeaseLost and writes
        # nothing. None: unfenced (a manual ACCORD_SERVE_PARTITIONS, tests, tools).
        self.fence: Fence | None = None
        # One batch, gap skip, sweep or retention pass of the partition at a time. The
        # reader, the reclaimer, a takeover's claim and the sweeper all call in; run
        # together they commit the same scopes, so each one's versions keep moving under
        # the other's plan: a large reclaimed batch lost that race round after round,
        # stayed pending, and was delivered again until the delivery limit made its
        # inputs dead letters (the chaos run with kills, at 1,000 entries per read).
        self._turn = asyncio.Lock()
        # Redis ms of this processor's last input trim (ACCORD_TRIM_INTERVAL_MS).
        self._trimmed_at: int | None = None
        # The partition's parked (entries, bytes) as `stats:{p}` counts them: read when
        # unknown (at first, and again after each sweep period), then kept up to date
        # with this processor's commits (store/parked_limits.py).
        self._parked: tuple[int, int] | None = None

    def set_fence(self, fence: Fence | None) -> None:
        """Fence every later commit with `fence` (None: unfenced); see `self.fence`.

        A new owner token means the partition was away from this worker for a while:
        what it remembers may be stale, so the cache starts empty (the commit's version
        checks would refuse stale entries anyway, at the price of a retry each).
        """
        if fence is not None and fence != self.fence:
            self.state.clear()
        self.fence = fence

    def take_isolated(self) -> dict[ScopeId, str]:
        """Scopes the gap skipper and the sweep passed over since the last call, with why."""
        isolated, self._isolated = self._isolated, {}
        return isolated

    # ------------------------------------------------------------------ batch
    async def process(self, entries: Sequence[Entry]) -> BatchReport:
        async with self._turn:
            return await self._process(entries)

    async def _process(self, entries: Sequence[Entry]) -> BatchReport:
        foreign = set(map(_STREAM, entries)) - self.input_streams
        if foreign:
            # A caller's mistake, not bad input: acking it here would cross hash slots.
            raise ValueError(f"entries of {sorted(foreign)} given to partition {self.partition}")
        limit = self.config.delivery_limit
        report = BatchReport()
        if max(map(_DELIVERIES, entries), default=0) <= limit:
            await self._admit_and_run(entries, report)
            return report
        ordinary = [entry for entry in entries if entry.delivery_count <= limit]
        if ordinary:
            await self._admit_and_run(ordinary, report)
        await self._try_alone([entry for entry in entries if entry.delivery_count > limit], report)
        return report

    async def _admit_and_run(self, entries: Sequence[Entry], report: BatchReport) -> int:
        """Admit `entries` and commit them; returns how many were left pending (contended)."""
        work: dict[ScopeId, ScopeWork] = defaultdict(ScopeWork)
        letters = self.admission.admit_all(entries, work)
        if letters:
            report.outcomes["dead_letter"] += len(letters)
            report.events.extend(letters)
        self.crash("after_decode")
        return await self._run(work, letters, report)

    async def _try_alone(self, entries: Sequence[Entry], report: BatchReport) -> None:
        """Each entry past the delivery limit in a commit of its own, the try counted in
        Redis first; one tried `suspect_attempts` times already is given up as a dead
        letter (store/suspects.py). A try that raises leaves the rest pending."""
        p = self.partition
        tried = await suspects.tries(self.redis, p, entries)
        for entry in suspects.fewest_tries_first(entries, tried):
            attempts = await suspects.count_try(self.redis, p, entry)
            report.suspects[suspects.member(entry)] = attempts
            if attempts > self.config.suspect_attempts:
                letter = self.admission.given_up(entry, attempts - 1)
                report.outcomes["dead_letter"] += 1
                report.events.append(letter)
                await self._run({}, [letter], report)
            elif await self._admit_and_run([entry], report):
                continue  # contended, not failed: pending still, tried again when redelivered
            await suspects.forget(self.redis, p, entry)

    # ------------------------------------------------------------- retention
    async def retain(self, now_ms: int | None = None) -> Compaction:
        async with self._turn:
            return await self._retain(now_ms)

    async def _retain(self, now_ms: int | None) -> Compaction:
        """The retention the config asks for (all off by default): compact sessions idle
        longer than `session_retention_ms` (store/compaction.py), remove from the records
        index the final records whose key the record retention removed
        (store/record_index.py) and from the scopes index the scopes left with none
        (store/scope_index.py), and every
        `trim_interval_ms` trim the input streams below what every group finished
        (store/retention.py). `now_ms` (tests) stands for Redis's clock."""
        config = self.config
        self._parked = None  # read the partition's parked totals afresh, once a period
        if not (
            config.session_retention_ms or config.trim_interval_ms or config.record_retention_ms
        ):
            return Compaction()
        now = now_ms if now_ms is not None else await server_ms(self.redis)
        done = Compaction()
        if config.session_retention_ms:
            done = await compact_idle_sessions(
                self.redis, self.partition, self.core, config.session_retention_ms, now
            )
            if done.compacted:
                # Written outside the commit script: what is remembered of them is stale.
                self.state.clear()
                self.committer.forget_mark()
        if config.record_retention_ms:
            unindexed = await prune_records_index(self.redis, self.partition, now)
            scopes = await prune_scopes_index(self.redis, self.partition, now)
            done = msgspec.structs.replace(done, unindexed=unindexed, scopes_unindexed=scopes)
        due = self._trimmed_at is None or now - self._trimmed_at >= config.trim_interval_ms
        if config.trim_interval_ms and due:
            self._trimmed_at = now
            removed = await trim_applied(self.redis, self.partition, config.group)
            done = msgspec.structs.replace(done, trimmed=sum(removed.values()))
        return done

    # ---------------------------------------------------------------- outbox
    async def publish_held(self) -> int:
        """Publish what commits left in the outbox (store/durability.py); how many."""
        async with self._turn:
            return await self.committer.replication.publish_held(self.fence)

    # ------------------------------------------------------------ gap timeout
    async def skip_stale_gaps(self, now_ms: int | None = None) -> int:
        async with self._turn:
            return await self._skip_stale_gaps(now_ms)

    async def _skip_stale_gaps(self, now_ms: int | None) -> int:
        """Skip each gap that is stale: missing for the gap timeout, with nothing left to read.

        A session's gap (its next seq missing, later seqs parked) is skipped only when
        it was observed (`g`, Redis's time when the commit that opened it ran) at least
        `gap_timeout_ms` ago, and every input entry written before that much time after
        the observation is finished: neither pending in any consumer's list nor unread
        (store/watermark.py). So a missing seq held by a dead consumer, or still unread
        in a backlog, is never skipped; it is reclaimed or read and applied
        (docs/store.md, "Gap skipping"). The skipped seqs are recorded in the session
        (`k`) and counted in `stats:{p}`; the parked events behind the gap are applied
        in order. `now_ms` (tests) stands for Redis's clock. Returns gaps skipped.
        """
        now = now_ms if now_ms is not None else await server_ms(self.redis)
        unfinished = await unfinished_ms(self.redis, self.partition, self.config.group)
        horizon = now if unfinished is None else min(now, unfinished)
        # Skippable: observed at or before this. A gap is observed no earlier than its
        # oldest parked entry was written, so the gap index (by that entry's id time)
        # holds every candidate.
        seen_by = horizon - self.config.gap_timeout_ms
        members: list[Any] = await self.redis.zrangebyscore(
            keys.gaps_key(self.partition), "-inf", seen_by
        )
        if not members:
            return 0
        work: dict[ScopeId, ScopeWork] = defaultdict(ScopeWork)
        for member in members:
            agent_id, user_id, session_id = keys.parse_member(member)
            unit = work[(agent_id, user_id)]
            unit.skip_gap.add(session_id)
            unit.skip_seen_by = seen_by
        for scope_id in work:
            # The observation time is written by the commit script, so read it from Redis.
            self.state.forget(scope_id)
        report = BatchReport()
        await self._run(work, [], report)
        self._isolated.update(report.isolated)
        return report.gap_skips

    # ------------------------------------------------------------------ units
    async def _run(
        self, work: dict[ScopeId, ScopeWork], letters: list[DeadLetter], report: BatchReport
    ) -> int:
        """Commit the units of `work` (and admission's `letters`), retrying moved ones;
        returns the entries left pending because their units stayed contended."""
        # Scopes that cannot be committed, with why: isolated, never retried as planned.
        broken: dict[ScopeId, str] = {}
        # Admission's letters go with the first commit that runs, and only with it.
        unsent = letters

        async def commit_round(todo: list[ScopeId], attempt: int) -> list[ScopeId]:  # noqa: ARG001  (every round commits alike)
            nonlocal unsent
            scopes, sessions, loaded = await self.state.load(todo, work, broken)
            self.crash("after_load")
            parked = await self._parked_totals()
            self.planner.room = room_left(self.config, *parked)
            table = KeyTable()
            token = self.planner.next_commit()
            units, plain, lane = self._plan_round(
                table, todo, work, scopes, sessions, loaded, broken
            )
            self.crash("before_commit")
            result = await self._commit(table, [unit.plan for unit in units], token, unsent, lane)
            unsent = []
            self.crash("after_commit")
            if result.distrusted:
                # Something else committed the partition, or Redis lost a commit of ours:
                # nothing remembered can be trusted; the moved units are reloaded.
                self.state.clear()
            self._take(result, units, plain, parked, broken, report)
            # A refused unit comes back once more, isolated: its entries as dead letters.
            scope_ids = [unit.scope_id for unit in units] + [lean.scope_id for lean in plain]
            return [scope_ids[index] for index in sorted({*result.moved, *result.refused})]

        left: list[ScopeId] = []
        for chunk in commit_chunks(work, self.config.commit_entries):
            left += await commit_with_retry(chunk, commit_round, self.config.commit_retries)
        # Still contended: leave them pending; redelivery or reclaim brings them back.
        contended = sum(work[s].entries() for s in left)
        if contended:
            report.outcomes["retry_exhausted"] += contended
        return contended

    def _plan_round(  # noqa: PLR0913, PLR0917  (a round's scopes and their state)
        self,
        table: KeyTable,
        todo: list[ScopeId],
        work: dict[ScopeId, ScopeWork],
        scopes: dict[ScopeId, ScopeSnapshot[ScopeT]],
        sessions: dict[ScopeId, dict[str, SessionSnapshot[SessionT]]],
        loaded: set[ScopeId],
        broken: dict[ScopeId, str],
    ) -> tuple[list[Unit[ScopeT, SessionT]], list[PlainUnit[ScopeT, SessionT]], PlainLane]:
        """The round's units: in full, or plain in the lane (store/units.py, `plain`)."""
        # Under the fence, with the mark of this processor's last commit known, a scope
        # planned from the cache alone needs no version read (docs/store.md), and one
        # whose inputs change nothing but its sessions goes in the plain lane.
        trusting = self.fence is not None and self.committer.mark is not None
        lane = PlainLane()
        units: list[Unit[ScopeT, SessionT]] = []
        plain: list[PlainUnit[ScopeT, SessionT]] = []
        for s in todo:
            trusted = trusting and s not in loaded and s not in broken
            if trusted:
                lean = self.planner.plain(table, lane, s, work[s], scopes[s], sessions[s])
                if lean is not None:
                    plain.append(lean)
                    continue
            units.append(self._unit(table, s, work[s], scopes, sessions, broken, trusted))
        return units, plain, lane

    def _take(  # noqa: PLR0913, PLR0917  (a commit's result, its units, what to update)
        self,
        result: CommitResult,
        units: list[Unit[ScopeT, SessionT]],
        plain: list[PlainUnit[ScopeT, SessionT]],
        parked: tuple[int, int],
        broken: dict[ScopeId, str],
        report: BatchReport,
    ) -> None:
        """Report and remember the units that passed; forget the others (the plain ones
        are numbered after `units` in `result`)."""
        # Nearly always every unit passed: then none is looked up in the result.
        failed = result.moved or result.refused
        for index, unit in enumerate(units):
            if failed and not result.passed(index):
                self.state.forget(unit.scope_id)
                if index in result.refused:
                    broken[unit.scope_id] = result.refused[index]
                continue
            parked = (parked[0] + unit.plan.parked_entries, parked[1] + unit.plan.parked_bytes)
            self._parked = parked
            report.outcomes.update(unit.outcomes)
            report.events.extend(unit.events)
            report.gap_skips += unit.plan.gaps_skipped
            if unit.scope_id in broken:
                report.isolated[unit.scope_id] = broken[unit.scope_id]
            self.state.remember(unit.scope_id, unit.scope_after, unit.sessions_after)
        applied = 0
        version = self.planner.version
        for index, lean in enumerate(plain, len(units)):
            if failed and not result.passed(index):
                self.state.forget(lean.scope_id)
                continue
            applied += lean.applied
            self.state.advance(lean.scope_id, version, lean.moves)
            if lean.scope_after is not None:
                self.state.remember(lean.scope_id, lean.scope_after, {})
        if applied:
            report.outcomes["applied"] += applied

    async def _commit(
        self,
        table: KeyTable,
        plans: list[UnitPlan],
        token: str,
        letters: Sequence[DeadLetter] = (),
        plain: PlainLane | None = None,
    ) -> CommitResult:
        """One commit script of the partition (fenced when the processor is).

        If the call raises, its outcome is unknown: the script may have run with only its
        answer lost (a primary that died with it in flight while its replica had the
        commit; a WAIT or a publish that failed after it). What this processor remembers
        of the commit's scopes may then be older than Redis and, the mark being unknown,
        so may the rest (earlier commits a failover lost): all of it goes with the mark.
        Otherwise the next commit writes a mark of its own again, later units are planned
        from the cache and written unchecked, and a stale scope undoes the commit whose
        inputs it acked: those seqs are never applied, and their session waits for them
        until the gap timeout skips them.
        """
        try:
            return await self.committer.commit(table, plans, token, letters, self.fence, plain)
        except BaseException:
            self.state.clear()
            self.committer.forget_mark()
            raise

    async def _parked_totals(self) -> tuple[int, int]:
        """The partition's parked (entries, bytes): remembered, or read from `stats:{p}`."""
        if self._parked is None:
            raw: Any = await self.redis.hmget(
                keys.stats_key(self.partition), "parked_entries", "parked_bytes"
            )
            self._parked = (int(raw[0] or 0), int(raw[1] or 0))
        return self._parked

    def _unit(  # noqa: PLR0913, PLR0917  (what planning needs, what is broken, trust)
        self,
        table: KeyTable,
        scope_id: ScopeId,
        work: ScopeWork,
        scopes: dict[ScopeId, ScopeSnapshot[ScopeT]],
        sessions: dict[ScopeId, dict[str, SessionSnapshot[SessionT]]],
        broken: dict[ScopeId, str],
        trusted: bool,  # noqa: FBT001
    ) -> Unit[ScopeT, SessionT]:
        """The scope's unit, or its isolated stand-in if it cannot be planned or written."""
        reason = broken.get(scope_id)
        if reason is None:
            unit = planned(
                table,
                lambda: self.planner.unit(
                    table, scope_id, work, scopes[scope_id], sessions[scope_id], trusted=trusted
                ),
            )
            if not isinstance(unit, str):
                return unit
            reason = broken[scope_id] = f"planning failed: {unit}"
        return self.planner.isolated(table, scope_id, work, reason)

    # ----------------------------------------------------------------- expiry
    async def sweep_expired(self, now_ms: int | None = None, limit: int = 1000) -> list[Any]:
        async with self._turn:
            return await self._sweep_expired(now_ms, limit)

    async def _sweep_expired(self, now_ms: int | None, limit: int) -> list[Any]:
        """Expire records past their deadline, once every earlier input has been applied.

        The cutoff is the partition's watermark (store/watermark.py) or `now_ms` if that is
        earlier: a backlog never turns an in-time acceptance into a late one. History
        time of an expiry is the deadline (the core's rule), so replays agree.
        Returns the committed agreement events.
        """
        mark = await watermark_ms(self.redis, self.partition, self.config.group)
        cutoff = mark if now_ms is None else min(mark, now_ms)
        members: list[Any] = await self.redis.zrangebyscore(
            keys.deadlines_key(self.partition), "-inf", cutoff, start=0, num=limit
        )
        due: dict[ScopeId, list[str]] = defaultdict(list)
        for member in members:
            agent_id, user_id, _ = keys.parse_member(member)
            due[(agent_id, user_id)].append(as_text(member))
        committed: list[Any] = []
        broken: dict[ScopeId, str] = {}
        nothing = {scope_id: ScopeWork() for scope_id in due}

        async def commit_round(todo: list[ScopeId], attempt: int) -> list[ScopeId]:  # noqa: ARG001  (every round sweeps alike)
            for scope_id in todo:
                self.state.forget(scope_id)  # the sweep reads Redis, never the cache
            scopes, _, _ = await self.state.load(todo, nothing, broken)
            units: list[tuple[ScopeId, UnitPlan, list[Event]]] = []
            table = KeyTable()
            token = self.planner.next_commit()
            for scope_id in todo:
                if scope_id in broken:
                    continue
                expire = functools.partial(
                    self.planner.expiry, table, scope_id, scopes[scope_id], cutoff, due[scope_id]
                )
                expiry = planned(table, expire)
                if isinstance(expiry, str):
                    broken[scope_id] = f"expiry failed: {expiry}"
                    continue
                units.append((scope_id, *expiry))
            result = await self._commit(table, [u for _, u, _ in units], token)
            for index, (scope_id, _, events) in enumerate(units):
                if index in result.refused:
                    broken[scope_id] = result.refused[index]
                elif index not in result.moved:
                    committed.extend(events)
            return [units[index][0] for index in sorted(result.moved)]

        await commit_with_retry(sorted(due), commit_round, self.config.commit_retries)
        self._isolated.update(broken)
        return committed


__all__ = [
    "BatchReport",
    "PartitionProcessor",
]
