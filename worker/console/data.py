"""What the console's pages show, read from Redis: reads only, never a write."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import msgspec

from contracts.outputs import DeadLetter
from contracts.partition import partition_of
from contracts.records import AgreementRecord
from contracts.streams import DATA_FIELD, input_streams
from store import keys
from store.reads import record_history
from worker.consumer import AnyRedis
from worker.core import state as core_state
from worker.core.view import session_view
from worker.health import live_workers

# Counting undelivered entries on Redis 6.2 stops here (as the worker's lag gauge does).
LAG_CAP = 1_000
_DEAD = msgspec.json.Decoder(DeadLetter)
_DATA = DATA_FIELD.encode()


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


@dataclass(frozen=True)
class ScopePage:
    agent_id: str
    user_id: str
    partition: int
    known: bool
    current: tuple[AgreementRecord, ...] = ()
    # session id -> its proposals still waiting, as the session view shows them.
    pending: dict[str, tuple[AgreementRecord, ...]] = field(default_factory=dict)
    # Live records that are neither current nor pending: past their deadline, not swept.
    overdue: tuple[AgreementRecord, ...] = ()
    # The closed records the scope remembers (the last few), newest first.
    closed: tuple[AgreementRecord, ...] = ()


async def scope_page(
    redis: AnyRedis, partitions: int, agent_id: str, user_id: str, now: datetime
) -> ScopePage:
    """The scope's current agreements, pending proposals per session, closed records."""
    partition = partition_of(agent_id, user_id, partitions)
    raw: Any = await redis.hget(keys.scope_key(partition, agent_id, user_id), "s")
    if not raw:
        return ScopePage(agent_id, user_id, partition, known=False)
    scope = core_state.decode_scope(raw)
    sessions = list(dict.fromkeys(record.session_id for record in scope.records))
    by_id = {record.record_id: record for record in scope.records}
    current_ids = [c.record_id for c in session_view(scope, "", now).current_agreements]
    pending: dict[str, tuple[AgreementRecord, ...]] = {}
    for session in sessions:
        waiting = session_view(scope, session, now).pending_proposals
        if waiting:
            pending[session] = tuple(by_id[p.record_id] for p in waiting)
    shown = set(current_ids) | {r.record_id for group in pending.values() for r in group}
    closed: list[AgreementRecord] = []
    for gone in reversed(scope.closed):
        record = await record_history(redis, partition, gone.record_id)
        if record is not None:
            closed.append(record)
    return ScopePage(
        agent_id,
        user_id,
        partition,
        known=True,
        current=tuple(by_id[i] for i in current_ids),
        pending=pending,
        overdue=tuple(r for r in scope.records if r.record_id not in shown),
        closed=tuple(closed),
    )


@dataclass(frozen=True)
class PartitionRow:
    partition: int
    # stream -> (lag: not yet delivered to the group, pending: delivered, not acked)
    streams: dict[str, tuple[int | None, int]]
    parked_sessions: int
    oldest_gap_ms: int | None
    owners: tuple[str, ...]
    gaps_skipped: int


async def partition_rows(redis: AnyRedis, partitions: int, group: str) -> list[PartitionRow]:
    """Lag, pending, parked gaps and the owning workers of every partition."""
    owners: dict[int, list[str]] = {}
    for beat in await live_workers(redis):
        if beat.group == group:
            for partition in beat.partitions:
                owners.setdefault(partition, []).append(beat.consumer)
    rows = []
    for partition in range(partitions):
        streams: dict[str, tuple[int | None, int]] = {}
        for stream in input_streams(partition):
            streams[stream] = await _group_load(redis, stream, group)
        gaps: Any = await redis.zrange(keys.gaps_key(partition), 0, -1, withscores=True)
        stats: Any = await redis.hget(keys.stats_key(partition), "gaps_skipped")
        rows.append(
            PartitionRow(
                partition=partition,
                streams=streams,
                parked_sessions=len(gaps),
                oldest_gap_ms=int(min(score for _, score in gaps)) if gaps else None,
                owners=tuple(owners.get(partition, ())),
                gaps_skipped=int(stats or 0),
            )
        )
    return rows


async def _group_load(redis: AnyRedis, stream: str, group: str) -> tuple[int | None, int]:
    try:
        groups: Any = await redis.xinfo_groups(stream)
    except Exception:  # noqa: BLE001  (no stream yet: nothing was written to it)
        return (0, 0)
    for info in groups:
        if _text(info["name"]) == group:
            lag = info.get("lag")
            if lag is None:
                # Redis 6.2 reports no lag: count what follows the last delivered id,
                # up to a cap (the page then shows the cap; None means "not known").
                after: Any = await redis.xrange(
                    stream, min=f"({_text(info['last-delivered-id'])}", count=LAG_CAP
                )
                lag = len(after)
            return (int(lag), int(info["pending"]))
    return (None, 0)


@dataclass(frozen=True)
class DeadLetters:
    by_reason: Counter[str]
    letters: list[tuple[int, str, DeadLetter]]


async def dead_letters(redis: AnyRedis, partitions: int, count: int = 200) -> DeadLetters:
    """The newest dead letters of every partition (at most `count` each), by reason."""
    letters: list[tuple[int, str, DeadLetter]] = []
    for partition in range(partitions):
        reply: Any = await redis.xrevrange(keys.dead_letters_stream(partition), count=count)
        letters += [(partition, _text(i), _DEAD.decode(f[_DATA])) for i, f in reply]
    letters.sort(key=lambda row: row[2].at, reverse=True)
    return DeadLetters(Counter(letter.reason.value for _, _, letter in letters), letters)
