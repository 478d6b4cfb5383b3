"""Every stored time in one canonical form, UTC, whether the scope came from the cache or
from Redis (R15: replaying from empty stores the same bytes as a long-running worker)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import redis.asyncio
from accord_harness.reading import read_new
from accord_harness.store_harness import call, chat

from contracts.streams import DATA_FIELD, GROUP
from store import keys
from store.config import StoreConfig
from store.intake import ensure_groups
from store.processor import PartitionProcessor
from worker.engine import Engine

SCOPE = ("agent", "user")
# An RFC 3339 time with any offset but Z.
OFFSET_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?[+-]\d\d:\d\d")


async def _stored(client: redis.asyncio.Redis) -> list[bytes]:
    """Every record and agreement event as stored."""
    names = [name async for name in client.scan_iter(match=keys.record_key(0, "*"))]
    records: list[Any] = [await client.get(name) for name in sorted(names)]
    events: Any = await client.xrange(keys.events_stream(0))
    return [*records, *(fields[DATA_FIELD.encode()] for _, fields in events)]


async def _run(client: redis.asyncio.Redis, cache_size: int) -> list[bytes]:
    await client.flushall()
    await ensure_groups(client, [0], GROUP)
    processor = PartitionProcessor(client, 0, Engine(), StoreConfig(cache_size=cache_size))
    proposal = chat(SCOPE, "s", 1, "Let's agree: we review the plan every Friday")
    proposal["ts"] = "2027-01-01T08:00:00+08:00"
    await client.xadd("chat-turn:{0}", {DATA_FIELD: json.dumps(proposal)}, id="1798761600000-0")
    await processor.process(await read_new(client, 0, GROUP, "c"))
    names = [name async for name in client.scan_iter(match=keys.record_key(0, "*"))]
    first: Any = await client.get(names[0])
    record_id = json.loads(first)["record_id"]
    accept = call(
        SCOPE, "s", 2, "soul_agreement_accept", {"record_id": record_id, "expected_revision": 1}
    )
    accept["ts"] = "2027-01-01T08:01:00+08:00"
    await client.xadd("tool-call:{0}", {DATA_FIELD: json.dumps(accept)}, id="1798761660000-0")
    await processor.process(await read_new(client, 0, GROUP, "c"))
    return await _stored(client)


@pytest.mark.redis
@pytest.mark.asyncio
async def test_times_sent_with_an_offset_are_stored_in_utc_cached_or_not(
    client: redis.asyncio.Redis,
) -> None:
    """R15, R16: a proposal and an acceptance stamped `+08:00`: the records and events
    store `created_at`, history times and provenance times as `Z`, and a worker that kept
    the scope in its cache stores exactly the bytes of one that reloaded it each time."""
    cached = await _run(client, cache_size=4096)
    reloaded = await _run(client, cache_size=0)
    assert cached
    for stored in cached:
        assert not OFFSET_TIME.search(stored.decode()), stored
    assert b"2027-01-01T00:00:00Z" in cached[0], "the instant, in UTC"
    assert cached == reloaded
