"""The expiry watermark of a partition: no input written before it is still unapplied.

It is the oldest entry-id time (Redis's own clock) among the entries of the partition's
three input streams that are pending in the consumer group or not yet delivered to it,
and of the entries parked behind a gap; with none of those, the server's current time.
Expiry runs only for deadlines at or below it (DESIGN section 3), so an acceptance that
was written in time is applied before the sweep can expire its record.
"""

from __future__ import annotations

from typing import Any

from redis.exceptions import ResponseError

from contracts.streams import as_text, entry_ms, input_streams
from store import keys
from store.scripts import AnyRedis


async def server_ms(redis: AnyRedis) -> int:
    seconds, micros = await redis.time()
    return int(seconds) * 1000 + int(micros) // 1000


async def _oldest_unapplied(redis: AnyRedis, stream: str, group: str) -> int | None:
    """Entry-id ms of the oldest entry of `stream` the group has not finished, if any."""
    try:
        groups: list[dict[str, Any]] = await redis.xinfo_groups(stream)
    except ResponseError:  # no such stream: nothing written, nothing owed
        return None
    info = next((g for g in groups if as_text(g["name"]) == group), None)
    after = "-" if info is None else "(" + as_text(info["last-delivered-id"])
    oldest: list[int] = []
    undelivered: Any = await redis.xrange(stream, min=after, max="+", count=1)
    if undelivered:
        oldest.append(entry_ms(undelivered[0][0]))
    if info is not None and int(info["pending"]):
        summary = await redis.xpending(stream, group)
        oldest.append(entry_ms(summary["min"] or b"0-0"))
    return min(oldest, default=None)


async def unfinished_ms(redis: AnyRedis, partition: int, group: str) -> int | None:
    """Entry-id ms of the partition's oldest input entry the group has not finished.

    Finished means acked: applied, parked, a duplicate or a dead letter. Every entry
    with an earlier id is finished; None when nothing is pending in any consumer's list
    and nothing is unread. The gap skipper (store/processor.py) waits on it too.
    """
    marks: list[int] = []
    for stream in input_streams(partition):
        oldest = await _oldest_unapplied(redis, stream, group)
        if oldest is not None:
            marks.append(oldest)
    return min(marks, default=None)


async def watermark_ms(redis: AnyRedis, partition: int, group: str) -> int:
    marks = [await server_ms(redis)]
    unfinished = await unfinished_ms(redis, partition, group)
    if unfinished is not None:
        marks.append(unfinished)
    parked = await redis.zrange(keys.gaps_key(partition), 0, 0, withscores=True)
    if parked:
        marks.append(int(parked[0][1]))
    return min(marks)
