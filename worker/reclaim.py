"""Reclaim entries left pending by a dead (or failing) consumer and process them again.

FastStream never redelivers a failed Redis entry (it stays in the PEL forever), so
this loop is what makes a crash or an exception recoverable. Each pass runs the
store's reclaim (`store.intake.reclaim_pending`, XPENDING + XCLAIM in one script per
stream: two reclaimers racing get disjoint sets) over every served partition, taking
the entries of dead consumers (no heartbeat) and its own, and those of a live worker
only when stuck (idle `STUCK_FACTOR` reclaim periods), and hands what
it took over to the dispatcher with its delivery count: the store dead-letters an
entry past the delivery limit instead of applying it, so a poison entry ends in dead
letters with its count and reason and never blocks the stream. A pending entry whose
stream entry was deleted is acked by the script and reported here.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from redis.exceptions import RedisError

from contracts.streams import Entry, family_of
from store.intake import reclaim_pending
from store.scripts import AnyRedis
from worker.consumer import Dispatcher, sleep_or_stop
from worker.health import live_workers
from worker.observability import Metrics
from worker.outage import Backoff, Reachability

# A live worker's entry is taken from it only when idle this many reclaim periods: it is
# stuck, not slow (a worker that beats but makes no progress).
STUCK_FACTOR = 6
# Entries per stream one claim takes, whatever ACCORD_BATCH_SIZE is. A claim counts a
# delivery of every entry it takes; a worker that dies before committing them passes
# that count on to the next. A small page commits quickly, so a fleet whose workers keep
# dying (a crash loop, a node going down) still moves on, and no innocent entry reaches
# the delivery limit because it was claimed with thousands of others.
RECLAIM_PAGE = 100


def counted_by_stream(metrics: Metrics, entries: Sequence[Entry]) -> dict[str, list[Entry]]:
    """Reclaimed entries by stream, each stream's number added to the reclaims metric (by
    family): the reclaimer's passes and a takeover's claim count alike."""
    by_stream: dict[str, list[Entry]] = {}
    for entry in entries:
        by_stream.setdefault(entry.stream, []).append(entry)
    for stream, mine in by_stream.items():
        metrics.reclaims.labels(family_of(stream)).inc(len(mine))
    return by_stream


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

    async def reclaim_partition(self, partition: int, live: Collection[str]) -> int:
        """One pass over one partition's streams; returns how many entries were reclaimed."""
        reclaimed = await reclaim_pending(
            self.redis,
            partition,
            self.group,
            self.consumer,
            min_idle_ms=self.min_idle_ms,
            count=self.count,
            live=live,
            stuck_ms=self.min_idle_ms * STUCK_FACTOR,
        )
        if reclaimed.deleted:
            self.log.warning(
                "reclaim_deleted",
                partition=partition,
                entries=[f"{stream}/{entry_id}" for stream, entry_id in reclaimed.deleted],
            )
        entries = reclaimed.entries
        for stream, mine in counted_by_stream(self.dispatcher.metrics, entries).items():
            self.log.info("reclaimed", stream=stream, entries=len(mine), first=mine[0].entry_id)
        if entries:
            await self.dispatcher.handle(entries)
        return len(entries)

    async def reclaim_once(self) -> int:
        # Live workers beat every 2 s with a 6 s expiry (worker/health.py): a consumer
        # without a heartbeat is gone, and its entries are taken at `min_idle_ms`.
        live = {beat.consumer for beat in await live_workers(self.redis)} - {self.consumer}
        total = 0
        # A copy: with partition ownership the served partitions change while it runs.
        for partition in tuple(self.partitions):
            total += await self.reclaim_partition(partition, live)
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
