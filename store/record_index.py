"""The records index: records listed newest change first, across partitions, by pages.

`commit.lua` keeps it with every record it writes (store/keys.py `records_key`,
`records_state_key`, `records_ttl_key`; docs/store.md, "The records index"), so a list
reads sorted sets page by page and never SCANs the keyspace. This module reads it
(`list_records`, for `accord records` and the console) and bounds it with the record
retention (`prune_records_index`, the retention pass).

Order and paging are store/index_pages.py's: newest change first, records changed in
the same millisecond by partition, then by member (descending), a cursor the position
of the last row shown. Filters on agent, user and record id prefix are applied to the
members read (they name the scope), at most EXAMINE_LIMIT members a page.
"""

from __future__ import annotations

from typing import Any

import msgspec

from contracts.common import AgreementState
from contracts.records import AgreementRecord
from store import index_pages, keys
from store.index_pages import MAX_LIMIT, CursorError, IndexQuery, decode_cursor, encode_cursor
from store.scripts import AnyRedis

__all__ = ["MAX_LIMIT", "CursorError", "decode_cursor", "encode_cursor"]

# Members removed from the index per retention pass: a bounded amount of work a period.
PRUNE_BATCH = 256
# Members read per round trip while filtering by scope or prefix, and at most examined
# for one page over all partitions (each partition gets its share).
_CHUNK = 200
EXAMINE_LIMIT = 4000

_RECORD = msgspec.json.Decoder(AgreementRecord)


class RecordQuery(IndexQuery, frozen=True, kw_only=True):
    """Which records a list shows: every filter optional (IndexQuery's, and the state and
    the start of the record id)."""

    state: AgreementState | None = None
    prefix: str = ""

    @property
    def filters_members(self) -> bool:
        """Whether some members read may not match (else every one read is a row)."""
        return super().filters_members or bool(self.prefix)

    def matches(self, agent_id: str, user_id: str, record_id: str) -> bool:
        return self.in_scope(agent_id, user_id) and record_id.startswith(self.prefix)


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


async def list_records(
    redis: AnyRedis, partitions: int, query: RecordQuery, cursor: str | None = None
) -> RecordPage:
    """One page of the records `query` selects, newest change first, after `cursor`.

    Raises CursorError for a cursor this listing never gave out.
    """
    state = None if query.state is None else query.state.value

    def key_of(partition: int) -> str:
        if state is None:
            return keys.records_key(partition)
        return keys.records_state_key(partition, state)

    def accepts(ids: tuple[str, str, str]) -> bool:
        return query.matches(*ids)

    match = index_pages.member_filter(keys.parse_member, accepts)
    shown, next_cursor = await index_pages.page(
        redis, partitions, key_of, query, match, cursor, examine_limit=EXAMINE_LIMIT, chunk=_CHUNK
    )
    raws = await index_pages.read_each(
        redis, shown, lambda pipe, p, ids: pipe.get(keys.record_key(p, ids[2]))
    )
    rows = [
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
    return RecordPage(records=rows, next_cursor=next_cursor)


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
