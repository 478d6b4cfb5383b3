"""The worker's side of partition ownership: hold the assigned partitions' leases, read
only those, hand them over cleanly (protocol in store/ownership.py, docs/store.md).

One loop (`Ownership.run`) beats every `lease_ms / 4`: it renews the membership, computes
the partitions this worker is assigned, stops reading and releases those it is no
longer assigned, renews the leases it keeps (a lease found taken over is dropped), and
acquires the assigned ones that are free. On acquiring a partition it first claims and
processes every entry pending in the partition's streams, whoever read it (the last
owner's in-flight batch, crashed or not: the fence refuses that owner's commit), then
starts the partition's merged reader. While it waits for an assigned partition that is
still held by someone else, it beats faster, so a hand-over takes a fraction of a beat.

The reclaimer, the sweeper and the watchdog see the held partitions through `served`
and `sweep_targets`, which this loop updates in place.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, Protocol

from redis.exceptions import RedisError

from contracts.streams import Entry
from store import ownership
from store.intake import reclaim_pending
from store.keys import LAYOUT_MOVING
from store.ownership import NOT_HELD, Fence
from store.scripts import AnyRedis
from worker.consumer import Dispatcher, sleep_or_stop
from worker.outage import Backoff
from worker.reclaim import RECLAIM_PAGE, counted_by_stream
from worker.sweeper import SweepTarget

# While an assigned partition is still held by another worker, beat this often (s).
FAST_BEAT_S = 0.2
# Reads' worth of pending entries per stream claimed when a partition is taken, at most.
CLAIM_PAGES = 10
# Entries per stream of a takeover's first claim: committed within milliseconds, so a
# new owner killed soon after it took the partition still moved the oldest on, having
# counted a delivery of few entries (see `_claim_pending`).
FIRST_CLAIM = 10


class Fenceable(SweepTarget, Protocol):
    """A partition's store processor as ownership drives it."""

    def set_fence(self, fence: Fence | None) -> None: ...


ReaderFactory = Callable[[int, asyncio.Event], Coroutine[Any, Any, None]]


@dataclass
class _Held:
    fence: Fence
    stop: asyncio.Event
    reader: asyncio.Task[None] | None = None
    # Set when a commit was refused: the lease is someone else's now.
    lost: bool = False


