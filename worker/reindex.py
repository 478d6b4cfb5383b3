"""`accord reindex`: fill the records and scopes indexes from the keys an older accord
wrote before they existed (docs/store.md, "Filling the indexes afresh").

Two passes, each a SCAN in chunks: record keys first (each record's member, state and a
score from its last revision, capped at the Redis time the run started), then scope
keys (each scope's open agreements and record ids, decoded by the core; its score is
the newest its records have in the records index, read by the script). What to add is
decided here from what was read (`record_row`, `scope_row`, pure); whether to add it, in
`reindex.lua`, atomically against the commits (store/reindex.py).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, TypeVar

import msgspec

from contracts.common import AgreementState
from contracts.records import AgreementRecord
from core.lifecycle import state as core_state
from store import keys
from store.reindex import RecordRow, ScopeRow, add_records, add_scopes, partition_of_key
from store.scripts import AnyRedis
from store.watermark import server_ms

R = TypeVar("R")

_RECORD = msgspec.json.Decoder(AgreementRecord)
# What each pass SCANs: the record strings and the scope hashes (not `records:`/`scopes:`).
RECORD_PATTERN = "record:*"
SCOPE_PATTERN = "scope:*"


class Totals(msgspec.Struct):
    """One pass: keys read, entries added (or, dry, that would be), keys passed over
    (another type, undecodable, or a key of no partition)."""

    read: int = 0
    added: int = 0
    skipped: int = 0


class ReindexReport(msgspec.Struct):
    records: Totals
    scopes: Totals
    dry_run: bool


def record_row(name: bytes, raw: bytes, cap_ms: int) -> RecordRow | None:
    """What the records index holds of one record key (None: not a record's JSON). Its
    score is its last revision's instant (the event time of its last change), capped at
    `cap_ms`, so no backfilled record lists before one a commit changed since the run
    began."""
    try:
        record = _RECORD.decode(raw)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    last = record.history[-1].at if record.history else record.created_at
    return RecordRow(
        key=name.decode("utf-8", "surrogateescape"),
        member=keys.record_member(record.agent_id, record.user_id, record.record_id),
        state=record.state.value,
        score_ms=min(int(last.timestamp() * 1000), cap_ms),
    )


def scope_row(raw: bytes) -> ScopeRow | None:
    """What the scopes index holds of one scope state (None: not a scope state)."""
    try:
        scope = core_state.decode_scope(raw)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    ids = [r.record_id for r in scope.records] + [c.record_id for c in scope.closed]
    return ScopeRow(
        member=keys.scope_member(scope.agent_id, scope.user_id),
        open=any(r.state is AgreementState.OPEN for r in scope.records),
        idle=not scope.records,
        records=[keys.record_member(scope.agent_id, scope.user_id, i) for i in ids],
    )


async def _chunks(redis: AnyRedis, pattern: str, size: int) -> AsyncIterator[list[bytes]]:
    chunk: list[bytes] = []
    async for name in redis.scan_iter(match=pattern, count=size):
        chunk.append(bytes(name))
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


async def _pass(  # noqa: PLR0913, PLR0917  (one pass: what to read, how to make rows and add them)
    redis: AnyRedis,
    pattern: str,
    size: int,
    read: Callable[[Any, bytes], None],
    row_of: Callable[[bytes, Any], R | None],
    add: Callable[[int, list[R]], Awaitable[int]],
    say: Callable[[Totals], None],
) -> Totals:
    totals = Totals()
    async for chunk in _chunks(redis, pattern, size):
        async with redis.pipeline(transaction=False) as pipe:
            for name in chunk:
                read(pipe, name)
            raws: Sequence[Any] = await pipe.execute(raise_on_error=False)
        by_partition: dict[int, list[R]] = defaultdict(list)
        for name, raw in zip(chunk, raws, strict=True):
            partition = partition_of_key(name)
            row = None if partition is None or not isinstance(raw, bytes) else row_of(name, raw)
            if row is None or partition is None:
                totals.skipped += 1
                continue
            by_partition[partition].append(row)
        for partition, rows in sorted(by_partition.items()):
            totals.added += await add(partition, rows)
        totals.read += len(chunk)
        say(totals)
    return totals


async def reindex(
    redis: AnyRedis,
    *,
    chunk: int = 500,
    retention_ms: int = 0,
    dry_run: bool = False,
    progress: Callable[[str], None] = lambda _line: None,
) -> ReindexReport:
    """Both passes, records first (the scopes' scores are read from it); `progress` gets
    one line a chunk."""
    cap = await server_ms(redis)
    verb = "would add" if dry_run else "added"

    def say(what: str) -> Callable[[Totals], None]:
        return lambda t: progress(f"{what}: {t.read:,} keys read, {t.added:,} {verb}")

    async def records(partition: int, rows: list[RecordRow]) -> int:
        return await add_records(redis, partition, rows, dry_run=dry_run)

    async def scopes(partition: int, rows: list[ScopeRow]) -> int:
        return await add_scopes(redis, partition, rows, retention_ms=retention_ms, dry_run=dry_run)

    done_records = await _pass(
        redis, RECORD_PATTERN, chunk,
        lambda pipe, name: pipe.get(name),
        lambda name, raw: record_row(name, raw, cap),
        records, say("records"),
    )  # fmt: skip
    done_scopes = await _pass(
        redis, SCOPE_PATTERN, chunk,
        lambda pipe, name: pipe.hget(name, "s"),
        lambda _name, raw: scope_row(raw),
        scopes, say("scopes"),
    )  # fmt: skip
    return ReindexReport(records=done_records, scopes=done_scopes, dry_run=dry_run)
