"""Where one input's latency goes: XADD sent, handed to the dispatcher, committed, event seen.

    uv run --frozen python benchmarks/latency_stages.py RATE [SESSIONS]

The worker as `worker.app.build_worker` builds it (four partitions, default settings)
runs in this process, timed at its seams: `Dispatcher.handle` (a batch handed over and
finished), `PartitionProcessor.process` and `Committer.commit`. A child process paces
the bench workload (SESSIONS sessions, default 500) at RATE inputs/s through the bench's
own latency run (`paced_latency`, which stamps each input's XADD and first event); both
processes read the same monotonic clock (`time.perf_counter`, CLOCK_MONOTONIC on
Linux). For the inputs that owe an event it prints the medians of: XADD sent to the
batch handed over (Redis, the worker's wake-up, the read, waiting for its loop), the
batch's `handle`, and the batch's end to the event seen (negative: the reader saw the
event while the worker still finished the batch after its commit); and, over every
batch, `process` and the commit's await in it. Findings:
docs/performance.md, "Steady state".
"""

# ruff: noqa: T201  (a script directory, not a package; it prints its report)
from __future__ import annotations

import asyncio
import logging
import multiprocessing
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any

import structlog
from accord_harness.bench.endtoend import Stamp, paced_latency
from accord_harness.bench.inprocess import shipped_worker
from accord_harness.bench.workload import build
from redis.asyncio import Redis

from contracts.streams import GROUP, Entry
from store import commit as store_commit
from store import processor as store_processor
from store.embedded import EmbeddedRedis
from store.intake import ensure_groups
from worker import consumer

PARTITIONS = 4

# (stream, entry id) -> (handed over, finished, batch size), and the seams' wall times.
handled: dict[tuple[str, str], tuple[float, float, int]] = {}
commits_ms: list[float] = []
process_ms: list[float] = []


def _timed() -> None:
    """Wrap the worker's seams with timers (this script's process only)."""
    handle, commit, process = (
        consumer.Dispatcher.handle,
        store_commit.Committer.commit,
        store_processor.PartitionProcessor.process,
    )

    async def timed_handle(self: Any, batch: Sequence[Entry]) -> Any:  # noqa: ANN401
        started = time.perf_counter()
        try:
            return await handle(self, batch)
        finally:
            done = time.perf_counter()
            for entry in batch:
                handled[entry.stream, entry.entry_id] = (started, done, len(batch))

    async def timed_commit(self: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: ANN401
        started = time.perf_counter()
        try:
            return await commit(self, *args, **kwargs)
        finally:
            commits_ms.append((time.perf_counter() - started) * 1000)

    async def timed_process(self: Any, batch: Sequence[Entry]) -> Any:  # noqa: ANN401
        started = time.perf_counter()
        try:
            return await process(self, batch)
        finally:
            process_ms.append((time.perf_counter() - started) * 1000)

    consumer.Dispatcher.handle = timed_handle  # type: ignore[method-assign]
    store_commit.Committer.commit = timed_commit  # type: ignore[method-assign]
    store_processor.PartitionProcessor.process = timed_process  # type: ignore[method-assign]


def produce(url: str, rate: float, sessions: int, out: Any) -> None:  # noqa: ANN401
    """The child: the bench's paced latency run, reporting each eventful input's stamps."""

    async def run() -> None:
        load = build(sessions=sessions, blocks=10, partitions=PARTITIONS)
        redis = Redis.from_url(url)
        stamps: dict[tuple[str, int], Stamp] = {}
        await paced_latency(redis, url, load, rate, 120, stamps=stamps)
        await redis.aclose()
        out.put(stamps)

    asyncio.run(run())


async def main(rate: float, sessions: int) -> None:
    _timed()
    with EmbeddedRedis() as server:
        redis = Redis.from_url(server.url)
        await ensure_groups(redis, range(PARTITIONS), GROUP)
        worker = shipped_worker(server.url, PARTITIONS, "stages")
        await worker.start()
        queue: Any = multiprocessing.Queue()
        child = multiprocessing.Process(target=produce, args=(server.url, rate, sessions, queue))
        child.start()
        while child.is_alive() and queue.empty():  # noqa: ASYNC110  (the child reports once)
            await asyncio.sleep(0.05)
        results = queue.get()
        await worker.stop()
        await redis.aclose()
    to_handle, in_handle, to_event, total = [], [], [], []
    for sent_at, stream, entry_id, seen_at in results.values():
        started, done, _ = handled[stream, entry_id]
        to_handle.append((started - sent_at) * 1000)
        in_handle.append((done - started) * 1000)
        to_event.append((seen_at - done) * 1000)
        total.append((seen_at - sent_at) * 1000)
    median = statistics.median
    print(
        f"{rate:,.0f}/s, {len(results)} inputs owing an event: XADD to event p50"
        f" {median(total):.2f} ms; XADD to handed over {median(to_handle):.2f};"
        f" the batch's handle {median(in_handle):.2f}; the batch's end to the event seen"
        f" {median(to_event):.2f}. Every batch: process p50 {median(process_ms):.2f} ms,"
        f" of which the commit's await {median(commits_ms):.2f}"
    )


if __name__ == "__main__":
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    arguments = [float(a) for a in sys.argv[1:]]
    asyncio.run(
        main(arguments[0] if arguments else 500.0, int(arguments[1:2][0]) if arguments[1:] else 500)
    )
