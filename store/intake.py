"""Reading a partition's input streams as a consumer group member (a bare redis-py loop).

`ensure_groups` creates the group at id `0` with MKSTREAM (never `$`: entries written
before the first worker started would be skipped); `missing_groups` finds streams or
groups that vanished. New entries are read by the worker's merged reader
(worker/merged_reader.py, docs/store.md "Reading the input streams"). `reclaim`
takes over entries idle in other consumers' pending lists (`reclaim.lua`: XPENDING,
then XCLAIM) and reports their delivery count, which the dead-letter limit needs: the one
reclaim implementation: the worker's reclaimer (worker/reclaim.py) and the tests use it.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any, NamedTuple

from redis.exceptions import ResponseError

from contracts.streams import Entry, EntryId, as_text, input_streams
from store.scripts import RECLAIM, AnyRedis


async def ensure_groups(redis: AnyRedis, partitions: Iterable[int], group: str) -> list[str]:
    """Create the group on every input stream of `partitions`, at id 0 with MKSTREAM.

    Never at `$` (FastStream's choice): entries a gateway wrote before the first worker
    started would be skipped. Returns the streams whose group was created just now.
    """
    created: list[str] = []
    for partition in partitions:
        for stream in input_streams(partition):
            try:
                await redis.xgroup_create(stream, group, id="0", mkstream=True)
            except ResponseError as error:
                if "BUSYGROUP" not in str(error):
                    raise
            else:
                created.append(stream)
    return created


async def missing_groups(redis: AnyRedis, partitions: Iterable[int], group: str) -> list[str]:
    """Input streams of `partitions` that have vanished, lost the group or were replaced
    by a key of another type (named with it: `chat-turn:{0} (a string)`); empty if none.

    Only those answers say so. Any other refusal (BUSY while a script runs, NOPERM,
    LOADING) says nothing about the streams: it is raised, for the caller's backoff to
    wait out and log, never taken for a vanished stream.
    """
    return (await read_groups(redis, partitions, group)).missing


class GroupsRead(NamedTuple):
    """One XINFO GROUPS of every input stream: `group`'s entry by stream (where the
    stream and the group are there), and the streams `missing_groups` names."""

    found: dict[str, dict[str, Any]]
    missing: list[str]


async def read_groups(redis: AnyRedis, partitions: Iterable[int], group: str) -> GroupsRead:
    """`missing_groups`, keeping what each stream's XINFO GROUPS said of `group` (the
    watchdog measures lag and looks for removed entries from the same read)."""
    found: dict[str, dict[str, Any]] = {}
    missing: list[str] = []
    for partition in partitions:
        for stream in input_streams(partition):
            try:
                groups: Any = await redis.xinfo_groups(stream)
            except ResponseError as error:
                text = str(error)
                if "no such key" in text:
                    missing.append(stream)
                elif text.startswith("WRONGTYPE"):
                    kind: Any = await redis.type(stream)
                    missing.append(f"{stream} (a {as_text(kind)})")
                else:
                    raise
                continue
            mine = next((g for g in groups if as_text(g["name"]) == group), None)
            if mine is None:
                missing.append(stream)
            else:
                found[stream] = mine
    return GroupsRead(found, missing)


class Reclaimed(NamedTuple):
    """What one reclaim pass took over, and what it found deleted while pending."""

    entries: list[Entry]
    # (stream, entry id) of pending entries whose stream entry was deleted (XDEL, a
    # trim): nothing to apply, so they were acked; reported, never raised.
    deleted: list[tuple[str, str]]


async def reclaim_pending(  # noqa: PLR0913  (the reclaim script's knobs)
    redis: AnyRedis,
    partition: int,
    group: str,
    consumer: str,
    *,
    min_idle_ms: int,
    count: int = 100,
    live: Collection[str] = (),
    stuck_ms: int = 0,
) -> Reclaimed:
    """Claim up to `count` entries per stream idle at least `min_idle_ms`.

    One `reclaim.lua` call per stream: XPENDING (idle, owner, delivery count), XCLAIM,
    and the release of entries deleted from the stream while pending. Entries of the
    consumers named in `live` are left to them unless idle `stuck_ms` (0: never left).
    """
    entries: list[Entry] = []
    deleted: list[tuple[str, str]] = []
    for stream in input_streams(partition):
        reply: Any = await RECLAIM.run(
            redis,
            [stream],
            [group, consumer, min_idle_ms, count, stuck_ms or min_idle_ms, *live],
        )
        for entry_id, flat, delivered in reply[0]:
            fields = dict(zip(flat[::2], flat[1::2], strict=True))
            text = as_text(entry_id)
            entries.append(Entry(stream, text, fields, int(delivered), EntryId.parse(text)))
        deleted.extend((stream, as_text(entry_id)) for entry_id in reply[1])
    return Reclaimed(entries, deleted)
