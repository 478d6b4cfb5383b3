"""The scopes index on a real Redis: kept by the commit that writes a scope's state (its
records changed), not by a plain turn; the open-agreement set; bounded by the record
retention, atomically against a commit; read page by page across partitions
(docs/store.md, "The scopes index")."""

from __future__ import annotations

import random
from typing import Any

import pytest
import redis.asyncio
from accord_harness.store_harness import chat, conversation

from contracts.partition import partition_of
from store import keys, scope_index
from store.config import StoreConfig
from store.index_pages import CursorError
from store.processor import PartitionProcessor
from store.scope_index import ScopeQuery, list_scopes
from store.watermark import server_ms
from tests.support.commit_spy import watched_plans
from tests.support.worker_kit import gateway_xadd, process_new
from worker.engine import Engine

SCOPE = ("agent", "user")
MEMBER = keys.scope_member(*SCOPE)
PROPOSE = "Let's agree: use metric units in every report."


async def send(
    client: redis.asyncio.Redis, processor: PartitionProcessor[Any, Any], document: Any
) -> None:
    await gateway_xadd(client, document)
    await process_new(client, processor, "c")


async def score(client: redis.asyncio.Redis, key: str, member: str = MEMBER) -> int | None:
    found: Any = await client.zscore(key, member)
    return None if found is None else int(found)


@pytest.mark.redis
@pytest.mark.asyncio
async def test_a_scope_moves_with_its_records_and_not_with_a_plain_turn(
    client: redis.asyncio.Redis,
) -> None:
    """The proposal scores the scope with its commit's Redis time; the acceptances (R4)
    move it again and into the open set; a chat turn after that names no scopes key and
    leaves its score; a cancellation (R8) moves it again and out of the open set."""
    processor = PartitionProcessor(client, 0, Engine(), StoreConfig())
    seen = watched_plans(processor)
    documents = conversation(SCOPE, "s")
    scores = []
    for document in documents:
        before = await server_ms(client)
        await send(client, processor, document)
        scores.append((before, await score(client, keys.scopes_key(0))))
    proposal = next(i for i, d in enumerate(documents) if "agree:" in d.get("text", ""))
    assert scores[proposal - 1][1] is None, "no scope before its first record"
    first = scores[proposal][1]
    assert first is not None
    assert first >= scores[proposal][0]
    assert await score(client, keys.scopes_open_key(0)) == scores[-1][1], "open after both"
    plan, names = seen[-1]  # the small talk after the confirmation
    assert plan.scopes_key is None
    assert not [n for n in names if n.startswith("scopes:")]
    assert scores[-1][1] == scores[-2][1], "a plain turn does not move the scope"
    last = len(documents) + 1
    changed = await server_ms(client)
    await send(client, processor, chat(SCOPE, "s", last, "Cancel this agreement."))
    cancelled = await score(client, keys.scopes_key(0))
    assert cancelled is not None
    assert cancelled >= changed
    assert await score(client, keys.scopes_open_key(0)) is None
    assert not await client.exists(keys.scopes_ttl_key(0)), "no removal set without retention"


@pytest.mark.redis
@pytest.mark.asyncio
async def test_a_scope_keeping_no_record_leaves_the_index_with_its_records_keys(
    client: redis.asyncio.Redis,
) -> None:
    """With record retention, a scope whose last change left it keeping no record (its
    proposal cancelled) is scored for removal at the instant the cancelled record's key
    expires; the retention pass removes it then, not before. A scope that proposes again
    before that leaves the removal set, and the pass leaves it listed."""
    retention = 30_000
    config = StoreConfig(record_retention_ms=retention)
    processor = PartitionProcessor(client, 0, Engine(), config)
    other = ("agent", "other")
    for scope in (SCOPE, other):
        await send(client, processor, chat(scope, "s", 1, PROPOSE))
        await send(client, processor, chat(scope, "s", 2, "Cancel this agreement."))
    changed = await score(client, keys.scopes_key(0))
    due = await score(client, keys.scopes_ttl_key(0))
    assert changed is not None
    assert due == changed + retention
    record_id = (await client.zrange(keys.records_key(0), 0, 0))[0]
    assert record_id, "the cancelled record is listed meanwhile"
    await send(client, processor, chat(other, "s", 3, PROPOSE))
    assert await score(client, keys.scopes_ttl_key(0), keys.scope_member(*other)) is None
    assert (await processor.retain(now_ms=due - 1)).scopes_unindexed == 0
    assert await score(client, keys.scopes_key(0)) == changed
    assert (await processor.retain(now_ms=due + retention)).scopes_unindexed == 1
    left: Any = await client.zrange(keys.scopes_key(0), 0, -1)
    assert [keys.parse_scope_member(m) for m in left] == [other]
    assert not await client.exists(keys.scopes_ttl_key(0))


