"""Reclaim entries left pending by a dead (or failing) consumer and process them again.

FastStream never redelivers a failed Redis entry (it stays in the PEL forever), so
this loop is what makes a crash or an exception recoverable. Each pass asks XPENDING
for entries idle at least `min_idle_ms` (with their delivery counts), claims them
with XCLAIM using the same idle bound (two reclaimers racing get disjoint sets), and
hands them to the dispatcher with `delivery_count`: the store dead-letters an entry
past the delivery limit instead of applying it, so a poison entry ends in dead
letters with its count and reason and never blocks the stream.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from contracts.streams import input_streams
from worker.consumer import AnyRedis, Dispatcher, RawEntry, sleep_or_stop


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


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

    async def reclaim_stream(self, stream: str) -> int:
        """One pass over one stream; returns how many entries were reclaimed."""
        pending: Any = await self.redis.xpending_range(
            stream, self.group, min="-", max="+", count=self.count, idle=self.min_idle_ms
        )
        if not pending:
            return 0
        counts = {_text(p["message_id"]): int(p["times_delivered"]) for p in pending}
        claimed: Any = await self.redis.xclaim(
            stream, self.group, self.consumer, self.min_idle_ms, list(counts)
        )
        entries: list[RawEntry] = []
        vanished: list[str] = []
        for entry_id, fields in claimed:
            name = _text(entry_id)
            if not fields:
                # Deleted from the stream while pending (XDEL/trim): nothing to apply.
                vanished.append(name)
                continue
            # XCLAIM counted this delivery too.
            entries.append(RawEntry(stream, name, fields, counts.get(name, 0) + 1))
        if vanished:
            await self.redis.xack(stream, self.group, *vanished)
            self.log.warning("reclaim_vanished", stream=stream, entries=vanished)
        if entries:
            self.dispatcher.metrics.reclaims.labels(stream.split(":", 1)[0]).inc(len(entries))
            self.log.info(
                "reclaimed", stream=stream, entries=len(entries), first=entries[0].entry_id
            )
            await self.dispatcher.handle(entries)
        return len(entries)

    async def reclaim_once(self) -> int:
        total = 0
        for partition in self.partitions:
            for stream in input_streams(partition):
                total += await self.reclaim_stream(stream)
        return total

    async def run(self, stop: asyncio.Event, interval_s: float) -> None:
        while not stop.is_set():
            try:
                while await self.reclaim_once() >= self.count:
                    pass  # a full page: more may be waiting
            except asyncio.CancelledError:
                raise
            except Exception:  # a Redis hiccup must not end reclaiming
                self.log.exception("reclaim_failed")
            await sleep_or_stop(stop, interval_s)
