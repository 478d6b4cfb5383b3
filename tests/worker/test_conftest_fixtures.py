"""The shared fixtures hand out clients on a real, flushed Redis."""

from __future__ import annotations

import pytest
import redis.asyncio


@pytest.mark.asyncio
async def test_async_client_fixture_starts_on_an_empty_database(
    aredis: redis.asyncio.Redis,
) -> None:
    """`aredis` is a working asyncio client on a flushed database."""
    assert await aredis.dbsize() == 0
    await aredis.set("k", "v")
    assert await aredis.get("k") == b"v"
