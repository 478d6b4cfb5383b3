"""Retention of records and sessions on a real Redis, with the real core: what is kept
stays exact (R15), what goes goes consistently (R6, R16).

Records that left the scope's state for good get the record retention as their time to
live; an idle session is compacted to its ordering watermark, after which a late
duplicate is still a duplicate and the session's next seq is still applied once, in
order (docs/store.md, "Retention").
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import redis.asyncio
from accord_harness.reading import read_new
from accord_harness.store_harness import call, chat, result

from contracts.outputs import StateChanged
from contracts.streams import GROUP
from contracts.tools import ACCEPT_TOOL_NAME
from store import keys
from store.compaction import Compaction
from store.config import StoreConfig
from store.processor import BatchReport, PartitionProcessor
from store.reads import record_history
from tests.support.worker_kit import gateway_xadd
from worker.engine import Engine

SCOPE = ("agent", "user")
PROPOSE = "Let's agree: use metric units in every report."
# Far past any commit's Redis time: every session is idle by then.
LATER_MS = 2**50


async def send(
    client: redis.asyncio.Redis, processor: PartitionProcessor[Any, Any], *documents: Any
) -> BatchReport:
    for document in documents:
        await gateway_xadd(client, document)
    return await processor.process(await read_new(client, 0, GROUP, "c"))


def changes(report: BatchReport) -> list[StateChanged]:
    return [e for e in report.events if isinstance(e, StateChanged)]


async def gone(client: redis.asyncio.Redis, key: str) -> bool:
    """Wait (generously: the machine may be loaded) until Redis has removed `key`."""
    for _ in range(600):
        if not await client.exists(key):
            return True
        await asyncio.sleep(0.05)
    return False


@pytest.mark.redis
@pytest.mark.asyncio
async def test_a_final_record_expires_after_the_retention_and_a_live_one_stays(
    client: redis.asyncio.Redis,
) -> None:
    """R16, R6: with record retention on, a cancelled record's key gets the retention as
    its time to live (30 s here, so a loaded machine cannot expire it before it is
    looked at) and the open view never showed it; a proposal still pending keeps its
    key without a time to live. With a 300 ms retention (another scope), a cancelled
    record's key then goes, and its history says so."""
    processor = PartitionProcessor(client, 0, Engine(), StoreConfig(record_retention_ms=30_000))
    first = await send(client, processor, chat(SCOPE, "s", 1, PROPOSE))
    cancelled = changes(first)[0].record_id
    await send(client, processor, chat(SCOPE, "s", 2, "Cancel this agreement."))
    pending = changes(await send(client, processor, chat(SCOPE, "s", 3, PROPOSE)))[0].record_id
    assert 0 < await client.pttl(keys.record_key(0, cancelled)) <= 30_000
    assert await client.pttl(keys.record_key(0, pending)) == -1, "a live record has no TTL"
    document: Any = await client.hget(keys.view_key(0, *SCOPE), "doc")
    assert cancelled not in document.decode()
    assert pending in document.decode()
    short = PartitionProcessor(client, 0, Engine(), StoreConfig(record_retention_ms=300))
    other = ("agent", "other")
    expiring = changes(await send(client, short, chat(other, "s", 1, PROPOSE)))[0].record_id
    await send(client, short, chat(other, "s", 2, "Cancel this agreement."))
    assert await gone(client, keys.record_key(0, expiring))
    assert await record_history(client, 0, expiring) is None
    assert (await record_history(client, 0, pending)) is not None


@pytest.mark.redis
@pytest.mark.asyncio
async def test_without_record_retention_a_final_record_is_kept(
    client: redis.asyncio.Redis,
) -> None:
    """R16: the default keeps every record for `history` and `explain` (no TTL)."""
    processor = PartitionProcessor(client, 0, Engine(), StoreConfig())
    record = changes(await send(client, processor, chat(SCOPE, "s", 1, PROPOSE)))[0].record_id
    await send(client, processor, chat(SCOPE, "s", 2, "Cancel this agreement."))
    assert await client.pttl(keys.record_key(0, record)) == -1


async def session_fields(client: redis.asyncio.Redis, session: str = "s") -> dict[str, bytes]:
    raw: Any = await client.hgetall(keys.session_key(0, *SCOPE, session))
    return {k.decode(): v for k, v in raw.items()}


