"""Shared fixtures. Store and worker tests talk to a real Redis:
`REDIS_URL` when set, else one embedded server for the whole session.

`client` is the store and worker tests' asyncio client: `aredis` (flushed) with the
consumer group made. A module whose tests need the group on other partitions names
them in `GROUP_PARTITIONS` (default: partition 0; empty: no group at all). The client
has no read timeout (redis-py's default): a 10,000-unit commit in test_store_atomic.py
takes seconds on a busy machine.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator

import pytest
import pytest_asyncio
import redis
import redis.asyncio
from hypothesis import HealthCheck, settings

from contracts.streams import GROUP
from store.embedded import EmbeddedRedis
from store.intake import ensure_groups

# The suite runs on shared, loaded machines (two cores for Redis, workers and pytest):
# an example that is slow to generate or to run says nothing about the code, and a
# deadline that one run meets and its replay misses fails as "flaky". Properties keep
# their example counts; only the clock is taken out of them.
settings.register_profile("accord", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("accord")


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    url = os.environ.get("REDIS_URL")
    if url:
        yield url
        return
    with EmbeddedRedis() as server:
        yield server.url


@pytest.fixture
def redis_client(redis_url: str) -> Iterator[redis.Redis]:
    """A synchronous client on a flushed database (arq's way: a clean slate per test)."""
    client = redis.Redis.from_url(redis_url)
    client.flushall()
    yield client
    client.close()


@pytest_asyncio.fixture
async def aredis(redis_url: str) -> AsyncIterator[redis.asyncio.Redis]:
    client = redis.asyncio.Redis.from_url(redis_url)
    await client.flushall()
    yield client
    await client.aclose()


@pytest_asyncio.fixture
async def client(
    aredis: redis.asyncio.Redis, request: pytest.FixtureRequest
) -> redis.asyncio.Redis:
    partitions: tuple[int, ...] = getattr(request.module, "GROUP_PARTITIONS", (0,))
    if partitions:
        await ensure_groups(aredis, partitions, GROUP)
    return aredis
