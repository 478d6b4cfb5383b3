"""Reclaim entries left pending by a dead (or failing) consumer and process them again.

FastStream never redelivers a failed Redis entry (it stays in the PEL forever), so
this loop is what makes a crash or an exception recoverable. Each pass runs the
store's reclaim (`store.intake.reclaim_pending`, XAUTOCLAIM in one script per stream:
two reclaimers racing get disjoint sets) over every served partition and hands what
it took over to the dispatcher with its delivery count: the store dead-letters an
entry past the delivery limit instead of applying it, so a poison entry ends in dead
letters with its count and reason and never blocks the stream. A pending entry whose
stream entry was deleted is acked by the script and reported here.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from redis.exceptions import RedisError

from store.intake import reclaim_pending
from worker.consumer import AnyRedis, Dispatcher, RawEntry, sleep_or_stop
from worker.outage import Backoff, Reachability


@dataclass
class Reclaimer:
    redis: AnyRedis
    dispatcher: Dispatcher
    partitions: Sequence[int]
    group: str
    consumer: str
    min_idle_ms: int
    count: int
    log: Any
    reachability: Reachability | None = None

    async def reclaim_partition(self, partition: int) -> int:
        """One pass over one partition's streams; returns how many entries were reclaimed."""
        reclaimed = await reclaim_pending(
            self.redis,
            partition,
            self.group,
            self.consumer,
            min_idle_ms=self.min_idle_ms,
            count=self.count,
        )
        if reclaimed.deleted:
            self.log.warning(
                "reclaim_deleted",
                partition=partition,
                entries=[f"{stream}/{entry_id}" for stream, entry_id in reclaimed.deleted],
            )
        entries = [
            RawEntry(e.stream, e.entry_id, e.fields, e.delivery_count) for e in reclaimed.entries
        ]
        for stream in {entry.stream for entry in entries}:
            mine = [entry for entry in entries if entry.stream == stream]
            self.dispatcher.metrics.reclaims.labels(stream.split(":", 1)[0]).inc(len(mine))
            self.log.info("reclaimed", stream=stream, entries=len(mine), first=mine[0].entry_id)
        if entries:
            await self.dispatcher.handle(entries)
        return len(entries)

    async def reclaim_once(self) -> int:
        total = 0
        # A copy: with partition ownership the served partitions change while it runs.
        for partition in tuple(self.partitions):
            total += await self.reclaim_partition(partition)
        return total

    async def run(self, stop: asyncio.Event, interval_s: float) -> None:
        backoff = Backoff(self.log, "reclaim", self.reachability)
        while not stop.is_set():
            try:
                while await self.reclaim_once() >= self.count:
                    pass  # a full page: more may be waiting
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError) as error:
                await backoff.wait(stop, error)
                continue
            except Exception:  # a bug must not end reclaiming
                self.log.exception("reclaim_failed")
            backoff.reset()
            await sleep_or_stop(stop, interval_s)
