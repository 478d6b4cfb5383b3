"""Worker throughput: the worker's reader against a bare XREADGROUP loop.

    uv run --frozen python benchmarks/bench_worker_transport.py [ENTRIES] [ROUNDS]

Question: is the reading loop the bottleneck? Three consumers
drain the same backlog of chat turns (ordinary text, 10 turns per session, 500
scopes) on one embedded Redis, one process:

- baseline: bare redis-py `XREADGROUP COUNT 100` + msgspec decode + one multi-id
  XACK (DESIGN 5's reference loop, no store, no core);
- worker: the worker as shipped (worker/app.py): merged reader -> Dispatcher -> store
  PartitionProcessor (gate, core, Lua commit with XACK);
- bare loop: the same Dispatcher and store fed by `accord_harness.reading.read_loop`.

(Until the FastStream per-stream subscribers were removed, "worker" read through them:
docs/store.md, "Reading the input streams".)

Rounds are interleaved and the median is reported, as entries/s and as a ratio to
the baseline of the same run. Figures: docs/performance.md.
"""

from __future__ import annotations

import asyncio
import json
import logging
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
import structlog
from accord_harness.reading import read_loop
from redis.asyncio import Redis

from contracts.streams import DATA_FIELD, GROUP, stream_name
from store.embedded import EmbeddedRedis
from store.intake import ensure_groups
from worker.app import build_worker, store_partition
from worker.consumer import Dispatcher
from worker.observability import Metrics, get_logger
from worker.settings import Settings

STREAM = stream_name("chat-turn", 0)
TEXTS = (
    "Could you summarize the meeting notes?",
    "Thanks, that helps a lot.",
    "What about the budget for next quarter?",
)


async def fill(redis: Redis, entries: int) -> None:
    t0 = datetime.now(UTC)
    pipe = redis.pipeline(transaction=False)
    for i in range(entries):
        session, seq = divmod(i, 10)
        turn = {
            "type": "chat_turn", "agent_id": "a", "user_id": f"u{session % 500}",
            "session_id": f"s{session}", "seq": seq + 1,
            "ts": (t0 + timedelta(seconds=seq)).isoformat(), "role": "user",
            "text": TEXTS[i % 3], "message_id": f"m{i}",
        }  # fmt: skip
        pipe.xadd(STREAM, {DATA_FIELD: json.dumps(turn)})
        if i % 1000 == 999:
            await pipe.execute()
            pipe = redis.pipeline(transaction=False)
    await pipe.execute()


async def drained(redis: Redis) -> None:
    last: Any = (await redis.xrevrange(STREAM, count=1))[0][0]
    while True:
        group: Any = (await redis.xinfo_groups(STREAM))[0]
        if group["pending"] == 0 and group["last-delivered-id"] == last:
            return
        await asyncio.sleep(0.005)


async def baseline(redis: Redis, _: Settings) -> None:
    decoder = msgspec.json.Decoder()
    while True:
        reply: Any = await redis.xreadgroup(GROUP, "bare", {STREAM: ">"}, count=100)
        if not reply:
            return
        for _, entries in reply:
            for _, fields in entries:
                decoder.decode(fields[DATA_FIELD.encode()])
            await redis.xack(STREAM, GROUP, *[entry_id for entry_id, _ in entries])


async def worker(redis: Redis, settings: Settings) -> None:
    built = build_worker(settings, store_partition)
    await built.start()
    await drained(redis)
    await built.stop()


async def bare_loop(redis: Redis, settings: Settings) -> None:
    dispatcher = Dispatcher({0: store_partition(redis, 0, settings)}, Metrics(), get_logger("b"))
    stop = asyncio.Event()
    task = asyncio.create_task(
        read_loop(
            redis,
            dispatcher,
            partition=0,
            group=GROUP,
            consumer="bare",
            count=settings.batch_size,
            block_ms=settings.block_ms,
            stop=stop,
        )
    )
    await drained(redis)
    stop.set()
    await task


Consumer = Callable[[Redis, Settings], Awaitable[None]]


async def run(entries: int, rounds: int) -> dict[str, list[float]]:
    rates: dict[str, list[float]] = {"baseline": [], "worker": [], "bare loop": []}
    consumers: dict[str, Consumer] = {
        "baseline": baseline,
        "worker": worker,
        "bare loop": bare_loop,
    }
    with EmbeddedRedis() as server:
        redis = Redis.from_url(server.url)
        settings = Settings(redis_url=server.url, metrics_port=0, consumer="bench")
        for _ in range(rounds):
            for name, consume in consumers.items():
                await redis.flushall()
                await ensure_groups(redis, [0], GROUP)
                await fill(redis, entries)
                started = time.perf_counter()
                await consume(redis, settings)
                rates[name].append(entries / (time.perf_counter() - started))
        await redis.aclose()
    return rates


def main() -> None:
    entries = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    rates = asyncio.run(run(entries, rounds))
    base = statistics.median(rates["baseline"])
    print(f"{entries} entries, {rounds} rounds, medians")  # noqa: T201
    for name, values in rates.items():
        rate = statistics.median(values)
        print(f"{name:11s} {rate:9,.0f} entries/s  {rate / base:5.2f} x baseline")  # noqa: T201


if __name__ == "__main__":
    main()
