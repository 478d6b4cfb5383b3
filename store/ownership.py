"""Partition ownership: each partition is read by one live worker at a time.

The protocol (docs/store.md, "Partition ownership"), all on Redis and Redis's clock:

- **Membership.** Every worker taking part beats into `accord:members` (consumer ->
  Redis time of its beat) every `lease_ms / 4`; a member whose last beat is older than
  `lease_ms` is dead and dropped. A clean stop removes itself at once.
- **Assignment.** Every worker computes the same assignment from the same member list:
  live members sorted by name, partition p to member `p % N` (`assignment`). So the
  partitions are balanced (counts differ by at most one) with no coordinator, and a
  joining or leaving member changes every worker's answer on its next beat.
- **Leases.** A worker serves a partition only while it holds its lease `lease:{p}`
  (`lease.lua`): acquired when free, released or expired; renewed on every beat; a new
  acquisition increments the partition's epoch, and the owner token is
  `<epoch>:<consumer>`. A worker releases the partitions it is no longer assigned after
  its reader for them stopped, and all of them on a clean stop.
- **Fencing.** Every write script of the partition (the commit, hence gap skips and
  expiry sweeps too) is given the owner token (`Fence`) and refuses to run unless
  `lease:{p}` still holds it, checked atomically before any write (same hash tag).
  A refused worker gets `LeaseLost`, drops the partition, and the entries it had read
  stay pending for the new owner, which claims every pending entry of the partition
  when it acquires it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from contracts.streams import as_text
from store import keys
from store.scripts import LEASE, MEMBERS, AnyRedis
from store.watermark import server_ms

# The commit script's error when the fence does not match (store/lua/commit.lua).
FENCED_ERROR = "FENCED"


class LeaseLost(Exception):  # noqa: N818  (what happened, not an error of the caller)
    """The partition's lease was taken over (or released): this worker must drop it."""

    def __init__(self, partition: int, detail: str = "") -> None:
        super().__init__(f"lease of partition {partition} lost{': ' + detail if detail else ''}")
        self.partition = partition


@dataclass(frozen=True, slots=True)
class Fence:
    """What a fenced write checks: `lease:{p}` still holds this owner token."""

    partition: int
    token: str

    @property
    def key(self) -> str:
        return keys.lease_key(self.partition)


# A token no lease ever holds (a held token is `<epoch>:<consumer>`, a free lease ''):
# a processor of a partition this worker does not hold is fenced with it, so nothing
# it commits goes through.
NOT_HELD = "-"


@dataclass(frozen=True, slots=True)
class LeaseReply:
    held: bool
    # The holder's token afterwards ('' when free).
    owner: str
    # Milliseconds left on the holder's lease.
    ms_left: int
    # Set when the acquisition was refused because the partition belongs to another
    # partition count, or is being moved (`moving`): `accord repartition` ran.
    layout: str | None = None


def _reply(raw: Any) -> LeaseReply:  # noqa: ANN401  (a Lua reply)
    if int(raw[0]) == 2:
        return LeaseReply(held=False, owner="", ms_left=0, layout=as_text(raw[1]))
    return LeaseReply(bool(int(raw[0])), as_text(raw[1]), int(raw[2]))


def owner_consumer(token: str) -> str:
    """The consumer name in an owner token `<epoch>:<consumer>` ('' when free)."""
    return token.partition(":")[2]


async def acquire(
    redis: AnyRedis, partition: int, consumer: str, lease_ms: int, partitions: int
) -> LeaseReply:
    """Acquire partition p's lease for a worker serving `partitions` partitions."""
    raw = await LEASE.run(
        redis, [keys.lease_key(partition)], ["acquire", consumer, "", lease_ms, partitions]
    )
    return _reply(raw)


async def renew(redis: AnyRedis, fence: Fence, lease_ms: int) -> LeaseReply:
    raw = await LEASE.run(redis, [fence.key], ["renew", "", fence.token, lease_ms])
    return _reply(raw)


async def release(redis: AnyRedis, fence: Fence) -> bool:
    raw = await LEASE.run(redis, [fence.key], ["release", "", fence.token, 0])
    return _reply(raw).held


@dataclass(frozen=True, slots=True)
class Members:
    """The live members as Redis saw them: its time, and each member's last beat."""

    now_ms: int
    last_beat_ms: dict[str, int]

    @property
    def names(self) -> list[str]:
        return sorted(self.last_beat_ms)


async def _members(redis: AnyRedis, op: str, consumer: str, live_ms: int) -> Members:
    raw: Any = await MEMBERS.run(redis, [keys.MEMBERS_KEY], [op, consumer, live_ms])
    flat = raw[1]
    beats = {as_text(flat[i]): int(float(as_text(flat[i + 1]))) for i in range(0, len(flat), 2)}
    return Members(int(raw[0]), beats)


async def beat(redis: AnyRedis, consumer: str, live_ms: int) -> Members:
    """Say this worker is alive; the live members, itself included."""
    return await _members(redis, "beat", consumer, live_ms)


async def leave(redis: AnyRedis, consumer: str, live_ms: int) -> Members:
    """Leave the membership at once (a clean stop); the members still live."""
    return await _members(redis, "leave", consumer, live_ms)


async def members(redis: AnyRedis, live_ms: int) -> Members:
    """The live members, read-only (`accord status`, the console): TIME and ZRANGEBYSCORE,
    no script, so a user that may only read (the console's) can ask."""
    now = await server_ms(redis)
    flat: Any = await redis.zrangebyscore(keys.MEMBERS_KEY, now - live_ms, "+inf", withscores=True)
    return Members(now, {as_text(name): int(score) for name, score in flat})


def assignment(names: Sequence[str], partitions: int, me: str) -> frozenset[int]:
    """The partitions `me` should hold: members sorted by name, p to member `p % N`.

    Every worker computes the same answer from the same member list, so the fleet agrees
    without a coordinator; counts differ by at most one. `me` not among `names` (it has
    not beaten yet) gets nothing.
    """
    ordered = sorted(set(names))
    if me not in ordered:
        return frozenset()
    index = ordered.index(me)
    return frozenset(p for p in range(partitions) if p % len(ordered) == index)


async def lease_of(redis: AnyRedis, partition: int) -> tuple[str, int | None]:
    """(owner token or '', expiry in Redis ms or None) of one partition, read-only."""
    raw: Any = await redis.hmget(keys.lease_key(partition), ["o", "e"])
    owner = as_text(raw[0]) if raw[0] else ""
    expires = int(as_text(raw[1])) if raw[1] else None
    return owner, expires
