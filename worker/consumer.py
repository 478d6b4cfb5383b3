"""From raw stream entries to the store: the transport-agnostic half of the reading loop.

`Dispatcher.handle` takes one batch of raw entries (as the merged reader or the
reclaimer hand them over) and hands them to the partition's
store processor, then counts and logs what was committed. It never raises: an
exception leaves the entries pending in the consumer group, and the reclaimer
redelivers them until the delivery limit sends them to dead letters. So a bad entry
never stops the worker, and nothing is acked that was not applied.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from redis.exceptions import RedisError

from contracts.outputs import OutputEvent
from contracts.streams import Entry, family_of
from store.ownership import LeaseLost
from worker.observability import Metrics, log_events


class Outcome(Protocol):
    """What one batch did (the store's BatchReport), as the worker reads it."""

    # Entries per outcome name: applied, drained, parked, duplicate, dead_letter, ...
    @property
    def outcomes(self) -> Mapping[str, int]: ...
    @property
    def events(self) -> Sequence[OutputEvent]: ...
    @property
    def gap_skips(self) -> int: ...
    # Entries past the delivery limit tried alone ("<stream> <id>": tries so far).
    @property
    def suspects(self) -> Mapping[str, int]: ...


class Processor(Protocol):
    """The store's entry point for one partition (store.processor.PartitionProcessor)."""

    async def process(self, entries: Sequence[Entry]) -> Outcome: ...


_PARTITION = re.compile(r"\{(\d+)\}")


def partition_of_stream(stream: str) -> int:
    """`chat-turn:{3}` -> 3 (the hash tag is the partition; contracts.streams)."""
    found = _PARTITION.search(stream)
    if found is None:
        raise ValueError(f"stream {stream!r} carries no partition hash tag")
    return int(found.group(1))


async def sleep_or_stop(stop: asyncio.Event, seconds: float) -> None:
    """Sleep `seconds`, or return at once when `stop` is set (the worker's loops pause so)."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), timeout=seconds)


def wall_ms() -> int:
    """Wall-clock epoch milliseconds, for the shell only (metrics, sweeps, heartbeats)."""
    return int(time.time() * 1000)  # noqa: TID251  (the shell reads the clock; the core never does)


class _RedisDown:
    """A batch failed because Redis could not be reached (not because of its entries)."""


_REDIS_DOWN = _RedisDown()


@dataclass
class Dispatcher:
    """Routes batches to the partition's processor; counts and logs the result."""

    processors: dict[int, Processor]
    metrics: Metrics
    log: Any
    # Called with the partition when its commit was refused because this worker's lease
    # was taken over (store/ownership.py): the worker drops the partition.
    on_lease_lost: Callable[[int], None] | None = field(default=None, repr=False)

    async def handle(self, entries: Sequence[Entry]) -> list[Outcome]:
        """Process one batch of one partition; the outcomes of what was committed.

        When the batch raises, each entry is retried alone: one entry that makes
        processing fail (a bug, a crash in the core) must not hold back, or drive to
        the delivery limit, the other sessions batched with it. The failing entry stays
        pending; the reclaimer redelivers it until the store dead-letters it.
        """
        if not entries:
            return []
        try:
            outcome = await self._process(entries)
        except LeaseLost as lost:
            # Not a failure of the batch: another worker owns the partition now, and the
            # entries stay pending for it. Retrying them one by one would be refused too.
            self.log.warning("lease_lost", partition=lost.partition, entries=len(entries))
            if self.on_lease_lost is not None:
                self.on_lease_lost(lost.partition)
            return []
        if isinstance(outcome, _RedisDown):
            return []  # retrying entry by entry would only fail again, once per entry
        if outcome is not None:
            return [outcome]
        if len(entries) == 1:
            return []
        singles = [await self._process([entry]) for entry in entries]
        return [
            single
            for single in singles
            if single is not None and not isinstance(single, _RedisDown)
        ]

    async def _process(self, entries: Sequence[Entry]) -> Outcome | _RedisDown | None:
        stream = entries[0].stream
        family = family_of(stream)
        started = time.perf_counter()
        try:
            processor = self.processors[partition_of_stream(stream)]
            outcome = await processor.process(entries)
        except (asyncio.CancelledError, LeaseLost):
            raise
        except (RedisError, OSError) as error:
            # Redis went away mid-batch: the entries stay pending, the reading loop backs
            # off and says `redis_unavailable`; a traceback here would only repeat it.
            self.metrics.errors.labels(family).inc()
            self.log.warning(
                "batch_failed",
                stream=stream,
                entries=len(entries),
                first=entries[0].entry_id,
                error=f"{type(error).__name__}: {' '.join(str(error).split())}"[:300],
            )
            return _REDIS_DOWN
        except Exception:  # the worker never stops on one batch; see module doc
            self.metrics.errors.labels(family).inc()
            self.log.exception(
                "batch_failed", stream=stream, entries=len(entries), first=entries[0].entry_id
            )
            return None
        self.metrics.batch_seconds.observe(time.perf_counter() - started)
        self.metrics.entry_latency.observe_ages(wall_ms(), [entry.id().ms for entry in entries])
        for name, count in outcome.outcomes.items():
            self.metrics.inputs.labels(family, name).inc(count)
        if outcome.gap_skips:
            self.metrics.gap_skips.inc(outcome.gap_skips)
        if outcome.suspects:
            # Rare and worth a look: an entry that keeps failing, or workers that keep dying.
            self.log.warning("suspects_tried_alone", tries=dict(outcome.suspects))
        self.metrics.count_events(outcome.events)
        log_events(self.log, outcome.events)
        return outcome
