"""Retention: input streams are trimmed only below what every reader has finished.

Output streams (`agreement-events:{p}`, `dead-letters:{p}`) are capped on every XADD by
`StoreConfig.events_maxlen` / `dead_letters_maxlen` (approximate MAXLEN, 0 keeps all).
Input streams are never capped by MAXLEN: an entry still pending or not yet delivered
would be lost. `trim_applied` removes only entries older than every one of these:

- the oldest entry any consumer group of the stream still owes (pending in a consumer's
  list, or after the group's last-delivered id): accord's group and any other reader's;
- the oldest entry parked behind a gap in the partition (`gaps:{p}`), though its payload
  lives in the parked hash: the stream keeps what the store has not applied yet, so an
  operator can still read it where it was written.

Dead-lettered entries below that bound do go (the letter keeps the fields). Trimming
gives up the ability to rebuild the store by replaying the input streams from empty
(R15), so it is an operator's choice (`accord trim`, or the worker's
`ACCORD_TRIM_INTERVAL_MS`, off by default).
"""

from __future__ import annotations

from typing import Any

import msgspec
from redis.exceptions import ResponseError

from contracts.streams import EntryId, as_text, input_streams
from store import keys
from store.scripts import AnyRedis

# Entries per XRANGE page when a dry run counts what a trim would remove.
_COUNT_PAGE = 1000


class StreamTrim(msgspec.Struct, frozen=True, kw_only=True):
    """One input stream's trim: the bound, and how many entries are (or would be) removed.

    `minid` is None when nothing may be trimmed: the stream or accord's group does not
    exist (nothing was ever applied). `held_by` names what set the bound: a group's name
    (pending or undelivered entries) or `parked` (an entry parked behind a gap).
    """

    stream: str
    minid: str | None
    held_by: str | None
    removed: int


async def _group_bounds(redis: AnyRedis, stream: str, group: str) -> list[tuple[EntryId, str]]:
    """(first entry the group owes, group name) for every group of the stream; empty when
    the stream or accord's own group is missing (nothing was ever applied)."""
    try:
        groups: list[dict[str, Any]] = await redis.xinfo_groups(stream)
    except ResponseError as error:
        if "WRONGTYPE" in str(error):
            raise  # a key of another type is a fault to report, not an empty stream
        return []  # no such stream: nothing written, nothing applied
    if not any(as_text(g["name"]) == group for g in groups):
        return []
    bounds: list[tuple[EntryId, str]] = []
    for info in groups:
        name = as_text(info["name"])
        bounds.append((EntryId.parse(info["last-delivered-id"]).successor(), name))
        if int(info["pending"]):
            summary: Any = await redis.xpending(stream, name)
            if summary["min"] is not None:  # None: acked since XINFO (applied or parked)
                bounds.append((EntryId.parse(summary["min"]), name))
    return bounds


async def _parked_bound(redis: AnyRedis, partition: int) -> EntryId | None:
    """The first id of the millisecond of the partition's oldest parked entry, if any."""
    oldest: Any = await redis.zrange(keys.gaps_key(partition), 0, 0, withscores=True)
    return EntryId(int(oldest[0][1]), 0) if oldest else None


async def _count_below(redis: AnyRedis, stream: str, minid: EntryId) -> int:
    """How many entries of `stream` have an id below `minid` (pages of XRANGE)."""
    if minid == EntryId(0, 0):
        return 0
    last = EntryId(minid.ms, minid.seq - 1) if minid.seq else minid.last_before_ms()
    start, counted = "-", 0
    while True:
        page: Any = await redis.xrange(stream, min=start, max=str(last), count=_COUNT_PAGE)
        counted += len(page)
        if len(page) < _COUNT_PAGE:
            return counted
        start = "(" + as_text(page[-1][0])


async def trim_partition(
    redis: AnyRedis, partition: int, group: str, *, dry_run: bool = False
) -> list[StreamTrim]:
    """XTRIM MINID each input stream of `partition` below what every reader finished.

    With `dry_run`, nothing is removed: `removed` counts the entries that would be. The
    bound is computed before the trim; entries only ever become finished, so a bound
    that is a moment old is still safe. The parked bound is read after the group bounds,
    per stream: an entry pending when the groups are read but parked (acked, in the
    same script) before its pending list is read is below the group bounds, and only a
    parked read made after that holds it.
    """
    trims: list[StreamTrim] = []
    for stream in input_streams(partition):
        bounds = await _group_bounds(redis, stream, group)
        if not bounds:
            trims.append(StreamTrim(stream=stream, minid=None, held_by=None, removed=0))
            continue
        parked = await _parked_bound(redis, partition)
        if parked is not None:
            bounds.append((parked, "parked"))
        minid, held_by = min(bounds)
        if dry_run:
            removed = await _count_below(redis, stream, minid)
        else:
            count: Any = await redis.xtrim(stream, minid=str(minid), approximate=False)
            removed = int(count)
        trims.append(StreamTrim(stream=stream, minid=str(minid), held_by=held_by, removed=removed))
    return trims


async def trim_applied(redis: AnyRedis, partition: int, group: str) -> dict[str, int]:
    """Trim `partition`'s input streams (`trim_partition`); entries removed per stream
    (streams with nothing applied yet are left out)."""
    trims = await trim_partition(redis, partition, group)
    return {t.stream: t.removed for t in trims if t.minid is not None}
