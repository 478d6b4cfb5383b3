"""Atomic at any size (R15): a commit of any size either writes all of a unit or none
of it, and a unit that cannot be committed is isolated without blocking its partition.

Lua's `unpack` is bounded by its C stack (about 8,000 values), and Redis keeps the
writes a script made before an error, so every variadic command of the commit is sent
in chunks and everything that can fail is checked before a unit's first write.
Against a real Redis with the store's small fake core.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest
import redis.asyncio
from accord_harness.reading import read_new
from accord_harness.store_harness import chat

from contracts.outputs import DeadLetter, DeadLetterReason, StateChanged
from contracts.streams import DATA_FIELD, GROUP, Entry
from store import keys
from store.config import StoreConfig
from store.processor import PartitionProcessor
from tests.support.fake_core import FakeCore

SCOPE = ("agent", "user")
# Already past by Redis's clock (the sweep's watermark): records expire at the first
# sweep a test runs, and only then (the fake core does not check deadlines on apply).
DEADLINE_MS = 1_700_000_000_000  # 2023-11-14
PARKED = 10_100


def processor(client: redis.asyncio.Redis, **config: Any) -> PartitionProcessor[Any, Any]:
    return PartitionProcessor(client, 0, FakeCore(), StoreConfig(**config))


def unbounded(client: redis.asyncio.Redis, **config: Any) -> PartitionProcessor[Any, Any]:
    """A processor that parks 10,000 entries of one session (far past the defaults)."""
    return processor(
        client,
        max_parked_entries=10**6,
        max_parked_bytes=2**40,
        max_partition_parked_entries=10**6,
        max_partition_parked_bytes=2**40,
        **config,
    )


async def write(
    client: redis.asyncio.Redis,
    seqs: range | list[int],
    session: str = "s",
    scope: tuple[str, str] = SCOPE,
) -> None:
    """XADD proposals with deadlines (one record, one event, one index member each)."""
    pipe = client.pipeline(transaction=False)
    for seq in seqs:
        document = chat(scope, session, seq, f"propose terms-{seq} deadline={DEADLINE_MS}")
        pipe.xadd("chat-turn:{0}", {DATA_FIELD: json.dumps(document)})
    await pipe.execute()


async def process_all(store: PartitionProcessor[Any, Any], client: redis.asyncio.Redis) -> None:
    while entries := await read_new(client, 0, GROUP, "c", count=2_000):
        await store.process(entries)


async def applied(
    client: redis.asyncio.Redis, session: str = "s", scope: tuple[str, str] = SCOPE
) -> list[int]:
    raw: Any = await client.hget(keys.session_key(0, *scope, session), "c")
    return list(FakeCore().decode_session(raw, session).seqs) if raw else []


async def pending(client: redis.asyncio.Redis) -> int:
    summary: Any = await client.xpending("chat-turn:{0}", GROUP)
    return int(summary["pending"])


async def events(client: redis.asyncio.Redis) -> list[StateChanged]:
    raw: Any = await client.xrange(keys.events_stream(0))
    return [msgspec.json.decode(fields[b"__data__"], type=StateChanged) for _, fields in raw]


@pytest.mark.redis
@pytest.mark.asyncio
@pytest.mark.timeout(300)
async def test_a_drain_of_ten_thousand_parked_entries_commits_atomically(
    client: redis.asyncio.Redis,
) -> None:
    """R15: seq 1 missing, seqs 2..10,100 parked; seq 1 arrives and the drain of 10,100
    proposals (records, events, deadline index members, parked fields) commits whole."""
    store = unbounded(client)
    await write(client, range(2, PARKED + 1))
    await process_all(store, client)
    assert await client.hlen(keys.parked_key(0, *SCOPE, "s")) == PARKED - 1
    await write(client, [1])
    await process_all(store, client)
    assert await applied(client) == list(range(1, PARKED + 1))
    assert not await client.exists(keys.parked_key(0, *SCOPE, "s")), "every parked field gone"
    assert not await client.zcard(keys.gaps_key(0))
    assert await client.zcard(keys.deadlines_key(0)) == PARKED
    assert len(await events(client)) == PARKED
    assert await pending(client) == 0


@pytest.mark.redis
@pytest.mark.asyncio
@pytest.mark.timeout(300)
async def test_a_gap_skip_drain_and_a_sweep_of_ten_thousand_commit_atomically(
    client: redis.asyncio.Redis,
) -> None:
    """R15, R9: the gap before 10,099 parked proposals is skipped (one drain), then
    every one of them expires in one sweep (10,100 index members removed at once)."""
    store = unbounded(client, gap_timeout_ms=0)
    await write(client, range(2, PARKED + 1))
    await process_all(store, client)
    assert await store.skip_stale_gaps() == 1
    assert await applied(client) == list(range(2, PARKED + 1))
    assert not await client.exists(keys.parked_key(0, *SCOPE, "s"))
    assert await client.zcard(keys.deadlines_key(0)) == PARKED - 1
    expired = await store.sweep_expired()
    assert len(expired) == PARKED - 1
    assert not await client.zcard(keys.deadlines_key(0))
    assert len(await events(client)) == 2 * (PARKED - 1)


class Poisoned(FakeCore):
    """The fake core, raising on one user's input of one seq (the core's own failure)."""

    def __init__(self, user_id: str, seq: int) -> None:
        self.user_id, self.seq = user_id, seq

    def apply(self, scope: Any, session: Any, event: Any, stream: str, entry_id: str) -> Any:
        if event.user_id == self.user_id and event.seq == self.seq:
            raise OverflowError("date value out of range")
        return super().apply(scope, session, event, stream, entry_id)


async def dead_letters(client: redis.asyncio.Redis) -> list[DeadLetter]:
    raw: Any = await client.xrange(keys.dead_letters_stream(0))
    return [msgspec.json.decode(f[b"__data__"], type=DeadLetter) for _, f in raw]


async def plant_wrong_type(client: redis.asyncio.Redis, scope: tuple[str, str]) -> None:
    """A key of the scope's unit that is not a hash (another program's, or a bug's)."""
    await client.set(keys.session_key(0, *scope, "s"), b"not a hash")


