# ruff: noqa: T201  (a benchmark prints its figures)
"""How long `accord worker -n 2` takes from its first partition lease to fair shares.

Usage: `uv run --frozen python benchmarks/worker_join.py [runs]` (default 5). Each run
starts `accord worker -n 2` on an embedded Redis with 4 partitions and no backlog, and
polls the leases every 10 ms: the time from the first lease held to 2/2, and from the
start to 2/2 (process start-up included). The first child to beat holds every
partition until it sees the other; docs/performance.md, "Scaling by partition
ownership".
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from accord_harness.bench.endtoend import Workers
from redis.asyncio import Redis

from contracts.streams import GROUP
from store import ownership
from store.embedded import EmbeddedRedis
from store.intake import ensure_groups

PARTITIONS = 4


async def owners(redis: Redis) -> list[str]:
    found = []
    for partition in range(PARTITIONS):
        token, _ = await ownership.lease_of(redis, partition)
        found.append(ownership.owner_consumer(token))
    return found


async def once(redis: Redis, url: str, logs: Path) -> tuple[float, float]:
    """(first lease -> 2/2, start -> 2/2) in seconds."""
    await redis.flushall()
    await ensure_groups(redis, range(PARTITIONS), GROUP)
    workers = Workers(url, PARTITIONS, 2, logs, "supervised")
    started = time.perf_counter()
    workers.start()
    first: float | None = None
    try:
        while True:
            held = await owners(redis)
            now = time.perf_counter()
            if first is None and any(held):
                first = now
            shares = Counter(owner for owner in held if owner)
            if all(held) and sorted(shares.values()) == [2, 2]:
                assert first is not None
                return now - first, now - started
            if not workers.alive():
                raise RuntimeError("accord worker -n 2 ended")
            await asyncio.sleep(0.01)
    finally:
        workers.stop()


async def main(runs: int) -> None:
    with EmbeddedRedis() as server, tempfile.TemporaryDirectory() as logs:
        redis = Redis.from_url(server.url)
        try:
            measured = [await once(redis, server.url, Path(logs)) for _ in range(runs)]
        finally:
            await redis.aclose()
    handover = [m[0] for m in measured]
    total = [m[1] for m in measured]
    print(f"first lease -> 2/2: median {statistics.median(handover):.2f} s", end=" ")
    print("(" + ", ".join(f"{s:.2f}" for s in handover) + ")")
    print(f"start -> 2/2:       median {statistics.median(total):.2f} s", end=" ")
    print("(" + ", ".join(f"{s:.2f}" for s in total) + ")")


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 5))
