"""The partition's parked limits (count and bytes, all sessions together) on a real
Redis: past them a session's gap is given up at once instead of parking more (R15
under a flood that opens gaps in many sessions), and `stats:{p}` counts what is parked."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest
import redis.asyncio
from accord_harness.reading import read_new
from accord_harness.store_harness import chat

from contracts.streams import DATA_FIELD, GROUP
from store import keys
from store.config import StoreConfig
from store.processor import PartitionProcessor
from tests.support.fake_core import FakeCore

SCOPE = ("agent", "user")


def processor(client: redis.asyncio.Redis, **config: Any) -> PartitionProcessor[Any, Any]:
    return PartitionProcessor(
        client, 0, FakeCore(), StoreConfig(gap_timeout_ms=3_600_000, **config)
    )


async def send(
    client: redis.asyncio.Redis, store: PartitionProcessor[Any, Any], session: str, seqs: range
) -> None:
    for seq in seqs:
        document = chat(SCOPE, session, seq, f"hello {seq}")
        await client.xadd("chat-turn:{0}", {DATA_FIELD: json.dumps(document)})
    await store.process(await read_new(client, 0, GROUP, "c"))


async def applied(client: redis.asyncio.Redis, session: str) -> list[int]:
    raw: Any = await client.hget(keys.session_key(0, *SCOPE, session), "c")
    return [] if raw is None else list(FakeCore().decode_session(raw, session).seqs)


async def totals(client: redis.asyncio.Redis) -> tuple[int, int]:
    raw: Any = await client.hmget(keys.stats_key(0), "parked_entries", "parked_bytes")
    return int(raw[0] or 0), int(raw[1] or 0)


async def parked_bytes(client: redis.asyncio.Redis, session: str) -> int:
    """What the session's parked entries hold, as the limits count it: their `__data__`
    (the parked hash stores each as msgpack `[stream, entry_id, __data__]`)."""
    raw: Any = await client.hgetall(keys.parked_key(0, *SCOPE, session))
    return sum(len(msgspec.msgpack.decode(value)[2]) for value in raw.values())


@pytest.mark.redis
@pytest.mark.asyncio
async def test_a_session_past_the_partitions_parked_entries_gives_its_gap_up(
    client: redis.asyncio.Redis,
) -> None:
    """R15: with room for 5 parked entries in the partition, session a parks 4 (its seq
    1 missing); session b's 3 early seqs would pass the limit, so b's gap is skipped at
    once and they apply; a still waits, and applies in order when its seq 1 comes. The
    counters follow: 4 parked, then none. A fresh processor reads them from Redis."""
    store = processor(client, max_partition_parked_entries=5)
    await send(client, store, "a", range(2, 6))
    assert await totals(client) == (4, await parked_bytes(client, "a"))
    await send(client, store, "b", range(2, 5))
    assert await applied(client, "b") == [2, 3, 4]
    assert await client.hget(keys.session_key(0, *SCOPE, "b"), "k") == b"1-1"
    assert await client.hlen(keys.parked_key(0, *SCOPE, "a")) == 4
    assert (await totals(client))[0] == 4
    fresh = processor(client, max_partition_parked_entries=5)
    await send(client, fresh, "c", range(2, 4))
    assert await client.hget(keys.session_key(0, *SCOPE, "c"), "k") == b"1-1", "4 + 2 > 5"
    await send(client, fresh, "a", range(1, 2))
    assert await applied(client, "a") == [1, 2, 3, 4, 5]
    assert await totals(client) == (0, 0)


@pytest.mark.redis
@pytest.mark.asyncio
async def test_the_partitions_parked_bytes_bound_the_sessions_together(
    client: redis.asyncio.Redis,
) -> None:
    """R15: each session parks under its own limits, but two together would hold more
    bytes than the partition allows: the second gives its gap up at once."""
    store = processor(client)
    await send(client, store, "a", range(2, 4))
    room = await parked_bytes(client, "a") + 10
    limited = processor(client, max_partition_parked_bytes=room)
    await send(client, limited, "b", range(2, 4))
    assert await applied(client, "b") == [2, 3]
    assert not await client.exists(keys.parked_key(0, *SCOPE, "b"))
    assert (await totals(client))[0] == 2


@pytest.mark.redis
@pytest.mark.asyncio
async def test_under_the_partitions_limits_gaps_wait(client: redis.asyncio.Redis) -> None:
    """R15: exactly at the partition's limit nothing is skipped."""
    store = processor(client, max_partition_parked_entries=4)
    await send(client, store, "a", range(2, 4))
    await send(client, store, "b", range(2, 4))
    assert await totals(client) == (
        4,
        await parked_bytes(client, "a") + await parked_bytes(client, "b"),
    )
    assert not await client.hget(keys.stats_key(0), "gaps_skipped")
