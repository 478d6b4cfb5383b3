"""Agreement events for another service: its own consumer group, acks, deduplication."""

from __future__ import annotations

import asyncio
import os
import socket
import time
import uuid
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Self

import msgspec
from redis.asyncio import RedisCluster
from redis.exceptions import ResponseError

from accord_client.contracts.outputs import AgreementEvent
from accord_client.contracts.streams import (
    AGREEMENT_EVENTS,
    DATA_FIELD,
    EntryId,
    as_text,
    stream_name,
)
from accord_client.errors import InvalidInputError
from accord_client.scripts import AnyRedis

_EVENT: msgspec.json.Decoder[AgreementEvent] = msgspec.json.Decoder(AgreementEvent)
_DATA = DATA_FIELD.encode()


class _Probe(msgspec.Struct):
    type: str = "?"
    event_id: str = ""


_PROBE = msgspec.json.Decoder(_Probe)
# How often a subscription that follows the layout asks Redis for the partition count.
LAYOUT_CHECK_S = 1.0


@dataclass(frozen=True, slots=True)
class UnknownEvent:
    """An event this client cannot type: a kind newer than it, or a malformed entry.

    Outputs only grow (docs/contracts.md): a subscriber skips what it does not know.
    """

    type: str
    data: bytes
    error: str


@dataclass(frozen=True, slots=True)
class Delivery:
    """One agreement event as delivered to this consumer."""

    partition: int
    stream: str
    # The stream entry id: where to resume from (`resume_from`), what is acked.
    entry_id: str
    # Deterministic per event (docs/contracts.md): the key to deduplicate by.
    event_id: str
    event: AgreementEvent | UnknownEvent


def _decode(partition: int, stream: str, entry_id: str, fields: dict[Any, Any]) -> Delivery:
    raw = fields.get(_DATA, fields.get(DATA_FIELD))
    data = raw.encode() if isinstance(raw, str) else raw
    if data is None:
        return Delivery(partition, stream, entry_id, "", UnknownEvent("?", b"", "no __data__"))
    try:
        probe = _PROBE.decode(data)
    except msgspec.DecodeError as error:
        return Delivery(partition, stream, entry_id, "", UnknownEvent("?", data, str(error)))
    try:
        event: AgreementEvent | UnknownEvent = _EVENT.decode(data)
    except msgspec.DecodeError as error:
        event = UnknownEvent(probe.type, data, str(error))
    return Delivery(partition, stream, entry_id, probe.event_id, event)


