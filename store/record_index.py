"""The records index: records listed newest change first, across partitions, by pages.

`commit.lua` keeps it with every record it writes (store/keys.py `records_key`,
`records_state_key`, `records_ttl_key`; docs/store.md, "The records index"), so a list
reads sorted sets page by page and never SCANs the keyspace. This module reads it
(`list_records`, for `accord records` and the console) and bounds it with the record
retention (`prune_records_index`, the retention pass).

Order: newest change first; records changed in the same millisecond by partition, then
by member (descending). A cursor is the position of the last row shown (opaque text),
so a page is found by score, not by an offset that shifts while records change. Filters
on agent, user and record id prefix are applied to the members read (they name the
scope), with a bound on how many members a page examines (EXAMINE_LIMIT, shared by the
partitions): a rare match costs pages that show fewer rows (each with a cursor to go
on), never an unbounded read.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
from typing import Any

import msgspec

from contracts.common import AgreementState
from contracts.partition import partition_of
from contracts.records import AgreementRecord
from store import keys
from store.scripts import AnyRedis

# Members removed from the index per retention pass: a bounded amount of work a period.
PRUNE_BATCH = 256
# Members read per round trip while filtering by scope or prefix, and at most examined
# for one page over all partitions (each partition gets its share).
_CHUNK = 200
EXAMINE_LIMIT = 4000
MAX_LIMIT = 500

_RECORD = msgspec.json.Decoder(AgreementRecord)


class RecordQuery(msgspec.Struct, frozen=True, kw_only=True):
    """Which records a list shows: every filter optional; times are Redis ms of the
    record's last change, both bounds inclusive."""

    state: AgreementState | None = None
    since_ms: int | None = None
    until_ms: int | None = None
    agent_id: str | None = None
    user_id: str | None = None
    prefix: str = ""
    limit: int = 50

    @property
    def filters_members(self) -> bool:
        """Whether some members read may not match (else every one read is a row)."""
        return self.agent_id is not None or self.user_id is not None or bool(self.prefix)

    def matches(self, agent_id: str, user_id: str, record_id: str) -> bool:
        return (
            (self.agent_id is None or agent_id == self.agent_id)
            and (self.user_id is None or user_id == self.user_id)
            and record_id.startswith(self.prefix)
        )


class Listed(msgspec.Struct, frozen=True, kw_only=True):
    """One row: where the index puts the record, and the record (None: its key is gone,
    removed by the record retention before the index was pruned, or by hand)."""

    partition: int
    record_id: str
    agent_id: str
    user_id: str
    changed_ms: int
    record: AgreementRecord | None


class RecordPage(msgspec.Struct, frozen=True, kw_only=True):
    """One page, and the cursor of the next (None: nothing more matches)."""

    records: list[Listed]
    next_cursor: str | None


# A position in the order: (score, partition, member).
_Pos = tuple[int, int, bytes]


class CursorError(ValueError):
    """A cursor that no page of this listing gave out."""


def encode_cursor(pos: _Pos) -> str:
    score, partition, member = pos
    raw = json.dumps([score, partition, member.decode("utf-8", "surrogateescape")])
    return base64.urlsafe_b64encode(raw.encode("utf-8", "surrogateescape")).decode().rstrip("=")


def decode_cursor(text: str) -> _Pos:
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        value = json.loads(raw.decode("utf-8", "surrogateescape"))
    except (binascii.Error, ValueError) as error:
        raise CursorError(f"not a cursor this listing gave out: {text[:40]!r}") from error
    match value:
        case [int() as score, int() as partition, str() as member]:
            return score, partition, member.encode("utf-8", "surrogateescape")
    raise CursorError(f"not a cursor this listing gave out: {text[:40]!r}")


def _after(pos: _Pos, cursor: _Pos) -> bool:
    """Whether `pos` comes after `cursor` in the listing's order."""
    if pos[0] != cursor[0]:
        return pos[0] < cursor[0]
    if pos[1] != cursor[1]:
        return pos[1] > cursor[1]
    return pos[2] < cursor[2]


def _sorted(rows: list[tuple[_Pos, Any]]) -> list[tuple[_Pos, Any]]:
    rows = sorted(rows, key=lambda row: row[0][2], reverse=True)
    return sorted(rows, key=lambda row: (-row[0][0], row[0][1]))


class _Scan(msgspec.Struct):
    """One partition's part of a page: matches in order, the last position examined, and
    whether the partition has nothing more in range."""

    found: list[tuple[_Pos, tuple[str, str, str]]]
    last: _Pos | None
    exhausted: bool