@dataclass(repr=False)  # a traceback's locals print it: keep that short
class Ownership:
    redis: AnyRedis
    dispatcher: Dispatcher
    ports: dict[int, Fenceable]
    reader: ReaderFactory
    consumer: str
    group: str
    partitions: int
    lease_ms: int
    batch_size: int
    log: Any
    on_failure: Callable[[str], None]
    # Shared with the reclaimer, the watchdog and the sweeper; updated in place.
    served: list[int] = field(default_factory=list)
    sweep_targets: dict[int, SweepTarget] = field(default_factory=dict)
    held: dict[int, _Held] = field(default_factory=dict)
    stopping: bool = False
    # Said once: a repartition is moving the partitions (acquisitions refused meanwhile).
    waiting_for_move: bool = False

    def __post_init__(self) -> None:
        for partition, port in self.ports.items():
            port.set_fence(Fence(partition, NOT_HELD))
        self.dispatcher.on_lease_lost = self.lost

    @property
    def beat_s(self) -> float:
        return self.lease_ms / 4000

    # -------------------------------------------------------------- the loop
    async def tick(self) -> bool:
        """One beat; True when every assigned partition is held."""
        members = await ownership.beat(self.redis, self.consumer, self.lease_ms)
        wanted = ownership.assignment(members.names, self.partitions, self.consumer)
        for partition in sorted(set(self.held) - wanted):
            await self._release(partition)
        for partition in sorted(self.held):
            await self._renew(partition)
        complete = True
        for partition in sorted(wanted - set(self.held)):
            reply = await ownership.acquire(
                self.redis, partition, self.consumer, self.lease_ms, self.partitions
            )
            if reply.held:
                await self._take(partition, reply.owner)
            else:
                complete = False
                if reply.layout is not None:
                    self._layout_refused(reply.layout)
        return complete

    def _layout_refused(self, layout: str) -> None:
        """An acquisition refused by the partition's layout: `accord repartition` moves
        the partitions (wait: nothing of them is read meanwhile), or moved them to
        another count, which this process was built for no longer: it fails, and is
        restarted with Redis's count (unless ACCORD_PARTITIONS pins the old one)."""
        if layout == LAYOUT_MOVING:
            if not self.waiting_for_move:
                self.log.warning("repartition_in_progress", partitions=self.partitions)
            self.waiting_for_move = True
            return
        self.log.critical(
            "layout_changed",
            partitions=self.partitions,
            now=layout,
            hint="restarting takes Redis's count; leave ACCORD_PARTITIONS unset or set it to"
            f" {layout}",
        )
        self.on_failure(f"layout changed: {self.partitions} -> {layout} partitions")

    async def run(self, stop: asyncio.Event) -> None:
        """Beat until `stop`; then stop every reader, release every lease, and leave."""
        backoff = Backoff(self.log, "ownership")
        try:
            while not stop.is_set():
                try:
                    complete = await self.tick()
                except (RedisError, OSError) as error:
                    # Redis away: keep the readers (their commits are fenced); try again,
                    # saying so once per backoff step (worker/outage.py).
                    await backoff.wait(stop, error)
                    continue
                backoff.reset()
                await sleep_or_stop(stop, self.beat_s if complete else FAST_BEAT_S)
        finally:
            await self.release_all()

    async def release_all(self) -> None:
        """A clean stop: hand every partition over at once, then leave the membership."""
        self.stopping = True
        for partition in sorted(self.held):
            with contextlib.suppress(RedisError, OSError):
                await self._release(partition)
        with contextlib.suppress(RedisError, OSError):
            await ownership.leave(self.redis, self.consumer, self.lease_ms)

    def lost(self, partition: int) -> None:
        """A commit was refused: stop reading the partition now (the next beat forgets it)."""
        held = self.held.get(partition)
        if held is None or held.lost:
            return
        held.lost = True
        held.stop.set()
        self._unserve(partition)
        self.log.warning("partition_lost", partition=partition)

    # ----------------------------------------------------------- transitions
    async def _take(self, partition: int, token: str) -> None:
        fence = Fence(partition, token)
        self.ports[partition].set_fence(fence)
        held = self.held[partition] = _Held(fence, asyncio.Event())
        try:
            claimed = await self._claim_pending(partition)
        except (RedisError, OSError) as error:
            # Redis went away mid-claim. The partition is held: read it anyway (the reader
            # backs off until Redis is back), and what is left pending the reclaimer takes.
            # Raising here would leave it held but never read until a restart.
            claimed = -1
            self.log.warning(
                "takeover_claim_failed",
                partition=partition,
                error=f"{type(error).__name__}: {' '.join(str(error).split())}"[:300],
            )
        if held.lost:
            return
        held.reader = asyncio.create_task(
            self.reader(partition, held.stop), name=f"read-{partition}"
        )
        held.reader.add_done_callback(self._reader_ended)
        self.served.append(partition)
        self.served.sort()
        self.sweep_targets[partition] = self.ports[partition]
        self.log.info("partition_acquired", partition=partition, token=token, claimed=claimed)

    async def _renew(self, partition: int) -> None:
        held = self.held[partition]
        if held.lost:
            await self._forget(partition)
            return
        reply = await ownership.renew(self.redis, held.fence, self.lease_ms)
        if not reply.held:
            self.lost(partition)
            await self._forget(partition)

    async def _release(self, partition: int) -> None:
        held = self.held[partition]
        held.stop.set()
        self._unserve(partition)
        if held.reader is not None:
            # The reader finishes its batch in hand (one atomic commit) and returns.
            await asyncio.gather(held.reader, return_exceptions=True)
        await self._forget(partition)
        if not held.lost and await ownership.release(self.redis, held.fence):
            self.log.info("partition_released", partition=partition)

    async def _forget(self, partition: int) -> None:
        held = self.held.pop(partition)
        held.stop.set()
        self._unserve(partition)
        if held.reader is not None:
            await asyncio.gather(held.reader, return_exceptions=True)
        self.ports[partition].set_fence(Fence(partition, NOT_HELD))

    def _unserve(self, partition: int) -> None:
        if partition in self.served:
            self.served.remove(partition)
        self.sweep_targets.pop(partition, None)

    def _reader_ended(self, task: asyncio.Task[None]) -> None:
        """A reader ends when its partition is released; ending otherwise fails the worker."""
        if task.cancelled() or self.stopping:
            return
        error = task.exception()
        if error is not None:
            self.on_failure(f"{task.get_name()} ended: {type(error).__name__}: {error}")

    async def _claim_pending(self, partition: int) -> int:
        """Claim and process the entries pending in the partition, a page at a time.

        Pending entries belong to the last owner's reads (or this worker's own from an
        earlier hold): the fence refuses whatever that owner still commits, so they are
        claimed at once rather than after the reclaimer's idle time. Every claim counts a
        delivery of each entry it takes, so they are claimed `RECLAIM_PAGE` per stream at
        a time, merged in id order, and each page is committed (in batches of
        `RECLAIM_PAGE`, so the first commit comes soon) before the next is taken:
        a worker killed during a takeover passes a delivery on to one page, not to every
        pending entry, and each takeover commits its first page quickly (with the whole
        backlog claimed at once, a fleet whose new owners were killed before their first
        large batch committed drove innocent entries to the delivery limit). The first
        page is `FIRST_CLAIM` per stream: a chaos run that kills whichever worker holds
        pending entries, which after a takeover is the new owner within tens of
        milliseconds of its claim, drove the oldest page of 100 per stream to the limit
        through ten takeovers in a row, none of which committed before it was killed. Up to
        `CLAIM_PAGES` reads' worth per stream; a page that brings back an entry of an
        earlier one (it could not be committed) is the last, and so is the page that
        ends a beat's time: the ownership loop beats and renews its leases only between
        ticks, so a long claim would let them expire. The rest, and anything failing now,
        the reclaimer takes.
        """
        claimed: set[tuple[str, str]] = set()
        # At least one page, and pages enough for CLAIM_PAGES reads of any batch size.
        pages = max(1, -(-self.batch_size * CLAIM_PAGES // RECLAIM_PAGE))
        ends = time.monotonic() + self.beat_s
        for _ in range(pages):
            if self.held[partition].lost or time.monotonic() > ends:
                break
            reclaimed = await reclaim_pending(
                self.redis, partition, self.group, self.consumer, min_idle_ms=0,
                count=RECLAIM_PAGE if claimed else FIRST_CLAIM,
            )  # fmt: skip
            if reclaimed.deleted:
                self.log.warning("reclaim_vanished", entries=len(reclaimed.deleted))
            if not reclaimed.entries:
                if reclaimed.deleted:
                    continue  # a page of deleted entries (acked by the script): go on
                break
            entries = sorted(reclaimed.entries, key=Entry.id)
            counted_by_stream(self.dispatcher.metrics, entries)
            again = any((entry.stream, entry.entry_id) in claimed for entry in entries)
            claimed.update((entry.stream, entry.entry_id) for entry in entries)
            # In batches of one stream page's size: the first commit lands soon after the
            # claim, so even a new owner killed moments later has moved the oldest on.
            for first in range(0, len(entries), RECLAIM_PAGE):
                if self.held[partition].lost:
                    break
                await self.dispatcher.handle(entries[first : first + RECLAIM_PAGE])
            if again:
                break
        return len(claimed)


__all__ = ["Fenceable", "Ownership"]
