"""Pages of a per-partition index (a sorted set scored by Redis ms of the last change),
newest first, across partitions, by cursor.

The records index (store/record_index.py) and the scopes index (store/scope_index.py)
list the same way: each partition's set is read newest first (`ZRANGE … BYSCORE REV
LIMIT`, from the cursor's score), the partitions' reads are merged by (change time,
partition, member), and filters on what a member names are applied to the members read,
with a bound on how many members a page examines (shared by the partitions): a rare
match costs pages that show fewer rows (each with a cursor to go on), never an unbounded
read. A cursor is the position of the last row shown (opaque text), so a page is found
by score, not by an offset that shifts while entries change.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

import msgspec

from contracts.partition import partition_of
from store.scripts import AnyRedis

# A position in the order: (score, partition, member).
Pos = tuple[int, int, bytes]
T = TypeVar("T")

MAX_LIMIT = 500


class CursorError(ValueError):
    """A cursor that no page of this listing gave out."""


def encode_cursor(pos: Pos) -> str:
    score, partition, member = pos
    raw = json.dumps([score, partition, member.decode("utf-8", "surrogateescape")])
    return base64.urlsafe_b64encode(raw.encode("utf-8", "surrogateescape")).decode().rstrip("=")


def decode_cursor(text: str) -> Pos:
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        value = json.loads(raw.decode("utf-8", "surrogateescape"))
    except (binascii.Error, ValueError) as error:
        raise CursorError(f"not a cursor this listing gave out: {text[:40]!r}") from error
    match value:
        case [int() as score, int() as partition, str() as member]:
            return score, partition, member.encode("utf-8", "surrogateescape")
    raise CursorError(f"not a cursor this listing gave out: {text[:40]!r}")


def after(pos: Pos, cursor: Pos) -> bool:
    """Whether `pos` comes after `cursor` in the listing's order."""
    if pos[0] != cursor[0]:
        return pos[0] < cursor[0]
    if pos[1] != cursor[1]:
        return pos[1] > cursor[1]
    return pos[2] < cursor[2]


def ordered(rows: list[tuple[Pos, Any]]) -> list[tuple[Pos, Any]]:
    rows = sorted(rows, key=lambda row: row[0][2], reverse=True)
    return sorted(rows, key=lambda row: (-row[0][0], row[0][1]))


class IndexQuery(msgspec.Struct, frozen=True, kw_only=True):
    """What every list filters by and how much a page shows: times are Redis ms of the
    last change, both bounds inclusive; agent and user name the scope (both: one
    partition holds it). The records and scopes queries add their own filters."""

    since_ms: int | None = None
    until_ms: int | None = None
    agent_id: str | None = None
    user_id: str | None = None
    limit: int = 50

    @property
    def filters_members(self) -> bool:
        """Whether some members read may not match (else every one read is a row)."""
        return self.agent_id is not None or self.user_id is not None

    def in_scope(self, agent_id: str, user_id: str) -> bool:
        return (self.agent_id is None or agent_id == self.agent_id) and (
            self.user_id is None or user_id == self.user_id
        )

    def partitions_to_read(self, partitions: int) -> Sequence[int]:
        """Every partition, or the one partition the scope (both ids given) lives in."""
        if self.agent_id is not None and self.user_id is not None:
            return [partition_of(self.agent_id, self.user_id, partitions)]
        return range(partitions)


class _Scan(msgspec.Struct, Generic[T]):
    """One partition's part of a page: matches in order, the last position examined, and
    whether the partition has nothing more in range."""

    found: list[tuple[Pos, T]]
    last: Pos | None
    exhausted: bool


