"""Reading as a group member: groups at id 0, bounded reads, reclaim with delivery counts."""

from __future__ import annotations

from typing import Any

import pytest
import redis.asyncio
from accord_harness.reading import read_new

from contracts.streams import GROUP
from store.intake import ensure_groups, reclaim_pending
from store.watermark import server_ms, watermark_ms

STREAM = "chat-turn:{0}"


# No consumer group made up front: these tests make it (tests/store/conftest.py).
GROUP_PARTITIONS = ()


@pytest.mark.redis
@pytest.mark.asyncio
async def test_groups_start_at_zero_so_earlier_entries_are_read(
    client: redis.asyncio.Redis,
) -> None:
    """Entries a gateway wrote before the first worker started are not skipped."""
    await client.xadd(STREAM, {"__data__": "{}"})
    await ensure_groups(client, [0], GROUP)
    await ensure_groups(client, [0], GROUP)  # idempotent
    assert len(await read_new(client, 0, GROUP, "c")) == 1


@pytest.mark.redis
@pytest.mark.asyncio
async def test_reclaim_reports_delivery_counts(client: redis.asyncio.Redis) -> None:
    """Each reclaim is a delivery: the count the dead-letter limit reads grows."""
    await ensure_groups(client, [0], GROUP)
    await client.xadd(STREAM, {"__data__": "{}"})
    [first] = await read_new(client, 0, GROUP, "c1")
    assert first.delivery_count == 1
    [again] = (await reclaim_pending(client, 0, GROUP, "c2", min_idle_ms=0)).entries
    assert (again.entry_id, again.delivery_count) == (first.entry_id, 2)
    assert again.fields == {b"__data__": b"{}"}
    assert (await reclaim_pending(client, 0, GROUP, "c3", min_idle_ms=60_000)).entries == [], (
        "not idle yet"
    )


@pytest.mark.redis
@pytest.mark.asyncio
async def test_an_entry_deleted_while_pending_is_released_not_claimed_for_ever(
    client: redis.asyncio.Redis,
) -> None:
    """Redis 6.2 keeps a deleted pending entry; reclaim acks it so the watermark moves."""
    await ensure_groups(client, [0], GROUP)
    deleted: Any = await client.xadd(STREAM, {"__data__": "{}"}, id="1000-0")
    await client.xadd(STREAM, {"__data__": "{}"}, id="2000-0")
    await read_new(client, 0, GROUP, "c1")
    await client.xdel(STREAM, deleted)
    claimed = (await reclaim_pending(client, 0, GROUP, "c2", min_idle_ms=0)).entries
    assert [entry.entry_id for entry in claimed] == ["2000-0"]
    summary: Any = await client.xpending(STREAM, GROUP)
    assert (summary["pending"], summary["min"]) == (1, b"2000-0")
    await client.xack(STREAM, GROUP, "2000-0")
    assert await watermark_ms(client, 0, GROUP) >= await server_ms(client) - 60_000
