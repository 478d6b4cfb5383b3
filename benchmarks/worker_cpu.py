"""CPU per entry of the worker's hot path on the `accord bench` workload, no profiler.

    uv run --frozen python benchmarks/worker_cpu.py [SESSIONS] [BLOCKS] [ROUNDS]
        [--cache N] [--gc N] [--batch N] [--commit N] [--real-text]

`--real-text`: real-length chat (accord_harness/bench/chatter.py) instead of the short
noise lines. `12000 2 3 --real-text` is the production shape: about one entry per session
per read (docs/performance.md, "End to end at the production shape").

With COMMANDSTATS=1 in the environment, each round also prints Redis's time per
command (`INFO commandstats`): the commit script is `evalsha`.

`--gc N` sets the collector's young threshold (ACCORD_GC_THRESHOLD; default the
tree's own), and each round prints the collections that ran during the drain and the
longest of them.

`--batch N` and `--commit N` set ACCORD_BATCH_SIZE and ACCORD_COMMIT_ENTRIES (default the
tree's own): docs/performance.md, "Settings that trade memory for speed".

`--cache N` sets the store's state cache (ACCORD_STATE_CACHE_SIZE; off by default
since it is unsafe when Redis loses acknowledged writes); without it the tree's own
default is used, so older commits can be measured too.

The worker as built by `worker.app.build_worker` (the merged reader) drains a
backlog of the bench workload (accord_harness/bench/workload.py, two partitions) written
to an embedded Redis before it starts; this process's CPU time (`time.process_time`, so the
worker's own cost: Redis runs in its own process) is divided by the entries. Wall-clock
rates on the shared machine move with the load far more than CPU per entry does.

To compare two commits in the same window (docs/performance.md, "End to end at the
production shape"), export the older one and alternate runs:

    git archive <commit> | tar -x -C /tmp/base
    (cd /tmp/base && PYTHONPATH=/tmp/base /work/main/.venv/bin/python \
        /work/main/benchmarks/worker_cpu.py 1000 10 1)
"""

# ruff: noqa: T201  (a script directory, not a package; it prints its report)
from __future__ import annotations

import asyncio
import gc
import logging
import os
import statistics
import sys
import time
from typing import Any

import structlog
from accord_harness.bench.endtoend import backlog, until_acked
from accord_harness.bench.inprocess import shipped_worker
from accord_harness.bench.workload import build
from redis.asyncio import Redis

from store.embedded import EmbeddedRedis


class Pauses:
    """The garbage collector's runs while `on`, in milliseconds (gc.callbacks)."""

    def __init__(self) -> None:
        self.on = False
        self.ms: list[float] = []
        self._started = 0.0
        gc.callbacks.append(self._callback)

    def _callback(self, phase: str, _info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        elif self.on:
            self.ms.append((time.perf_counter() - self._started) * 1000)


PAUSES = Pauses()
REAL_TEXT = "--real-text" in sys.argv


async def cpu_per_entry(
    sessions: int,
    blocks: int,
    cache: int | None,
    gc_threshold: int | None = None,
    changes: dict[str, int] | None = None,
) -> tuple[int, float, float]:
    """(entries, entries/s, microseconds of this process's CPU per entry) of one drain."""
    workload = build(sessions=sessions, blocks=blocks, partitions=2, real_text=REAL_TEXT)
    with EmbeddedRedis() as server:
        redis = Redis.from_url(server.url)
        ids = await backlog(redis, workload)
        total = len(workload.documents)
        options: dict[str, Any] = {} if cache is None else {"cache_size": cache}
        options.update(changes or {})
        worker = shipped_worker(server.url, 2, "p", gc_threshold=gc_threshold, **options)
        PAUSES.ms.clear()
        PAUSES.on = True
        started, cpu = time.perf_counter(), time.process_time()
        await worker.start()
        await until_acked(redis, ids, total, poll_s=0.01)
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
        PAUSES.on = False
        await worker.stop()
        if os.environ.get("COMMANDSTATS"):
            await print_commandstats(redis, total)
        await redis.aclose()
    return total, total / elapsed, cpu / total * 1e6


async def print_commandstats(redis: Redis, total: int) -> None:
    """Redis's time per command over the whole run (the producer's XADDs included)."""
    stats: dict[str, dict[str, float]] = await redis.info("commandstats")
    for name, stat in sorted(stats.items(), key=lambda item: -item[1]["usec"])[:8]:
        print(
            f"  {name[len('cmdstat_') :]:12s} {stat['calls']:8.0f} calls"
            f" {stat['usec_per_call']:9.2f} us/call {stat['usec'] / total:6.2f} us/entry"
        )


def main(  # noqa: PLR0913, PLR0917  (the script's knobs)
    sessions: int,
    blocks: int,
    rounds: int,
    cache: int | None,
    gc_threshold: int | None,
    changes: dict[str, int],
) -> None:
    print(
        f"load average {os.getloadavg()[0]:.2f}, cache {cache}, gc threshold {gc_threshold},"
        f" settings {changes or 'as the tree ships'}"
    )
    costs = []
    for _ in range(rounds):
        total, rate, micros = asyncio.run(
            cpu_per_entry(sessions, blocks, cache, gc_threshold, changes)
        )
        longest = max(PAUSES.ms, default=0.0)
        print(
            f"{total} entries, {rate:,.0f}/s, {micros:.1f} us of worker CPU per entry;"
            f" {len(PAUSES.ms)} collections, the longest {longest:.1f} ms"
        )
        costs.append(micros)
    print(f"median {statistics.median(costs):.1f} us of worker CPU per entry")


if __name__ == "__main__":
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    argv = [a for a in sys.argv[1:] if a != "--real-text"]
    flags: dict[str, str] = {}
    for flag in ("--cache", "--gc", "--batch", "--commit"):
        if flag in argv:
            at = argv.index(flag)
            flags[flag] = argv[at + 1]
            del argv[at : at + 2]
    numbers = [int(a) for a in argv] + [1000, 10, 3][len(argv) :]
    cache_size = int(flags["--cache"]) if "--cache" in flags else None
    threshold = int(flags["--gc"]) if "--gc" in flags else None
    names = {"--batch": "batch_size", "--commit": "commit_entries"}
    settings = {name: int(flags[flag]) for flag, name in names.items() if flag in flags}
    main(numbers[0], numbers[1], numbers[2], cache_size, threshold, settings)
