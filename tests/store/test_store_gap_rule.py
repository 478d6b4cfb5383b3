"""When a gap may be skipped (R15): never while its seq can still be read or reclaimed.

A gap is skipped only when the missing seq is neither pending in any consumer's list
nor unread in the streams, and has stayed missing for the gap timeout counted from
when the gap was observed (docs/store.md, "Gap skipping"). Each test here plays one
case of that rule on a real Redis with the fake core; a consumer that reads entries
and never commits them is what a SIGKILLed worker leaves behind.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest
import redis.asyncio
from accord_harness.reading import read_new
from accord_harness.store_harness import call, chat

from contracts.outputs import DeadLetter, DeadLetterReason
from contracts.streams import DATA_FIELD, GROUP, Entry
from store import keys
from store.config import StoreConfig
from store.intake import reclaim_pending
from store.processor import PartitionProcessor
from store.watermark import server_ms
from tests.support.fake_core import FakeCore

SCOPE = ("agent", "user")
CHAT = "chat-turn:{0}"
TOOL = "tool-call:{0}"
TIMEOUT_MS = 30_000  # the shipped default


def store(client: redis.asyncio.Redis) -> PartitionProcessor[Any, Any]:
    return PartitionProcessor(client, 0, FakeCore(), StoreConfig(gap_timeout_ms=TIMEOUT_MS))


async def write(client: redis.asyncio.Redis, seq: int, *, at_ms: int | None = None) -> None:
    """Seq `seq` of session `s` as a chat turn; `at_ms` writes it with that entry-id time."""
    document = chat(SCOPE, "s", seq, f"turn {seq}")
    await client.xadd(
        CHAT, {DATA_FIELD: json.dumps(document)}, id=f"{at_ms}-{seq}" if at_ms else "*"
    )


async def read(client: redis.asyncio.Redis, consumer: str, count: int) -> list[Entry]:
    """What one XREADGROUP hands `consumer`: it now holds them in its pending list."""
    reply: Any = await client.xreadgroup(GROUP, consumer, {CHAT: ">"}, count=count)
    return [Entry(CHAT, i.decode(), fields) for _, raw in reply for i, fields in raw]


async def applied(client: redis.asyncio.Redis) -> list[int]:
    raw: Any = await client.hget(keys.session_key(0, *SCOPE, "s"), "c")
    return list(FakeCore().decode_session(raw, "s").seqs)


async def observed(client: redis.asyncio.Redis) -> int:
    """When the session's gap was observed (Redis ms), as the commit that opened it wrote."""
    raw: Any = await client.hget(keys.session_key(0, *SCOPE, "s"), "g")
    assert raw, "the commit that parked an entry records when it observed the gap"
    return int(raw)


async def nothing_lost(client: redis.asyncio.Redis) -> None:
    assert await client.xlen(keys.dead_letters_stream(0)) == 0, "nothing dead-lettered"
    assert not await client.hget(keys.session_key(0, *SCOPE, "s"), "k"), "no seq skipped"
    assert not await client.exists(keys.stats_key(0)), "no gap skip counted"


@pytest.mark.redis
@pytest.mark.asyncio
async def test_a_seq_held_by_a_killed_consumer_is_never_skipped_and_is_reclaimed(
    client: redis.asyncio.Redis,
) -> None:
    """R15: a worker dies holding seq 1 in its pending list; another parks seq 2. However
    long the gap lasts, it is not skipped while seq 1 is pending; reclaimed, seq 1 is
    applied and seq 2 follows (before: skipped after the timeout, seq 1 dead-lettered)."""
    processor = store(client)
    await write(client, 1)
    await write(client, 2)
    assert len(await read(client, "killed", 1)) == 1, "seq 1 now pending on a dead consumer"
    report = await processor.process(await read(client, "live", 10))
    assert report.outcomes["parked"] == 1
    later = await observed(client) + 10 * TIMEOUT_MS
    assert await processor.skip_stale_gaps(now_ms=later) == 0, "seq 1 is still pending"
    assert await applied(client) == []
    report = await processor.process(
        (await reclaim_pending(client, 0, GROUP, "live", min_idle_ms=0)).entries
    )
    assert report.outcomes["applied"] == 1
    assert report.outcomes["drained"] == 1
    assert await applied(client) == [1, 2]
    await nothing_lost(client)


