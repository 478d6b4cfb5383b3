"""Latency of one `accord worker` process at a steady rate, and what each input cost it.

    uv run --frozen python benchmarks/paced_latency.py RATE [SESSIONS] [ROUNDS]
        [--env ACCORD_NAME=VALUE ...]

`accord bench` measures latency after every round's one-process drain, at 20% of that
drain's rate, and reports the median round; this script repeats only that phase, so
settings and trees can be compared at the same rate without the whole bench. Per round: a
fresh embedded Redis, one `accord worker` process as deployed (four partitions, default
settings, plus any `--env`), the bench workload of SESSIONS sessions (default 500, as
`accord bench --size full` uses) paced at RATE inputs/s, XADD to the input's first
agreement event (accord_harness/bench/endtoend.py, `paced_latency`). Printed with it:

- the worker's cores over the run (`/proc/<pid>/stat`): how close the rate runs it to
  saturation, which is what the latency mostly follows;
- reads (XREADGROUP) and commits (EVALSHA) per input, and Redis's time per commit
  (`INFO commandstats`): a batch's fixed cost is one read and one commit round trip.

To compare two trees, alternate runs of each from its own directory (the worker
processes import the tree they are started in):

    (cd /tmp/base && PYTHONPATH=/tmp/base:/tmp/base/harness \\
        /work/main/.venv/bin/python /work/main/benchmarks/paced_latency.py 2100)

Findings: docs/performance.md, "Steady state".
"""

# ruff: noqa: T201  (a script directory, not a package; it prints its report)
from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from accord_harness.bench.endtoend import Workers, paced_latency
from accord_harness.bench.workload import build
from redis.asyncio import Redis

from contracts.streams import GROUP
from store.embedded import EmbeddedRedis
from store.intake import ensure_groups

PARTITIONS = 4  # as `accord bench` runs its phases


async def calls(redis: Redis) -> dict[str, tuple[int, float]]:
    """(calls, microseconds) per command so far."""
    stats: dict[str, dict[str, float]] = await redis.info("commandstats")
    return {name: (int(s["calls"]), float(s["usec"])) for name, s in stats.items()}


async def one_round(rate: float, sessions: int, env: dict[str, str]) -> dict[str, Any]:
    load = build(sessions=sessions, blocks=10, partitions=PARTITIONS)
    inputs = len(load.documents)
    with EmbeddedRedis() as server, tempfile.TemporaryDirectory() as logs:
        redis = Redis.from_url(server.url)
        await ensure_groups(redis, range(PARTITIONS), GROUP)
        workers = Workers(server.url, PARTITIONS, 1, Path(logs), env=env)
        workers.start()
        try:
            await workers.ready(redis, 120)
            before, cpu, started = await calls(redis), workers.cpu_s(), time.perf_counter()
            figures = await paced_latency(redis, server.url, load, rate, 120)
            cores = (workers.cpu_s() - cpu) / (time.perf_counter() - started)
            after = await calls(redis)
        finally:
            workers.stop()
            await redis.aclose()

    def delta(name: str) -> tuple[int, float]:
        done, spent = after.get(name, (0, 0.0))
        was, was_spent = before.get(name, (0, 0.0))
        return done - was, spent - was_spent

    reads, _ = delta("cmdstat_xreadgroup")
    commits, commit_us = delta("cmdstat_evalsha")
    return {
        **figures,
        "worker_cores": cores,
        "reads_per_input": reads / inputs,
        "commits_per_input": commits / inputs,
        "redis_us_per_commit": commit_us / max(commits, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rate", type=float)
    parser.add_argument("sessions", type=int, nargs="?", default=500)
    parser.add_argument("rounds", type=int, nargs="?", default=3)
    parser.add_argument("--env", action="append", default=[], metavar="ACCORD_NAME=VALUE")
    args = parser.parse_args()
    env = {}
    for item in args.env:
        name, equals, value = item.partition("=")
        if not (name and equals):
            parser.error(f"--env takes ACCORD_NAME=VALUE, not {item!r}")
        env[name] = value
    p50s = []
    for _ in range(args.rounds):
        r = asyncio.run(one_round(args.rate, args.sessions, env))
        p50s.append(r["p50_ms"])
        print(
            f"{r['rate']:,.0f}/s: p50 {r['p50_ms']:.2f} ms, p99 {r['p99_ms']:.2f} ms"
            f" ({r['samples']} samples, {r['missing']} missing); worker"
            f" {r['worker_cores']:.2f} cores; per input {r['reads_per_input']:.2f} reads,"
            f" {r['commits_per_input']:.2f} commits; {r['redis_us_per_commit']:.0f} us"
            " of Redis per commit"
        )
    print(f"median p50 {statistics.median(p50s):.2f} ms")


if __name__ == "__main__":
    main()