@pytest.mark.redis
@pytest.mark.asyncio
async def test_a_compacted_session_acks_a_late_duplicate_and_applies_its_next_seq_once(
    client: redis.asyncio.Redis,
) -> None:
    """R15: an idle session is compacted to its watermark (its core state goes, `n`
    stays). A gateway duplicate of seq 2 written after that is acked with no effect;
    seq 3 (the session resumed) is applied once, in order, creating one record; the
    processor's cached copy of the session loses its version check and is reloaded."""
    processor = PartitionProcessor(client, 0, Engine(), StoreConfig(session_retention_ms=1000))
    duplicate = chat(SCOPE, "s", 2, "hello again")
    # Seq 1 is a todo snapshot: the session has core state (`c`) to compact.
    await send(client, processor, result(SCOPE, "s", 1), duplicate)
    assert await client.zcard(keys.idle_key(0)) == 1
    before = await session_fields(client)
    assert "c" in before
    key = keys.session_key(0, *SCOPE, "s")
    bytes_before: Any = await client.memory_usage(key, samples=0)
    done = await processor.retain(now_ms=LATER_MS)
    assert (done.compacted, done.kept) == (1, 0)
    bytes_after: Any = await client.memory_usage(key, samples=0)
    assert bytes_after < bytes_before
    after = await session_fields(client)
    assert "c" not in after
    assert after["n"] == b"3"
    assert after["v"] != before["v"]
    assert await client.zcard(keys.idle_key(0)) == 0
    late = await send(client, processor, duplicate)
    assert late.outcomes == {"duplicate": 1}
    assert not late.events
    resumed = await send(client, processor, chat(SCOPE, "s", 3, PROPOSE))
    assert resumed.outcomes == {"applied": 1}
    assert len(changes(resumed)) == 1
    assert (await session_fields(client))["n"] == b"4"
    assert await client.zcard(keys.idle_key(0)) == 1, "its commit put it back in the index"
    again = await send(client, processor, chat(SCOPE, "s", 3, PROPOSE))
    assert again.outcomes == {"duplicate": 1}


@pytest.mark.redis
@pytest.mark.asyncio
async def test_a_session_a_kept_record_is_bound_to_keeps_its_todo_state(
    client: redis.asyncio.Redis,
) -> None:
    """R11, R12: a proposal bound to a todo of the session keeps the session's todo
    tracking however long it is idle (its delivery is verified there); a session not
    yet idle for the retention is not touched either."""
    processor = PartitionProcessor(client, 0, Engine(), StoreConfig(session_retention_ms=1000))
    bound = 'Let\'s agree: mark todo "notes" as completed.'
    report = await send(client, processor, result(SCOPE, "s", 1), chat(SCOPE, "s", 2, bound))
    record = await record_history(client, 0, changes(report)[0].record_id)
    assert record is not None
    assert record.binding is not None
    # Redis's clock, with a retention no loaded machine can pass in between: not looked at.
    patient = PartitionProcessor(client, 0, Engine(), StoreConfig(session_retention_ms=60_000))
    assert await patient.retain() == Compaction(), "idle for less than the retention"
    done = await processor.retain(now_ms=LATER_MS)
    assert (done.compacted, done.kept) == (0, 1)
    assert "c" in await session_fields(client)


@pytest.mark.redis
@pytest.mark.asyncio
async def test_a_session_with_parked_entries_is_not_compacted(
    client: redis.asyncio.Redis,
) -> None:
    """R15: seq 3 parked behind a missing 2 keeps the session as it is; when 2 comes,
    both apply in order."""
    processor = PartitionProcessor(client, 0, Engine(), StoreConfig(session_retention_ms=1000))
    await send(client, processor, chat(SCOPE, "s", 1, "hello"))
    await send(client, processor, chat(SCOPE, "s", 3, PROPOSE))
    before = await session_fields(client)
    done = await processor.retain(now_ms=LATER_MS)
    assert done.compacted == 0
    assert await session_fields(client) == before
    report = await send(client, processor, chat(SCOPE, "s", 2, "hi"))
    assert report.outcomes == {"applied": 1, "drained": 1}
    assert len(changes(report)) == 1


