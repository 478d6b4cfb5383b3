"""Suspects: entries delivered past the delivery limit, tried alone before they are given up.

Redis counts a delivery each time an entry is read or claimed, so the count cannot tell
an entry that kills every worker reading it from good entries whose workers were killed
for other reasons (a takeover's first claim, owner after owner dying before it
committed). So the delivery limit does not make a dead letter by itself: past it, the
processor tries each such entry alone, in a commit of its own, and counts every try in
`suspects:{p}` before it starts, so that a try that dies with its worker counts too.
An entry becomes a dead letter (`delivery_limit`) only when `suspect_attempts` tries
alone did not commit it. The suspects of a batch are tried fewest tries first: deaths
that have nothing to do with the entries spread over all of them instead of landing on
the first one again and again, while an entry that fails by itself keeps failing alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from contracts.streams import Entry
from store import keys
from store.scripts import AnyRedis


def member(entry: Entry) -> str:
    """The entry's field in `suspects:{p}`."""
    return f"{entry.stream} {entry.entry_id}"


def fewest_tries_first(entries: Sequence[Entry], tries: Sequence[int]) -> list[Entry]:
    """`entries` ordered by tries alone so far, then as given (a stable sort)."""
    order = sorted(range(len(entries)), key=lambda index: tries[index])
    return [entries[index] for index in order]


async def tries(redis: AnyRedis, partition: int, entries: Sequence[Entry]) -> list[int]:
    """How often each of `entries` was tried alone (0: never)."""
    raw: Any = await redis.hmget(keys.suspects_key(partition), [member(e) for e in entries])
    return [int(value or 0) for value in raw]


async def count_try(redis: AnyRedis, partition: int, entry: Entry) -> int:
    """Count one more try alone of `entry`, before it starts; returns the tries so far."""
    counted: Any = await redis.hincrby(keys.suspects_key(partition), member(entry), 1)
    return int(counted)


async def forget(redis: AnyRedis, partition: int, entry: Entry) -> None:
    """`entry` was committed or given up: it is no longer a suspect."""
    await redis.hdel(keys.suspects_key(partition), member(entry))
