"""Store throughput against the bare consumer loop, in one run on one server.

    uv run --frozen python benchmarks/store_throughput.py [ENTRIES] [ROUNDS]

Baseline: XREADGROUP COUNT 100 + msgspec decode + one multi-id XACK (DESIGN section 5).
Store: the same reads handed to `PartitionProcessor.process` with the real core
(recognizer, deadlines, reducer) and the atomic commit. The input is ordinary chat
(200 sessions of 100 turns, one in ten user turns proposing, so the recognizer and the
record path run too). Prints entries/s of each and the ratio, median of ROUNDS.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import time
from typing import Any

import redis.asyncio
from accord_harness.reading import read_new
from accord_harness.store_harness import chat

from contracts.codec import decode_entry
from contracts.streams import GROUP
from store.config import StoreConfig
from store.embedded import EmbeddedRedis
from store.intake import ensure_groups
from store.processor import PartitionProcessor
from worker.engine import Engine

SESSIONS = 200


def documents(count: int) -> list[dict[str, Any]]:
    out = []
    for index in range(count):
        session, seq = index % SESSIONS, index // SESSIONS + 1
        scope = ("agent", f"user-{session}")
        text = (
            f"Let's agree: send the weekly summary on Fridays ({seq})."
            if seq % 10 == 3
            else "Thanks, that helps. Could you also look at the second chapter tomorrow?"
        )
        out.append(chat(scope, f"s{session}", seq, text, "user" if seq % 2 else "assistant"))
    return out


async def fill(client: redis.asyncio.Redis, docs: list[dict[str, Any]]) -> None:
    await client.flushall()
    await ensure_groups(client, [0], GROUP)
    pipe = client.pipeline(transaction=False)
    for document in docs:
        pipe.xadd("chat-turn:{0}", {"__data__": json.dumps(document)})
    await pipe.execute()


async def bare(client: redis.asyncio.Redis, count: int) -> float:
    started = time.perf_counter()
    while entries := await read_new(client, 0, GROUP, "bench", count=100):
        for entry in entries:
            decode_entry(entry.fields)
        await client.xack("chat-turn:{0}", GROUP, *[entry.entry_id for entry in entries])
    return count / (time.perf_counter() - started)


async def store(client: redis.asyncio.Redis, count: int) -> float:
    processor = PartitionProcessor(client, 0, Engine(), StoreConfig())
    started = time.perf_counter()
    while entries := await read_new(client, 0, GROUP, "bench", count=100):
        await processor.process(entries)
    return count / (time.perf_counter() - started)


async def main(count: int, rounds: int) -> None:
    docs = documents(count)
    with EmbeddedRedis() as server:
        client = redis.asyncio.Redis.from_url(server.url)
        baseline, measured = [], []
        for _ in range(rounds):
            await fill(client, docs)
            baseline.append(await bare(client, count))
            await fill(client, docs)
            measured.append(await store(client, count))
        await client.aclose()
    base, mine = statistics.median(baseline), statistics.median(measured)
    sys.stdout.write(
        f"entries: {count}, rounds: {rounds}\n"
        f"bare loop: {base:,.0f}/s\nstore + real core: {mine:,.0f}/s\nratio: {mine / base:.2f}\n"
    )


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:]]
    asyncio.run(main(args[0] if args else 20_000, args[1] if len(args) > 1 else 3))
