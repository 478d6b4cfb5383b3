"""The scopes index: scopes listed newest change first, across partitions, by pages.

`commit.lua` keeps it with every scope state it writes (store/keys.py `scopes_key`,
`scopes_open_key`, `scopes_ttl_key`; docs/store.md, "The scopes index"): a scope's last
change is the Redis time of the last commit that changed its records, not of its last
chat turn. This module reads it (`list_scopes`, for `accord scopes` and the console) and
bounds it with the record retention (`prune_scopes_index`, the retention pass). Paging
and order are store/index_pages.py's, as for records.
"""

from __future__ import annotations

from typing import Any

import msgspec

from contracts.partition import partition_of
from contracts.view import ScopeViewDocument
from store import index_pages, keys
from store.index_pages import Pos, Window
from store.scripts import UNINDEX, AnyRedis

# Scopes removed from the index per retention pass: a bounded amount of work a period.
PRUNE_BATCH = 256
# Members read per round trip while filtering by agent or user, and at most examined for
# one page over all partitions (each partition gets its share).
_CHUNK = 200
EXAMINE_LIMIT = 4000

_VIEW = msgspec.json.Decoder(ScopeViewDocument)


class ScopeQuery(msgspec.Struct, frozen=True, kw_only=True):
    """Which scopes a list shows: every filter optional; times are Redis ms of the
    scope's last change, both bounds inclusive; `open`: only scopes that held an open
    agreement as of their last change."""

    since_ms: int | None = None
    until_ms: int | None = None
    agent_id: str | None = None
    user_id: str | None = None
    open: bool = False
    limit: int = 50

    def matches(self, agent_id: str, user_id: str) -> bool:
        return (self.agent_id is None or agent_id == self.agent_id) and (
            self.user_id is None or user_id == self.user_id
        )


class ListedScope(msgspec.Struct, frozen=True, kw_only=True):
    """One row: where the index puts the scope, and what its view holds now (None: the
    scope has no view document, removed by hand)."""

    partition: int
    agent_id: str
    user_id: str
    changed_ms: int
    view: ScopeViewDocument | None


class ScopesPage(msgspec.Struct, frozen=True, kw_only=True):
    """One page, and the cursor of the next (None: nothing more matches)."""

    scopes: list[ListedScope]
    next_cursor: str | None


def _ids(member: bytes) -> tuple[str, str] | None:
    """(agent, user) a member names; None for one accord did not write."""
    try:
        return keys.parse_scope_member(member)
    except (ValueError, TypeError, UnicodeDecodeError):
        return None


async def list_scopes(
    redis: AnyRedis, partitions: int, query: ScopeQuery, cursor: str | None = None
) -> ScopesPage:
    """One page of the scopes `query` selects, newest change first, after `cursor`.

    Raises CursorError for a cursor this listing never gave out.
    """
    where: list[int] | range = range(partitions)
    if query.agent_id is not None and query.user_id is not None:
        where = [partition_of(query.agent_id, query.user_id, partitions)]
    key_of = keys.scopes_open_key if query.open else keys.scopes_key

    def match(member: bytes) -> tuple[str, str] | None:
        ids = _ids(member)
        return ids if ids is not None and query.matches(*ids) else None

    window = Window(
        since_ms=query.since_ms,
        until_ms=query.until_ms,
        limit=query.limit,
        filters_members=query.agent_id is not None or query.user_id is not None,
    )
    shown, next_cursor = await index_pages.page(
        redis, where, key_of, window, match, cursor, examine_limit=EXAMINE_LIMIT, chunk=_CHUNK
    )
    return ScopesPage(scopes=await _views(redis, shown), next_cursor=next_cursor)


async def _views(redis: AnyRedis, shown: list[tuple[Pos, tuple[str, str]]]) -> list[ListedScope]:
    if not shown:
        return []
    async with redis.pipeline(transaction=False) as pipe:
        for (_, partition, _), (agent_id, user_id) in shown:
            pipe.hget(keys.view_key(partition, agent_id, user_id), keys.VIEW_DOC_FIELD)
        raws: list[Any] = await pipe.execute()
    return [
        ListedScope(
            partition=partition,
            agent_id=agent_id,
            user_id=user_id,
            changed_ms=score,
            view=None if raw is None else _VIEW.decode(raw),
        )
        for ((score, partition, _), (agent_id, user_id)), raw in zip(shown, raws, strict=True)
    ]


async def prune_scopes_index(redis: AnyRedis, partition: int, now_ms: int) -> int:
    """Remove from the index up to PRUNE_BATCH scopes whose removal instant has come by
    `now_ms` (Redis ms); how many. One script (`unindex.lua`): a commit that changes such
    a scope meanwhile either runs before it (and took the scope out of the removal set)
    or after it (and puts the scope back), never in between."""
    names = [
        keys.scopes_ttl_key(partition),
        keys.scopes_key(partition),
        keys.scopes_open_key(partition),
    ]
    return int(await UNINDEX.run(redis, names, [now_ms, PRUNE_BATCH]))
