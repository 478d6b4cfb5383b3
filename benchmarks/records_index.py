"""The records and scopes indexes: what a records or scopes page costs Redis on a large
store, and what keeping the indexes costs a commit.

    uv run --frozen python benchmarks/records_index.py [RECORDS] [PARTITIONS]

Part 1 (the page): RECORDS records (default 100,000) spread over PARTITIONS partitions
(default 16), written to the index and their `record:` keys as commit.lua writes them
(pipelined, not through the worker: the index's shape is what matters here), in five
states, 1,000 agents and 10 users each, with the scopes index of their scopes (each
scored by its newest record, open when one of its records is) and each scope's view
document. Then each kind of page the console and `accord records` / `accord scopes`
load is read 20 times: Redis's own time for it (the `usec` of INFO commandstats, summed
over every command the page sent), and the wall time this process saw (loopback, one
client). The median of each is printed.

Part 2 (the commit): COMMITS chat turns through the store with the real core, half of
them proposals (a record written) and half ordinary turns (no record), once with the
scopes index and once with it left out of every plan; INFO commandstats then says how
many index commands (ZADD/ZREM, the only ones the commit sends on a record-writing unit
that makes no deadline) the commits ran, and their share of the commit script's Redis
time.
Findings: docs/performance.md, "Listing records (and scopes)".
"""

# ruff: noqa: T201  (a script directory; it prints)
from __future__ import annotations

import asyncio
import random
import statistics
import sys
import time
from datetime import UTC, datetime
from typing import Any, NamedTuple

import msgspec
import redis.asyncio
from accord_harness.reading import read_new
from accord_harness.store_harness import chat, xadd

from contracts.common import AgreementState
from contracts.partition import partition_of
from contracts.records import AgreementRecord
from contracts.streams import GROUP
from contracts.view import OpenAgreement, ScopeViewDocument
from store import keys
from store.config import StoreConfig
from store.embedded import EmbeddedRedis
from store.intake import ensure_groups
from store.processor import PartitionProcessor
from store.record_index import RecordQuery, list_records
from store.scope_index import ScopeQuery, list_scopes
from store.units import UnitPlanner
from store.watermark import server_ms
from worker.engine import Engine

COMMITS = 2_000
REPEATS = 20


async def commandstats(client: redis.asyncio.Redis) -> dict[str, tuple[int, int]]:
    """command -> (calls, usec) since the last CONFIG RESETSTAT."""
    info: Any = await client.info("commandstats")
    return {
        name.removeprefix("cmdstat_"): (int(v["calls"]), int(v["usec"])) for name, v in info.items()
    }


async def plant(client: redis.asyncio.Redis, records: int, partitions: int) -> dict[str, str]:
    """The index of `records` records, newest change now, and of their scopes; one
    (agent, user) of them."""
    rng = random.Random(7)  # noqa: S311  (reproducible data, not secrets)
    states = [s.value for s in AgreementState]
    at = datetime(2026, 1, 1, tzinfo=UTC)
    now = await server_ms(client)
    sample: dict[str, str] = {}
    scopes: dict[tuple[str, str], tuple[int, bool]] = {}
    for start in range(0, records, 5_000):
        async with client.pipeline(transaction=False) as pipe:
            for n in range(start, min(start + 5_000, records)):
                agent, user = f"agent-{rng.randrange(1000)}", f"user-{rng.randrange(10)}"
                state = rng.choice(states)
                rid = f"agr-{rng.getrandbits(96):024x}"
                p = partition_of(agent, user, partitions)
                member = keys.record_member(agent, user, rid)
                ms = now - (records - n) * 50  # one change every 50 ms, oldest first
                pipe.zadd(keys.records_key(p), {member: ms})
                pipe.zadd(keys.records_state_key(p, state), {member: ms})
                record = AgreementRecord(
                    record_id=rid, agent_id=agent, user_id=user, session_id="s",
                    state=AgreementState(state), revision=3, created_at=at,
                    terms="next time we discuss a plan, start with the conclusion",
                )  # fmt: skip
                pipe.set(keys.record_key(p, rid), msgspec.json.encode(record))
                was_open = scopes.get((agent, user), (0, False))[1]
                scopes[agent, user] = (ms, was_open or state == "open")
                sample = {"agent": agent, "user": user, "prefix": rid[:7]}
            await pipe.execute()
    await plant_scopes(client, scopes, partitions)
    return sample