class Subscription:
    """`async for delivery in subscription`: typed agreement events, at least once.

    - Each service reads in a consumer group of its own, so every service sees every
      event; several replicas of one service share its group and split the events.
    - A delivery is acknowledged when the loop asks for the next one, that is after
      the handler (the loop body) returned; leaving the loop by an exception leaves it
      pending, and the next start of this consumer receives it again first.
      `async with` acknowledges the last one on a clean exit.
    - Deliveries whose `event_id` was already handed out (a redelivery, a replay) are
      acknowledged and skipped, within the last `dedup_size` ids of this process.
    - Without a list of partitions it follows the deployment's layout (`layout`, asked
      every LAYOUT_CHECK_S): after `accord repartition` grows it, the new partitions'
      streams join (their groups at `0`: nothing published there is missed), but only
      once this consumer has read every partition it already reads up to where that
      stream ended when the change was seen. A scope's events from before the move are
      all in its old partition's stream by then, so they are handed out before its first
      event in the new one (docs/partitions.md, "Growing"). Partitions a shrink retired
      are still read: they only fall quiet.
    """

    def __init__(  # noqa: PLR0913
        self,
        redis: AnyRedis,
        group: str,
        *,
        consumer: str | None,
        partitions: list[int] | None,
        start: str,
        resume_from: dict[int, str],
        block_ms: int,
        count: int,
        dedup_size: int,
        layout: Callable[[], Awaitable[int]] | None = None,
    ) -> None:
        if not group:
            raise InvalidInputError("group", "must not be empty")
        if partitions is None and layout is None:
            raise InvalidInputError("partitions", "name them, or give the layout to follow")
        self.redis = redis
        self.group = group
        self.consumer = consumer or f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        # None: every partition of the layout, followed as it changes (`layout`).
        self.partitions: list[int] = list(partitions or [])
        self._layout = layout if partitions is None else None
        self._layout_checked = 0.0
        # Partitions waiting to join, and where each partition read now must be read to
        # first (the end of its stream when the new count was seen).
        self._joining: list[int] = []
        self._barrier: dict[int, EntryId] = {}
        self._delivered: dict[int, EntryId] = {}
        self.streams = {p: stream_name(AGREEMENT_EVENTS, p) for p in self.partitions}
        self.start = start
        self.resume_from = resume_from
        self.block_ms = block_ms
        self.count = count
        self._dedup_size = dedup_size
        self._seen: OrderedDict[str, None] = OrderedDict()
        self._buffer: deque[Delivery] = deque()
        self._current: Delivery | None = None
        self._ready = False
        # Partitions whose own pending entries (delivered before a restart) are not read yet.
        self._backlog = set(self.partitions)
        self._idle_s = 0.0

    async def _setup(self) -> None:
        if self._layout is not None:
            self.partitions = list(range(await self._layout()))
            self.streams = {p: stream_name(AGREEMENT_EVENTS, p) for p in self.partitions}
            self._backlog = set(self.partitions)
            self._layout_checked = time.monotonic()
        for p in self.partitions:
            await self._create_group(p, self.start)
            if p in self.resume_from:
                await self.redis.xgroup_setid(self.streams[p], self.group, self.resume_from[p])
        self._ready = True

    async def _create_group(self, partition: int, start: str) -> None:
        stream = stream_name(AGREEMENT_EVENTS, partition)
        try:
            await self.redis.xgroup_create(stream, self.group, id=start, mkstream=True)
        except ResponseError as error:
            if "BUSYGROUP" not in str(error):
                raise

    async def _follow_layout(self) -> None:
        """Ask for the partition count now and then; let new partitions join once every
        partition read now is read up to where its stream ended at the change."""
        if self._layout is None:
            return
        if not self._joining and time.monotonic() - self._layout_checked >= LAYOUT_CHECK_S:
            self._layout_checked = time.monotonic()
            new = [p for p in range(await self._layout()) if p not in self.streams]
            if new:
                self._joining = new
                for p, stream in self.streams.items():
                    last: Any = await self.redis.xrevrange(stream, count=1)
                    if last:
                        self._barrier[p] = EntryId.parse(as_text(last[0][0]))
        if self._joining and all(
            p in self._delivered and self._delivered[p] >= mark for p, mark in self._barrier.items()
        ):
            for p in self._joining:
                # At 0: every event of the new partition, from its first.
                await self._create_group(p, "0")
                self.streams[p] = stream_name(AGREEMENT_EVENTS, p)
                self.partitions.append(p)
                self._backlog.add(p)
            self._joining, self._barrier = [], {}

    def __aiter__(self) -> Subscription:
        return self

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, kind: type[BaseException] | None, *_: object) -> None:
        if kind is None:
            await self.ack_current()

    async def __anext__(self) -> Delivery:
        if not self._ready:
            await self._setup()
        await self.ack_current()
        while True:
            while self._buffer:
                delivery = self._buffer.popleft()
                if delivery.event_id and delivery.event_id in self._seen:
                    await self.ack(delivery)
                    continue
                self._remember(delivery.event_id)
                self._current = delivery
                return delivery
            await self._fill()

    def _remember(self, event_id: str) -> None:
        if not event_id:
            return
        self._seen[event_id] = None
        if len(self._seen) > self._dedup_size:
            self._seen.popitem(last=False)

    async def ack(self, delivery: Delivery) -> None:
        await self.redis.xack(delivery.stream, self.group, delivery.entry_id)

    async def ack_current(self) -> None:
        """Acknowledge the delivery handed out last (done by the next `__anext__` too)."""
        if self._current is not None:
            current, self._current = self._current, None
            await self.ack(current)

    async def _read(self, ids: dict[int, str], block: int | None) -> int:
        streams: dict[Any, Any] = {self.streams[p]: i for p, i in ids.items()}
        reply: Any = await self.redis.xreadgroup(
            self.group, self.consumer, streams, count=self.count, block=block
        )
        items = reply.items() if isinstance(reply, dict) else (reply or ())
        by_stream = {stream: p for p, stream in self.streams.items()}
        got = 0
        if not items and self._barrier:
            # Nothing new on any stream read: each is read to its end, past any barrier.
            for p, i in ids.items():
                if i == ">" and p in self._barrier:
                    self._delivered[p] = self._barrier[p]
        for raw_stream, entries in items:
            stream = as_text(raw_stream)
            p = by_stream[stream]
            if not entries and ids[p] == "0":
                self._backlog.discard(p)
            if entries and ids[p] == ">":
                self._delivered[p] = EntryId.parse(as_text(entries[-1][0]))
            for entry_id, fields in entries:
                got += 1
                if fields is None:  # a pending entry trimmed from the stream meanwhile
                    await self.redis.xack(stream, self.group, entry_id)
                    continue
                self._buffer.append(_decode(p, stream, as_text(entry_id), fields))
        return got

    async def _fill(self) -> None:
        await self._follow_layout()
        if self._backlog:
            for p in list(self._backlog):
                if not await self._read({p: "0"}, None):
                    self._backlog.discard(p)
            if self._buffer:
                return
        if isinstance(self.redis, RedisCluster) and len(self.partitions) > 1:
            # Streams in different slots cannot share one blocking read: poll each.
            got = 0
            for p in self.partitions:
                got += await self._read({p: ">"}, None)
            if not got:
                self._idle_s = min(max(self._idle_s * 2, 0.005), self.block_ms / 1000)
                await asyncio.sleep(self._idle_s)
            else:
                self._idle_s = 0.0
            return
        await self._read(dict.fromkeys(self.partitions, ">"), self.block_ms)
