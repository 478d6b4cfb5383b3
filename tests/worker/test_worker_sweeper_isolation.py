"""The sweeper handles each partition, and in it the gap skip and the expiry, on its own
(R9, R15): one partition whose keys are broken cannot stop expiry anywhere else."""

from __future__ import annotations

import json
from typing import Any

import pytest
import redis.asyncio
from accord_harness.reading import read_new
from accord_harness.store_harness import chat

from contracts.partition import partition_of
from contracts.streams import DATA_FIELD, GROUP, stream_name
from store import keys, ownership
from store.config import StoreConfig
from store.ownership import Fence
from store.processor import PartitionProcessor
from tests.support.fake_core import FakeCore
from worker.observability import Metrics
from worker.sweeper import Sweeper

PAST_MS = 1_700_000_000_000  # a deadline already past by Redis's clock


class Log:
    """Records every call as (level, event, fields)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, dict[str, Any]]] = []

    def __getattr__(self, level: str) -> Any:
        def record(event: str, **fields: Any) -> None:
            self.calls.append((level, event, fields))

        return record


# conftest's `client` makes the consumer group on both partitions the sweepers share.
GROUP_PARTITIONS = (0, 1)


def scope_in(partition: int) -> tuple[str, str]:
    return next(
        ("agent", f"user-{i}")
        for i in range(100)
        if partition_of("agent", f"user-{i}", 2) == partition
    )


@pytest.mark.redis
@pytest.mark.asyncio
async def test_a_partition_whose_gap_index_is_broken_does_not_stop_expiry_elsewhere(
    client: redis.asyncio.Redis,
) -> None:
    """R9: partition 0's gap index holds another type, so neither its gap skip nor its
    expiry can run (the commit refuses before any write); partition 1's proposal past
    its deadline still expires in the same pass, and both failures are logged."""
    config = StoreConfig(partitions=2, gap_timeout_ms=0)
    stores = {p: PartitionProcessor(client, p, FakeCore(), config) for p in (0, 1)}
    for partition in (0, 1):
        scope = scope_in(partition)
        document = chat(scope, "s", 1, f"propose terms deadline={PAST_MS}")
        await client.xadd(stream_name("chat-turn", partition), {DATA_FIELD: json.dumps(document)})
        await stores[partition].process(await read_new(client, partition, GROUP, "c"))
    await client.set(keys.gaps_key(0), b"not a sorted set")
    log = Log()
    sweeper = Sweeper(dict(stores), Metrics(), log)
    assert await sweeper.sweep_once() == 1, "partition 1 expired its record"
    failures = [(event, f["partition"]) for level, event, f in log.calls if level == "exception"]
    assert failures == [("gap_skip_failed", 0), ("sweep_failed", 0)]
    assert await client.zcard(keys.deadlines_key(0)) == 1, "nothing of partition 0 written"
    assert not await client.zcard(keys.deadlines_key(1))


@pytest.mark.redis
@pytest.mark.asyncio
async def test_a_scope_the_sweep_cannot_commit_is_logged_and_the_others_expire(
    client: redis.asyncio.Redis,
) -> None:
    """R9: of two scopes due in one partition, one has a scope key of another type; the
    other's record expires, and the passed-over scope is logged with the reason."""
    config = StoreConfig(partitions=1)
    store = PartitionProcessor(client, 0, FakeCore(), config)
    good, bad = ("agent", "good"), ("agent", "bad")
    for scope in (good, bad):
        document = chat(scope, "s", 1, f"propose terms deadline={PAST_MS}")
        await client.xadd("chat-turn:{0}", {DATA_FIELD: json.dumps(document)})
    await store.process(await read_new(client, 0, GROUP, "c"))
    await client.delete(keys.scope_key(0, *bad))
    await client.set(keys.scope_key(0, *bad), b"not a hash")
    log = Log()
    assert await Sweeper({0: store}, Metrics(), log).sweep_once() == 1
    isolated = [fields for level, event, fields in log.calls if event == "unit_isolated"]
    assert [(f["user_id"], "WRONGTYPE" in f["reason"]) for f in isolated] == [("bad", True)]


@pytest.mark.redis
@pytest.mark.asyncio
async def test_the_sweeper_trims_and_compacts_as_configured_and_logs_it(
    client: redis.asyncio.Redis,
) -> None:
    """R15: with ACCORD_TRIM_INTERVAL_MS and ACCORD_SESSION_RETENTION_MS set, a sweep
    trims the applied input entry and compacts the idle session (its next seq stays),
    and logs both; an entry applied after that stays through a sweep within the
    interval (the trim runs once per interval, not once per sweep)."""
    config = StoreConfig(partitions=1, trim_interval_ms=3_600_000, session_retention_ms=1)
    store = PartitionProcessor(client, 0, FakeCore(), config)
    await client.xadd("chat-turn:{0}", {DATA_FIELD: json.dumps(chat(("a", "u"), "s", 1, "hi"))})
    await store.process(await read_new(client, 0, GROUP, "c"))
    log = Log()
    sweeper = Sweeper({0: store}, Metrics(), log)
    retained: list[dict[str, Any]] = []
    for _ in range(200):  # until Redis's clock has moved past the 1 ms retention
        await sweeper.sweep_once()
        retained += [fields for _, event, fields in log.calls if event == "retention"]
        log.calls.clear()
        if sum(f["sessions_compacted"] for f in retained):
            break
    assert sum(f["entries_trimmed"] for f in retained) == 1
    assert sum(f["sessions_compacted"] for f in retained) == 1
    assert await client.xlen("chat-turn:{0}") == 0
    session: Any = await client.hgetall(keys.session_key(0, "a", "u", "s"))
    assert session[b"n"] == b"2"
    assert b"c" not in session
    await client.xadd("chat-turn:{0}", {DATA_FIELD: json.dumps(chat(("a", "u"), "s", 2, "hi"))})
    await store.process(await read_new(client, 0, GROUP, "c"))
    pending: Any = await client.xpending("chat-turn:{0}", GROUP)
    assert pending["pending"] == 0, "applied and acked: below every group's bound"
    await sweeper.sweep_once()
    trimmed = [f["entries_trimmed"] for _, event, f in log.calls if event == "retention"]
    assert sum(trimmed) == 0
    assert await client.xlen("chat-turn:{0}") == 1