@pytest.mark.redis
@pytest.mark.asyncio
async def test_a_unit_that_cannot_be_committed_is_isolated_between_good_ones(
    client: redis.asyncio.Redis,
) -> None:
    """R15: in one batch, the middle scope's session key has the wrong type. The scopes
    around it commit whole; its inputs become dead letters naming the reason, and the
    batch is acked (nothing left pending to block the partition)."""
    store = processor(client)
    scopes = [("agent", f"user-{i}") for i in range(3)]
    await plant_wrong_type(client, scopes[1])
    for scope in scopes:
        await write(client, [1, 2], scope=scope)
    await process_all(store, client)
    assert await applied(client, scope=scopes[0]) == [1, 2]
    assert await applied(client, scope=scopes[2]) == [1, 2]
    assert await client.get(keys.session_key(0, *scopes[1], "s")) == b"not a hash"
    assert not await client.exists(keys.scope_key(0, *scopes[1])), "nothing of it written"
    assert await pending(client) == 0
    letters = await dead_letters(client)
    assert [(x.session_id, x.seq) for x in letters] == [("s", 1), ("s", 2)]
    assert {x.reason for x in letters} == {DeadLetterReason.UNCOMMITTABLE}
    assert all("WRONGTYPE" in x.detail or "type" in x.detail for x in letters)
    assert {e.agent_id + "/" + e.user_id for e in await events(client)} == {
        "agent/user-0",
        "agent/user-2",
    }


@pytest.mark.redis
@pytest.mark.asyncio
async def test_a_unit_whose_core_step_fails_is_isolated_between_good_ones(
    client: redis.asyncio.Redis,
) -> None:
    """R15: the core raises on one input of the middle scope: that input is a dead
    letter with the error named, the scope goes on with the inputs after it, and the
    scopes around it commit as usual."""

    store = PartitionProcessor(client, 0, Poisoned("user-1", 2), StoreConfig())
    scopes = [("agent", f"user-{i}") for i in range(3)]
    for scope in scopes:
        await write(client, [1, 2, 3], scope=scope)
    await process_all(store, client)
    assert await applied(client, scope=scopes[0]) == [1, 2, 3]
    assert await applied(client, scope=scopes[1]) == [1, 3], "the refused seq is passed over"
    assert await applied(client, scope=scopes[2]) == [1, 2, 3]
    assert await pending(client) == 0
    letters = await dead_letters(client)
    assert [(x.session_id, x.seq, x.reason) for x in letters] == [
        ("s", 2, DeadLetterReason.UNCOMMITTABLE)
    ]
    assert "OverflowError" in letters[0].detail


