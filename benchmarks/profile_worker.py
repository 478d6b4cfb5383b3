"""Profile of the worker's hot path on the `accord bench` workload (pyinstrument).

    uv run --frozen python benchmarks/profile_worker.py [SESSIONS] [BLOCKS]

The worker as shipped (worker/app.py: merged reader -> Dispatcher -> store -> core ->
Lua commit) runs in this process on an embedded Redis and drains the
benchmark's backlog (harness/accord_harness/bench/workload.py, two partitions) under pyinstrument.
Prints entries/s (slowed by the profiler) and the call tree. Findings:
docs/performance.md, "End to end at the production shape".
"""

# ruff: noqa: T201  (a script directory, not a package; it prints its report)
from __future__ import annotations

import asyncio
import logging
import sys
import time

import structlog
from accord_harness.bench.endtoend import backlog, until_acked
from accord_harness.bench.inprocess import shipped_worker
from accord_harness.bench.workload import build
from pyinstrument import Profiler
from redis.asyncio import Redis

from store.embedded import EmbeddedRedis


async def main(sessions: int, blocks: int) -> None:
    workload = build(sessions=sessions, blocks=blocks, partitions=2)
    with EmbeddedRedis() as server:
        redis = Redis.from_url(server.url)
        ids = await backlog(redis, workload)
        total = len(workload.documents)
        worker = shipped_worker(server.url, 2, "p")
        profiler = Profiler(interval=0.0005, async_mode="disabled")
        profiler.start()
        started, cpu = time.perf_counter(), time.process_time()
        await worker.start()
        await until_acked(redis, ids, total, poll_s=0.01)
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
        profiler.stop()
        await worker.stop()
        await redis.aclose()
    print(f"{total} entries in {elapsed:.2f} s, {total / elapsed:,.0f}/s and")
    print(f"{cpu / total * 1e6:.1f} us of this process's CPU per entry (under the profiler)")
    print(profiler.output_text(unicode=True, color=False, show_all=False))


if __name__ == "__main__":
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    asyncio.run(main(int(args[0]) if args else 500, int(args[1]) if len(args) > 1 else 10))