async def _scan(  # noqa: PLR0913, PLR0917  (one partition's read of one page)
    redis: AnyRedis,
    key: str,
    partition: int,
    window: IndexQuery,
    match: Callable[[bytes], T | None],
    cursor: Pos | None,
    want: int,
    budget: int,
    chunk: int,
) -> _Scan[T]:
    bounds = [b for b in (window.until_ms, None if cursor is None else cursor[0]) if b is not None]
    top: int | str = min(bounds) if bounds else "+inf"
    bottom: int | str = "-inf" if window.since_ms is None else window.since_ms
    scan: _Scan[T] = _Scan([], None, exhausted=False)
    skip, examined = 0, 0
    # Unfiltered, every member read past the cursor is a row: read no more than a page.
    size = chunk if window.filters_members else want
    while True:
        num = max(size if examined == 0 else 1, min(size, budget - examined))
        rows: Any = await redis.zrange(
            key, top, bottom, desc=True, byscore=True, withscores=True, offset=skip, num=num
        )
        for member, raw_score in rows:
            pos = (int(raw_score), partition, bytes(member))
            if cursor is not None and not after(pos, cursor):
                # Shown already (its millisecond is the cursor's): passing it is not
                # progress, so it does not count against the bound.
                continue
            examined += 1
            scan.last = pos
            found = match(pos[2])
            if found is not None:
                scan.found.append((pos, found))
        if len(rows) < num:
            scan.exhausted = True
            return scan
        if len(scan.found) >= want or examined >= budget:
            return scan
        # Next: from the last score read, past the members of that score already read
        # (many entries of one commit share its millisecond).
        last = int(rows[-1][1])
        same = sum(1 for _, s in rows if int(s) == last)
        skip = skip + same if last == top else same
        top = last


async def page(  # noqa: PLR0913, PLR0917  (what and how much one page reads)
    redis: AnyRedis,
    partitions: int,
    key_of: Callable[[int], str],
    query: IndexQuery,
    match: Callable[[bytes], T | None],
    cursor: str | None,
    *,
    examine_limit: int,
    chunk: int,
) -> tuple[list[tuple[Pos, T]], str | None]:
    """One page of the members of `key_of(p)`, over the partitions `query` reads, that
    `match` accepts (its value for the row), newest first, after `cursor`; and the next
    page's cursor (None: nothing more matches). Raises CursorError for a cursor never
    given out."""
    start = decode_cursor(cursor) if cursor else None
    where = query.partitions_to_read(partitions)
    limit = max(1, min(query.limit, MAX_LIMIT))
    budget = max(limit + 1, examine_limit // max(1, len(where)))
    scans = await asyncio.gather(
        *(_scan(redis, key_of(p), p, query, match, start, limit + 1, budget, chunk) for p in where)
    )
    # A partition not read to its end may hold rows before those of another found
    # further on: rows are shown only up to the earliest such partition's last read.
    open_ends = [(s.last, 0) for s in scans if not s.exhausted and s.last is not None]
    frontier = ordered(open_ends)[0][0] if open_ends else None
    found = ordered([row for s in scans for row in s.found])
    if frontier is not None:
        found = [row for row in found if not after(row[0], frontier)]
    shown = found[:limit]
    more = len(found) > limit or frontier is not None
    next_pos = None if not more else shown[-1][0] if len(shown) == limit else frontier
    return shown, None if next_pos is None else encode_cursor(next_pos)


def member_filter(
    parse: Callable[[bytes], T], accepts: Callable[[T], bool]
) -> Callable[[bytes], T | None]:
    """A page's `match`: the ids a member names when `accepts` them; None for one that
    does not, or that accord did not write (it does not parse)."""

    def match(member: bytes) -> T | None:
        try:
            ids = parse(member)
        except (ValueError, TypeError, UnicodeDecodeError):
            return None
        return ids if accepts(ids) else None

    return match


async def read_each(
    redis: AnyRedis, shown: list[tuple[Pos, T]], read: Callable[[Any, int, T], object]
) -> list[Any]:
    """One pipeline of `read(pipe, partition, ids)` for every row shown; the replies."""
    if not shown:
        return []
    async with redis.pipeline(transaction=False) as pipe:
        for (_, partition, _), ids in shown:
            read(pipe, partition, ids)
        replies: list[Any] = await pipe.execute()
    return replies
