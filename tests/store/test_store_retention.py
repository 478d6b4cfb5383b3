"""Retention: input streams never lose an unapplied entry; output streams are capped."""

from __future__ import annotations

import json
from typing import Any

import pytest
import redis.asyncio
from accord_harness.reading import read_new
from accord_harness.store_harness import chat

from contracts.streams import GROUP, entry_ms
from store import keys
from store.config import StoreConfig
from store.processor import PartitionProcessor
from store.retention import trim_applied, trim_partition
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


async def session_log(client: redis.asyncio.Redis, session: str = "s") -> list[int]:
    """The seqs the fake core applied in `session`, in application order."""
    raw: Any = await client.hget(keys.session_key(0, *SCOPE, session), "c")
    return [] if raw is None else list(FakeCore().decode_session(raw, session).seqs)


@pytest.mark.redis
@pytest.mark.asyncio
async def test_trim_keeps_parked_entries_and_their_session_completes_after_it(
    client: redis.asyncio.Redis,
) -> None:
    """R15: seqs 2 and 3 wait parked behind a missing 1 (acked, payload in `parked:`);
    a trim removes the applied entries of another session written before them, not the
    parked ones; when 1 comes the session completes in order, and a trim after that
    removes everything."""
    processor = PartitionProcessor(client, 0, FakeCore(), StoreConfig())
    other = [
        await client.xadd("chat-turn:{0}", {"__data__": json.dumps(chat(SCOPE, "t", seq, "x"))})
        for seq in (1, 2)
    ]
    parked = [await write(client, 2), await write(client, 3)]
    report = await processor.process(await read_new(client, 0, GROUP, "c"))
    assert report.outcomes == {"applied": 2, "parked": 2}
    removed = await trim_applied(client, 0, GROUP)
    # The bound is the parked entry's millisecond: an applied entry of that same
    # millisecond stays too.
    below = [i for i in other if entry_ms(i) < entry_ms(parked[0])]
    assert removed["chat-turn:{0}"] == len(below)
    remaining: Any = await client.xrange("chat-turn:{0}")
    assert [entry_id.decode() for entry_id, _ in remaining][-2:] == parked
    assert len(remaining) == 4 - len(below)
    await write(client, 1)
    await processor.process(await read_new(client, 0, GROUP, "c"))
    assert await session_log(client) == [1, 2, 3]
    assert (await trim_applied(client, 0, GROUP))["chat-turn:{0}"] == 5 - len(below)
    assert await client.xlen("chat-turn:{0}") == 0


@pytest.mark.redis
@pytest.mark.asyncio
async def test_a_dry_run_counts_what_a_trim_removes_and_removes_nothing(
    client: redis.asyncio.Redis,
) -> None:
    """The dry run's count is the trim's, across XRANGE pages (2,500 entries), and it
    names what holds the bound: accord's group here, another group's pending entry next."""
    processor = PartitionProcessor(client, 0, FakeCore(), StoreConfig())
    for seq in range(1, 2501):
        await write(client, seq)
    while entries := await read_new(client, 0, GROUP, "c", count=1000):
        await processor.process(entries)
    pending = await write(client, 2501)
    await read_new(client, 0, GROUP, "c", count=1)
    dry = {t.stream: t for t in await trim_partition(client, 0, GROUP, dry_run=True)}
    assert dry["chat-turn:{0}"].removed == 2500
    assert dry["chat-turn:{0}"].minid == pending
    assert dry["chat-turn:{0}"].held_by == GROUP
    assert await client.xlen("chat-turn:{0}") == 2501
    done = {t.stream: t for t in await trim_partition(client, 0, GROUP)}
    assert done["chat-turn:{0}"].removed == 2500
    assert await client.xlen("chat-turn:{0}") == 1


@pytest.mark.redis
@pytest.mark.asyncio
async def test_nothing_is_trimmed_where_accord_never_read(client: redis.asyncio.Redis) -> None:
    """A stream without accord's group was never applied: no bound, nothing removed."""
    await client.xgroup_destroy("chat-turn:{0}", GROUP)
    await write(client, 1)
    trims = {t.stream: t for t in await trim_partition(client, 0, GROUP)}
    assert trims["chat-turn:{0}"].minid is None
    assert "chat-turn:{0}" not in await trim_applied(client, 0, GROUP)
    assert await client.xlen("chat-turn:{0}") == 1


class ParksDuringXpending:
    """The client, except that the first XPENDING first runs `park` (a commit that parks
    an entry, acking it): the moment between the trim's XINFO GROUPS and its XPENDING."""

    def __init__(self, client: redis.asyncio.Redis, park: Any) -> None:
        self._client = client
        self._park = park

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    async def xpending(self, *args: Any, **kwargs: Any) -> Any:
        if self._park is not None:
            park, self._park = self._park, None
            await park()
        return await self._client.xpending(*args, **kwargs)


@pytest.mark.redis
@pytest.mark.asyncio
@pytest.mark.parametrize("another_pending", [True, False])
async def test_an_entry_parked_between_the_group_read_and_xpending_is_not_trimmed(
    client: redis.asyncio.Redis, *, another_pending: bool
) -> None:
    """R15: seq 3 (behind a missing 2) is pending when the trim reads the groups, and
    parked (acked) before it reads the pending list: the parked bound is read after the
    group bounds, so it holds the entry, whether another entry is still pending (the
    pending bound is then above seq 3) or none is (XPENDING then has no minimum)."""
    processor = PartitionProcessor(client, 0, FakeCore(), StoreConfig())
    await write(client, 1)
    await processor.process(await read_new(client, 0, GROUP, "c"))
    held = await write(client, 3)
    batch = await read_new(client, 0, GROUP, "c")
    if another_pending:
        document = json.dumps(chat(SCOPE, "t", 1, "x"))
        await client.xadd("chat-turn:{0}", {"__data__": document})
        await read_new(client, 0, GROUP, "other")  # delivered to another consumer

    async def park() -> None:
        report = await processor.process(batch)
        assert report.outcomes == {"parked": 1}

    racing: Any = ParksDuringXpending(client, park)
    trims = await trim_partition(racing, 0, GROUP)
    remaining: Any = await client.xrange("chat-turn:{0}")
    assert held in [entry_id.decode() for entry_id, _ in remaining]
    chat_trim = next(t for t in trims if t.stream == "chat-turn:{0}")
    assert chat_trim.held_by == "parked"
