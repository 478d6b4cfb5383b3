"""Redis memory per idle session (DESIGN section 5: <= 1 KB), measured with MEMORY USAGE.

    uv run --frozen python benchmarks/store_memory.py [SESSIONS] [HASH_MAX_ZIPLIST_VALUE]

Drives SESSIONS sessions (ten per scope) through the store with the real core: a todo
snapshot of three items, a proposal bound to one of them, the agent's and the user's
acceptance. Then every session is idle (nothing parked, no gap) and the script prints
what its keys cost, per session, per scope and per record, and the whole database's
`used_memory` growth per session (streams and records included) for comparison.

Then every session delivers its bound todo (a successful `todo_write` marking it
completed: the agreement is fulfilled, R12), through a processor with the session and
record retention on (docs/store.md, "Retention"), and the sweeper's compaction runs as
if the retention had passed: the script prints what a compacted session costs, and how
many records carry a time to live.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
from typing import Any

import redis.asyncio
from accord_harness.reading import read_new
from accord_harness.store_harness import TODOS, conversation, result, xadd

from contracts.streams import GROUP
from store import keys
from store.config import StoreConfig
from store.embedded import EmbeddedRedis
from store.intake import ensure_groups
from store.processor import PartitionProcessor
from worker.engine import Engine


async def usage(client: redis.asyncio.Redis, pattern: str) -> list[int]:
    sizes = []
    async for key in client.scan_iter(match=pattern, count=1000):
        size: Any = await client.memory_usage(key, samples=0)
        sizes.append(int(size))
    return sizes


def line(name: str, sizes: list[int]) -> str:
    return f"| {name} | {len(sizes)} | {statistics.mean(sizes):.0f} | {min(sizes)} | {max(sizes)} |"


async def main(sessions: int, ziplist_value: int | None) -> None:
    args = () if ziplist_value is None else ("--hash-max-ziplist-value", str(ziplist_value))
    with EmbeddedRedis(extra_args=args) as server:
        client = redis.asyncio.Redis.from_url(server.url)
        await ensure_groups(client, [0], GROUP)
        processor = PartitionProcessor(client, 0, Engine(), StoreConfig())
        info: Any = await client.info("memory")
        before = int(info["used_memory"])
        for index in range(sessions):
            scope = (f"agent-{index // 10}", f"user-{index // 10}")
            for document in conversation(scope, f"session-{index:06d}"):
                await xadd(client, document, 1)
            while entries := await read_new(client, 0, GROUP, "bench", count=100):
                await processor.process(entries)
        info = await client.info("memory")
        after = int(info["used_memory"])
        assert not await client.zcard(keys.gaps_key(0)), "every session is idle"
        out: list[str] = []
        config: Any = await client.config_get("hash-max-ziplist-value")
        out.append(
            f"sessions: {sessions}, hash-max-ziplist-value: {config['hash-max-ziplist-value']}"
        )
        out.append("| key | count | mean bytes | min | max |")
        out.append("|---|---|---|---|---|")
        out.append(line("session hash (per idle session)", await usage(client, "session:*")))
        out.append(line("scope hash (per scope)", await usage(client, "scope:*")))
        out.append(line("record (per record)", await usage(client, "record:*")))
        out.append(f"parked keys: {len(await usage(client, 'parked:*'))}")
        out.append(
            f"used_memory growth per session, everything: {(after - before) / sessions:.0f} B"
        )
        out += await compacted(client, sessions)
        sys.stdout.write("\n".join(out) + "\n")
        await client.aclose()


async def compacted(client: redis.asyncio.Redis, sessions: int) -> list[str]:
    """Fulfil every agreement with retention on, compact, and measure again."""
    config = StoreConfig(session_retention_ms=1, record_retention_ms=30 * 86_400_000)
    processor = PartitionProcessor(client, 0, Engine(), config)
    for index in range(sessions):
        scope = (f"agent-{index // 10}", f"user-{index // 10}")
        session_id = f"session-{index:06d}"
        delivery = result(scope, session_id, len(conversation(scope, session_id)) + 1)
        done_first = {**TODOS[0], "status": "completed"}
        delivery["todos"] = [done_first, *TODOS[1:]]
        await xadd(client, delivery, 1)
    while entries := await read_new(client, 0, GROUP, "bench", count=100):
        await processor.process(entries)
    done = 0
    while step := (await processor.retain(now_ms=2**50)).compacted:
        done += step
    with_ttl = 0
    async for key in client.scan_iter(match="record:*", count=1000):
        with_ttl += int(await client.pttl(key)) > 0
    return [
        f"after a delivery each and the session retention: {done} sessions compacted",
        line("session hash (per compacted session)", await usage(client, "session:*")),
        f"records with a time to live (record retention): {with_ttl}",
    ]


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    asyncio.run(main(count, int(sys.argv[2]) if len(sys.argv) > 2 else None))
