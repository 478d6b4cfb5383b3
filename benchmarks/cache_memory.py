"""Memory the store's state cache keeps, per session (tracemalloc, no Redis figures).

    uv run --frozen python benchmarks/cache_memory.py [SESSIONS]

The worker as `accord worker` builds it (one partition) drains SESSIONS sessions of the
bench workload (two blocks each) twice, once with the state cache large enough to keep
every session and once with it off; the difference in memory still allocated after the
drain, divided by SESSIONS, is what a cached session costs with its share of scope
state. It also prints what the cache's byte budget (`ACCORD_STATE_CACHE_MB`) counts the
kept snapshots as, against that measured difference. Findings: docs/operations.md,
"Resources" and "Memory model".
"""

# ruff: noqa: T201  (a script directory, not a package; it prints its report)
from __future__ import annotations

import asyncio
import logging
import sys
import tracemalloc
from typing import Any

import structlog
from accord_harness.bench.endtoend import backlog, until_acked
from accord_harness.bench.workload import build
from redis.asyncio import Redis

from store.embedded import EmbeddedRedis
from store.processor import PartitionProcessor
from worker.app import build_worker, store_partition
from worker.settings import Settings


async def retained_bytes(sessions: int, cache_size: int) -> tuple[int, int]:
    """The bytes still allocated after the drain, and what the byte budget counts."""
    workload = build(sessions=sessions, blocks=2, partitions=1)
    with EmbeddedRedis() as server:
        redis = Redis.from_url(server.url)
        ids = await backlog(redis, workload)
        settings = Settings(redis_url=server.url, metrics_port=0, consumer="memory").replaced(
            cache_size=cache_size, cache_bytes=0
        )
        made: list[PartitionProcessor[Any, Any]] = []

        def partition(redis: Any, p: int, settings: Settings) -> Any:  # noqa: ANN401
            port = store_partition(redis, p, settings)
            made.append(port)
            return port

        worker = build_worker(settings, partition)
        tracemalloc.start()
        await worker.start()
        await until_acked(redis, ids, len(workload.documents), poll_s=0.05)
        retained, _ = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        counted = sum(port.state.cache.bytes for port in made)
        await worker.stop()
        await redis.aclose()
    return retained, counted


def main(sessions: int) -> None:
    kept, counted = asyncio.run(retained_bytes(sessions, cache_size=sessions * 2))
    off, _ = asyncio.run(retained_bytes(sessions, cache_size=0))
    print(
        f"{sessions} sessions: {kept / 1e6:.1f} MB retained with the cache, {off / 1e6:.1f} MB"
        f" without; {(kept - off) / sessions:,.0f} B per cached session and its scope share;"
        f" the byte budget counts {counted / 1e6:.1f} MB"
        f" ({counted / max(kept - off, 1):.2f} x the measured difference)"
    )


if __name__ == "__main__":
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 4000)
