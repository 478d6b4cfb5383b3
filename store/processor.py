"""Exactly once, in order: one partition's input entries into one atomic commit (R15).

Entry point for the worker (stable; issue 7 builds on it):

    processor = PartitionProcessor(redis, partition, core, StoreConfig(...))
    report = await processor.process(entries)     # entries: Sequence[InputEntry]
    skipped = await processor.skip_stale_gaps()   # gap timeout; returns gaps skipped
    expired = await processor.sweep_expired()     # watermark-gated expiry; returns events

`redis` is a `redis.asyncio.Redis` or `RedisCluster` (decode_responses=False). An
`InputEntry` is `(stream, entry_id, fields, delivery_count)`: any object with those
attributes will do (the worker's NamedTuple, for one); all entries of one call belong
to this partition's streams (anything else is a caller error: ValueError). `process`
never acks an entry it did not apply, park, recognise as a duplicate or dead-letter; if
it raises, every entry of the batch stays pending and is redelivered. `BatchReport` has `outcomes`
(entries per outcome: applied, drained, parked, duplicate, dead_letter, retry_exhausted),
`events` (the agreement events committed) and `gap_skips`.

How a batch goes (docs/store.md):
1. decode each entry (contracts.codec); undecodable, contract-violating, oversize,
   wrong-partition, wrong-stream and past-the-delivery-limit entries become dead letters;
2. group the rest into units (one scope with all its sessions in the batch) and take
   their state from the processor's cache of what it committed, loading the rest in one
   round trip (`store/lua/load.lua`);
3. per session, the ordering gate (`store/gate.py`) says what to apply, park, ack as a
   duplicate or dead-letter as late; the core is applied in seq order per session,
   threading the scope state through the scope's sessions;
4. one EVALSHA (`store/lua/commit.lua`) checks every unit's versions before writing it,
   commits the passing units (state, parked entries, history records, deadline index,
   agreement events, XACK) and returns the failed ones, which are dropped from the
   cache, reloaded and retried.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import secrets
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Generic, Protocol

import msgspec
from redis.exceptions import ResponseError

from contracts.codec import ContractError, decode_entry, decode_envelope, decode_event
from contracts.common import Provenance
from contracts.inputs import INPUT_STREAM_OF, ChatTurn, InputEvent, ToolCall, ToolResult
from contracts.outputs import (
    AgreementEvent,
    DeadLetter,
    DeadLetterReason,
    dead_letter_event_id,
)
from contracts.partition import partition_of
from contracts.records import AgreementRecord
from contracts.streams import DATA_FIELD, family_of, input_streams
from store import keys
from store.config import StoreConfig
from store.core_port import CorePort, ScopeT, SessionT
from store.crash import crash_point
from store.gate import (
    UNLIMITED,
    Arrival,
    GatePlan,
    ParkedEntry,
    entry_ms,
    format_skipped,
    parse_skipped,
    plan_session,
)
from store.ownership import FENCED_ERROR, Fence, LeaseLost
from store.scripts import COMMIT, LOAD, AnyRedis
from store.state_cache import LruCache, ScopeSnapshot, SessionSnapshot
from store.watermark import server_ms, unfinished_ms, watermark_ms

# Parked entries were checked against the limits when they arrived; a later, smaller
# limit must not strand them, so they are decoded again without limits.
_NO_LIMITS = UNLIMITED
_PARKED = msgspec.msgpack.Decoder(tuple[str, str, bytes])
_MSGPACK = msgspec.msgpack.Encoder()
_DATA_KEY = DATA_FIELD.encode()
_JSON = msgspec.json.Encoder()
# With dead_letter_keep_text off, a letter keeps only these envelope values (ids, seq,
# time, kinds), and only as short scalars: every other value is replaced by its size,
# because chat text in a renamed field, a bare JSON string or a tool's arguments is
# still chat text (docs/security.md). Ids longer than the contract allows are not ids.
_KEPT_FIELDS = frozenset({
    "type", "agent_id", "user_id", "session_id", "seq", "ts", "role",
    "message_id", "call_id", "name", "ok", "timezone",
})  # fmt: skip
_KEPT_MAX_CHARS = 256


class InputEntry(Protocol):
    """One input stream entry as read (XREADGROUP or XAUTOCLAIM)."""

    @property
    def stream(self) -> str: ...
    @property
    def entry_id(self) -> str: ...
    @property
    def fields(self) -> dict[bytes, bytes]: ...
    @property
    def delivery_count(self) -> int: ...


@dataclass(frozen=True, slots=True)
class Entry:
    """A plain `InputEntry` (tests, tools)."""

    stream: str
    entry_id: str
    fields: dict[bytes, bytes]
    delivery_count: int = 1


@dataclass(slots=True)
class BatchReport:
    outcomes: Counter[str] = field(default_factory=Counter)
    events: list[AgreementEvent | DeadLetter] = field(default_factory=list)
    gap_skips: int = 0
    # Scopes whose unit could not be committed, with why (their inputs are dead letters).
    isolated: dict[tuple[str, str], str] = field(default_factory=dict)


ScopeId = tuple[str, str]
SessionId = tuple[str, str, str]


# _Work, _Unit and _Build are msgspec Structs, not dataclasses, because each batch
# builds one of each per scope and a Struct is several times cheaper to build.
class _Work(msgspec.Struct):
    """The inputs of one scope in this batch: arrivals per session, sessions to unblock."""

    arrivals: dict[str, list[Arrival]] = msgspec.field(default_factory=dict)
    # Sessions the gap skipper looks at, and the latest observation time (Redis ms) at
    # which a gap may be skipped now (docs/store.md, "Gap skipping").
    skip_gap: set[str] = msgspec.field(default_factory=set)
    skip_seen_by: int = -1


@dataclass(slots=True)
class _Keys:
    """KEYS of one script call, by index (Lua's 1-based)."""

    names: list[str] = field(default_factory=list)
    index: dict[str, int] = field(default_factory=dict)
    # ARGV[2..]: binary values (Redis's cmsgpack reads no bin type, so they travel apart).
    blobs: list[bytes] = field(default_factory=list)

    def blob(self, data: bytes) -> int:
        self.blobs.append(data)
        return len(self.blobs) + 1

    def __call__(self, name: str) -> int:
        found = self.index.get(name)
        if found is None:
            self.names.append(name)
            found = self.index[name] = len(self.names)
        return found


class _Unit(msgspec.Struct, Generic[ScopeT, SessionT]):
    """One scope's planned commit, with what to report and remember if it passes."""

    scope_id: ScopeId
    plan: dict[str, Any]
    outcomes: dict[str, int]
    events: list[AgreementEvent | DeadLetter]
    gap_skips: int
    scope_after: ScopeSnapshot[ScopeT] | None
    sessions_after: dict[str, SessionSnapshot[SessionT]]


class _Build(msgspec.Struct, Generic[ScopeT, SessionT]):
    """One unit while it is being planned: the scope threaded through its sessions."""

    scope: ScopeT
    table: _Keys
    scope_changed: bool = False
    applied_any: bool = False
    records: dict[str, AgreementRecord] = msgspec.field(default_factory=dict)
    events: list[AgreementEvent | DeadLetter] = msgspec.field(default_factory=list)
    sessions: list[dict[str, Any]] = msgspec.field(default_factory=list)
    sessions_after: dict[str, SessionSnapshot[SessionT]] = msgspec.field(default_factory=dict)
    # Flat [stream KEYS index, entry id, ...] for XACK.
    acks: list[Any] = msgspec.field(default_factory=list)
    # Dead letters of this batch's entries: late arrivals and inputs the core refused.
    late: list[list[Any]] = msgspec.field(default_factory=list)
    # Dead letters of parked entries the core refused (acked when they were parked).
    refused_parked: list[int] = msgspec.field(default_factory=list)
    outcomes: dict[str, int] = msgspec.field(default_factory=dict)
    gap_skips: int = 0
    seqs_skipped: int = 0


def _session_entry(  # noqa: PLR0913, PLR0917  (one session's part of a commit)
    table: _Keys,
    names: tuple[str, ...],
    before: SessionSnapshot[Any],
    plan: GatePlan,
    encoded: bytes | None,
    parked_after: dict[int, ParkedEntry],
    token: str,
) -> dict[str, Any]:
    """The session's writes as commit.lua reads them (absent fields are nil)."""
    session_key, parked_key, member, applied = names
    entry: dict[str, Any] = {
        "k": table(session_key),
        "v": before.version,
        "nv": token,
        "n": plan.next_seq,
        "af": applied,
    }
    if encoded is not None:
        entry["c"] = table.blob(encoded)
    if plan.skipped_now:
        entry["kk"] = format_skipped(plan.skipped)
    if plan.park or (before.parked and plan.unpark):
        # The parked hash is a KEY of the script only when it is written.
        entry["pk"] = table(parked_key)
        entry["ps"] = [
            x
            for seq, a in plan.park
            for x in (seq, table.blob(_MSGPACK.encode((a.stream, a.entry_id, _parked_data(a)))))
        ]
        entry["pd"] = plan.unpark
    if before.parked or parked_after:
        # The gap index is touched only by a session that had or has parked entries.
        entry["gm"] = member
        if plan.oldest_parked_ms is not None:
            entry["gs"] = plan.oldest_parked_ms
            if plan.next_seq != before.next_seq:
                # The seq waited for moved on: the gap now open is observed now.
                entry["go"] = 1
    return entry


def _parked_data(arrival: Arrival) -> bytes:
    """What the parked hash keeps of an arrival: its data, or b"" for a refused one."""
    return arrival.data if arrival.event is not None else b""


def _bump(counts: dict[str, int], name: str, by: int) -> None:
    if by:
        counts[name] = counts.get(name, 0) + by


def _sessions_of(work: _Work) -> set[str]:
    return {*work.arrivals, *work.skip_gap}


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _ms(instant: datetime) -> int:
    return int(instant.timestamp() * 1000)


def _instant(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, tz=UTC)


def provenance_of(stream: str, entry_id: str, event: InputEvent) -> Provenance:
    """Where an input came from (R14): stream, entry id, session seq, message or call id."""
    message_id = event.message_id if isinstance(event, ChatTurn) else None
    call_id = event.call_id if isinstance(event, ToolCall | ToolResult) else None
    return Provenance(
        stream=stream,
        entry_id=entry_id,
        session_id=event.session_id,
        seq=event.seq,
        message_id=message_id,
        call_id=call_id,
    )


class PartitionProcessor(Generic[ScopeT, SessionT]):
    def __init__(
        self,
        redis: AnyRedis,
        partition: int,
        core: CorePort[ScopeT, SessionT],
        config: StoreConfig | None = None,
    ) -> None:
        self.redis = redis
        self.partition = partition
        self.core = core
        self.config = config or StoreConfig()
        self.input_streams = frozenset(input_streams(partition))
        # Key names and partitions of the scopes and sessions seen lately (pure functions).
        self._session_names = functools.lru_cache(maxsize=4096)(self._names_of_session)
        self._scope_key = functools.lru_cache(maxsize=4096)(self._key_of_scope)
        self._view_key = functools.lru_cache(maxsize=4096)(self._view_key_of_scope)
        self._partition_of = functools.lru_cache(maxsize=4096)(self._partition_of_scope)
        # What this processor last committed (store/state_cache.py): skips most loads.
        self._scopes: LruCache[ScopeId, ScopeSnapshot[ScopeT]] = LruCache(self.config.cache_size)
        self._sessions: LruCache[SessionId, SessionSnapshot[SessionT]] = LruCache(
            self.config.cache_size
        )
        # Versions are tokens unique to one commit (a random prefix per processor and a
        # counter), not counts. When Redis loses acknowledged writes (a power cut under
        # appendfsync everysec, a failover to a lagging replica) a count is reached again
        # with other content and would pass a stale check; a token never comes back.
        self._token_prefix = secrets.token_hex(8) + "."
        self._tokens = itertools.count(1)
        # Scopes the periodic work passed over (take_isolated), for the worker to log.
        self._isolated: dict[ScopeId, str] = {}
        # Partition ownership (store/ownership.py): when set, every commit runs only while
        # the partition's lease holds this token, else raises LeaseLost and writes
        # nothing. None: unfenced (a manual ACCORD_SERVE_PARTITIONS, tests, tools).
        self.fence: Fence | None = None

    def set_fence(self, fence: Fence | None) -> None:
        """Fence every later commit with `fence` (None: unfenced); see `self.fence`.

        A new owner token means the partition was away from this worker for a while:
        what it remembers may be stale, so the cache starts empty (the commit's version
        checks would refuse stale entries anyway, at the price of a retry each).
        """
        if fence is not None and fence != self.fence:
            self._scopes = LruCache(self.config.cache_size)
            self._sessions = LruCache(self.config.cache_size)
        self.fence = fence

    def _token(self) -> str:
        return f"{self._token_prefix}{next(self._tokens):x}"

    def _names_of_session(self, agent_id: str, user_id: str, session_id: str) -> tuple[str, ...]:
        """(session key, parked key, gap member, view field of its applied seq)."""
        return (
            keys.session_key(self.partition, agent_id, user_id, session_id),
            keys.parked_key(self.partition, agent_id, user_id, session_id),
            keys.session_member(agent_id, user_id, session_id),
            keys.applied_field(session_id),
        )

    def _key_of_scope(self, agent_id: str, user_id: str) -> str:
        return keys.scope_key(self.partition, agent_id, user_id)

    def _view_key_of_scope(self, agent_id: str, user_id: str) -> str:
        return keys.view_key(self.partition, agent_id, user_id)

    def _partition_of_scope(self, agent_id: str, user_id: str) -> int:
        return partition_of(agent_id, user_id, self.config.partitions)

    # ----------------------------------------------------------------- intake
    async def process(self, entries: Sequence[InputEntry]) -> BatchReport:
        report = BatchReport()
        work: dict[ScopeId, _Work] = defaultdict(_Work)
        dead: list[tuple[str, str, bytes, str]] = []
        foreign = {entry.stream for entry in entries} - self.input_streams
        if foreign:
            # A caller's mistake, not bad input: acking it here would cross hash slots.
            raise ValueError(f"entries of {sorted(foreign)} given to partition {self.partition}")
        for entry in entries:
            letter = self._admit(entry, work)
            if letter is not None:
                dead.append(
                    (entry.stream, entry.entry_id, _JSON.encode(letter), letter.reason.value)
                )
                report.events.append(letter)
        if dead:
            report.outcomes["dead_letter"] += len(dead)
        crash_point(self.config.crash_at, "after_decode")
        await self._run(work, dead, report)
        return report

    def _admit(self, entry: InputEntry, work: dict[ScopeId, _Work]) -> DeadLetter | None:
        """Decode one entry into `work`; or return the dead letter it becomes."""
        if entry.delivery_count > self.config.delivery_limit:
            # Not given a place in its session's order: a failure past the delivery limit
            # may be Redis's, not the input's, and a requeue must still apply it in order
            # (its session waits for it until the gap timeout).
            letter = self._dead_letter(
                entry,
                DeadLetterReason.DELIVERY_LIMIT,
                f"delivered {entry.delivery_count} times (limit {self.config.delivery_limit})",
            )
            envelope = decode_envelope(entry.fields, self.config.limits)
            if envelope is None:
                return letter
            return msgspec.structs.replace(letter, session_id=envelope.session_id, seq=envelope.seq)
        try:
            event = decode_entry(entry.fields, self.config.limits, entry_ms(entry.entry_id))
        except ContractError as error:
            return self._refused(entry, work, self._dead_letter(entry, error.reason, str(error)))
        if self._partition_of(event.agent_id, event.user_id) != self.partition:
            return self._dead_letter(
                entry, DeadLetterReason.WRONG_PARTITION, "scope hashes to another partition", event
            )
        if INPUT_STREAM_OF[type(event)] != family_of(entry.stream):
            return self._dead_letter(
                entry,
                DeadLetterReason.CONTRACT_VIOLATION,
                f"a {INPUT_STREAM_OF[type(event)]} event on {entry.stream}",
                event,
            )
        data = entry.fields.get(_DATA_KEY, b"")
        arrival = Arrival(entry.stream, entry.entry_id, event, data, entry.delivery_count)
        arrivals = work[(event.agent_id, event.user_id)].arrivals
        arrivals.setdefault(event.session_id, []).append(arrival)
        return None

    def _refused(
        self, entry: InputEntry, work: dict[ScopeId, _Work], letter: DeadLetter
    ) -> DeadLetter | None:
        """A refused entry: its letter alone, or, when its envelope is valid and of this
        partition, a place in its session's order (the letter is written when the gate
        reaches its seq, and the session moves on without waiting out a gap)."""
        envelope = decode_envelope(entry.fields, self.config.limits)
        if envelope is None:
            return letter
        letter = msgspec.structs.replace(letter, session_id=envelope.session_id, seq=envelope.seq)
        if self._partition_of(envelope.agent_id, envelope.user_id) != self.partition:
            return letter
        data = entry.fields.get(_DATA_KEY, b"")
        arrival = Arrival(
            entry.stream, entry.entry_id, None, data, entry.delivery_count, envelope.seq, letter
        )
        arrivals = work[(envelope.agent_id, envelope.user_id)].arrivals
        arrivals.setdefault(envelope.session_id, []).append(arrival)
        return None

    def _write_letter(self, build: _Build[ScopeT, SessionT], arrival: Arrival) -> None:
        """Write a refused arrival's letter in the unit (XACK and dead letter)."""
        letter = arrival.letter
        if letter is None:
            raise ValueError("only a refused arrival has a letter to write")
        build.late.append(
            [
                build.table(arrival.stream),
                arrival.entry_id,
                build.table.blob(_JSON.encode(letter)),
                letter.reason.value,
            ]
        )
        build.events.append(letter)

    def _dead_letter(
        self,
        entry: InputEntry,
        reason: DeadLetterReason,
        detail: str,
        event: InputEvent | None = None,
    ) -> DeadLetter:
        fields = {_text(k): v.decode("utf-8", "replace") for k, v in entry.fields.items()}
        if not self.config.dead_letter_keep_text:
            fields = _redact(fields)
        return DeadLetter(
            event_id=dead_letter_event_id(entry.stream, entry.entry_id),
            stream=entry.stream,
            entry_id=entry.entry_id,
            reason=reason,
            detail=detail[:2048],
            delivery_count=entry.delivery_count,
            at=datetime.now(UTC),
            fields=fields,
            session_id=event.session_id if event else None,
            seq=event.seq if event else None,
        )

    # ------------------------------------------------------------ gap timeout
    async def skip_stale_gaps(self, now_ms: int | None = None) -> int:
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
        work: dict[ScopeId, _Work] = defaultdict(_Work)
        for member in members:
            agent_id, user_id, session_id = keys.parse_member(member)
            unit = work[(agent_id, user_id)]
            unit.skip_gap.add(session_id)
            unit.skip_seen_by = seen_by
        for scope_id, unit in work.items():
            # The observation time is written by the commit script, so read it from Redis.
            self._forget(scope_id, unit)
        report = BatchReport()
        await self._run(work, [], report)
        self._isolated.update(report.isolated)
        return report.gap_skips

    # ------------------------------------------------------------------ units
    async def _run(
        self,
        work: dict[ScopeId, _Work],
        dead: list[tuple[str, str, bytes, str]],
        report: BatchReport,
    ) -> None:
        todo = sorted(work)
        # Scopes that cannot be committed, with why: isolated, never retried as planned.
        broken: dict[ScopeId, str] = {}
        for attempt in range(self.config.commit_retries + 1):
            scopes, sessions = await self._load(todo, work, broken)
            crash_point(self.config.crash_at, "after_load")
            table = _Keys()
            units = [
                self._unit_or_isolated(table, scope_id, work[scope_id], scopes, sessions, broken)
                for scope_id in todo
            ]
            plan = self._plan(table, [unit.plan for unit in units], dead if attempt == 0 else [])
            crash_point(self.config.crash_at, "before_commit")
            failed, refused = await self._commit(table, plan)
            crash_point(self.config.crash_at, "after_commit")
            for index, unit in enumerate(units):
                if index in failed or index in refused:
                    self._forget(unit.scope_id, work[unit.scope_id])
                    if index in refused:
                        broken[unit.scope_id] = refused[index]
                    continue
                report.outcomes.update(unit.outcomes)
                report.events.extend(unit.events)
                report.gap_skips += unit.gap_skips
                if unit.scope_id in broken:
                    report.isolated[unit.scope_id] = broken[unit.scope_id]
                self._remember(unit)
            # A refused unit comes back once more, isolated: its entries as dead letters.
            todo = [units[index].scope_id for index in sorted({*failed, *refused})]
            if not todo:
                return
            await asyncio.sleep(min(0.001 * 2**attempt, 0.1))
        # Still contended: leave them pending; redelivery or reclaim brings them back.
        report.outcomes["retry_exhausted"] += sum(
            len(arrivals) for scope_id in todo for arrivals in work[scope_id].arrivals.values()
        )

    def _unit_or_isolated(  # noqa: PLR0913, PLR0917  (what _unit needs, and what is broken)
        self,
        table: _Keys,
        scope_id: ScopeId,
        work: _Work,
        scopes: dict[ScopeId, ScopeSnapshot[ScopeT]],
        sessions: dict[SessionId, SessionSnapshot[SessionT]],
        broken: dict[ScopeId, str],
    ) -> _Unit[ScopeT, SessionT]:
        """The scope's unit, or its isolated stand-in if it cannot be planned or written."""
        reason = broken.get(scope_id)
        if reason is None:
            mark = len(table.blobs)
            try:
                return self._unit(table, scope_id, work, scopes, sessions)
            except Exception as error:  # noqa: BLE001  (one unit's failure stays in its unit)
                # Blobs the failed plan added are never referenced; drop them.
                del table.blobs[mark:]
                reason = broken[scope_id] = f"planning failed: {_error_text(error)}"
        return self._isolated_unit(table, scope_id, work, reason)

    def _remember(self, unit: _Unit[ScopeT, SessionT]) -> None:
        if unit.scope_after is not None:
            self._scopes.put(unit.scope_id, unit.scope_after)
        for session_id, snapshot in unit.sessions_after.items():
            self._sessions.put((*unit.scope_id, session_id), snapshot)

    def _forget(self, scope_id: ScopeId, work: _Work | None = None) -> None:
        self._scopes.drop(scope_id)
        for session_id in _sessions_of(work) if work else ():
            self._sessions.drop((*scope_id, session_id))

    async def _commit(self, table: _Keys, plan: dict[str, Any]) -> tuple[set[int], dict[int, str]]:
        """Run commit.lua: the units whose versions moved, and those refused with why.

        Raises LeaseLost, with nothing written, when the processor is fenced and the
        partition's lease no longer holds its token.
        """
        try:
            failed, refused = await COMMIT.run(
                self.redis, table.names, [_MSGPACK.encode(plan), *table.blobs]
            )
        except ResponseError as error:
            if FENCED_ERROR in str(error):
                raise LeaseLost(self.partition, str(error)) from error
            raise
        reasons = {
            int(refused[i]): _text(refused[i + 1])[:_REASON_CHARS]
            for i in range(0, len(refused), 2)
        }
        return {int(index) for index in failed}, reasons

    def _plan(
        self,
        table: _Keys,
        units: list[dict[str, Any]],
        dead: list[tuple[str, str, bytes, str]],
    ) -> dict[str, Any]:
        p = self.partition
        plan: dict[str, Any] = {
            "g": self.config.group,
            "ek": table(keys.events_stream(p)),
            "em": self.config.events_maxlen,
            "dk": table(keys.dead_letters_stream(p)),
            "dm": self.config.dead_letters_maxlen,
            "tk": table(keys.stats_key(p)),
            "gk": table(keys.gaps_key(p)),
            "xk": table(keys.deadlines_key(p)),
            "ik": [table(stream) for stream in sorted(self.input_streams)],
            "u": units,
            "d": [
                [table(stream), entry_id, table.blob(letter), reason]
                for stream, entry_id, letter, reason in dead
            ],
        }
        if self.fence is not None:
            plan["lk"] = table(self.fence.key)
            plan["lt"] = self.fence.token
        return plan

    async def _load(
        self, todo: Sequence[ScopeId], work: dict[ScopeId, _Work], broken: dict[ScopeId, str]
    ) -> tuple[dict[ScopeId, ScopeSnapshot[ScopeT]], dict[SessionId, SessionSnapshot[SessionT]]]:
        """The units' state: from the cache, the rest in one `load.lua` round trip.

        A scope whose keys cannot be read or decoded is added to `broken` with why.
        """
        p = self.partition
        scopes: dict[ScopeId, ScopeSnapshot[ScopeT]] = {}
        sessions: dict[SessionId, SessionSnapshot[SessionT]] = {}
        names: list[str] = []
        kinds: list[str] = []
        # Scope ids (2 parts) and session ids (3 parts), in the order of `names`.
        wanted: list[ScopeId | SessionId] = []
        for scope_id in todo:
            if scope_id in broken:
                continue
            cached_scope = self._scopes.get(scope_id)
            if cached_scope is None:
                names.append(keys.scope_key(p, *scope_id))
                kinds.append("scope")
                wanted.append(scope_id)
            else:
                scopes[scope_id] = cached_scope
            for session_id in _sessions_of(work[scope_id]):
                session_key: SessionId = (*scope_id, session_id)
                cached_session = self._sessions.get(session_key)
                if cached_session is None:
                    names.append(keys.session_key(p, *session_key))
                    names.append(keys.parked_key(p, *session_key))
                    kinds.extend(("session", "parked"))
                    wanted.append(session_key)
                else:
                    sessions[session_key] = cached_session
        if not names:
            return scopes, sessions
        replies = iter(await LOAD.run(self.redis, names, kinds))
        for ident in wanted:
            scope_id = (ident[0], ident[1])
            reply = [next(replies)] if len(ident) == 2 else [next(replies), next(replies)]
            try:
                if len(ident) == 2:
                    scopes[scope_id] = self._loaded_scope(scope_id, reply[0])
                else:
                    sessions[(ident[0], ident[1], ident[-1])] = _loaded_session(*reply)
            except Exception as error:  # noqa: BLE001  (unreadable state isolates its scope)
                broken.setdefault(scope_id, f"loading failed: {_error_text(error)}")
        return scopes, sessions

    def _loaded_scope(self, scope_id: ScopeId, reply: Any) -> ScopeSnapshot[ScopeT]:  # noqa: ANN401  (a Lua reply)
        raw_version, raw_scope = _reply(reply)
        state = self.core.decode_scope(raw_scope, *scope_id)
        return ScopeSnapshot(_version(raw_version), state, self._deadline_members(scope_id, state))

    def _deadline_members(self, scope_id: ScopeId, state: ScopeT) -> dict[str, int]:
        return {
            keys.record_member(*scope_id, record_id): _ms(at)
            for record_id, at in self.core.deadlines(state)
        }

    def _unit(
        self,
        table: _Keys,
        scope_id: ScopeId,
        work: _Work,
        scopes: dict[ScopeId, ScopeSnapshot[ScopeT]],
        sessions: dict[SessionId, SessionSnapshot[SessionT]],
    ) -> _Unit[ScopeT, SessionT]:
        before = scopes[scope_id]
        build: _Build[ScopeT, SessionT] = _Build(before.state, table)
        for session_id in sorted(_sessions_of(work)) if work.skip_gap else sorted(work.arrivals):
            self._session(build, scope_id, session_id, work, sessions[(*scope_id, session_id)])
        if build.late or build.refused_parked:
            _bump(build.outcomes, "dead_letter", len(build.late) + len(build.refused_parked))
        # Absent fields are nil in Lua: only what this unit does travels.
        unit_plan: dict[str, Any] = {}
        if build.sessions:
            unit_plan["se"] = build.sessions
        if build.acks:
            unit_plan["a"] = build.acks
        if build.late:
            unit_plan["d"] = build.late
        if build.refused_parked:
            unit_plan["dp"] = build.refused_parked
        if build.gap_skips:
            unit_plan["nk"] = build.gap_skips
            unit_plan["nq"] = build.seqs_skipped
        if build.sessions_after:
            # The sessions' applied seqs go to the scope's view hash (commit.lua).
            unit_plan["vk"] = table(self._view_key(*scope_id))
        scope_after = None
        if build.applied_any:
            # An unchanged scope has the deadlines it had: no scan of its records.
            deadlines = (
                self._deadline_members(scope_id, build.scope)
                if build.scope_changed
                else before.deadlines
            )
            unit_plan.update(
                self._scope_writes(
                    table,
                    scope_id,
                    build.scope,
                    before,
                    deadlines,
                    build.records,
                    build.events,
                    build.scope_changed,
                )
            )
            version = unit_plan.get("sn", before.version)
            scope_after = ScopeSnapshot(version, build.scope, deadlines)
        return _Unit(
            scope_id,
            unit_plan,
            build.outcomes,
            build.events,
            build.gap_skips,
            scope_after,
            build.sessions_after,
        )

    def _session(
        self,
        build: _Build[ScopeT, SessionT],
        scope_id: ScopeId,
        session_id: str,
        work: _Work,
        before: SessionSnapshot[SessionT],
    ) -> None:
        """Gate one session's inputs and apply the ready ones to the scope in `build`."""
        agent_id, user_id = scope_id
        plan = plan_session(
            before.next_seq,
            before.skipped,
            before.parked,
            work.arrivals.get(session_id, ()),
            skip_gap=session_id in work.skip_gap and _gap_stale(before, work.skip_seen_by),
        )
        if plan.park and not plan.skipped_now and self._over_parked_limits(before, plan):
            # A flood of early entries behind one gap: give the gap up now rather than
            # hold them all (past the limits memory, not time, is what runs out).
            plan = plan_session(
                before.next_seq,
                before.skipped,
                before.parked,
                work.arrivals.get(session_id, ()),
                skip_gap=True,
            )
        table = build.table
        if plan.duplicates or plan.late or plan.conflicting:
            self._not_applied(build, plan)
        names = self._session_names(agent_id, user_id, session_id)
        if not (plan.apply or plan.park or plan.skipped_now):
            if plan.duplicates or plan.late or plan.conflicting:
                # Nothing to write, but acking them rests on the next seq and skipped
                # ranges as this processor saw them (perhaps cached): the commit checks
                # they are still Redis's. After Redis lost writes they are not, and the
                # input must be applied again, not acked as a duplicate.
                build.sessions.append({"k": table(names[0]), "v": before.version})
            return
        session = before.core
        if session is None:
            session = self.core.decode_session(before.raw_core, session_id)
        session, session_changed = self._apply_ready(build, plan, session, session_id)
        build.applied_any |= bool(plan.apply)
        self._park(build, plan)
        if plan.skipped_now:
            build.gap_skips += 1
            build.seqs_skipped += plan.skipped_now[1] - plan.skipped_now[0] + 1
        parked_after: dict[int, ParkedEntry] = {}
        if before.parked or plan.park:
            parked_after = {seq: e for seq, e in before.parked.items() if seq >= plan.next_seq}
            parked_after.update(
                (seq, ParkedEntry(a.stream, a.entry_id, _parked_data(a))) for seq, a in plan.park
            )
        encoded = self.core.encode_session(session) if session_changed else None
        token = self._token()
        build.sessions.append(
            _session_entry(table, names, before, plan, encoded, parked_after, token)
        )
        build.sessions_after[session_id] = SessionSnapshot(
            version=token,
            next_seq=plan.next_seq,
            skipped=plan.skipped,
            parked=parked_after,
            raw_core=None,
            core=session,
        )

    def _park(self, build: _Build[ScopeT, SessionT], plan: GatePlan) -> None:
        """Ack the entries the plan parks (their payload goes to the parked hash)."""
        for _, arrival in plan.park:
            if arrival.event is None:
                # Refused: its letter now, and an empty place kept in the order.
                self._write_letter(build, arrival)
            else:
                build.acks += (build.table(arrival.stream), arrival.entry_id)
                _bump(build.outcomes, "parked", 1)

    def _over_parked_limits(self, before: SessionSnapshot[SessionT], plan: GatePlan) -> bool:
        """Whether the session would hold more parked entries, or bytes, than allowed."""
        waiting = [e for seq, e in before.parked.items() if seq >= plan.next_seq]
        count = len(waiting) + len(plan.park)
        if count > self.config.max_parked_entries:
            return True
        size = sum(len(e.data) for e in waiting) + sum(len(a.data) for _, a in plan.park)
        return size > self.config.max_parked_bytes

    def _not_applied(self, build: _Build[ScopeT, SessionT], plan: GatePlan) -> None:
        """Ack the plan's duplicates; turn its late arrivals into dead letters."""
        table = build.table
        duplicates = 0
        for arrival in plan.duplicates:
            if arrival.letter is not None:
                self._write_letter(build, arrival)  # refused: its letter, whatever its seq
                continue
            build.acks += (table(arrival.stream), arrival.entry_id)
            duplicates += 1
        _bump(build.outcomes, "duplicate", duplicates)
        for arrival, stream, entry_id in plan.conflicting:
            letter = self._dead_letter(
                Entry(
                    arrival.stream, arrival.entry_id, {_DATA_KEY: arrival.data},
                    arrival.delivery_count,
                ),
                DeadLetterReason.CONFLICTING_DUPLICATE,
                f"seq {arrival.seq}: {arrival.stream} {arrival.entry_id} differs from"
                f" {stream} {entry_id}, which is kept",
                arrival.event,
            )  # fmt: skip
            build.late.append(
                [
                    table(arrival.stream),
                    arrival.entry_id,
                    table.blob(_JSON.encode(letter)),
                    letter.reason.value,
                ]
            )
            build.events.append(letter)
        for arrival in plan.late:
            if arrival.letter is not None:
                self._write_letter(build, arrival)
                continue
            letter = self._dead_letter(
                Entry(
                    arrival.stream,
                    arrival.entry_id,
                    {_DATA_KEY: arrival.data},
                    arrival.delivery_count,
                ),
                DeadLetterReason.LATE_AFTER_GAP_SKIP,
                f"seq {arrival.seq} arrived after its gap was skipped",
                arrival.event,
            )
            build.late.append(
                [
                    table(arrival.stream),
                    arrival.entry_id,
                    table.blob(_JSON.encode(letter)),
                    letter.reason.value,
                ]
            )
            build.events.append(letter)

    def _apply_ready(
        self,
        build: _Build[ScopeT, SessionT],
        plan: GatePlan,
        session: SessionT,
        session_id: str,
    ) -> tuple[SessionT, bool]:
        """Apply the plan's ready inputs in seq order, threading scope and session."""
        table = build.table
        session_changed = False
        for seq, source in plan.apply:
            event: InputEvent | None = None
            if isinstance(source, Arrival):
                if source.event is None:
                    self._write_letter(build, source)  # refused: its place in the order
                    continue
                event = source.event
            elif not source.data:
                _bump(build.outcomes, "drained", 1)  # a refused input's place: lettered
                continue
            try:
                if event is None:
                    event = decode_event(source.data, _NO_LIMITS)
                step = self.core.apply(
                    build.scope,
                    session,
                    event,
                    provenance_of(source.stream, source.entry_id, event),
                )
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
                build.records[record.record_id] = record
            if isinstance(source, Arrival):
                build.acks += (table(source.stream), source.entry_id)
                _bump(build.outcomes, "applied", 1)
            else:
                _bump(build.outcomes, "drained", 1)
        return session, session_changed

    def _refuse(
        self,
        build: _Build[ScopeT, SessionT],
        source: Arrival | ParkedEntry,
        seq: int,
        session_id: str,
        error: Exception,
    ) -> None:
        """Dead-letter one input the core could not apply (`uncommittable`, error named)."""
        data = source.data
        letter = self._dead_letter(
            Entry(source.stream, source.entry_id, {_DATA_KEY: data}),
            DeadLetterReason.UNCOMMITTABLE,
            f"applying seq {seq} failed: {_error_text(error)}",
        )
        letter = msgspec.structs.replace(letter, session_id=session_id, seq=seq)
        blob = build.table.blob(_JSON.encode(letter))
        if isinstance(source, Arrival):
            build.late.append(
                [
                    build.table(source.stream),
                    source.entry_id,
                    blob,
                    DeadLetterReason.UNCOMMITTABLE.value,
                ]
            )
        else:
            build.refused_parked.append(blob)
        build.events.append(letter)

    def _isolated_unit(
        self, table: _Keys, scope_id: ScopeId, work: _Work, reason: str
    ) -> _Unit[ScopeT, SessionT]:
        """A unit that cannot be committed: its entries become dead letters, nothing else.

        Its state stays as it is (and its parked entries parked), so the partition goes on
        and an operator can repair the keys; the gap skipper passes over it with the reason.
        """
        late: list[list[Any]] = []
        events: list[AgreementEvent | DeadLetter] = []
        for arrivals in work.arrivals.values():
            for arrival in arrivals:
                letter = arrival.letter or self._dead_letter(
                    Entry(arrival.stream, arrival.entry_id, {_DATA_KEY: arrival.data}),
                    DeadLetterReason.UNCOMMITTABLE,
                    f"its scope cannot be committed: {reason}",
                    arrival.event,
                )
                late.append(
                    [
                        table(arrival.stream),
                        arrival.entry_id,
                        table.blob(_JSON.encode(letter)),
                        letter.reason.value,
                    ]
                )
                events.append(letter)
        unit_plan: dict[str, Any] = {"d": late} if late else {}
        outcomes = {"dead_letter": len(late)} if late else {}
        return _Unit(scope_id, unit_plan, outcomes, events, 0, None, {})

    def _scope_writes(  # noqa: PLR0913, PLR0917  (the parts of one scope's commit)
        self,
        table: _Keys,
        scope_id: ScopeId,
        scope: ScopeT,
        before: ScopeSnapshot[ScopeT],
        deadlines: dict[str, int],
        records: dict[str, AgreementRecord],
        events: Iterable[AgreementEvent | DeadLetter],
        scope_changed: bool,  # noqa: FBT001
        stale: Iterable[str] = (),
    ) -> dict[str, Any]:
        """The scope part of a unit: version check, state, records, deadline index, events."""
        p = self.partition
        if deadlines is before.deadlines and not stale:
            removed: set[str] = set()
            added: dict[str, int] = {}
        else:
            removed = ({*before.deadlines, *stale}) - deadlines.keys()
            added = {m: ms for m, ms in deadlines.items() if before.deadlines.get(m) != ms}
        writes: dict[str, Any] = {"sc": table(self._scope_key(*scope_id)), "sv": before.version}
        if scope_changed:
            writes["sn"] = self._token()
            writes["ss"] = table.blob(self.core.encode_scope(scope))
            # The language-neutral view document changes only with the records.
            writes["vk"] = table(self._view_key(*scope_id))
            writes["vd"] = table.blob(_JSON.encode(self.core.scope_view(scope)))
        if records:
            writes["r"] = [
                x
                for rid, record in records.items()
                for x in (table(keys.record_key(p, rid)), table.blob(_JSON.encode(record)))
            ]
        if removed:
            writes["xr"] = sorted(removed)
        if added:
            writes["xa"] = [x for member, ms in sorted(added.items()) for x in (ms, member)]
        published = [
            table.blob(_JSON.encode(event)) for event in events if not isinstance(event, DeadLetter)
        ]
        if published:
            writes["ev"] = published
        return writes

    # ----------------------------------------------------------------- expiry
    async def sweep_expired(self, now_ms: int | None = None, limit: int = 1000) -> list[Any]:
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
            due[(agent_id, user_id)].append(_text(member))
        committed: list[Any] = []
        todo = sorted(due)
        broken: dict[ScopeId, str] = {}
        for attempt in range(self.config.commit_retries + 1):
            todo = await self._sweep_round(todo, cutoff, due, broken, committed)
            if not todo:
                break
            await asyncio.sleep(min(0.001 * 2**attempt, 0.1))
        self._isolated.update(broken)
        return committed

    async def _sweep_round(
        self,
        todo: list[ScopeId],
        cutoff: int,
        due: dict[ScopeId, list[str]],
        broken: dict[ScopeId, str],
        committed: list[Any],
    ) -> list[ScopeId]:
        """One commit of the due scopes' expiry; returns the scopes to retry (raced)."""
        for scope_id in todo:
            self._forget(scope_id)  # the sweep reads Redis, never the cache
        scopes, _ = await self._load(todo, {scope_id: _Work() for scope_id in todo}, broken)
        units: list[tuple[ScopeId, dict[str, Any], list[Any]]] = []
        table = _Keys()
        for scope_id in todo:
            if scope_id in broken:
                continue
            mark = len(table.blobs)
            try:
                plan, events = self._expiry(table, scope_id, scopes[scope_id], cutoff, due)
            except Exception as error:  # noqa: BLE001  (one scope's failure stays in it)
                del table.blobs[mark:]
                broken[scope_id] = f"expiry failed: {_error_text(error)}"
                continue
            units.append((scope_id, plan, events))
        failed, refused = await self._commit(table, self._plan(table, [u for _, u, _ in units], []))
        for index, (scope_id, _, events) in enumerate(units):
            if index in refused:
                broken[scope_id] = refused[index]
            elif index not in failed:
                committed.extend(events)
        return [units[index][0] for index in sorted(failed)]

    def _expiry(
        self,
        table: _Keys,
        scope_id: ScopeId,
        before: ScopeSnapshot[ScopeT],
        cutoff: int,
        due: dict[ScopeId, list[str]],
    ) -> tuple[dict[str, Any], list[Any]]:
        """One scope's expiry commit and its events."""
        step = self.core.expire(before.state, _instant(cutoff))
        plan = self._scope_writes(
            table,
            scope_id,
            step.scope,
            before,
            self._deadline_members(scope_id, step.scope),
            {record.record_id: record for record in step.records},
            step.events,
            step.scope_changed,
            stale=due[scope_id],
        )
        return plan, list(step.events)

    def take_isolated(self) -> dict[ScopeId, str]:
        """Scopes the gap skipper and the sweep passed over since the last call, with why."""
        isolated, self._isolated = self._isolated, {}
        return isolated


def _loaded_session(reply: Any, parked: Any) -> SessionSnapshot[Any]:  # noqa: ANN401  (Lua replies)
    raw_next, raw_version, raw_core, raw_skipped, raw_seen = _reply(reply)
    return SessionSnapshot(
        version=_version(raw_version),
        next_seq=int(raw_next or 1),
        skipped=parse_skipped(raw_skipped),
        parked=_parked(_reply(parked)),
        raw_core=raw_core,
        gap_seen_ms=int(raw_seen) if raw_seen else None,
    )


class StoreKeyError(Exception):
    """A key of a unit that `load.lua` could not read (it answers the error in its place)."""


def _reply(reply: Any) -> Any:  # noqa: ANN401  (a Lua reply)
    if isinstance(reply, bytes):
        raise StoreKeyError(reply.decode("utf-8", "replace"))
    return reply


# Reasons and error texts kept in dead letters and logs: enough to name the key and cause.
_REASON_CHARS = 512


def _error_text(error: Exception) -> str:
    return f"{type(error).__name__}: {error}"[:_REASON_CHARS]


def _gap_stale(session: SessionSnapshot[Any], seen_by: int) -> bool:
    """Whether the session's gap was observed at or before `seen_by` (Redis ms)."""
    if not session.parked:
        return False
    seen = session.gap_seen_ms
    if seen is None:
        # Parked before observation times were stored: its oldest parked entry's id time.
        seen = min(entry_ms(entry.entry_id) for entry in session.parked.values())
    return seen <= seen_by


def _version(raw: bytes | None) -> str:
    """A stored version token ('' for a key never written; older stores wrote counts)."""
    return raw.decode() if raw else ""


def _parked(reply: list[bytes]) -> dict[int, ParkedEntry]:
    parked: dict[int, ParkedEntry] = {}
    for index in range(0, len(reply), 2):
        stream, entry_id, data = _PARKED.decode(reply[index + 1])
        parked[int(reply[index])] = ParkedEntry(stream, entry_id, data)
    return parked


def _redacted(value: str) -> str:
    return f"<{len(value.encode())} bytes redacted>"


def _kept(name: str, value: Any) -> bool:  # noqa: ANN401  (any decoded JSON value)
    if name not in _KEPT_FIELDS:
        return False
    if isinstance(value, str):
        return len(value) <= _KEPT_MAX_CHARS
    return value is None or isinstance(value, bool | int | float)


def _redact(fields: dict[str, str]) -> dict[str, str]:
    """Keep only the envelope of `__data__`; every other value becomes its size."""
    out = {name: _redacted(value) for name, value in fields.items() if name != DATA_FIELD}
    raw = fields.get(DATA_FIELD)
    if raw is None:
        return out
    try:
        document = msgspec.json.decode(raw)
    except (msgspec.DecodeError, RecursionError):
        # RecursionError: deeply nested input (the decoder dead-letters it as undecodable).
        return {**out, DATA_FIELD: _redacted(raw)}
    if not isinstance(document, dict):
        return {**out, DATA_FIELD: _redacted(raw)}
    kept = {
        name: value if _kept(name, value) else _redacted(msgspec.json.encode(value).decode())
        for name, value in document.items()
    }
    return {**out, DATA_FIELD: msgspec.json.encode(kept).decode()}


__all__ = ["BatchReport", "Entry", "InputEntry", "PartitionProcessor", "entry_ms"]
