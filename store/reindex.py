"""Filling the records and scopes indexes from keys written before they existed.

`accord reindex` (worker/reindex.py) SCANs the record and scope keys and hands each
partition's share of a chunk here; `reindex.lua` adds what the index does not hold yet,
in one script, so it never moves an entry a commit wrote (docs/store.md, "Filling the
indexes afresh"). Row values are plain data: the shell decodes records and scope states.
"""

from __future__ import annotations

import re

import msgspec

from contracts.common import AgreementState
from store import keys
from store.scripts import REINDEX, AnyRedis

# The partition a key of the store names: its first hash tag.
_TAG = re.compile(rb"\{([0-9]+)\}")


def partition_of_key(name: bytes) -> int | None:
    """The partition in a store key's hash tag; None for a key of no partition."""
    found = _TAG.search(name)
    return None if found is None else int(found[1])


class RecordRow(msgspec.Struct, frozen=True):
    """One record key as read: its key, member, latest state and backfill score."""

    key: str
    member: str
    state: str
    score_ms: int


class ScopeRow(msgspec.Struct, frozen=True):
    """One scope as read: its member, whether it holds an open agreement, whether it keeps
    no record, and the members of its records (kept and closed) whose newest index score
    becomes its own."""

    member: str
    open: bool
    idle: bool
    records: list[str]


async def add_records(
    redis: AnyRedis, partition: int, rows: list[RecordRow], *, dry_run: bool = False
) -> int:
    """Index the records of `rows` (one partition) that the index lacks; how many."""
    if not rows:
        return 0
    states = [state.value for state in AgreementState]
    names = [
        keys.records_key(partition),
        keys.records_ttl_key(partition),
        *(keys.records_state_key(partition, state) for state in states),
        *(row.key for row in rows),
    ]
    args: list[str | int] = ["r", int(dry_run), len(states), *states]
    for row in rows:
        args += (row.member, row.state, row.score_ms)
    return int(await REINDEX.run(redis, names, args))


async def add_scopes(
    redis: AnyRedis,
    partition: int,
    rows: list[ScopeRow],
    *,
    retention_ms: int = 0,
    dry_run: bool = False,
) -> int:
    """Index the scopes of `rows` (one partition) that the index lacks, by their records'
    newest score in the records index (fill that first); how many."""
    if not rows:
        return 0
    names = [
        keys.scopes_key(partition),
        keys.scopes_open_key(partition),
        keys.scopes_ttl_key(partition),
        keys.records_key(partition),
    ]
    args: list[str | int] = ["s", int(dry_run), retention_ms]
    for row in rows:
        args += (row.member, int(row.open), int(row.idle), len(row.records), *row.records)
    return int(await REINDEX.run(redis, names, args))
