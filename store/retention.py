"""Retention: input streams are trimmed only below what has been applied.

Output streams (`agreement-events:{p}`, `dead-letters:{p}`) are capped on every XADD by
`StoreConfig.events_maxlen` / `dead_letters_maxlen` (approximate MAXLEN, 0 keeps all).
Input streams are never capped by MAXLEN: an entry still pending or not yet delivered
would be lost. `trim_applied` removes only entries older than the oldest entry any
consumer group of the stream has not finished (accord's, and any other reader's);
parked entries are safe to trim (their payload lives in the parked hash), and so are
dead-lettered ones (the letter keeps the fields). Trimming gives up the ability to
rebuild the store by replaying the input streams from empty (R15), so it is an
operator's choice, never automatic.
"""

from __future__ import annotations

from typing import Any

from redis.exceptions import ResponseError

from contracts.streams import EntryId, as_text, input_streams
from store.scripts import AnyRedis


async def _first_unfinished(redis: AnyRedis, stream: str, group: str) -> str | None:
    """The smallest entry id any group on the stream still owes (pending, or not yet
    delivered to it), so a trim never takes an entry another reader has not finished."""
    try:
        groups: list[dict[str, Any]] = await redis.xinfo_groups(stream)
    except ResponseError:
        return None
    if not any(as_text(g["name"]) == group for g in groups):
        return None  # accord's group is not there: nothing was ever applied
    candidates: list[str] = []
    for info in groups:
        candidates.append(str(EntryId.parse(info["last-delivered-id"]).successor()))
        if int(info["pending"]):
            summary: Any = await redis.xpending(stream, as_text(info["name"]))
            candidates.append(as_text(summary["min"]))
    return min(candidates, key=EntryId.parse)


async def trim_applied(redis: AnyRedis, partition: int, group: str) -> dict[str, int]:
    """XTRIM MINID each input stream of `partition` to its first unfinished entry.

    Returns the number of entries removed per stream.
    """
    removed: dict[str, int] = {}
    for stream in input_streams(partition):
        minid = await _first_unfinished(redis, stream, group)
        if minid is None:
            continue
        count: Any = await redis.xtrim(stream, minid=minid, approximate=False)
        removed[stream] = int(count)
    return removed
