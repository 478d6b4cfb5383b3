"""A reading loop that hands the store one partition's three streams merged in XADD order.

Why (docs/store.md, "Reading the input streams"): a session's seq runs across the
chat-turn, tool-call and tool-result streams. Read stream by stream (as FastStream's
subscribers did, one per stream), the streams advance by the same number of entries per
read, but they are not equally dense: on a backlog, the sparser tool streams run ahead
of the chat stream in time, and about half of all entries arrive before their
predecessor and are parked, then loaded and drained again, in the store's ordering
gate. Merging the reads by entry id (the XADD time on one server) restores the
gateway's write order, so almost nothing parks, and one store call commits what three
would.

How: one XREADGROUP reads COUNT entries of every stream whose buffer runs low. A stream
that returned a full COUNT may hold more entries, so the millisecond of its last id read
bounds what may be handed over now; a stream that returned fewer is caught up, and
anything added to it later was written after everything read so far. What was written
before the bound goes to the Dispatcher as one batch; the rest waits in memory for the
next read. Those entries are in this consumer's PEL, exactly like a batch read and not
yet committed: a stop leaves them pending, for the reclaimer.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import operator
from collections.abc import Sequence
from typing import Any, cast

from redis.asyncio import Redis
from redis.exceptions import RedisError

from contracts.streams import Entry, EntryId, entries_of, entries_of_reply, input_streams
from store.scripts import AnyRedis
from worker.consumer import Dispatcher
from worker.outage import Backoff, Reachability
from worker.read_size import ReadSize

# Entries held in memory, in COUNTs, before a stuck bound gives way (see `take`).
STUCK_LIMIT = 10


class MergedBuffer:
    """The merge itself, apart from Redis: entries in, batches in id order out."""

    def __init__(self, streams: Sequence[str], count: int, size: ReadSize | None = None) -> None:
        # Sizes the next read: `count`, or fewer while the entries read are large.
        self.size = size or ReadSize(count, 0, len(streams), 0)
        self.waiting: dict[str, list[Entry]] = {s: [] for s in streams}
        # The parsed ids of `waiting`, parsed once: the cut bisects them, the merge sorts.
        self.ids: dict[str, list[EntryId]] = {s: [] for s in streams}
        self.full: set[str] = set()
        # Set when the bound's millisecond holds everything waiting: read on past it.
        self.stuck = False

    def wanted(self) -> list[str]:
        """Streams worth reading now: fewer than COUNT waiting, or all when the bound is stuck.

        When stuck, every stream is read, not only the bounding ones: a stream left out of
        a read counts as full again (it may have grown), so reading only the full ones let
        two exhausted sets of streams take turns bounding each other for ever.
        """
        if self.stuck:
            return list(self.waiting)
        return [s for s, entries in self.waiting.items() if len(entries) < self.count]

    def add(
        self, read: dict[str, list[Entry]], asked: Sequence[str], count: int | None = None
    ) -> None:
        """What one XREADGROUP of the `asked` streams, COUNT `count` (default the current
        one), returned."""
        count = self.count if count is None else count
        for stream, entries in read.items():
            self.waiting[stream].extend(entries)
            self.ids[stream].extend(map(Entry.id, entries))
            self.size.observe(stream, entries)
        for stream in asked:
            if stream not in read:
                self.size.nothing_read(stream)
        # Caught up: asked, and fewer than the read's COUNT came back. A stream not asked
        # this time may have grown since its last read, so it bounds like a full one.
        self.full = {s for s in self.waiting if s not in asked or len(read.get(s, ())) >= count}

    @property
    def count(self) -> int:
        """The COUNT of the next read (`ReadSize`)."""
        return self.size.count

    def behind(self) -> bool:
        """Whether some stream may hold more than was read: its last read came back full.

        Only then is a read ahead worth its round trip. A caught-up partition's read ahead
        returns what arrived during the batch, which the next (blocking) read returns as
        soon anyway; mostly it returns nothing, and the loop then reads a second time.
        """
        return bool(self.full)

    def take(self) -> list[Entry]:
        """Every waiting entry written before the first millisecond some unread entry may have.

        A full stream's unread entries have ids past its last one read, so milliseconds
        at or after it; every entry of an earlier millisecond, in any stream, has been
        read. Ids order entries only within a stream (the sequence part counts per
        stream), so the cut is by millisecond. When that hands over nothing (more than
        COUNT entries in one millisecond, as a pipelined producer writes them), the
        bounding streams are read further; past STUCK_LIMIT x COUNT entries held,
        everything up to the last id read goes, and the store's gate parks what that
        puts out of order: slower, still correct.
        """
        bounds = [self.ids[s][-1] for s in self.full if self.ids[s]]
        if not bounds:
            self.stuck = False
            return self._cut(None)
        bound = min(bounds)
        batch = self._cut(EntryId(bound.ms, -1))
        held = sum(len(entries) for entries in self.waiting.values())
        self.stuck = not batch and held < STUCK_LIMIT * self.count
        if batch or self.stuck:
            return batch
        return self._cut(bound)

    def _cut(self, bound: EntryId | None) -> list[Entry]:
        """The waiting entries with ids up to `bound` (all if None), in id order."""
        taken: list[tuple[EntryId, Entry]] = []
        for stream, entries in self.waiting.items():
            ids = self.ids[stream]
            cut = len(ids) if bound is None else bisect.bisect_right(ids, bound)
            if cut:
                taken.extend(zip(ids[:cut], entries[:cut], strict=True))
                del ids[:cut], entries[:cut]
        taken.sort(key=operator.itemgetter(0))
        return [entry for _, entry in taken]

    def empty(self) -> bool:
        return not any(self.waiting.values())


# What a read returned by stream, the streams it asked, and the COUNT it asked with: a
# stream is full by that COUNT, which `add` may change as the read's entries are counted.
Read = tuple[dict[str, list[Entry]], list[str], int]


async def merged_loop(  # noqa: PLR0913  (a loop's knobs, all keyword-only)
    redis: AnyRedis,
    dispatcher: Dispatcher,
    *,
    partition: int,
    group: str,
    consumer: str,
    count: int,
    block_ms: int,
    stop: asyncio.Event,
    read_bytes: int,
    entry_limit: int,
    reachability: Reachability | None = None,
) -> None:
    """Read `partition`'s input streams and dispatch them merged, until `stop` is set.

    While a batch of a backlog is processed, the next read is already on its way (never
    blocking): Redis serves it while this process plans the batch's commit, instead of
    after the commit, when each would wait on the other. It reads what the loop would
    read next anyway; entries it returns after a stop stay pending, like any read not
    committed. A caught-up partition (no stream came back full) reads nothing ahead: at a
    steady load below the peak the read ahead mostly came back empty, so each batch paid
    a second round trip before its next read, and latency grew with it
    (docs/performance.md, "Steady state").

    A read that fails (Redis restarting, a failover, a reset connection) is tried again
    with backoff, one `redis_unavailable` line per step (worker/outage.py); entries whose
    reply was lost stay pending, for the reclaimer. Any other error ends the loop, and
    the worker with it (worker/app.py).
    """
    streams = input_streams(partition)
    size = ReadSize(count, read_bytes, len(streams), entry_limit)
    reader = _Reader(redis, group, consumer, MergedBuffer(streams, count, size))
    backoff = Backoff(dispatcher.log, f"read-{partition}", reachability)
    try:
        while not stop.is_set():
            try:
                await reader.fill(block_ms)
            except (RedisError, OSError) as error:
                await backoff.wait(stop, error)
                continue
            backoff.reset()
            batch = reader.buffer.take()
            if batch:
                if reader.buffer.behind():
                    reader.read_ahead()
                await dispatcher.handle(batch)
    finally:
        await reader.settle()


def _unparsed_reads(redis: AnyRedis) -> Redis | None:
    """A client on `redis`'s own connections whose XREADGROUP replies come unparsed.

    The reader builds its entries from the server's reply itself (`entries_of_reply`):
    redis-py's parser builds a dict per entry and a tuple list that would be read again.
    Only this client's callback differs; `redis` keeps its own. A Cluster client routes
    by command and keeps the parsed reads.
    """
    if not isinstance(redis, Redis):
        return None
    view = Redis(connection_pool=redis.connection_pool)
    view.set_response_callback("XREADGROUP", _as_sent)
    return view


def _as_sent(response: object, **_options: object) -> object:
    return response


class _Reader:
    """The XREADGROUP side of `merged_loop`: reads into the buffer, one read ahead."""

    def __init__(self, redis: AnyRedis, group: str, consumer: str, buffer: MergedBuffer) -> None:
        self.redis = redis
        self.group = group
        self.consumer = consumer
        self.buffer = buffer
        self.ahead: asyncio.Task[Read] | None = None
        self.unparsed = _unparsed_reads(redis)

    async def read(self, asked: list[str], block: int | None) -> Read:
        count = self.buffer.count
        if self.unparsed is None:
            response: Any = await self.redis.xreadgroup(
                self.group,
                self.consumer,
                cast("Any", dict.fromkeys(asked, ">")),
                count=count,
                block=block,
            )
            by_stream = {
                entries[0].stream: entries
                for stream, raw in response or ()
                if (entries := entries_of(stream, raw))
            }
            return by_stream, asked, count
        wait = () if block is None else ("BLOCK", block)
        # redis-py leaves execute_command untyped; the reply's shape is the server's.
        reply = await self.unparsed.execute_command(  # type: ignore[no-untyped-call]
            "XREADGROUP", "GROUP", self.group, self.consumer, "COUNT", count, *wait,
            "STREAMS", *asked, *(">" for _ in asked),
        )  # fmt: skip
        return entries_of_reply(reply), asked, count

    async def fill(self, block_ms: int) -> None:
        """Add the read ahead, or read now (blocking only with nothing in hand)."""
        if self.ahead is not None:
            ahead, self.ahead = self.ahead, None
            self.buffer.add(*await ahead)
        elif asked := self.buffer.wanted():
            # Block only with nothing in hand: waiting entries must not wait on new ones.
            self.buffer.add(*await self.read(asked, block_ms if self.buffer.empty() else None))

    def read_ahead(self) -> None:
        """Start the next read, never blocking, if some stream runs low."""
        if asked := self.buffer.wanted():
            self.ahead = asyncio.create_task(self.read(asked, None))

    async def settle(self) -> None:
        """At a stop, let a read ahead finish (its entries stay pending for reclaim)."""
        if self.ahead is not None:
            with contextlib.suppress(Exception):
                await self.ahead