async def plant_scopes(
    client: redis.asyncio.Redis, scopes: dict[tuple[str, str], tuple[int, bool]], partitions: int
) -> None:
    """The scopes index as commit.lua writes it, and each scope's view document."""
    rows = list(scopes.items())
    for start in range(0, len(rows), 5_000):
        async with client.pipeline(transaction=False) as pipe:
            for (agent, user), (ms, is_open) in rows[start : start + 5_000]:
                p = partition_of(agent, user, partitions)
                member = keys.scope_member(agent, user)
                pipe.zadd(keys.scopes_key(p), {member: ms})
                if is_open:
                    pipe.zadd(keys.scopes_open_key(p), {member: ms})
                terms = "next time we discuss a plan, start with the conclusion"
                agreements = (OpenAgreement(record_id="agr-1", terms=terms),) if is_open else ()
                doc = ScopeViewDocument(agent_id=agent, user_id=user, agreements=agreements)
                pipe.hset(keys.view_key(p, agent, user), "doc", msgspec.json.encode(doc))
            await pipe.execute()


async def load(
    client: redis.asyncio.Redis,
    partitions: int,
    query: RecordQuery | ScopeQuery,
    cursor: str | None,
) -> tuple[int, str | None]:
    """One records or scopes page: (rows, the next page's cursor)."""
    if isinstance(query, RecordQuery):
        records = await list_records(client, partitions, query, cursor)
        return len(records.records), records.next_cursor
    scopes = await list_scopes(client, partitions, query, cursor)
    return len(scopes.scopes), scopes.next_cursor


async def page_cost(
    client: redis.asyncio.Redis, partitions: int, query: RecordQuery | ScopeQuery, hops: int = 0
) -> tuple[float, float, int]:
    """(median Redis ms, median wall ms, rows) of one page, `hops` pages deep."""
    cursor = None
    for _ in range(hops):
        cursor = (await load(client, partitions, query, cursor))[1]
    redis_ms, wall_ms, rows = [], [], 0
    for _ in range(REPEATS):
        await client.config_resetstat()
        started = time.perf_counter()
        rows = (await load(client, partitions, query, cursor))[0]
        wall_ms.append((time.perf_counter() - started) * 1000)
        stats = await commandstats(client)
        spent = sum(usec for name, (_, usec) in stats.items() if name != "config|resetstat")
        redis_ms.append(spent / 1000)
    return statistics.median(redis_ms), statistics.median(wall_ms), rows


async def pages(records: int, partitions: int) -> None:
    with EmbeddedRedis() as server:
        client = redis.asyncio.Redis.from_url(server.url)
        sample = await plant(client, records, partitions)
        index_bytes = 0
        for p in range(partitions):
            names = [keys.records_key(p)]
            names += [keys.records_state_key(p, s.value) for s in AgreementState]
            for name in names:
                size: Any = await client.memory_usage(name, samples=0)
                index_bytes += int(size or 0)
        scopes, scopes_bytes = 0, 0
        for p in range(partitions):
            scopes += int(await client.zcard(keys.scopes_key(p)))
            for name in (keys.scopes_key(p), keys.scopes_open_key(p)):
                size = await client.memory_usage(name, samples=0)
                scopes_bytes += int(size or 0)
        print(
            f"{records} records in {partitions} partitions;"
            f" the index: {index_bytes / records:.0f} B a record (both sets);"
            f" {scopes} scopes, their index {scopes_bytes / scopes:.0f} B a scope"
        )
        hour_ago = await server_ms(client) - 3_600_000
        scope = RecordQuery(agent_id=sample["agent"], user_id=sample["user"])
        kinds: list[tuple[str, RecordQuery | ScopeQuery, int]] = [
            ("newest 50", RecordQuery(), 0),
            ("newest 50, 20 pages deep", RecordQuery(), 20),
            ("state open, 50", RecordQuery(state=AgreementState.OPEN), 0),
            ("changed in the last hour, 50", RecordQuery(since_ms=hour_ago), 0),
            ("one agent (0.1% of records)", RecordQuery(agent_id=sample["agent"]), 0),
            ("one scope (agent and user)", scope, 0),
            ("id prefix of 3 hex digits", RecordQuery(prefix=sample["prefix"]), 0),
            ("scopes: newest 50", ScopeQuery(), 0),
            ("scopes: newest 50, 20 pages deep", ScopeQuery(), 20),
            ("scopes: holding an open agreement, 50", ScopeQuery(open=True), 0),
            ("scopes: changed in the last hour, 50", ScopeQuery(since_ms=hour_ago), 0),
            ("scopes: one agent (0.1% of scopes)", ScopeQuery(agent_id=sample["agent"]), 0),
            ("scopes: one user (10% of scopes)", ScopeQuery(user_id=sample["user"]), 0),
        ]  # fmt: skip
        print("| page | rows | Redis ms (median) | wall ms (median) |")
        print("|---|---|---|---|")
        for name, query, hops in kinds:
            redis_ms, wall_ms, rows = await page_cost(client, partitions, query, hops)
            print(f"| {name} | {rows} | {redis_ms:.2f} | {wall_ms:.2f} |")
        await client.aclose()