@pytest.mark.redis
@pytest.mark.asyncio
async def test_stale_members_of_the_idle_index_are_removed_and_block_nothing(
    client: redis.asyncio.Redis,
) -> None:
    """R15: a member of the idle index whose session hash is gone (an operator's DEL) or
    holds another type, or that names no session at all (not accord's JSON), at the head
    of the index, is removed from it; the idle session behind it is compacted in the same
    pass, to its watermark, and the next pass has nothing left to fail on."""
    processor = PartitionProcessor(client, 0, Engine(), StoreConfig(session_retention_ms=1000))
    for session in ("gone", "typed", "s"):
        await send(client, processor, result(SCOPE, session, 1), chat(SCOPE, session, 2, "hi"))
    index = keys.idle_key(0)
    await client.zadd(index, {keys.session_member(*SCOPE, "gone"): 1})
    await client.zadd(index, {keys.session_member(*SCOPE, "typed"): 2})
    await client.zadd(index, {"not-json": 0, '["two", "parts"]': 0})
    await client.delete(keys.session_key(0, *SCOPE, "gone"))
    typed = keys.session_key(0, *SCOPE, "typed")
    await client.delete(typed)
    await client.set(typed, "not a hash")
    done = await processor.retain(now_ms=LATER_MS)
    assert (done.compacted, done.kept, done.stale) == (1, 0, 4)
    assert await client.zrange(index, 0, -1) == []
    assert await session_fields(client, "gone") == {}
    assert await client.get(typed) == b"not a hash"
    compacted = await session_fields(client)
    assert "c" not in compacted
    assert compacted["n"] == b"3"
    assert await processor.retain(now_ms=LATER_MS) == type(done)()


@pytest.mark.redis
@pytest.mark.asyncio
async def test_a_session_committed_with_retention_off_is_not_compacted_on_its_old_score(
    client: redis.asyncio.Redis,
) -> None:
    """R11, R15: a commit made with session retention off (another worker's setting, or
    this one's before) moves the session's version without scoring it. The pass that
    finds it under its old score does not compact it but scores it anew, so a todo
    proposal right after still binds to the todo its session tracks; a session left
    idle for another retention after that is compacted."""
    config = StoreConfig(session_retention_ms=1000)
    on = PartitionProcessor(client, 0, Engine(), config)
    off = PartitionProcessor(client, 0, Engine(), StoreConfig())
    await send(client, on, result(SCOPE, "s", 1), result(SCOPE, "u", 1))
    await send(client, off, result(SCOPE, "s", 2), result(SCOPE, "u", 2))
    done = await on.retain(now_ms=LATER_MS)
    assert (done.compacted, done.kept) == (0, 2)
    assert "c" in await session_fields(client)
    assert "c" in await session_fields(client, "u")
    index = keys.idle_key(0)
    assert await client.zscore(index, keys.session_member(*SCOPE, "u")) == LATER_MS
    bound = 'Let\'s agree: mark todo "notes" as completed.'
    report = await send(client, on, chat(SCOPE, "s", 3, bound))
    record = await record_history(client, 0, changes(report)[0].record_id)
    assert record is not None
    assert record.binding is not None, "the todo tracking was kept"
    done = await on.retain(now_ms=LATER_MS + config.session_retention_ms)
    assert (done.compacted, done.kept) == (1, 1)
    assert "c" not in await session_fields(client, "u")
    assert "c" in await session_fields(client), "a kept record is bound to it"


@pytest.mark.redis
@pytest.mark.asyncio
async def test_a_session_a_pending_amendment_is_bound_to_keeps_its_todo_state(
    client: redis.asyncio.Redis,
) -> None:
    """R11, R12: an amendment proposed in another session than its record's, bound to a
    todo of that session, keeps that session's todo tracking however long it is idle
    (the amendment's delivery is verified there); the record's own session, on which
    nothing kept depends, is compacted."""
    processor = PartitionProcessor(client, 0, Engine(), StoreConfig(session_retention_ms=1000))
    first = await send(client, processor, chat(SCOPE, "s1", 1, PROPOSE))
    record_id = changes(first)[0].record_id
    accept = {"record_id": record_id, "expected_revision": 1}
    await send(client, processor, call(SCOPE, "s1", 2, ACCEPT_TOOL_NAME, accept))
    await send(client, processor, chat(SCOPE, "s1", 3, "I accept this agreement."))
    amend = 'Let\'s change our agreement: mark todo "notes" as completed.'
    await send(client, processor, result(SCOPE, "s2", 1), chat(SCOPE, "s2", 2, amend))
    record = await record_history(client, 0, record_id)
    assert record is not None
    assert record.binding is None
    assert record.amendment is not None
    assert record.amendment.binding is not None
    assert record.amendment.binding.session_id == "s2"
    done = await processor.retain(now_ms=LATER_MS)
    assert (done.compacted, done.kept) == (1, 1)
    assert "c" in await session_fields(client, "s2")
    assert "c" not in await session_fields(client, "s1")
