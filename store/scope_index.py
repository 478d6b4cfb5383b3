"""The scopes index: scopes listed newest change first, across partitions, by pages.

`commit.lua` keeps it with every scope state it writes (store/keys.py `scopes_key`,
`scopes_open_key`, `scopes_ttl_key`; docs/store.md, "The scopes index"): a scope's last
change is the Redis time of the last commit that changed its records, not of its last
chat turn. This module reads it (`list_scopes`, for `accord scopes` and the console) and
bounds it with the record retention (`prune_scopes_index`, the retention pass). Paging
and order are store/index_pages.py's, as for records.
"""

from __future__ import annotations

import msgspec

from contracts.view import ScopeViewDocument
from store import index_pages, keys
from store.index_pages import IndexQuery
from store.scripts import UNINDEX, AnyRedis

# Scopes removed from the index per retention pass: a bounded amount of work a period.
PRUNE_BATCH = 256
# Members read per round trip while filtering by agent or user, and at most examined for
# one page over all partitions (each partition gets its share).
_CHUNK = 200
EXAMINE_LIMIT = 4000

_VIEW = msgspec.json.Decoder(ScopeViewDocument)


class ScopeQuery(IndexQuery, frozen=True, kw_only=True):
    """Which scopes a list shows: every filter optional (IndexQuery's, and `open`: only
    scopes that held an open agreement as of their last change)."""

    open: bool = False


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


async def list_scopes(
    redis: AnyRedis, partitions: int, query: ScopeQuery, cursor: str | None = None
) -> ScopesPage:
    """One page of the scopes `query` selects, newest change first, after `cursor`.

    Raises CursorError for a cursor this listing never gave out.
    """

    def accepts(ids: tuple[str, str]) -> bool:
        return query.in_scope(*ids)

    key_of = keys.scopes_open_key if query.open else keys.scopes_key
    match = index_pages.member_filter(keys.parse_scope_member, accepts)
    shown, next_cursor = await index_pages.page(
        redis, partitions, key_of, query, match, cursor, examine_limit=EXAMINE_LIMIT, chunk=_CHUNK
    )
    raws = await index_pages.read_each(
        redis, shown, lambda pipe, p, ids: pipe.hget(keys.view_key(p, *ids), keys.VIEW_DOC_FIELD)
    )
    rows = [
        ListedScope(
            partition=partition,
            agent_id=agent_id,
            user_id=user_id,
            changed_ms=score,
            view=None if raw is None else _VIEW.decode(raw),
        )
        for ((score, partition, _), (agent_id, user_id)), raw in zip(shown, raws, strict=True)
    ]
    return ScopesPage(scopes=rows, next_cursor=next_cursor)


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
