"""Who reads what, and how far behind: one read of the fleet for `accord status` and the
console (what `kafka-consumer-groups --describe` gives a Kafka operator).

Per partition: its owner (the lease holder, docs/store.md "Partition ownership") and
time left on the lease, lag (entries not yet delivered to the group), pending entries
(delivered, not acked), sessions with parked entries waiting on a gap, and dead letters
by reason. Per consumer: the partitions it holds, its pending entries, and how long ago
it last beat (None: not a live member, e.g. a dead consumer still holding entries, or a
worker with a manual ACCORD_SERVE_PARTITIONS, which takes no part in ownership), and
whether it departed: neither a live member nor a heartbeat key left (the heartbeats set
names it for a minute after its last beat; a departed consumer with pending entries is
listed until the reclaimer empties it).

Read-only; every time is Redis's.
"""

from __future__ import annotations

from typing import Any

import msgspec

from contracts.streams import as_text, input_streams
from store import keys, ownership
from store.durability import SHORT_WAITS
from store.scripts import AnyRedis

# On Redis 6.2 (no `lag` in XINFO GROUPS) undelivered entries are counted up to this.
LAG_CAP = 10_000


class PartitionStatus(msgspec.Struct, frozen=True):
    partition: int
    # The lease holder's consumer name, None when the lease is free or expired.
    owner: str | None
    # Milliseconds left on the owner's lease (None without an owner).
    lease_ms_left: int | None
    # Entries not yet delivered to the group, over the three input streams; None when
    # this user cannot count them (below).
    lag: int | None
    # Entries delivered and not yet acknowledged, over the three input streams.
    pending: int
    # Sessions with entries parked behind a gap in their seq.
    parked_gaps: int
    # Dead letters by reason (stats:{p} counts them as they are written).
    dead_letters: dict[str, int]
    dead_letters_total: int
    # The durability setting (docs/store.md, "The outbox"): agreement events and dead
    # letters committed and not yet published (held until replicas have their commit),
    # and the WAITs that came back short (replicas lagging or gone) so far.
    held: int = 0
    short_waits: int = 0


class ConsumerStatus(msgspec.Struct, frozen=True):
    consumer: str
    partitions: list[int]
    pending: int
    # Since its last ownership beat, ms; None when it is not a live member.
    heartbeat_age_ms: int | None
    # Neither a live member nor a worker whose heartbeat key is still there: a worker
    # that stopped or died, listed for what it still holds (pending entries, a lease not
    # yet expired) or for its heartbeat-set entry (kept a minute past its last beat).
    departed: bool = False


class FleetStatus(msgspec.Struct, frozen=True):
    group: str
    at_ms: int
    partitions: list[PartitionStatus]
    consumers: list[ConsumerStatus]


async def _lag(redis: AnyRedis, stream: str, group: str) -> int | None:
    """Entries of `stream` not yet delivered to `group`: Redis 7's own count, or on
    Redis 6.2 the entries after the group's last delivered id, counted up to LAG_CAP.

    None when Redis 7 has no count (entries were deleted or trimmed before the group read
    them): not counted by reading, since the read-only `console` user may not read input
    entries (deploy/redis/users-redis7.acl) and every refused read is an ACL LOG line.
    """
    try:
        groups: Any = await redis.xinfo_groups(stream)
    except Exception:  # noqa: BLE001  (no such stream yet: nothing to read)
        return 0
    found = next((g for g in groups if as_text(g["name"]) == group), None)
    if found is None:
        return 0
    return await undelivered(redis, stream, found, LAG_CAP, count_unknown=False)


async def undelivered(
    redis: AnyRedis, stream: str, group: dict[str, Any], cap: int, *, count_unknown: bool
) -> int | None:
    """Entries of `stream` not yet delivered to `group` (its XINFO GROUPS entry): Redis
    7's `lag`, else the entries after its last delivered id, counted up to `cap` by one
    XRANGE. Where Redis 7 has no count (entries removed before the group read them) they
    are counted only with `count_unknown` (the worker, which may read its inputs), else
    None (status and the console, whose user may not)."""
    lag = group.get("lag")
    if lag is not None:
        return int(lag)
    if "lag" in group and not count_unknown:
        return None
    after: Any = await redis.xrange(
        stream, min="(" + as_text(group["last-delivered-id"]), count=cap
    )
    return len(after)


async def _pending(redis: AnyRedis, stream: str, group: str) -> tuple[int, dict[str, int]]:
    """(pending entries, per consumer) of one stream."""
    try:
        summary: Any = await redis.xpending(stream, group)
    except Exception:  # noqa: BLE001  (no stream or group yet)
        return 0, {}
    per = {as_text(c["name"]): int(c["pending"]) for c in summary.get("consumers") or ()}
    return int(summary.get("pending") or 0), per


async def fleet_status(
    redis: AnyRedis, partitions: int, group: str, *, live_ms: int = 10_000
) -> FleetStatus:
    """The status of partitions 0..partitions-1 and of the consumers serving them.

    `live_ms`: how long a member counts as live after its last beat (the workers'
    ACCORD_LEASE_MS).
    """
    members = await ownership.members(redis, live_ms)
    rows: list[PartitionStatus] = []
    held: dict[str, list[int]] = {name: [] for name in members.last_beat_ms}
    pending_of: dict[str, int] = {}
    for partition in range(partitions):
        token, expires = await ownership.lease_of(redis, partition)
        left = None if expires is None else expires - members.now_ms
        owner = ownership.owner_consumer(token) if token and left and left > 0 else None
        if owner is not None:
            held.setdefault(owner, []).append(partition)
        lag: int | None = 0
        pending = 0
        for stream in input_streams(partition):
            counted = await _lag(redis, stream, group)
            lag = None if lag is None or counted is None else lag + counted
            count, per = await _pending(redis, stream, group)
            pending += count
            for consumer, n in per.items():
                pending_of[consumer] = pending_of.get(consumer, 0) + n
        stats: Any = await redis.hgetall(keys.stats_key(partition))
        counts = {as_text(k): int(v) for k, v in stats.items()}
        rows.append(
            PartitionStatus(
                partition=partition,
                owner=owner,
                lease_ms_left=left if owner is not None else None,
                lag=lag,
                pending=pending,
                parked_gaps=int(await redis.zcard(keys.gaps_key(partition))),
                dead_letters={k[3:]: n for k, n in sorted(counts.items()) if k.startswith("dl:")},
                dead_letters_total=counts.get("dead_letters", 0),
                held=int(await redis.xlen(keys.outbox_stream(partition))),
                short_waits=counts.get(SHORT_WAITS, 0),
            )
        )
    for consumer in pending_of:
        held.setdefault(consumer, [])
    beats: Any = await redis.zrange(keys.heartbeats_key(), 0, -1)
    for name in beats:
        held.setdefault(as_text(name), [])
    beating = {
        name
        for name in held
        if name not in members.last_beat_ms and await redis.get(keys.heartbeat_key(name))
    }
    consumers = [
        ConsumerStatus(
            consumer=name,
            partitions=sorted(parts),
            pending=pending_of.get(name, 0),
            heartbeat_age_ms=(
                members.now_ms - members.last_beat_ms[name]
                if name in members.last_beat_ms
                else None
            ),
            departed=name not in members.last_beat_ms and name not in beating,
        )
        for name, parts in sorted(held.items())
    ]
    return FleetStatus(group, members.now_ms, rows, consumers)
