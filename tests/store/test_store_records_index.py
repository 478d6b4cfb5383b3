"""The records index on a real Redis: kept by the commit that writes a record, by last
change and by state, bounded by the record retention, and read page by page across
partitions (docs/store.md, "The records index")."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any

import msgspec
import pytest
import redis.asyncio
from accord_harness.reading import read_new
from accord_harness.store_harness import chat

from contracts.common import AgreementState
from contracts.outputs import StateChanged
from contracts.partition import partition_of
from contracts.records import AgreementRecord
from contracts.streams import GROUP
from store import keys, record_index
from store.config import StoreConfig
from store.processor import PartitionProcessor
from store.record_index import CursorError, RecordQuery, list_records
from store.watermark import server_ms
from tests.support.commit_spy import watched_plans
from tests.support.worker_kit import gateway_xadd, process_new
from worker.engine import Engine

SCOPE = ("agent", "user")
PROPOSE = "Let's agree: use metric units in every report."


async def send(
    client: redis.asyncio.Redis, processor: PartitionProcessor[Any, Any], document: Any
) -> list[str]:
    """Apply one input document; the ids of the records it changed."""
    await gateway_xadd(client, document)
    events = await process_new(client, processor, "c")
    return [e.record_id for e in events if isinstance(e, StateChanged)]


async def members(client: redis.asyncio.Redis, key: str) -> dict[str, int]:
    raw: Any = await client.zrange(key, 0, -1, withscores=True)
    return {keys.parse_member(m)[2]: int(s) for m, s in raw}


@pytest.mark.redis
@pytest.mark.asyncio
async def test_a_record_is_indexed_by_its_last_change_and_by_its_one_state(
    client: redis.asyncio.Redis,
) -> None:
    """A proposal is scored with its commit's Redis time in `records:{p}` and in the
    proposed set; its cancellation scores it anew and moves it to the cancelled set."""
    processor = PartitionProcessor(client, 0, Engine(), StoreConfig())
    before = await server_ms(client)
    record = (await send(client, processor, chat(SCOPE, "s", 1, PROPOSE)))[0]
    after = await server_ms(client)
    proposed = await members(client, keys.records_key(0))
    assert before <= proposed[record] <= after
    assert await members(client, keys.records_state_key(0, "proposed")) == proposed
    await send(client, processor, chat(SCOPE, "s", 2, "Cancel this agreement."))
    changed = await members(client, keys.records_key(0))
    assert changed[record] >= after
    assert await members(client, keys.records_state_key(0, "cancelled")) == changed
    for state in ("proposed", "open", "fulfilled", "expired"):
        assert await client.zcard(keys.records_state_key(0, state)) == 0, state
    assert not await client.exists(keys.records_ttl_key(0)), "no TTL set without retention"


@pytest.mark.redis
@pytest.mark.asyncio
async def test_a_turn_that_writes_no_record_names_no_index_key(
    client: redis.asyncio.Redis,
) -> None:
    """An ordinary chat turn changes no record: its commit carries no index key and no
    index member, so it costs the index nothing; the turn that proposes does."""
    processor = PartitionProcessor(client, 0, Engine(), StoreConfig(record_retention_ms=60_000))
    seen = watched_plans(processor)
    await send(client, processor, chat(SCOPE, "s", 1, "What is the weather like?"))
    plan, names = seen[-1]
    assert plan.records_key is None
    assert plan.state_keys == []
    assert plan.records_ttl_key is None
    assert not [n for n in names if n.startswith("records:")]
    assert all(unit.record_index == [] for unit in plan.units)
    await send(client, processor, chat(SCOPE, "s", 2, PROPOSE))
    plan, names = seen[-1]
    assert plan.records_key is not None
    assert keys.records_ttl_key(0) in names


@pytest.mark.redis
@pytest.mark.asyncio
@pytest.mark.parametrize("planted", [keys.records_state_key(0, "open"), keys.scopes_open_key(0)])
async def test_an_index_key_of_another_type_fails_the_commit_before_any_write(
    client: redis.asyncio.Redis, planted: str
) -> None:
    """A planted string where a state set of the records index, or the open set of the
    scopes index, belongs fails the commit whole: no record, no scope, no index entry,
    nothing acked (the check runs before the first write)."""
    processor = PartitionProcessor(client, 0, Engine(), StoreConfig())
    await client.set(planted, "planted")
    await gateway_xadd(client, chat(SCOPE, "s", 1, PROPOSE))
    entries = await read_new(client, 0, GROUP, "c")
    with pytest.raises(redis.ResponseError, match="WRONGTYPE"):
        await processor.process(entries)
    assert not await client.exists(keys.scope_key(0, *SCOPE))
    assert not await client.exists(keys.records_key(0))
    assert not await client.exists(keys.scopes_key(0))
    pending: Any = await client.xpending("chat-turn:{0}", GROUP)
    assert pending["pending"] == 1


@pytest.mark.redis
@pytest.mark.asyncio
async def test_final_records_leave_the_index_when_their_retention_runs_out(
    client: redis.asyncio.Redis,
) -> None:
    """With record retention, a cancelled record is also scored with the instant its key
    expires; the retention pass removes it from every index set at that instant, not
    before, and a live record stays."""
    retention = 30_000
    processor = PartitionProcessor(client, 0, Engine(), StoreConfig(record_retention_ms=retention))
    final = (await send(client, processor, chat(SCOPE, "s", 1, PROPOSE)))[0]
    await send(client, processor, chat(SCOPE, "s", 2, "Cancel this agreement."))
    live = (await send(client, processor, chat(SCOPE, "s", 3, PROPOSE)))[0]
    changed = await members(client, keys.records_key(0))
    expiring = await members(client, keys.records_ttl_key(0))
    assert expiring == {final: changed[final] + retention}
    assert (await processor.retain(now_ms=expiring[final] - 1)).unindexed == 0
    assert final in await members(client, keys.records_key(0))
    assert (await processor.retain(now_ms=expiring[final])).unindexed == 1
    assert set(await members(client, keys.records_key(0))) == {live}
    assert await client.zcard(keys.records_state_key(0, "cancelled")) == 0
    assert set(await members(client, keys.records_state_key(0, "proposed"))) == {live}
    assert not await client.exists(keys.records_ttl_key(0))


def fake_record(record_id: str, agent_id: str, user_id: str, state: str) -> bytes:
    at = datetime(2026, 1, 1, tzinfo=UTC)
    return msgspec.json.encode(
        AgreementRecord(
            record_id=record_id, agent_id=agent_id, user_id=user_id, session_id="s",
            state=AgreementState(state), revision=1, terms="t", created_at=at,
        )
    )  # fmt: skip


async def planted_index(client: redis.asyncio.Redis, seed: int) -> list[tuple[int, int, str]]:
    """Records of nine scopes across three partitions, many sharing a millisecond (as one commit's
    records do), written to the index as commit.lua writes it; (ms, partition, id)."""
    rng = random.Random(seed)
    rows = []
    async with client.pipeline(transaction=False) as pipe:
        for n in range(150):
            agent, user = rng.choice("abc"), rng.choice("uvw")
            partition = partition_of(agent, user, 3)
            rid = f"agr-{rng.choice('0123')}{n:03d}"
            state = rng.choice(["proposed", "open", "cancelled"])
            ms = 1_000 + rng.randrange(20)
            member = keys.record_member(agent, user, rid)
            pipe.zadd(keys.records_key(partition), {member: ms})
            pipe.zadd(keys.records_state_key(partition, state), {member: ms})
            pipe.set(keys.record_key(partition, rid), fake_record(rid, agent, user, state))
            rows.append((ms, partition, member, rid, agent, user, state))
        await pipe.execute()
    return rows  # type: ignore[return-value]


def expected(rows: list[Any], query: RecordQuery) -> list[str]:
    chosen = [
        r for r in rows
        if (query.state is None or r[6] == query.state.value)
        and (query.since_ms is None or r[0] >= query.since_ms)
        and (query.until_ms is None or r[0] <= query.until_ms)
        and query.matches(r[4], r[5], r[3])
    ]  # fmt: skip
    chosen.sort(key=lambda r: r[2], reverse=True)
    chosen.sort(key=lambda r: (-r[0], r[1]))
    return [r[3] for r in chosen]


async def every_page(client: redis.asyncio.Redis, query: RecordQuery) -> list[list[str]]:
    pages, cursor = [], None
    for _ in range(500):
        page = await list_records(client, 3, query, cursor)
        pages.append([row.record_id for row in page.records])
        for row in page.records:
            assert row.record is not None
            assert row.record.record_id == row.record_id
        if page.next_cursor is None:
            return pages
        cursor = page.next_cursor
    raise AssertionError("the cursor never ran out")


QUERIES = [
    RecordQuery(limit=7),
    RecordQuery(limit=1),
    RecordQuery(state=AgreementState.OPEN, limit=5),
    RecordQuery(agent_id="a", limit=4),
    RecordQuery(agent_id="b", user_id="v", limit=3),
    RecordQuery(prefix="agr-3", limit=6),
    RecordQuery(since_ms=1_005, until_ms=1_012, state=AgreementState.CANCELLED, limit=2),
    RecordQuery(prefix="nothing", limit=5),
]


@pytest.mark.redis
@pytest.mark.asyncio
@pytest.mark.parametrize("examine", [2000, 7])
async def test_pages_list_every_match_once_newest_first_across_partitions(
    client: redis.asyncio.Redis, monkeypatch: pytest.MonkeyPatch, examine: int
) -> None:
    """Paging by cursor through any filter yields exactly the matching records, newest
    change first (ties by partition, then member), each once: also when a page may
    examine only a few members per partition (`examine` 7, reads of 3), so that pages
    stop early and show fewer rows, never a wrong or missing one."""
    monkeypatch.setattr(record_index, "EXAMINE_LIMIT", examine)
    monkeypatch.setattr(record_index, "_CHUNK", 3 if examine < 100 else 200)
    rows = await planted_index(client, seed=examine)
    for query in QUERIES:
        pages = await every_page(client, query)
        assert [rid for page in pages for rid in page] == expected(rows, query), query
        assert all(len(page) <= query.limit for page in pages)
        if examine == 2000:
            assert all(len(page) == query.limit for page in pages[:-1]), "full pages"


@pytest.mark.redis
@pytest.mark.asyncio
async def test_a_record_whose_key_is_gone_is_listed_without_it_and_a_bad_cursor_is_refused(
    client: redis.asyncio.Redis,
) -> None:
    """A member whose record key was removed (retention ahead of the pass, or by hand)
    lists with no record rather than failing the page; a cursor no page gave out raises
    CursorError."""
    await client.zadd(keys.records_key(0), {keys.record_member("a", "u", "agr-gone"): 5})
    page = await list_records(client, 1, RecordQuery())
    assert [(row.record_id, row.record) for row in page.records] == [("agr-gone", None)]
    assert page.next_cursor is None
    for bad in ("x", "bm90IGpzb24", "WzEsMl0"):
        with pytest.raises(CursorError):
            await list_records(client, 1, RecordQuery(), bad)
