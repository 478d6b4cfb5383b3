"""How long `accord repartition` pauses appends, against copying the same keys bare.

    uv run --frozen python benchmarks/repartition_cost.py [SESSIONS] [TARGET]

The production-shape workload (accord_harness/bench/workload.py: SESSIONS sessions over
two partitions, real-length text, one session in five with a full agreement flow) is
drained by the shipped worker into an embedded Redis, so the store holds what such a
deployment holds: scopes, sessions, views, records, the indexes (the workload writes its
entries directly, so there are no gateway seq counters). Then, one after the other:

- the move: `Repartition(..., TARGET)` with no worker running (nothing to drain), each
  phase timed;
- the baseline, on the moved store: a SCAN of every key and a DUMP + RESTORE (under
  another name) of as many keys as the move copied, in pipelines of the move's size.

Appends wait from the freeze to the flip, so "appends paused" is the sum of the drain,
fence, copy and flip phases. The ratio to the baseline says how much more than the bare
copy the move costs (it also reads each record to learn its scope and moves the
indexes' members); both run on loopback.
"""

# ruff: noqa: T201  (a script directory, not a package; it prints its report)
from __future__ import annotations

import asyncio
import logging
import sys
import time
from typing import Any

import structlog
from accord_harness.bench.endtoend import backlog, until_acked
from accord_harness.bench.inprocess import shipped_worker
from accord_harness.bench.workload import build
from redis.asyncio import Redis

from store.embedded import EmbeddedRedis
from store.repartition import CHUNK, Repartition

PAUSED = ("drain", "fence", "copy", "flip")


async def populated(url: str, sessions: int) -> int:
    """Drain the workload into the Redis at `url`; how many input entries."""
    workload = build(sessions=sessions, blocks=2, partitions=2, real_text=True)
    redis = Redis.from_url(url)
    ids = await backlog(redis, workload)
    worker = shipped_worker(url, 2, "p")
    await worker.start()
    await until_acked(redis, ids, len(workload.documents), poll_s=0.05)
    await worker.stop()
    await redis.aclose()
    return len(workload.documents)


async def bare_copy(redis: Redis, count: int) -> tuple[int, float]:
    """(keys scanned, seconds) to SCAN everything and DUMP + RESTORE `count` keys, in
    pipelines of CHUNK keys as the move does: the least a copy of them costs."""
    started = time.perf_counter()
    names = [name async for name in redis.scan_iter(count=CHUNK)]
    for first in range(0, min(count, len(names)), CHUNK):
        chunk = names[first : min(first + CHUNK, count)]
        pipe = redis.pipeline(transaction=False)
        for name in chunk:
            pipe.dump(name)
            pipe.pttl(name)
        answers: list[Any] = await pipe.execute()
        pipe = redis.pipeline(transaction=False)
        for index, name in enumerate(chunk):
            ttl = max(int(answers[2 * index + 1]), 0)
            pipe.restore(b"bare-copy:" + name, ttl, answers[2 * index], replace=True)
        await pipe.execute()
    elapsed = time.perf_counter() - started
    async for name in redis.scan_iter(match="bare-copy:*", count=1000):
        await redis.delete(name)
    return len(names), elapsed


async def run(sessions: int, target: int) -> None:
    with EmbeddedRedis() as server:
        entries = await populated(server.url, sessions)
        redis = Redis.from_url(server.url)
        keys_before = int(await redis.dbsize())
        phases: dict[str, float] = {}
        marks: list[tuple[str, float]] = []

        def say(line: str) -> None:
            marks.append((line, time.perf_counter()))

        started = time.perf_counter()
        progress = await Repartition(redis, target, say, drain_timeout_s=600).run()
        total = time.perf_counter() - started
        begun: dict[str, float] = {}
        for line, at in marks:
            name = line.split(" ...")[0].split(":")[0]
            if line.endswith(" ..."):
                begun[name] = at
            elif ": done in" in line:
                phases[name] = at - begun[name]
        scanned, bare = await bare_copy(redis, progress.keys_copied)
        await redis.aclose()
    paused = sum(phases.get(name, 0.0) for name in PAUSED)
    print(
        f"{sessions} sessions ({entries} inputs applied), {keys_before} keys; move 2 -> {target}:"
        f" {progress.scopes_moved} scopes, {progress.keys_copied} keys copied,"
        f" {progress.members_moved} index members, {progress.keys_removed} keys removed"
    )
    print("phases: " + ", ".join(f"{name} {seconds:.2f} s" for name, seconds in phases.items()))
    print(f"whole move {total:.2f} s; appends paused {paused:.2f} s")
    print(
        f"baseline: SCAN of {scanned} keys + DUMP/RESTORE of {progress.keys_copied}: {bare:.2f} s;"
        f" appends paused / baseline = {paused / bare:.2f}x, whole move / baseline ="
        f" {total / bare:.2f}x"
    )


if __name__ == "__main__":
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    args = [int(a) for a in sys.argv[1:]]
    asyncio.run(run(args[0] if args else 12_000, args[1] if len(args) > 1 else 4))