@pytest.mark.redis
@pytest.mark.asyncio
async def test_a_broken_idle_index_is_logged_and_expiry_still_runs(
    client: redis.asyncio.Redis,
) -> None:
    """R9: partition 0's idle index holds another type, so its retention fails, and so
    does its expiry (the commit checks every shared key before its first write: nothing
    of partition 0 is written); partition 1 expires its record in the same pass."""
    config = StoreConfig(partitions=2, session_retention_ms=1)
    stores = {p: PartitionProcessor(client, p, FakeCore(), config) for p in (0, 1)}
    for partition in (0, 1):
        document = chat(scope_in(partition), "s", 1, f"propose terms deadline={PAST_MS}")
        await client.xadd(stream_name("chat-turn", partition), {DATA_FIELD: json.dumps(document)})
        await stores[partition].process(await read_new(client, partition, GROUP, "c"))
    await client.delete(keys.idle_key(0))
    await client.set(keys.idle_key(0), b"not a sorted set")
    log = Log()
    assert await Sweeper(dict(stores), Metrics(), log).sweep_once() == 1
    failures = [(event, f["partition"]) for level, event, f in log.calls if level == "exception"]
    assert failures == [("sweep_failed", 0), ("retention_failed", 0)]
    assert await client.zcard(keys.deadlines_key(0)) == 1, "nothing of partition 0 written"
    assert not await client.zcard(keys.deadlines_key(1))


class ReleasedDuringSweep:
    """The partition's store, released by this worker's ownership as its sweep starts
    (a clean stop, or a rebalance): the partition leaves the sweep targets and its lease
    is handed back, so the store's fenced commit is refused."""

    def __init__(
        self, store: PartitionProcessor[Any, Any], targets: dict[int, Any], fence: Fence
    ) -> None:
        self.store, self.targets, self.fence = store, targets, fence

    async def skip_stale_gaps(self) -> int:
        self.targets.pop(self.store.partition)
        await ownership.release(self.store.redis, self.fence)
        return await self.store.skip_stale_gaps()

    async def sweep_expired(self) -> Any:
        return await self.store.sweep_expired()

    async def retain(self) -> Any:
        return await self.store.retain()

    async def publish_held(self) -> int:
        return await self.store.publish_held()

    def take_isolated(self) -> dict[tuple[str, str], str]:
        return self.store.take_isolated()


async def fenced_store_with_an_expired_proposal(
    client: redis.asyncio.Redis,
) -> tuple[PartitionProcessor[Any, Any], Fence]:
    """Partition 0's store holding the lease, with a proposal already past its deadline."""
    store = PartitionProcessor(client, 0, FakeCore(), StoreConfig(partitions=2, gap_timeout_ms=0))
    held = await ownership.acquire(client, 0, "me", 60_000, 8)
    fence = Fence(0, held.owner)
    store.set_fence(fence)
    document = chat(scope_in(0), "s", 1, f"propose terms deadline={PAST_MS}")
    await client.xadd(stream_name("chat-turn", 0), {DATA_FIELD: json.dumps(document)})
    await store.process(await read_new(client, 0, GROUP, "c"))
    return store, fence


@pytest.mark.redis
@pytest.mark.asyncio
async def test_a_sweep_refused_by_a_lease_taken_over_is_a_warning_r9(
    client: redis.asyncio.Redis,
) -> None:
    """R9: another worker took partition 0's lease over: the expiry is refused (that
    worker expires the record), and the loss is a warning an operator should see."""
    store, fence = await fenced_store_with_an_expired_proposal(client)
    await ownership.release(client, fence)
    assert (await ownership.acquire(client, 0, "other", 60_000, 8)).held
    log = Log()
    assert await Sweeper({0: store}, Metrics(), log).sweep_once() == 0
    assert ("warning", "lease_lost", {"partition": 0}) in log.calls
    assert await client.zcard(keys.deadlines_key(0)) == 1, "nothing expired by the loser"


@pytest.mark.redis
@pytest.mark.asyncio
async def test_a_sweep_cut_short_by_this_workers_own_release_is_no_warning_r9(
    client: redis.asyncio.Redis,
) -> None:
    """R9: this worker handed partition 0 back while its sweep ran (a clean stop): the
    fenced expiry is refused as before, but nothing was lost, so no warning is logged,
    only an info line; the record stays due for the partition's next owner."""
    store, fence = await fenced_store_with_an_expired_proposal(client)
    targets: dict[int, Any] = {}
    targets[0] = ReleasedDuringSweep(store, targets, fence)
    log = Log()
    assert await Sweeper(targets, Metrics(), log).sweep_once() == 0
    assert [(level, event) for level, event, _ in log.calls] == [("info", "sweep_ended_by_release")]
    assert await client.zcard(keys.deadlines_key(0)) == 1, "left for the next owner"
