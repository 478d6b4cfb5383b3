"""What packing the worker's commands costs: redis-py's asyncio packing against hiredis's.

    uv run --frozen python benchmarks/pack_command.py [SESSIONS] [BLOCKS]

The worker as shipped drains the `accord bench` workload (SESSIONS sessions, default
2,000, two partitions) from an embedded Redis once, and every command it sends is kept
as it was packed. Then each kept command is packed again, all of them, by redis-py's
own asyncio `Connection.pack_command` (Python, argument by argument) and by the worker's
connection class (worker/connection.py, `HiredisPacking`), alternately, and the time
per drained entry of each is printed with their ratio. Both must give the same bytes;
the script checks it. Findings: docs/performance.md, "Transport".
"""

# ruff: noqa: T201  (a script directory, not a package; it prints its report)
from __future__ import annotations

import asyncio
import logging
import statistics
import sys
import time
from collections import Counter
from typing import Any

import structlog
from accord_harness.bench.endtoend import backlog, until_acked
from accord_harness.bench.inprocess import shipped_worker
from accord_harness.bench.workload import build
from redis.asyncio import Redis
from redis.asyncio.connection import Connection
from redis.typing import EncodableT

from store.embedded import EmbeddedRedis
from worker.connection import HiredisPacking, QuietConnection

ROUNDS = 7


async def captured(sessions: int, blocks: int) -> tuple[int, list[tuple[EncodableT, ...]]]:
    """The drained entries, and every command the worker packed while draining them."""
    kept: list[tuple[EncodableT, ...]] = []
    original = HiredisPacking.pack_command

    def keep(self: HiredisPacking, *args: EncodableT) -> list[bytes]:
        kept.append(args)
        return original(self, *args)

    workload = build(sessions=sessions, blocks=blocks, partitions=2)
    with EmbeddedRedis() as server:
        redis = Redis.from_url(server.url)
        ids = await backlog(redis, workload)
        worker = shipped_worker(server.url, 2, "p")
        # Every connection of the worker's client packs through the class: keep each call.
        HiredisPacking.pack_command = keep  # type: ignore[method-assign]
        try:
            await worker.start()
            await until_acked(redis, ids, len(workload.documents), poll_s=0.01)
            await worker.stop()
        finally:
            HiredisPacking.pack_command = original  # type: ignore[method-assign]
            await redis.aclose()
    return len(workload.documents), kept


def pack_all(connection: Any, commands: list[tuple[EncodableT, ...]]) -> float:  # noqa: ANN401
    started = time.perf_counter()
    for args in commands:
        connection.pack_command(*args)
    return time.perf_counter() - started


def main() -> None:
    args = [int(a) for a in sys.argv[1:]]
    sessions, blocks = (args + [2000, 10][len(args) :])[:2]
    entries, commands = asyncio.run(captured(sessions, blocks))
    python, hiredis = Connection(), QuietConnection()
    for command in commands:
        if b"".join(python.pack_command(*command)) != b"".join(hiredis.pack_command(*command)):
            raise SystemExit(f"different bytes for {command[0]!r}")
    names = Counter(str(c[0]) for c in commands)
    sizes = sorted(len(c) for c in commands)
    print(
        f"{entries} entries drained; {len(commands)} commands packed"
        f" ({', '.join(f'{n} {k}' for k, n in names.most_common(4))});"
        f" arguments per command: median {statistics.median(sizes):.0f}, max {sizes[-1]}"
    )
    times: dict[str, list[float]] = {"redis-py": [], "hiredis": []}
    for _ in range(ROUNDS):
        times["redis-py"].append(pack_all(python, commands))
        times["hiredis"].append(pack_all(hiredis, commands))
    slow, fast = (statistics.median(times[k]) / entries * 1e6 for k in ("redis-py", "hiredis"))
    print(f"redis-py packing: {slow:.2f} us per entry (median of {ROUNDS})")
    print(f"hiredis packing:  {fast:.2f} us per entry ({fast / slow:.2f}x redis-py's)")


if __name__ == "__main__":
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    main()