@pytest.mark.redis
@pytest.mark.asyncio
async def test_uncommittable_letters_carry_the_real_delivery_count(
    client: redis.asyncio.Redis,
) -> None:
    """R15: like every other dead letter of an entry, one the core refused and those of a
    scope that cannot be committed say how often their entry was delivered (here 3)."""

    store = PartitionProcessor(client, 0, Poisoned("user-0", 2), StoreConfig())
    scopes = [("agent", f"user-{i}") for i in range(2)]
    await plant_wrong_type(client, scopes[1])
    for scope in scopes:
        await write(client, [1, 2], scope=scope)
    entries = await read_new(client, 0, GROUP, "c", count=100)
    await store.process([Entry(e.stream, e.entry_id, e.fields, 3) for e in entries])
    letters = await dead_letters(client)
    assert sorted((x.session_id, x.seq, x.delivery_count) for x in letters) == [
        ("s", 1, 3),
        ("s", 2, 3),
        ("s", 2, 3),
    ]
    assert {x.reason for x in letters} == {DeadLetterReason.UNCOMMITTABLE}


@pytest.mark.redis
@pytest.mark.asyncio
async def test_one_bad_session_does_not_stop_gap_skips_and_expiry_elsewhere(
    client: redis.asyncio.Redis,
) -> None:
    """R9, R15: a session whose gap skip cannot commit (its parked hash was replaced by
    a string) is passed over with a reason; the other sessions' gaps are still skipped
    and their records still expire."""
    store = processor(client, gap_timeout_ms=0)
    good, bad = ("agent", "good"), ("agent", "bad")
    await write(client, [2, 3], scope=bad)
    await write(client, [1], session="t", scope=good)
    await write(client, [2, 3], scope=good)
    await process_all(store, client)
    parked = keys.parked_key(0, *bad, "s")
    await client.delete(parked)
    await client.set(parked, b"not a hash")
    assert await store.skip_stale_gaps() == 1
    assert await applied(client, scope=good) == [2, 3]
    assert await applied(client, scope=bad) == []
    expired = await store.sweep_expired()
    assert {e.record_id for e in expired} == {"t/1", "s/2", "s/3"}


@pytest.mark.redis
@pytest.mark.asyncio
@pytest.mark.parametrize("limit", [{"max_parked_entries": 5}, {"max_parked_bytes": 1_000}])
async def test_a_session_past_its_parked_limits_gives_its_gap_up_at_once(
    client: redis.asyncio.Redis, limit: dict[str, int]
) -> None:
    """R15 under a flood: seq 1 missing, seqs 2..9 arrive (about 190 bytes each); past
    5 parked entries (or 1,000 bytes) the gap is skipped at once, recorded and counted,
    and nothing stays parked; a late seq 1 is then a dead letter."""
    store = processor(client, gap_timeout_ms=3_600_000, **limit)
    await write(client, range(2, 10))
    await process_all(store, client)
    assert await applied(client) == list(range(2, 10))
    assert not await client.exists(keys.parked_key(0, *SCOPE, "s"))
    session: Any = await client.hgetall(keys.session_key(0, *SCOPE, "s"))
    assert session[b"k"] == b"1-1"
    assert await client.hget(keys.stats_key(0), "gaps_skipped") == b"1"
    await write(client, [1])
    await process_all(store, client)
    raw: Any = await client.xrange(keys.dead_letters_stream(0))
    assert [msgspec.json.decode(f[b"__data__"], type=DeadLetter).reason for _, f in raw] == [
        DeadLetterReason.LATE_AFTER_GAP_SKIP
    ]


@pytest.mark.redis
@pytest.mark.asyncio
async def test_under_the_parked_limits_a_gap_waits(client: redis.asyncio.Redis) -> None:
    """R15: at the limit (5 parked entries) nothing is skipped: seq 1 still applies first."""
    store = processor(client, gap_timeout_ms=3_600_000, max_parked_entries=5)
    await write(client, range(2, 7))
    await process_all(store, client)
    assert await client.hlen(keys.parked_key(0, *SCOPE, "s")) == 5
    await write(client, [1])
    await process_all(store, client)
    assert await applied(client) == list(range(1, 7))
