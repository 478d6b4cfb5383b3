"""A worker's peak memory draining large entries, with and without the read's byte budget.

    uv run --frozen python benchmarks/read_memory.py [ENTRIES] [KB] [ROUNDS]

Per round, for `ACCORD_READ_MB=0` (the COUNT alone, `ACCORD_BATCH_SIZE` entries per
stream) and for the default, alternately: a fresh embedded Redis, a backlog of ENTRIES
(default 6,000) valid inputs over 300 sessions on two partitions, the chat turns and
tool calls about KB kilobytes each (default 60: text near the 64 KiB text limit, another
tool's arguments as large), the tool results small; then one `accord worker` process as
deployed starts and drains it. Printed: the drain's rate and the worker's peak RSS
(`VmHWM`), and how many XREADGROUPs Redis served. Findings: docs/performance.md,
"Memory".
"""

# ruff: noqa: T201  (a script directory, not a package; it prints its report)
from __future__ import annotations

import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from accord_harness.bench.endtoend import Workers, acked, write
from accord_harness.documents import stream_of
from accord_harness.store_harness import call, chat, result
from redis.asyncio import Redis

from contracts.streams import GROUP
from store.embedded import EmbeddedRedis
from store.intake import ensure_groups

PARTITIONS = 2
SESSIONS = 300


def backlog(entries: int, size: int) -> list[tuple[str, bytes]]:
    """(stream, JSON) per input: sessions taking turns, each session's seqs in order; the
    chat turns' text and the tool calls' arguments (another tool's, which accord drops
    past its limit) about `size` bytes, the tool results small."""
    items: list[tuple[str, bytes]] = []
    pad = "x" * size
    for index in range(entries):
        session, seq = index % SESSIONS, index // SESSIONS + 1
        scope, name = ("agent", f"user-{session}"), f"s{session}"
        if seq % 3 == 1:
            document = chat(scope, name, seq, pad)
        elif seq % 3 == 2:
            document = call(scope, name, seq, "read_file", {"content": pad})
        else:
            document = result(scope, name, seq)
            document.update(name="read_file", todos=None)
        items.append((stream_of(document, PARTITIONS), json.dumps(document).encode()))
    return items


async def one(items: list[tuple[str, bytes]], env: dict[str, str]) -> dict[str, Any]:
    with EmbeddedRedis() as server, tempfile.TemporaryDirectory() as logs:
        redis = Redis.from_url(server.url)
        await ensure_groups(redis, range(PARTITIONS), GROUP)
        ids = await write(redis, items)
        workers = Workers(server.url, PARTITIONS, 1, Path(logs), env=env)
        workers.start()
        try:
            await workers.ready(redis, 120)
            stats: Any = await redis.info("commandstats")
            reads_before = int(stats.get("cmdstat_xreadgroup", {}).get("calls", 0))
            started = time.perf_counter()
            while await acked(redis, ids) < len(items):
                if not workers.alive():
                    raise RuntimeError("the worker died (out of memory?)")
                await asyncio.sleep(0.05)  # polling a counter another process moves
            elapsed = time.perf_counter() - started
            stats = await redis.info("commandstats")
            reads = int(stats.get("cmdstat_xreadgroup", {}).get("calls", 0)) - reads_before
            rss = max(workers.peak_rss_bytes()) / 2**20
        finally:
            workers.stop()
            await redis.aclose()
    return {"per_s": len(items) / elapsed, "rss_mb": rss, "reads": reads}


def main() -> None:
    args = [int(a) for a in sys.argv[1:]]
    entries, kb, rounds = (args + [6000, 60, 2][len(args) :])[:3]
    items = backlog(entries, kb * 1000)
    megabytes = sum(len(data) for _, data in items) / 1e6
    print(f"{entries} inputs, {megabytes:.0f} MB, {PARTITIONS} partitions, one worker process")
    settings = {"ACCORD_READ_MB=0 (the COUNT alone)": {"ACCORD_READ_MB": "0"}, "default": {}}
    found: dict[str, list[dict[str, Any]]] = {name: [] for name in settings}
    for _ in range(rounds):
        for name, env in settings.items():
            figures = asyncio.run(one(items, env))
            found[name].append(figures)
            print(
                f"{name}: {figures['per_s']:,.0f} inputs/s, peak RSS {figures['rss_mb']:.0f} MB,"
                f" {figures['reads']} reads"
            )
    for name, runs in found.items():
        print(f"median {name}: peak RSS {statistics.median(r['rss_mb'] for r in runs):.0f} MB")


if __name__ == "__main__":
    main()
