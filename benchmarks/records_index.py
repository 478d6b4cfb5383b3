"""The records index: what a records page costs Redis on a large store, and what keeping
the index costs a commit.

    uv run --frozen python benchmarks/records_index.py [RECORDS] [PARTITIONS]

Part 1 (the page): RECORDS records (default 100,000) spread over PARTITIONS partitions
(default 16), written to the index and their `record:` keys as commit.lua writes them
(pipelined, not through the worker: the index's shape is what matters here), in five
states, 1,000 agents and 10 users each. Then each kind of page the console and
`accord records` load is read 20 times: Redis's own time for it (the `usec` of INFO
commandstats, summed over every command the page sent), and the wall time this process
saw (loopback, one client). The median of each is printed.

Part 2 (the commit): COMMITS chat turns through the store with the real core, half of
them proposals (a record written) and half ordinary turns (no record); INFO
commandstats then says how many index commands (ZADD/ZREM, the only ones the commit
sends on a record-writing unit that makes no deadline) the commits ran, and their share of
the commit script's Redis time.
Findings: docs/performance.md, "Listing records".
"""

# ruff: noqa: T201  (a script directory; it prints)
from __future__ import annotations

import asyncio
import random
import statistics
import sys
import time
from datetime import UTC, datetime
from typing import Any

import msgspec
import redis.asyncio
from accord_harness.reading import read_new
from accord_harness.store_harness import chat, xadd

from contracts.common import AgreementState
from contracts.partition import partition_of
from contracts.records import AgreementRecord
from contracts.streams import GROUP
from store import keys
from store.config import StoreConfig
from store.embedded import EmbeddedRedis
from store.intake import ensure_groups
from store.processor import PartitionProcessor
from store.record_index import RecordQuery, list_records
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
    """The index of `records` records, newest change now; one (agent, user) of them."""
    rng = random.Random(7)  # noqa: S311  (reproducible data, not secrets)
    states = [s.value for s in AgreementState]
    at = datetime(2026, 1, 1, tzinfo=UTC)
    now = await server_ms(client)
    sample: dict[str, str] = {}
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
                sample = {"agent": agent, "user": user, "prefix": rid[:7]}
            await pipe.execute()
    return sample


async def page_cost(
    client: redis.asyncio.Redis, partitions: int, query: RecordQuery, hops: int = 0
) -> tuple[float, float, int]:
    """(median Redis ms, median wall ms, rows) of one page, `hops` pages deep."""
    cursor = None
    for _ in range(hops):
        cursor = (await list_records(client, partitions, query, cursor)).next_cursor
    redis_ms, wall_ms, rows = [], [], 0
    for _ in range(REPEATS):
        await client.config_resetstat()
        started = time.perf_counter()
        page = await list_records(client, partitions, query, cursor)
        wall_ms.append((time.perf_counter() - started) * 1000)
        stats = await commandstats(client)
        spent = sum(usec for name, (_, usec) in stats.items() if name != "config|resetstat")
        redis_ms.append(spent / 1000)
        rows = len(page.records)
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
        print(
            f"{records} records in {partitions} partitions;"
            f" the index: {index_bytes / records:.0f} B a record (both sets)"
        )
        hour_ago = await server_ms(client) - 3_600_000
        scope = RecordQuery(agent_id=sample["agent"], user_id=sample["user"])
        kinds = [
            ("newest 50", RecordQuery(), 0),
            ("newest 50, 20 pages deep", RecordQuery(), 20),
            ("state open, 50", RecordQuery(state=AgreementState.OPEN), 0),
            ("changed in the last hour, 50", RecordQuery(since_ms=hour_ago), 0),
            ("one agent (0.1% of records)", RecordQuery(agent_id=sample["agent"]), 0),
            ("one scope (agent and user)", scope, 0),
            ("id prefix of 3 hex digits", RecordQuery(prefix=sample["prefix"]), 0),
        ]  # fmt: skip
        print("| page | rows | Redis ms (median) | wall ms (median) |")
        print("|---|---|---|---|")
        for name, query, hops in kinds:
            redis_ms, wall_ms, rows = await page_cost(client, partitions, query, hops)
            print(f"| {name} | {rows} | {redis_ms:.2f} | {wall_ms:.2f} |")
        await client.aclose()


async def commits() -> None:
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
        script = stats.get("evalsha", (0, 0))
        index_calls = sum(stats.get(c, (0, 0))[0] for c in ("zadd", "zrem"))
        index_usec = sum(stats.get(c, (0, 0))[1] for c in ("zadd", "zrem"))
        records = await client.zcard(keys.records_key(0))
        print(f"{COMMITS} turns in {script[0]} commits (batches of 100), {records} records written")
        print(f"commit scripts: {script[1] / 1000:.1f} ms of Redis time in all")
        print(
            f"index ZADD/ZREM: {index_calls} calls ({index_calls / max(records, 1):.1f} a record),"
            f" {index_usec / 1000:.1f} ms ({index_usec / max(script[1], 1):.1%} of the scripts),"
            f" {index_usec / max(records, 1):.2f} µs a record"
        )
        await client.aclose()


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    parts = int(sys.argv[2]) if len(sys.argv) > 2 else 16
    asyncio.run(pages(count, parts))
    asyncio.run(commits())
