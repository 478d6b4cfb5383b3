"""An idle session costs at most 1 KB of Redis memory (DESIGN section 5), by MEMORY USAGE.

Memory, not speed: the figure is a property of the key layout (store/keys.py), the
same on any machine for the same Redis version and configuration.
"""

from __future__ import annotations

from typing import Any

import pytest
import redis.asyncio
from accord_harness.reading import read_new
from accord_harness.store_harness import conversation, xadd

from contracts.streams import GROUP
from store import keys
from store.config import StoreConfig
from store.processor import PartitionProcessor
from worker.engine import Engine


@pytest.mark.redis
@pytest.mark.asyncio
async def test_an_idle_session_costs_at_most_one_kilobyte(client: redis.asyncio.Redis) -> None:
    """After a conversation with todos and an open agreement, the session keys fit 1 KB."""
    processor = PartitionProcessor(client, 0, Engine(), StoreConfig())
    for index in range(20):
        for document in conversation(("agent", f"user-{index // 5}"), f"session-{index}"):
            await xadd(client, document, 1)
    while entries := await read_new(client, 0, GROUP, "c", count=100):
        await processor.process(entries)
    sizes: list[int] = []
    async for key in client.scan_iter(match="session:*"):
        size: Any = await client.memory_usage(key, samples=0)
        sizes.append(int(size))
    assert len(sizes) == 20
    assert max(sizes) <= 1024
    assert [key async for key in client.scan_iter(match="parked:*")] == [], "nothing parked"
    assert not await client.zcard(keys.gaps_key(0))