@pytest.mark.redis
@pytest.mark.asyncio
async def test_an_unread_seq_is_never_skipped(client: redis.asyncio.Redis) -> None:
    """R15: seq 2 (on the tool-call stream) is read and parked while seq 1 is still unread
    on the chat stream: no skip, however late, until seq 1 is read and applied."""
    processor = store(client)
    await write(client, 1)
    document = call(SCOPE, "s", 2, "noop", {})
    await client.xadd(TOOL, {DATA_FIELD: json.dumps(document)})
    reply: Any = await client.xreadgroup(GROUP, "c", {TOOL: ">"})
    parked = [Entry(TOOL, i.decode(), fields) for _, raw in reply for i, fields in raw]
    assert (await processor.process(parked)).outcomes["parked"] == 1
    later = await observed(client) + 10 * TIMEOUT_MS
    assert await processor.skip_stale_gaps(now_ms=later) == 0, "seq 1 is unread"
    await processor.process(await read_new(client, 0, GROUP, "c"))
    assert await applied(client) == [1, 2]
    await nothing_lost(client)


@pytest.mark.redis
@pytest.mark.asyncio
async def test_after_a_fleet_outage_catching_up_workers_skip_nothing(
    client: redis.asyncio.Redis,
) -> None:
    """R15: every worker was down for 40 s while the gateway wrote; on restart one
    worker holds seq 1 while another parks seqs 2-4. The parked entries are older than
    the gap timeout by their ids, but the gap was observed just now and seq 1 is pending:
    the sweeper skips nothing (before: it skipped at once and lost seq 1)."""
    processor = store(client)
    outage = await server_ms(client) - 40_000
    for seq in (1, 2, 3, 4):
        await write(client, seq, at_ms=outage)
    held = await read(client, "worker-a", 1)
    assert (await processor.process(await read(client, "worker-b", 10))).outcomes["parked"] == 3
    assert await processor.skip_stale_gaps() == 0
    assert await applied(client) == []
    await processor.process(held)
    assert await applied(client) == [1, 2, 3, 4]
    await nothing_lost(client)


@pytest.mark.redis
@pytest.mark.asyncio
async def test_the_gap_timeout_runs_from_the_observation_not_the_entry_time(
    client: redis.asyncio.Redis,
) -> None:
    """R15: seq 1 never comes; seq 2 was written 40 s before any worker read it. With
    nothing pending or unread, the gap is skipped one gap timeout after it was observed,
    not at once because the parked entry's id is old."""
    processor = store(client)
    await write(client, 2, at_ms=await server_ms(client) - 40_000)
    await processor.process(await read_new(client, 0, GROUP, "c"))
    seen = await observed(client)
    assert await processor.skip_stale_gaps() == 0
    assert await processor.skip_stale_gaps(now_ms=seen + TIMEOUT_MS - 1) == 0, "not yet"
    assert await processor.skip_stale_gaps(now_ms=seen + TIMEOUT_MS) == 1
    assert await applied(client) == [2]
    session: Any = await client.hgetall(keys.session_key(0, *SCOPE, "s"))
    assert session[b"k"] == b"1-1"
    assert b"g" not in session, "no gap open: no observation time kept"


@pytest.mark.redis
@pytest.mark.asyncio
async def test_entries_written_within_the_timeout_after_the_observation_must_be_finished(
    client: redis.asyncio.Redis,
) -> None:
    """R15: an unfinished entry written before `observed + timeout` (it may be the missing
    seq, late from the gateway) holds the skip back; one written after it does not."""
    processor = store(client)
    await write(client, 2)
    await processor.process(await read_new(client, 0, GROUP, "c"))
    seen = await observed(client)
    other = ("agent", "other")

    async def unread(at_ms: int, seq: int) -> None:
        document = chat(other, "o", seq, "hi")
        await client.xadd(CHAT, {DATA_FIELD: json.dumps(document)}, id=f"{at_ms}-0")

    await unread(seen + TIMEOUT_MS - 1, 1)
    assert await processor.skip_stale_gaps(now_ms=seen + 2 * TIMEOUT_MS) == 0
    await client.xtrim(CHAT, minid=f"{seen + TIMEOUT_MS}-0")
    await unread(seen + TIMEOUT_MS, 2)
    assert await processor.skip_stale_gaps(now_ms=seen + 2 * TIMEOUT_MS) == 1
    assert await applied(client) == [2]


