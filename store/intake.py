"""Reading a partition's input streams as a consumer group member (a bare redis-py loop).

`ensure_groups` creates the group at id `0` with MKSTREAM (never `$`: entries written
before the first worker started would be skipped). `read_new` is one bounded
XREADGROUP over the partition's three streams (one slot, so one call on a cluster);
`reclaim` takes over entries idle in other consumers' pending lists with XAUTOCLAIM
and reports XPENDING's delivery count, which the dead-letter limit needs.
"""

from __future__ import annotations

from typing import Any

from redis.exceptions import ResponseError

from contracts.streams import input_streams
from store.processor import Entry
from store.scripts import RECLAIM, AnyRedis


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


async def ensure_groups(redis: AnyRedis, partition: int, group: str) -> None:
    for stream in input_streams(partition):
        try:
            await redis.xgroup_create(stream, group, id="0", mkstream=True)
        except ResponseError as error:
            if "BUSYGROUP" not in str(error):
                raise


async def read_new(  # noqa: PLR0913  (XREADGROUP's knobs)
    redis: AnyRedis,
    partition: int,
    group: str,
    consumer: str,
    *,
    count: int = 100,
    block_ms: int | None = None,
) -> list[Entry]:
    streams: dict[Any, Any] = dict.fromkeys(input_streams(partition), ">")
    reply: Any = await redis.xreadgroup(group, consumer, streams, count=count, block=block_ms)
    return [
        Entry(_text(stream), _text(entry_id), fields, 1)
        for stream, raw in reply or ()
        for entry_id, fields in raw
    ]


async def reclaim(  # noqa: PLR0913  (XAUTOCLAIM's knobs)
    redis: AnyRedis,
    partition: int,
    group: str,
    consumer: str,
    *,
    min_idle_ms: int,
    count: int = 100,
) -> list[Entry]:
    """Claim up to `count` entries per stream idle at least `min_idle_ms`.

    One `reclaim.lua` call per stream: XAUTOCLAIM, the delivery counts (XPENDING), and
    the release of entries deleted from the stream while pending (Redis 6.2 keeps them).
    """
    entries: list[Entry] = []
    for stream in input_streams(partition):
        reply: Any = await RECLAIM.run(
            redis, [stream], [group, consumer, min_idle_ms, "0-0", count]
        )
        for entry_id, flat, delivered in reply[1]:
            fields = dict(zip(flat[::2], flat[1::2], strict=True))
            entries.append(Entry(stream, _text(entry_id), fields, int(delivered)))
    return entries
