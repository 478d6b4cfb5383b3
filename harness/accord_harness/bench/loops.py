"""The reference consumers: what accord's end-to-end throughput is measured against.

- `bare_loop`: redis-py `XREADGROUP COUNT 100` over every input stream, msgspec decode
  of each entry, one multi-id `XACK` per stream read (DESIGN section 5's baseline: the
  practical ceiling of a Python consumer on this machine and server);
- `faststream_batch`: FastStream's batch subscriber (the worker's transport, with its
  raw-entry parser from worker/subscribers.py) doing the same decode and multi-id XACK,
  so the framework's own cost is visible apart from the store and the core.

Both drain a backlog written beforehand and return entries per second.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, cast

import msgspec
from faststream.redis import RedisBroker
from redis.asyncio import Redis

from contracts.streams import DATA_FIELD, GROUP, Entry, input_streams
from store.intake import ensure_groups
from worker.consumer import Dispatcher, Processor
from worker.observability import Metrics, get_logger
from worker.subscribers import register_subscribers

_SILENT = logging.getLogger("accord.bench.faststream")
_SILENT.setLevel(logging.CRITICAL + 1)
DATA = DATA_FIELD.encode()


def streams_of(partitions: int) -> list[str]:
    return [s for p in range(partitions) for s in input_streams(p)]


class Drain(NamedTuple):
    """A drain's rate and its CPU cost per entry, consumer side and Redis side."""

    per_s: float
    cpu_us: float
    redis_cpu_us: float


async def redis_cpu_s(redis: Redis) -> float:
    """The server's CPU seconds so far (user + system, INFO cpu)."""
    info: Any = await redis.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


async def bare_loop(redis: Redis, partitions: int, total: int) -> Drain:
    """Drain `total` entries with the bare loop."""
    decoder = msgspec.json.Decoder()
    streams = dict.fromkeys(streams_of(partitions), ">")
    done = 0
    server = await redis_cpu_s(redis)
    started, cpu = time.perf_counter(), time.process_time()
    while done < total:
        reply: Any = await redis.xreadgroup(GROUP, "bare", cast("Any", streams), count=100)
        for stream, entries in reply or ():
            for _, fields in entries:
                decoder.decode(fields[DATA])
            await redis.xack(stream, GROUP, *[entry_id for entry_id, _ in entries])
            done += len(entries)
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    server = await redis_cpu_s(redis) - server
    return Drain(total / elapsed, cpu / total * 1e6, server / total * 1e6)


@dataclass
class _Report:
    outcomes: Mapping[str, int] = field(default_factory=dict)
    events: Sequence[Any] = ()
    gap_skips: int = 0


@dataclass
class _DecodeAndAck:
    """A Processor that does the baseline's work on what FastStream hands over."""

    redis: Redis
    total: int
    done: int = 0
    finished: asyncio.Event = field(default_factory=asyncio.Event)
    decoder: msgspec.json.Decoder[Any] = field(default_factory=msgspec.json.Decoder)

    async def process(self, entries: Sequence[Entry]) -> _Report:
        for entry in entries:
            self.decoder.decode(entry.fields[DATA])
        await self.redis.xack(entries[0].stream, GROUP, *[e.entry_id for e in entries])
        self.done += len(entries)
        if self.done >= self.total:
            self.finished.set()
        return _Report()


async def faststream_batch(redis: Redis, url: str, partitions: int, total: int) -> float:
    """Drain `total` entries through FastStream's batch subscribers; entries/s.

    Timed from the first batch handed over, so the broker's start-up is left out.
    """
    processor = _DecodeAndAck(redis, total)
    started: list[float] = []
    original = processor.process

    async def timed(entries: Sequence[Entry]) -> _Report:
        if not started:
            started.append(time.perf_counter())
        return await original(entries)

    processor.process = timed  # type: ignore[method-assign]
    processors: dict[int, Processor] = dict.fromkeys(range(partitions), processor)
    dispatcher = Dispatcher(processors, Metrics(), get_logger("accord.bench"))
    # A silent logger: its INFO lines, and the fetch error of a read cut short by
    # stop(), are noise in a benchmark's output.
    broker = RedisBroker(url, logger=_SILENT)
    register_subscribers(
        broker, dispatcher, partitions=tuple(range(partitions)), group=GROUP,
        consumer="faststream", batch_size=100, block_ms=100,
    )  # fmt: skip
    await ensure_groups(redis, range(partitions), GROUP)
    await broker.start()
    try:
        await processor.finished.wait()
        elapsed = time.perf_counter() - started[0]
    finally:
        await broker.stop()
    return total / elapsed
