# ruff: noqa: T201  (a script directory, not a package; a benchmark prints)
"""What the durability setting costs: the store's commits with and without WAIT.

    uv run --frozen python benchmarks/durability_cost.py [ENTRIES] [ROUNDS]

A real primary and a real replica on loopback (no added network delay: on a network,
add its round trip to the primary-replica link to every durable commit). The input is
store_throughput.py's chat (200 sessions, a proposal in one user turn of ten), handed to
`PartitionProcessor.process` with the real core, in reads of 100 entries (a backlog)
and of one entry (the latency of one live turn). `wait_replicas` 0 and 1 alternate in
each round; prints entries/s, ms per one-entry batch and their ratios, median of ROUNDS.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time

import redis.asyncio
from accord_harness.reading import read_new
from store_throughput import documents, fill

from contracts.streams import GROUP
from store.config import StoreConfig
from store.embedded import EmbeddedRedis
from store.processor import PartitionProcessor
from worker.engine import Engine


async def run(client: redis.asyncio.Redis, count: int, wait: int, read: int) -> float:
    """Seconds to process `count` entries read `read` at a time."""
    processor = PartitionProcessor(
        client, 0, Engine(), StoreConfig(wait_replicas=wait, wait_timeout_ms=5_000)
    )
    done, started = 0, time.perf_counter()
    while done < count:
        entries = await read_new(client, 0, GROUP, "bench", count=read)
        if not entries:
            break
        await processor.process(entries)
        done += len(entries)
    return time.perf_counter() - started


async def main(count: int, rounds: int) -> None:
    docs = documents(count)
    with EmbeddedRedis() as primary:
        replica = EmbeddedRedis(extra_args=("--replicaof", "127.0.0.1", str(primary.port)))
        with replica:
            client = redis.asyncio.Redis.from_url(primary.url)
            # Polled: the replica's link is Redis's to report, no event to wait on.
            while int((await client.info("replication"))["connected_slaves"]) < 1:  # noqa: ASYNC110
                await asyncio.sleep(0.05)
            backlog: dict[int, list[float]] = {0: [], 1: []}
            single: dict[int, list[float]] = {0: [], 1: []}
            singles = min(count, 2_000)
            for _ in range(rounds):
                for wait in (0, 1):
                    await fill(client, docs)
                    backlog[wait].append(count / await run(client, count, wait, 100))
                    await fill(client, docs[:singles])
                    single[wait].append(1000 * await run(client, singles, wait, 1) / singles)
            await client.aclose()
    off, on = statistics.median(backlog[0]), statistics.median(backlog[1])
    print(f"backlog, reads of 100: off {off:,.0f} entries/s, on {on:,.0f} ({on / off:.2f}x)")
    off, on = statistics.median(single[0]), statistics.median(single[1])
    print(f"one entry a batch: off {off:.3f} ms, on {on:.3f} ms ({on / off:.2f}x)")


if __name__ == "__main__":
    asyncio.run(
        main(
            int(sys.argv[1]) if len(sys.argv) > 1 else 20_000,
            int(sys.argv[2]) if len(sys.argv) > 2 else 3,
        )
    )