async def planted_index(client: redis.asyncio.Redis, seed: int) -> list[Any]:
    """Scopes across three partitions, many sharing a millisecond (as one commit's do),
    some open, written to the index as commit.lua writes it; one row per scope."""
    rng = random.Random(seed)
    rows = []
    async with client.pipeline(transaction=False) as pipe:
        for n in range(120):
            agent, user = rng.choice("abc"), f"u{n:03d}"
            partition = partition_of(agent, user, 3)
            member = keys.scope_member(agent, user)
            ms, is_open = 1_000 + rng.randrange(20), rng.random() < 0.4
            pipe.zadd(keys.scopes_key(partition), {member: ms})
            if is_open:
                pipe.zadd(keys.scopes_open_key(partition), {member: ms})
            rows.append((ms, partition, member.encode(), agent, user, is_open))
        await pipe.execute()
    return rows


def expected(rows: list[Any], query: ScopeQuery) -> list[tuple[str, str]]:
    chosen = [
        r for r in rows
        if (not query.open or r[5])
        and (query.since_ms is None or r[0] >= query.since_ms)
        and (query.until_ms is None or r[0] <= query.until_ms)
        and query.in_scope(r[3], r[4])
    ]  # fmt: skip
    chosen.sort(key=lambda r: r[2], reverse=True)
    chosen.sort(key=lambda r: (-r[0], r[1]))
    return [(r[3], r[4]) for r in chosen]


QUERIES = [
    ScopeQuery(limit=7),
    ScopeQuery(limit=1, open=True),
    ScopeQuery(agent_id="a", limit=4),
    ScopeQuery(user_id="u007", limit=3),
    ScopeQuery(agent_id="b", user_id="u010", limit=3),
    ScopeQuery(since_ms=1_005, until_ms=1_012, open=True, limit=2),
    ScopeQuery(agent_id="nobody", limit=5),
]


@pytest.mark.redis
@pytest.mark.asyncio
@pytest.mark.parametrize("examine", [2000, 7])
async def test_pages_list_every_matching_scope_once_newest_first_across_partitions(
    client: redis.asyncio.Redis, monkeypatch: pytest.MonkeyPatch, examine: int
) -> None:
    """Paging by cursor through any filter yields exactly the matching scopes, newest
    change first (ties by partition, then member), each once, also when a page may
    examine only a few members (`examine` 7, reads of 3); a scope without a view
    document lists without it; a cursor no page gave out raises CursorError."""
    monkeypatch.setattr(scope_index, "EXAMINE_LIMIT", examine)
    monkeypatch.setattr(scope_index, "_CHUNK", 3 if examine < 100 else 200)
    rows = await planted_index(client, seed=examine)
    for query in QUERIES:
        shown, cursor = [], None
        for _ in range(500):
            page = await list_scopes(client, 3, query, cursor)
            assert len(page.scopes) <= query.limit
            assert all(row.view is None for row in page.scopes)
            shown += [(row.agent_id, row.user_id) for row in page.scopes]
            if page.next_cursor is None:
                break
            cursor = page.next_cursor
        assert shown == expected(rows, query), query
    with pytest.raises(CursorError):
        await list_scopes(client, 3, ScopeQuery(), "x")
