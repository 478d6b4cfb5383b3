"""`accord reindex` on a real Redis: records and scopes written before the indexes existed
(their index keys deleted, as an older accord left them) are indexed from their keys, in
chunks with progress; a second run adds nothing; an entry a commit wrote is never moved,
also while commits run beside it (docs/store.md, "Filling the indexes afresh")."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
import redis.asyncio
from accord_harness.store_harness import chat, conversation

from store import keys
from store.config import StoreConfig
from store.processor import PartitionProcessor
from store.reindex import add_records
from store.watermark import server_ms
from tests.support.cli_kit import accord_here, command_env
from tests.support.worker_kit import gateway_xadd, process_new
from worker.engine import Engine
from worker.reindex import record_row, reindex

pytestmark = [pytest.mark.redis]

PROPOSE = "Let's agree: use metric units in every report."


async def send(
    client: redis.asyncio.Redis, processor: PartitionProcessor[Any, Any], *documents: Any
) -> None:
    for document in documents:
        await gateway_xadd(client, document)
    await process_new(client, processor, "c")


async def indexes(client: redis.asyncio.Redis) -> dict[str, dict[str, int]]:
    """Every index set of partition 0: its members and scores."""
    found: dict[str, dict[str, int]] = {}
    for pattern in ("records:*", "scopes:*"):
        async for name in client.scan_iter(match=pattern):
            rows: Any = await client.zrange(name, 0, -1, withscores=True)
            found[name.decode()] = {m.decode(): int(s) for m, s in rows}
    return found


async def forget_indexes(client: redis.asyncio.Redis) -> None:
    """What an older accord left: the keys, and no index."""
    for pattern in ("records:*", "scopes:*"):
        async for name in client.scan_iter(match=pattern):
            await client.delete(name)


async def a_store(client: redis.asyncio.Redis, config: StoreConfig) -> None:
    """Scopes with an open agreement, a cancelled proposal, a proposal waiting, and one
    that only chats (no record, no scope state)."""
    processor = PartitionProcessor(client, 0, Engine(), config)
    await send(client, processor, *conversation(("a", "open"), "s"))
    await send(client, processor, chat(("a", "gone"), "s", 1, PROPOSE))
    await send(client, processor, chat(("a", "gone"), "s", 2, "Cancel this agreement."))
    await send(client, processor, chat(("b", "waiting"), "s", 1, PROPOSE))
    await send(client, processor, chat(("b", "chatty"), "s", 1, "Nice weather today."))


def members_of(found: dict[str, dict[str, int]]) -> dict[str, set[str]]:
    return {name: set(rows) for name, rows in found.items()}


@pytest.mark.asyncio
async def test_reindex_rebuilds_every_index_set_a_commit_would_have_kept(
    client: redis.asyncio.Redis,
) -> None:
    """After the index keys are gone, a run in chunks of two (a progress line each) puts
    back the same members in every set, the records index, each state's, the open scopes
    and, with record retention, both removal sets; each scope scored by its newest
    record. A dry run first writes nothing; a second run adds nothing."""
    retention = 3_600_000
    await a_store(client, StoreConfig(record_retention_ms=retention))
    kept = await indexes(client)
    await forget_indexes(client)
    lines: list[str] = []
    dry = await reindex(client, chunk=2, retention_ms=retention, dry_run=True)
    assert await indexes(client) == {}
    report = await reindex(client, chunk=2, retention_ms=retention, progress=lines.append)
    assert (dry.records.added, dry.scopes.added) == (report.records.added, report.scopes.added)
    assert (report.records.read, report.records.added) == (3, 3)
    assert (report.scopes.read, report.scopes.added) == (3, 3)
    assert lines[0] == "records: 2 keys read, 2 added"
    assert lines[-1] == "scopes: 3 keys read, 3 added"
    rebuilt = await indexes(client)
    assert members_of(rebuilt) == members_of(kept)
    records, scopes = rebuilt[keys.records_key(0)], rebuilt[keys.scopes_key(0)]
    for member, score in scopes.items():
        agent, user = keys.parse_scope_member(member)
        mine = [s for m, s in records.items() if keys.parse_member(m)[:2] == (agent, user)]
        assert score == max(mine), member
    gone = keys.scope_member("a", "gone")
    assert rebuilt[keys.scopes_ttl_key(0)] == {gone: scopes[gone] + retention}
    again = await reindex(client, chunk=2, retention_ms=retention)
    assert (again.records.added, again.scopes.added) == (0, 0)
    assert await indexes(client) == rebuilt


@pytest.mark.asyncio
async def test_an_entry_a_commit_wrote_is_never_moved(client: redis.asyncio.Redis) -> None:
    """A record read by the run, then cancelled by a commit (R8) before the run's script:
    the script leaves the commit's entry (its time, the cancelled set only), and the run
    leaves a record a commit indexed after the run began as the commit scored it."""
    processor = PartitionProcessor(client, 0, Engine(), StoreConfig())
    await send(client, processor, chat(("a", "u"), "s", 1, PROPOSE))
    await forget_indexes(client)
    name: Any = (await client.keys("record:*"))[0]
    raw: Any = await client.get(name)
    stale = record_row(name, raw, await server_ms(client))
    assert stale is not None
    assert stale.state == "proposed"
    await send(client, processor, chat(("a", "u"), "s", 2, "Cancel this agreement."))
    committed = await indexes(client)
    assert await add_records(client, 0, [stale]) == 0
    report = await reindex(client)
    assert report.records.added == 0
    assert await indexes(client) == committed
    assert not await client.exists(keys.records_state_key(0, "proposed"))


@pytest.mark.asyncio
async def test_a_run_beside_committing_workers_leaves_each_record_in_its_one_state(
    client: redis.asyncio.Redis,
) -> None:
    """Many proposals indexed by nobody; a run in chunks of one while a processor cancels
    half of them and proposes more: afterwards every record is in the records index and
    in exactly the set of the state its key holds."""
    processor = PartitionProcessor(client, 0, Engine(), StoreConfig())
    scopes = [("a", f"u{n}") for n in range(30)]
    await send(client, processor, *(chat(s, "s", 1, PROPOSE) for s in scopes))
    await forget_indexes(client)

    async def commits() -> None:
        for n, scope in enumerate(scopes):
            if n % 2:
                await send(client, processor, chat(scope, "s", 2, "Cancel this agreement."))
            else:
                await send(client, processor, chat(scope, "s2", 1, PROPOSE))

    await asyncio.gather(reindex(client, chunk=1), commits())
    found = await indexes(client)
    names: Any = await client.keys("record:*")
    assert len(names) == 45
    for name in names:
        stored: Any = await client.get(name)
        record = json.loads(stored)
        member = keys.record_member(record["agent_id"], record["user_id"], record["record_id"])
        assert member in found[keys.records_key(0)]
        sets = [
            name
            for name, rows in found.items()
            if member in rows and name.startswith("records:") and name != keys.records_key(0)
        ]
        assert sets == [keys.records_state_key(0, record["state"])], (member, sets)


def test_the_command_prints_progress_and_totals_and_refuses_bad_input(
    redis_url: str,
    client: redis.asyncio.Redis,  # noqa: ARG001  (flushes first)
) -> None:
    """`accord reindex --chunk 1 --json`: a progress line a chunk on stderr, the totals as
    one JSON document; a chunk of 0 is one line, exit 2."""
    env = command_env(redis_url)
    scope = ("agent", "user")
    asyncio.run(_propose(redis_url, scope))
    done = accord_here("reindex", "--chunk", "1", "--json", env=env)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["records"] == {"read": 1, "added": 1, "skipped": 0}
    assert "records: 1 keys read, 1 added" in done.stderr
    again = accord_here("reindex", env=env)
    assert "records: 1 keys read, 0 added; done" in again.stdout
    assert "scopes: 1 keys read, 0 added; done" in again.stdout
    bad = accord_here("reindex", "--chunk", "0", env=env)
    assert bad.returncode == 2
    assert len(bad.stderr.strip().splitlines()) == 1, bad.stderr


async def _propose(url: str, scope: tuple[str, str]) -> None:
    """A proposal committed on its own connection, its indexes then forgotten."""
    client = redis.asyncio.Redis.from_url(url)
    try:
        processor = PartitionProcessor(client, 0, Engine(), StoreConfig())
        await send(client, processor, chat(scope, "s", 1, PROPOSE))
        await forget_indexes(client)
    finally:
        await client.aclose()
