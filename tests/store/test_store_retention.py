"""Retention: input streams never lose an unapplied entry; output streams are capped."""

from __future__ import annotations

import json
from typing import Any

import pytest
import redis.asyncio
from accord_harness.reading import read_new
from accord_harness.store_harness import chat

from contracts.streams import GROUP
from store import keys
from store.config import StoreConfig
from store.processor import PartitionProcessor
from store.retention import trim_applied
from tests.support.fake_core import FakeCore

SCOPE = ("agent", "user")


async def write(client: redis.asyncio.Redis, seq: int, text: str = "hello") -> str:
    entry_id: Any = await client.xadd(
        "chat-turn:{0}", {"__data__": json.dumps(chat(SCOPE, "s", seq, text))}
    )
    return str(entry_id.decode())


@pytest.mark.redis
@pytest.mark.asyncio
async def test_trim_keeps_pending_and_undelivered_entries(client: redis.asyncio.Redis) -> None:
    """R15: applied entries go; a pending (read, unapplied) and an undelivered one stay."""
    processor = PartitionProcessor(client, 0, FakeCore(), StoreConfig())
    for seq in (1, 2, 3):
        await write(client, seq)
    await processor.process(await read_new(client, 0, GROUP, "c"))
    kept = [await write(client, 4), await write(client, 5)]
    await read_new(client, 0, GROUP, "c", count=1)  # seq 4: delivered, not applied
    removed = await trim_applied(client, 0, GROUP)
    assert removed["chat-turn:{0}"] == 3
    remaining: Any = await client.xrange("chat-turn:{0}")
    assert [entry_id.decode() for entry_id, _ in remaining] == kept
    assert await trim_applied(client, 0, GROUP) == {
        "chat-turn:{0}": 0,
        "tool-call:{0}": 0,
        "tool-result:{0}": 0,
    }


@pytest.mark.redis
@pytest.mark.asyncio
async def test_the_events_stream_is_capped_by_events_maxlen(client: redis.asyncio.Redis) -> None:
    """Output retention: XADD ... MAXLEN ~ events_maxlen keeps the stream bounded."""
    processor = PartitionProcessor(client, 0, FakeCore(), StoreConfig(events_maxlen=10))
    for seq in range(1, 401):
        await write(client, seq, f"propose terms {seq}")
    while entries := await read_new(client, 0, GROUP, "c", count=100):
        await processor.process(entries)
    length = await client.xlen(keys.events_stream(0))
    assert 10 <= length < 400, "approximate trimming keeps at least 10 and drops most"


@pytest.mark.redis
@pytest.mark.asyncio
async def test_trim_keeps_what_another_group_has_not_finished(
    client: redis.asyncio.Redis,
) -> None:
    """R15: input streams are trimmed only below what every group has applied: another
    reader's group that has read nothing holds every entry; once it has read and acked
    them, they go."""
    processor = PartitionProcessor(client, 0, FakeCore(), StoreConfig())
    await client.xgroup_create("chat-turn:{0}", "audit", id="0")
    for seq in (1, 2, 3):
        await write(client, seq)
    await processor.process(await read_new(client, 0, GROUP, "c"))
    assert (await trim_applied(client, 0, GROUP))["chat-turn:{0}"] == 0
    read: Any = await client.xreadgroup("audit", "a", {"chat-turn:{0}": ">"}, count=2)
    assert (await trim_applied(client, 0, GROUP))["chat-turn:{0}"] == 0, "read, not acked"
    await client.xack("chat-turn:{0}", "audit", *[entry_id for entry_id, _ in read[0][1]])
    assert (await trim_applied(client, 0, GROUP))["chat-turn:{0}"] == 2
