"""A worker process's peak RSS after draining many sessions, against the same worker
after a small drain (its baseline, in the same run).

    uv run --frozen python benchmarks/worker_rss.py [SESSIONS] [CACHE_SESSIONS]

One `accord worker` process (as shipped, two partitions) drains SESSIONS sessions of the
production shape (accord_harness/bench/workload.py, real-length chat, one block each:
a user turn, the answer, a `todo_write` call and result; one session in five with an
agreement flow), written before it starts. CACHE_SESSIONS sets
ACCORD_STATE_CACHE_SIZE (per partition; default: as shipped) and lifts the cache's byte
budget with it, so every session's state can stay. Prints the peak RSS (VmHWM) of the
drain of SESSIONS and of 1,000 sessions, and their difference per session.
"""

# ruff: noqa: T201  (a script directory, not a package; it prints its report)
from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

from accord_harness.bench.endtoend import Workers, drain_rate, drain_start, held_backlog, release
from accord_harness.bench.workload import build
from redis.asyncio import Redis

from store.embedded import EmbeddedRedis

PARTITIONS = 2


async def peak_rss(sessions: int, cache_sessions: int | None) -> tuple[float, float]:
    """(peak RSS in MB, entries/s) of one worker draining `sessions` sessions."""
    workload = build(sessions=sessions, blocks=1, partitions=PARTITIONS, real_text=True)
    env = {}
    if cache_sessions is not None:
        env = {"ACCORD_STATE_CACHE_SIZE": str(cache_sessions), "ACCORD_STATE_CACHE_MB": "0"}
    with EmbeddedRedis() as server, tempfile.TemporaryDirectory() as logs:
        redis = Redis.from_url(server.url)
        ids = await held_backlog(redis, workload)
        workers = Workers(server.url, PARTITIONS, 1, Path(logs), "separate", env=env)
        workers.start()
        try:
            await workers.ready(redis, 120)
            started = await drain_start(redis, workers)
            await release(redis, PARTITIONS)
            drain = await drain_rate(redis, workers, ids, 600, started)
            rss = max(workers.peak_rss_bytes()) / 2**20
        finally:
            workers.stop()
            await redis.aclose()
    return rss, drain.per_s


def main(sessions: int, cache_sessions: int | None) -> None:
    small, _ = asyncio.run(peak_rss(1_000, cache_sessions))
    large, rate = asyncio.run(peak_rss(sessions, cache_sessions))
    print(
        f"cache {cache_sessions or 'as shipped'} per partition: 1,000 sessions {small:.1f} MB,"
        f" {sessions:,} sessions {large:.1f} MB ({rate:,.0f} entries/s);"
        f" {(large - small) * 2**20 / (sessions - 1_000):,.0f} B per further session"
    )


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:]]
    main(args[0] if args else 100_000, args[1] if len(args) > 1 else None)
