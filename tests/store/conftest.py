"""The store tests' Redis client: the shared flushed client, with the consumer group made.

A module whose tests need the group on other partitions names them in
`GROUP_PARTITIONS` (default: partition 0; empty: no group at all). The client has no
read timeout (redis-py's default): a 10,000-unit commit in test_store_atomic.py takes
seconds on a busy machine.
"""

from __future__ import annotations

import pytest
import pytest_asyncio
import redis.asyncio

from contracts.streams import GROUP
from store.intake import ensure_groups


@pytest_asyncio.fixture
async def client(
    aredis: redis.asyncio.Redis, request: pytest.FixtureRequest
) -> redis.asyncio.Redis:
    partitions: tuple[int, ...] = getattr(request.module, "GROUP_PARTITIONS", (0,))
    if partitions:
        await ensure_groups(aredis, partitions, GROUP)
    return aredis