@pytest.mark.redis
@pytest.mark.asyncio
async def test_a_late_dead_letter_carries_the_real_delivery_count(
    client: redis.asyncio.Redis,
) -> None:
    """R15: seq 1 comes after its gap was skipped, on its third delivery (read, then
    reclaimed twice after crashes): its `late_after_gap_skip` letter says 3, not 1."""
    processor = PartitionProcessor(client, 0, FakeCore(), StoreConfig(gap_timeout_ms=0))
    await write(client, 2)
    await processor.process(await read_new(client, 0, GROUP, "c"))
    assert await processor.skip_stale_gaps() == 1
    await write(client, 1)
    await read(client, "crashed-1", 10)
    await reclaim_pending(client, 0, GROUP, "crashed-2", min_idle_ms=0)
    entries = (await reclaim_pending(client, 0, GROUP, "live", min_idle_ms=0)).entries
    assert [entry.delivery_count for entry in entries] == [3]
    assert (await processor.process(entries)).outcomes["dead_letter"] == 1
    letters: Any = await client.xrange(keys.dead_letters_stream(0))
    [(_, fields)] = letters
    letter = msgspec.json.decode(fields[DATA_FIELD.encode()], type=DeadLetter)
    assert letter.reason is DeadLetterReason.LATE_AFTER_GAP_SKIP
    assert letter.delivery_count == 3


@pytest.mark.redis
@pytest.mark.asyncio
async def test_an_invalid_copy_of_an_applied_or_present_seq_changes_nothing(
    client: redis.asyncio.Redis,
) -> None:
    """R15: a broken copy of a seq whose valid entry is applied, or in the same batch,
    is dead-lettered and skips nothing."""
    processor = store(client)
    bad = chat(SCOPE, "s", 2, "turn 2")
    bad["role"] = "narrator"
    await write(client, 1)
    await write(client, 2)
    await client.xadd(CHAT, {DATA_FIELD: json.dumps(bad)})
    await processor.process(await read_new(client, 0, GROUP, "c"))
    await client.xadd(CHAT, {DATA_FIELD: json.dumps(bad)})
    await processor.process(await read_new(client, 0, GROUP, "c"))
    assert await applied(client) == [1, 2]
    assert not await client.hget(keys.session_key(0, *SCOPE, "s"), "k")
    assert await client.xlen(keys.dead_letters_stream(0)) == 2


@pytest.mark.redis
@pytest.mark.asyncio
@pytest.mark.parametrize("kept", ["in the same batch", "parked"])
async def test_a_different_content_duplicate_is_a_conflicting_duplicate_dead_letter(
    client: redis.asyncio.Redis, kept: str
) -> None:
    """R15: seq 2 written twice with different content (the second a cancellation): the
    first stays and is applied, the second becomes a `conflicting_duplicate` letter naming
    both entry ids, session and seq (logged at WARNING by the worker), never a silent drop."""
    processor = store(client)
    await write(client, 2)
    if kept == "parked":
        await processor.process(await read_new(client, 0, GROUP, "c"))
    other = chat(SCOPE, "s", 2, "Cancel this agreement")
    second: Any = await client.xadd(CHAT, {DATA_FIELD: json.dumps(other)})
    await write(client, 1)
    await processor.process(await read_new(client, 0, GROUP, "c"))
    assert await applied(client) == [1, 2]
    raw: Any = await client.hget(keys.session_key(0, *SCOPE, "s"), "c")
    assert FakeCore().decode_session(raw, "s").seqs == (1, 2)
    letters: Any = await client.xrange(keys.dead_letters_stream(0))
    [(_, fields)] = letters
    letter = msgspec.json.decode(fields[DATA_FIELD.encode()], type=DeadLetter)
    assert letter.reason is DeadLetterReason.CONFLICTING_DUPLICATE
    assert (letter.session_id, letter.seq, letter.entry_id) == ("s", 2, second.decode())
    entries: Any = await client.xrange(CHAT)
    assert entries[0][0].decode() in letter.detail, "the kept entry's id"
    assert await client.xpending(CHAT, GROUP) == {
        "pending": 0,
        "min": None,
        "max": None,
        "consumers": [],
    }