class CommitCost(NamedTuple):
    scripts_usec: int
    index_calls: int
    index_usec: int
    records: int


async def commits(*, scopes_index: bool) -> CommitCost:
    if scopes_index:
        return await _commits()
    # Every plan as the commit made it before the scopes index: no scopes key named.
    inner = UnitPlanner.scope_writes

    def without(self: Any, plan: Any, *args: Any, **kwargs: Any) -> int:  # noqa: ANN401
        size = inner(self, plan, *args, **kwargs)
        plan.scope_member = None
        return size

    UnitPlanner.scope_writes = without  # type: ignore[method-assign]
    try:
        return await _commits()
    finally:
        UnitPlanner.scope_writes = inner  # type: ignore[method-assign]


async def _commits() -> CommitCost:
    with EmbeddedRedis() as server:
        client = redis.asyncio.Redis.from_url(server.url)
        await ensure_groups(client, [0], GROUP)
        processor = PartitionProcessor(client, 0, Engine(), StoreConfig())
        for index in range(COMMITS):
            scope = (f"agent-{index}", "user")
            text = "Let's agree: use metric units." if index % 2 else "What time is it?"
            await xadd(client, chat(scope, "s", 1, text), 1)
        await client.config_resetstat()
        while entries := await read_new(client, 0, GROUP, "bench", count=100):
            await processor.process(entries)
        stats = await commandstats(client)
        records = int(await client.zcard(keys.records_key(0)))
        await client.aclose()
    return CommitCost(
        stats.get("evalsha", (0, 0))[1],
        sum(stats.get(c, (0, 0))[0] for c in ("zadd", "zrem")),
        sum(stats.get(c, (0, 0))[1] for c in ("zadd", "zrem")),
        records,
    )


def commit_costs(rounds: int = 5) -> None:
    """Both settings, alternated `rounds` times (a busy machine drifts); medians."""
    runs: dict[bool, list[CommitCost]] = {False: [], True: []}
    for _ in range(rounds):
        for with_scopes in (False, True):
            runs[with_scopes].append(asyncio.run(commits(scopes_index=with_scopes)))
    print(f"{COMMITS} chat turns, every other one a proposal, commits of 100; medians of {rounds}")
    print("| scopes index | index ZADD/ZREM a record | µs a record | share of the scripts |")
    print("|---|---|---|---|")
    for with_scopes, costs in runs.items():
        records = costs[0].records
        calls = statistics.median(c.index_calls for c in costs) / records
        usec = statistics.median(c.index_usec for c in costs) / records
        share = statistics.median(c.index_usec / max(c.scripts_usec, 1) for c in costs)
        name = "kept" if with_scopes else "left out"
        print(f"| {name} | {calls:.1f} | {usec:.2f} | {share:.1%} |")


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    parts = int(sys.argv[2]) if len(sys.argv) > 2 else 16
    asyncio.run(pages(count, parts))
    commit_costs()