async def _scan(  # noqa: PLR0913, PLR0917  (one partition's read of one page)
    redis: AnyRedis,
    partition: int,
    query: RecordQuery,
    cursor: _Pos | None,
    want: int,
    budget: int,
) -> _Scan:
    key = (
        keys.records_key(partition)
        if query.state is None
        else keys.records_state_key(partition, query.state.value)
    )
    bounds = [b for b in (query.until_ms, None if cursor is None else cursor[0]) if b is not None]
    top: int | str = min(bounds) if bounds else "+inf"
    bottom: int | str = "-inf" if query.since_ms is None else query.since_ms
    scan = _Scan([], None, exhausted=False)
    skip, examined = 0, 0
    # Unfiltered, every member read past the cursor is a row: read no more than a page.
    chunk = _CHUNK if query.filters_members else want
    while True:
        num = max(chunk if examined == 0 else 1, min(chunk, budget - examined))
        rows: Any = await redis.zrange(
            key, top, bottom, desc=True, byscore=True, withscores=True, offset=skip, num=num
        )
        for member, raw_score in rows:
            pos = (int(raw_score), partition, bytes(member))
            if cursor is not None and not _after(pos, cursor):
                # Shown already (its millisecond is the cursor's): passing it is not
                # progress, so it does not count against the bound.
                continue
            examined += 1
            scan.last = pos
            ids = _ids(member)
            if ids is not None and query.matches(*ids):
                scan.found.append((pos, ids))
        if len(rows) < num:
            scan.exhausted = True
            return scan
        if len(scan.found) >= want or examined >= budget:
            return scan
        # Next: from the last score read, past the members of that score already read
        # (many records of one commit share its millisecond).
        last = int(rows[-1][1])
        same = sum(1 for _, s in rows if int(s) == last)
        skip = skip + same if last == top else same
        top = last


def _ids(member: bytes) -> tuple[str, str, str] | None:
    """(agent, user, record id) a member names; None for one accord did not write."""
    try:
        return keys.parse_member(member)
    except (ValueError, TypeError, UnicodeDecodeError):
        return None


async def list_records(
    redis: AnyRedis, partitions: int, query: RecordQuery, cursor: str | None = None
) -> RecordPage:
    """One page of the records `query` selects, newest change first, after `cursor`.

    Raises CursorError for a cursor this listing never gave out.
    """
    after = decode_cursor(cursor) if cursor else None
    limit = max(1, min(query.limit, MAX_LIMIT))
    where: list[int] | range = range(partitions)
    if query.agent_id is not None and query.user_id is not None:
        # The scope names its partition: only that one can hold its records.
        where = [partition_of(query.agent_id, query.user_id, partitions)]
    budget = max(limit + 1, EXAMINE_LIMIT // len(where))
    scans = await asyncio.gather(*(_scan(redis, p, query, after, limit + 1, budget) for p in where))
    # A partition not read to its end may hold rows before those of another found
    # further on: rows are shown only up to the earliest such partition's last read.
    open_ends = [(s.last, 0) for s in scans if not s.exhausted and s.last is not None]
    frontier = _sorted(open_ends)[0][0] if open_ends else None
    found = _sorted([row for s in scans for row in s.found])
    if frontier is not None:
        found = [row for row in found if not _after(row[0], frontier)]
    shown = found[:limit]
    more = len(found) > limit or frontier is not None
    next_pos = None if not more else shown[-1][0] if len(shown) == limit else frontier
    records = await _records(redis, shown)
    return RecordPage(
        records=records, next_cursor=None if next_pos is None else encode_cursor(next_pos)
    )


async def _records(redis: AnyRedis, shown: list[tuple[_Pos, tuple[str, str, str]]]) -> list[Listed]:
    if not shown:
        return []
    async with redis.pipeline(transaction=False) as pipe:
        for (_, partition, _), (_, _, record_id) in shown:
            pipe.get(keys.record_key(partition, record_id))
        raws: list[Any] = await pipe.execute()
    return [
        Listed(
            partition=partition,
            record_id=record_id,
            agent_id=agent_id,
            user_id=user_id,
            changed_ms=score,
            record=None if raw is None else _RECORD.decode(raw),
        )
        for ((score, partition, _), (agent_id, user_id, record_id)), raw in zip(
            shown, raws, strict=True
        )
    ]


async def prune_records_index(redis: AnyRedis, partition: int, now_ms: int) -> int:
    """Remove from the index up to PRUNE_BATCH final records whose key's TTL has run out
    by `now_ms` (Redis ms); how many. The TTL set's member goes last, so a pass cut
    short leaves it for the next. A final record never changes again, so no commit
    races this."""
    ttl = keys.records_ttl_key(partition)
    members: list[Any] = await redis.zrangebyscore(ttl, "-inf", now_ms, start=0, num=PRUNE_BATCH)
    if not members:
        return 0
    async with redis.pipeline(transaction=False) as pipe:
        pipe.zrem(keys.records_key(partition), *members)
        for state in AgreementState:
            pipe.zrem(keys.records_state_key(partition, state.value), *members)
        pipe.zrem(ttl, *members)
        await pipe.execute()
    return len(members)
