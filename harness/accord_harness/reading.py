"""Bare XREADGROUP reading, for tests, tools and benchmarks that drive the store by hand.

The worker reads with its merged reader only (worker/merged_reader.py; docs/store.md,
"Reading the input streams"). These two are the laboratory's reference loops:
`read_new` is one bounded read of a partition's three streams (a test applies what it
returns with `PartitionProcessor.process`); `read_loop` feeds the worker's `Dispatcher`
from the same read until stopped, the bare loop benchmarks compare the worker with.
"""

from __future__ import annotations

import asyncio
from typing import Any, cast

from contracts.streams import Entry, entries_of, input_streams
from store.scripts import AnyRedis
from worker.consumer import Dispatcher


async def read_new(  # noqa: PLR0913  (XREADGROUP's knobs)
    redis: AnyRedis,
    partition: int,
    group: str,
    consumer: str,
    *,
    count: int = 100,
    block_ms: int | None = None,
) -> list[Entry]:
    """New entries of `partition`'s input streams for `consumer`: one XREADGROUP, at most
    `count` per stream (one hash tag, so one call on a cluster too)."""
    streams = cast("Any", dict.fromkeys(input_streams(partition), ">"))
    reply: Any = await redis.xreadgroup(group, consumer, streams, count=count, block=block_ms)
    return [entry for stream, read in reply or () for entry in entries_of(stream, read)]


# The signature repeats worker.merged_reader.merged_loop's on purpose: the transport
# benchmark swaps one loop for the other, and a parameter list cannot be shared without
# giving up its types.
async def read_loop(  # noqa: PLR0913  (a loop's knobs, all keyword-only)
    redis: AnyRedis,
    dispatcher: Dispatcher,
    *,
    partition: int,
    group: str,
    consumer: str,
    count: int,
    block_ms: int,
    stop: asyncio.Event,
) -> None:
    """`read_new` into `dispatcher` until `stop` is set, stream by stream as read.

    Its knobs are `merged_loop`'s on purpose (a benchmark swaps one for the other).
    """
    while not stop.is_set():
        entries = await read_new(redis, partition, group, consumer, count=count, block_ms=block_ms)
        for stream in dict.fromkeys(entry.stream for entry in entries):
            await dispatcher.handle([entry for entry in entries if entry.stream == stream])
