"""Retention: input streams are trimmed only below what has been applied.

Output streams (`agreement-events:{p}`, `dead-letters:{p}`) are capped on every XADD by
`StoreConfig.events_maxlen` / `dead_letters_maxlen` (approximate MAXLEN, 0 keeps all).
Input streams are never capped by MAXLEN: an entry still pending or not yet delivered
would be lost. `trim_applied` removes only entries older than the oldest entry the group
has not finished; parked entries are safe to trim (their payload lives in the parked
hash), and so are dead-lettered ones (the letter keeps the fields). Trimming gives up the
ability to rebuild the store by replaying the input streams from empty (R15), so it is
an operator's choice, never automatic.
"""

from __future__ import annotations

from typing import Any

from redis.exceptions import ResponseError

from contracts.streams import input_streams
from store.scripts import AnyRedis


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _after(entry_id: str) -> str:
    ms, seq = entry_id.split("-", 1)
    return f"{ms}-{int(seq) + 1}"


async def _first_unfinished(redis: AnyRedis, stream: str, group: str) -> str | None:
    """The smallest entry id the group still owes, or just past the last delivered one."""
    try:
        groups: list[dict[str, Any]] = await redis.xinfo_groups(stream)
    except ResponseError:
        return None
    info = next((g for g in groups if _text(g["name"]) == group), None)
    if info is None:
        return None  # no group: nothing was ever applied
    last = _text(info["last-delivered-id"])
    candidates = [_after(last)]
    if int(info["pending"]):
        summary: Any = await redis.xpending(stream, group)
        candidates.append(_text(summary["min"]))
    return min(candidates, key=lambda i: tuple(int(part) for part in i.split("-")))


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
