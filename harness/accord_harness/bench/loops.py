"""The reference consumers: what accord's end-to-end throughput is measured against.

- `bare_loop`: redis-py `XREADGROUP COUNT 100` over every input stream, msgspec decode
  of each entry, one multi-id `XACK` per stream read (DESIGN section 5's baseline: the
  practical ceiling of a Python consumer on this machine and server);
- `faststream_batch`: FastStream's batch subscriber, one per stream, with a parser that
  keeps the raw entries, doing the same decode and multi-id XACK through the worker's
  Dispatcher: the framework's own cost as a transport, apart from the store and the core
  (the worker no longer reads this way: docs/store.md, "Reading the input streams").

Both drain a backlog written beforehand and return entries per second.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, cast

import msgspec
from faststream import AckPolicy
from faststream.redis import RedisBroker, StreamSub
from faststream.redis.message import RedisBatchStreamMessage
from redis.asyncio import Redis

from contracts.streams import DATA_FIELD, GROUP, Entry, as_text, input_streams
from store.intake import ensure_groups
from worker.consumer import Dispatcher, Processor
from worker.observability import Metrics, get_logger

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
    # CPU seconds per second over the drain, of every process on the machine (all
    # cores; `machine_busy_s`): how much of the machine the others left free.
    machine_cores: float = float("nan")


def machine_busy_s() -> float:
    """CPU seconds every core has spent busy so far, machine-wide (/proc/stat: user to
    steal, less idle and iowait): other users' work on a shared machine, and time the
    hypervisor gave other guests, included."""
    fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    ticks = [int(field) for field in fields]
    return (sum(ticks[:8]) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")


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
    suspects: Mapping[str, int] = field(default_factory=dict)


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
    for stream in streams_of(partitions):
        subscriber = broker.subscriber(
            stream=StreamSub(
                stream, group=GROUP, consumer="faststream", batch=True, max_records=100,
                polling_interval=100,
            ),
            parser=_keep_raw, decoder=_raw_body, ack_policy=AckPolicy.MANUAL, no_reply=True,
        )  # fmt: skip
        subscriber(_handler(dispatcher))
    await ensure_groups(redis, range(partitions), GROUP)
    await broker.start()
    try:
        await processor.finished.wait()
        elapsed = time.perf_counter() - started[0]
    finally:
        await broker.stop()
    return total / elapsed


# FastStream's default parser decodes every body as JSON and dumps the list again: these
# keep the raw batch (channel, message_ids, data) for the Dispatcher, as the worker did.
async def _keep_raw(message: Any) -> RedisBatchStreamMessage:  # noqa: ANN401  (FastStream's raw dict)
    return RedisBatchStreamMessage(
        raw_message=message, body=b"", consumer=cast("Any", None), group=None
    )


async def _raw_body(message: RedisBatchStreamMessage) -> Any:  # noqa: ANN401  (FastStream awaits decoders)
    return message.raw_message


def _handler(dispatcher: Dispatcher) -> Any:  # noqa: ANN401
    # A fresh function per subscriber: FastStream wraps the function object it gets.
    async def handle(raw: Any) -> None:  # noqa: ANN401
        stream = as_text(raw["channel"])
        entries = [
            Entry(stream, as_text(entry_id), fields)
            for entry_id, fields in zip(raw["message_ids"], raw["data"], strict=True)
        ]
        await dispatcher.handle(entries)

    return handle
