"""Deadline index, watermark-gated expiry, and the store's reads (R6, R9, DESIGN section 3).

History time of an expiry is the deadline; a sweep runs only below the partition's
watermark, so an input written before a deadline is applied before its record expires.
"""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from typing import Any

import pytest
import redis.asyncio
from accord_harness.reading import read_new
from accord_harness.store_harness import chat

from contracts.codec import Limits
from contracts.common import AgreementState, Cause
from contracts.outputs import described
from contracts.streams import GROUP
from store import keys
from store.config import StoreConfig
from store.processor import PartitionProcessor
from store.reads import record_history, session_view
from store.watermark import server_ms, watermark_ms
from tests.support.fake_core import FakeCore

pytestmark = [pytest.mark.redis, pytest.mark.asyncio]

SCOPE = ("agent", "user")
DEADLINE_MS = 5_000


async def write_at(client: redis.asyncio.Redis, ms: int, document: dict[str, Any]) -> None:
    """XADD with an explicit entry id, so the entry's time is known."""
    await client.xadd("chat-turn:{0}", {"__data__": json.dumps(document)}, id=f"{ms}-0")


def store(client: redis.asyncio.Redis) -> PartitionProcessor[Any, Any]:
    # Entries here are stored at made-up instants of 1970 (explicit ids), far from their
    # `ts`: the ts window is measured from the entry id, so it is opened wide.
    any_ts = Limits(max_ts_behind_s=2**40, max_ts_ahead_s=2**40)
    return PartitionProcessor(client, 0, FakeCore(), StoreConfig(limits=any_ts))


async def propose(
    client: redis.asyncio.Redis, later: dict[str, Any] | None = None
) -> PartitionProcessor[Any, Any]:
    """The store after a proposal due at 5 s, written at 1 s and applied; then `later`
    written at 2 s, not yet read."""
    processor = store(client)
    await write_at(client, 1_000, chat(SCOPE, "s", 1, f"propose tea deadline={DEADLINE_MS}"))
    await processor.process(await read_new(client, 0, GROUP, "c"))
    if later is not None:
        await write_at(client, 2_000, later)
    return processor


async def test_a_proposal_with_a_deadline_enters_the_index(client: redis.asyncio.Redis) -> None:
    """R9: the deadline index holds the record with its deadline in ms."""
    await propose(client)
    index: Any = await client.zrange(keys.deadlines_key(0), 0, -1, withscores=True)
    assert [(keys.parse_member(m), int(score)) for m, score in index] == [
        (("agent", "user", "s/1"), DEADLINE_MS)
    ]


async def test_sweep_expires_once_with_the_deadline_as_history_time(
    client: redis.asyncio.Redis,
) -> None:
    """R9: the record becomes expired exactly once; its history time is the deadline."""
    processor = await propose(client)
    events = await processor.sweep_expired()
    assert [described(e.event_id) for e in events] == ["s/1@2"]
    assert await processor.sweep_expired() == [], "a second sweep finds nothing"
    assert await client.zcard(keys.deadlines_key(0)) == 0
    assert await client.xlen(keys.events_stream(0)) == 2
    record = await record_history(client, 0, "s/1")
    assert record is not None
    assert record.state is AgreementState.EXPIRED
    assert [(h.revision, h.cause) for h in record.history] == [
        (1, Cause.PROPOSED),
        (2, Cause.DEADLINE_REACHED),
    ]
    assert record.history[-1].at == datetime.fromtimestamp(DEADLINE_MS / 1000, tz=UTC)


async def test_no_expiry_while_an_input_written_before_the_deadline_is_pending(
    client: redis.asyncio.Redis,
) -> None:
    """Watermark: an entry written at 2 s and still pending holds back a 5 s deadline."""
    processor = await propose(client, later=chat(SCOPE, "s", 2, "hello"))
    entries = await read_new(client, 0, GROUP, "c")  # delivered, not yet applied
    assert await watermark_ms(client, 0, GROUP) == 2_000
    assert await processor.sweep_expired() == []
    await processor.process(entries)
    assert await watermark_ms(client, 0, GROUP) >= await server_ms(client) - 1_000
    assert [described(e.event_id) for e in await processor.sweep_expired()] == ["s/1@2"]


async def test_undelivered_and_parked_entries_hold_the_watermark_too(
    client: redis.asyncio.Redis,
) -> None:
    """Watermark: an entry not yet read, or parked behind a gap, counts as unapplied."""
    processor = await propose(client, later=chat(SCOPE, "s", 3, "early"))
    assert await watermark_ms(client, 0, GROUP) == 2_000, "undelivered"
    await processor.process(await read_new(client, 0, GROUP, "c"))
    assert await client.zcard(keys.gaps_key(0)) == 1
    assert await watermark_ms(client, 0, GROUP) == 2_000, "parked"
    assert await processor.sweep_expired() == []


async def test_session_view_reads_the_scope_through_the_core(client: redis.asyncio.Redis) -> None:
    """R6: the view lists the session's pending proposal, until its deadline."""
    await propose(client)
    before = datetime.fromtimestamp(4, tz=UTC)
    view = await session_view(
        client, FakeCore(), 1, agent_id="agent", user_id="user", session_id="s", as_of=before
    )
    assert [p.record_id for p in view.pending_proposals] == ["s/1"]
    other = await session_view(
        client, FakeCore(), 1, agent_id="agent", user_id="user", session_id="t", as_of=before
    )
    assert other.pending_proposals == ()
    assert await record_history(client, 0, "missing") is None


async def test_two_workers_sweeping_at_once_expire_a_record_once(
    client: redis.asyncio.Redis,
) -> None:
    """R9, R15: concurrent sweeps race on the scope version; one expiry event in all."""
    first = await propose(client)
    second = store(client)
    results = await asyncio.gather(*(p.sweep_expired() for p in (first, second, first, second)))
    assert sorted(described(e.event_id) for events in results for e in events) == ["s/1@2"]
    assert await client.xlen(keys.events_stream(0)) == 2
