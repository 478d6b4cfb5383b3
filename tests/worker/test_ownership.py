"""Partition ownership on a real Redis: leases, fencing, balance, takeover, exactly once.

Each partition is read by one live worker at a time (DESIGN 3, "Partition ownership";
docs/store.md): a joining worker takes a fair share, a leaving worker hands its
partitions over at once, a crashed worker's partitions move once its lease expired, and
a worker whose lease was taken over commits nothing (R15 holds across every move).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest
from accord_harness.reading import read_new
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import ConnectionError  # noqa: A004  (redis-py's, as Redis raises it)

from contracts.outputs import StateChanged
from contracts.partition import partition_of
from contracts.streams import GROUP, Entry, input_streams, stream_name
from store import keys, ownership
from store.config import StoreConfig
from store.intake import ensure_groups, reclaim_pending
from store.ownership import Fence, LeaseLost
from store.processor import PartitionProcessor
from tests.support.input_kit import user_turn
from tests.support.worker_kit import (
    now_s,
    redis_cluster,
    running_worker,
    wait_for,
    worker_env,
    worker_processes,
    worker_settings,
)
from worker import ownership as worker_ownership
from worker.app import Worker, build_worker, core_for, store_partition
from worker.consumer import Outcome
from worker.gateway import Gateway
from worker.reclaim import RECLAIM_PAGE
from worker.settings import Settings

pytestmark = [pytest.mark.redis, pytest.mark.timeout(120)]

PARTITIONS = 4
LEASE_MS = 1_500


# No consumer group from conftest's `client`: the workers and tests here make their own.
GROUP_PARTITIONS: tuple[int, ...] = ()


def turn(user: str, seq: int) -> dict[str, Any]:
    """Odd seqs propose (one record each), even seqs are ordinary chat."""
    text = f"Let's agree: review item {seq} every week." if seq % 2 else f"Thanks, noted {seq}."
    return user_turn(("agent", user), f"s-{user}", seq, text, now_s())


def settings(url: str, **changes: object) -> Settings:
    return worker_settings(url, partitions=PARTITIONS, lease_ms=LEASE_MS, **changes)


async def owners(redis: Redis) -> dict[int, str]:
    """partition -> consumer holding its lease ('' when free)."""
    found: dict[int, str] = {}
    for partition in range(PARTITIONS):
        token, _ = await ownership.lease_of(redis, partition)
        found[partition] = ownership.owner_consumer(token)
    return found


def held_by(worker: Worker) -> set[int]:
    assert worker.ownership is not None
    return {p for p, held in worker.ownership.held.items() if held.reader is not None}


# ------------------------------------------------------------------ the pure rule
def test_assignment_is_balanced_and_total() -> None:
    """Every partition goes to exactly one live member; counts differ by at most one."""
    for members in (["a"], ["a", "b"], ["c", "a", "b"], [f"w{i}" for i in range(7)]):
        for partitions in (1, 2, 4, 5, 16):
            shares = {m: ownership.assignment(members, partitions, m) for m in members}
            every = [p for share in shares.values() for p in share]
            assert sorted(every) == list(range(partitions))
            sizes = [len(share) for share in shares.values()]
            assert max(sizes) - min(sizes) <= 1
    assert ownership.assignment(["a", "b"], 4, "not-a-member") == frozenset()


def test_a_lease_too_short_to_renew_is_a_clear_configuration_error() -> None:
    """ACCORD_LEASE_MS below 500 ms: refused at start, naming the setting."""
    with pytest.raises(ValueError, match="ACCORD_LEASE_MS must be at least 500, got 100"):
        Settings.from_env({"ACCORD_LEASE_MS": "100"})
    assert Settings.from_env({"ACCORD_LEASE_MS": "500"}).lease_ms == 500
    assert Settings.from_env({}).lease_ms == 10_000


# ------------------------------------------------------------------------- leases
@pytest.mark.asyncio
async def test_lease_is_exclusive_until_it_expires_and_epochs_increase(client: Redis) -> None:
    """A held lease refuses others; once expired the next holder gets a higher epoch,
    and the old holder can neither renew nor release it."""
    first = await ownership.acquire(client, 0, "old", 300, 8)
    assert first.held
    assert first.owner.endswith(":old")
    refused = await ownership.acquire(client, 0, "new", 300, 8)
    assert not refused.held
    assert refused.owner == first.owner

    async def taken() -> bool:
        return (await ownership.acquire(client, 0, "new", 10_000, 8)).held

    await wait_for(taken, seconds=10)
    token, _ = await ownership.lease_of(client, 0)
    assert ownership.owner_consumer(token) == "new"
    assert int(token.split(":")[0]) > int(first.owner.split(":")[0])
    assert not (await ownership.renew(client, Fence(0, first.owner), 10_000)).held
    assert not await ownership.release(client, Fence(0, first.owner))
    assert (await ownership.lease_of(client, 0))[0] == token


@pytest.mark.asyncio
async def test_release_frees_the_lease_at_once(client: Redis) -> None:
    """A clean release: the next worker acquires without waiting for the expiry."""
    held = await ownership.acquire(client, 2, "old", 60_000, 8)
    assert await ownership.release(client, Fence(2, held.owner))
    assert (await ownership.acquire(client, 2, "new", 60_000, 8)).held


# ----------------------------------------------------------------------- fencing
async def _store_dump(redis: Redis) -> dict[bytes, Any]:
    """Every key except the leases and input streams, with its content."""
    dump: dict[bytes, Any] = {}
    async for key in redis.scan_iter(count=1000):
        if key.startswith((b"lease:", b"chat-turn:", b"tool-call:", b"tool-result:")):
            continue
        dump[key] = await redis.dump(key)
    return dump


@pytest.mark.asyncio
async def test_a_fenced_stale_owner_commits_nothing_and_its_entries_stay_pending(
    client: Redis,
) -> None:
    """R15 across a takeover: the old owner's commit is refused (LeaseLost) with nothing
    written and its entries left pending; the new owner claims and applies them once."""
    config = StoreConfig(partitions=1)
    await ensure_groups(client, [0], config.group)
    gateway = Gateway(client, 1)
    for seq in (1, 2, 3):
        await gateway.publish(turn("u1", seq))
    old = PartitionProcessor(client, 0, core_for(Settings()), config)
    lease = await ownership.acquire(client, 0, "old", 200, 8)
    old.set_fence(Fence(0, lease.owner))
    entries = await read_new(client, 0, config.group, "old", count=10)
    assert len(entries) == 3

    async def taken() -> bool:
        return (await ownership.acquire(client, 0, "new", 60_000, 8)).held

    await wait_for(taken, seconds=10)
    before = await _store_dump(client)
    with pytest.raises(LeaseLost):
        await old.process(entries)
    assert await _store_dump(client) == before
    pending: Any = await client.xpending(stream_name("chat-turn", 0), config.group)
    assert pending["pending"] == 3

    new = PartitionProcessor(client, 0, core_for(Settings()), config)
    new.set_fence(Fence(0, (await ownership.lease_of(client, 0))[0]))
    claimed: Any = await client.xautoclaim(
        stream_name("chat-turn", 0), config.group, "new", 0, "0-0", count=10
    )
    report = await new.process(
        [
            type(entries[0])(stream_name("chat-turn", 0), entry_id.decode(), fields, 2)
            for entry_id, fields in claimed[1]
        ]
    )
    assert report.outcomes["applied"] == 3
    proposed = [e for e in report.events if isinstance(e, StateChanged)]
    assert [e.provenance.seq for e in proposed] == [1, 3]
    assert (await client.xpending(stream_name("chat-turn", 0), config.group))["pending"] == 0


@pytest.mark.asyncio
async def test_a_takeover_claims_and_commits_pending_entries_a_page_at_a_time(
    client: Redis, redis_url: str
) -> None:
    """R15 across a takeover: 250 entries left pending by a dead consumer are claimed
    `FIRST_CLAIM` per stream first, then `RECLAIM_PAGE` per stream at a time, each page
    committed before the next is claimed (a worker killed mid-takeover then passes a
    delivery on to one page, not to the whole backlog, and one killed moments after it
    took the partition to a few entries), and every entry is applied once, in order."""
    await ensure_groups(client, [0], GROUP)
    gateway = Gateway(client, 1)
    users = [f"u{index}" for index in range(25)]
    for seq in range(1, 11):
        for user in users:
            await gateway.publish(turn(user, seq))
    assert len(await read_new(client, 0, GROUP, "dead", count=1_000)) == 250
    stream = stream_name("chat-turn", 0)
    # A commit of a page acks it: the pending list seen before each page's commit.
    pending_seen: list[int] = []
    batches: list[int] = []
    worker = build_worker(worker_settings(redis_url, partitions=1), store_partition)
    handle = worker.dispatcher.handle

    async def counted(entries: Sequence[Entry]) -> list[Outcome]:
        pending_seen.append(int((await client.xpending(stream, GROUP))["pending"]))
        batches.append(len(entries))
        return await handle(entries)

    worker.dispatcher.handle = counted  # type: ignore[method-assign]
    await worker.start()
    try:

        async def drained() -> bool:
            return int((await client.xpending(stream, GROUP))["pending"]) == 0

        await wait_for(drained, seconds=60)
    finally:
        await worker.stop()
    assert (worker_ownership.FIRST_CLAIM, RECLAIM_PAGE) == (10, 100)
    assert batches == [10, 100, 100, 40], "a small page first, then a page at a time"
    assert pending_seen == [250, 240, 140, 40], "each page committed before the next"
    for user in users:
        raw: Any = await client.hget(keys.session_key(0, "agent", user, f"s-{user}"), "n")
        assert int(raw) == 11, "seqs 1..10 applied once, in order"


@pytest.mark.asyncio
async def test_a_takeover_whose_claim_meets_a_redis_error_still_reads_the_partition(
    client: Redis, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """R15 liveness: Redis failing in the middle of a takeover's claim must not leave the
    partition held but never read: the worker says so, starts the partition's reader,
    and an input written afterwards is applied."""
    await ensure_groups(client, [0], GROUP)
    calls = 0

    async def failing_once(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise ConnectionError("Connection reset by peer (planted)")
        return await reclaim_pending(*args, **kwargs)

    monkeypatch.setattr(worker_ownership, "reclaim_pending", failing_once)
    async with running_worker(worker_settings(redis_url, partitions=1)) as worker:

        async def reading() -> bool:
            return held_by(worker) == {0}

        await wait_for(reading, seconds=60)
        assert calls >= 1, "the claim ran, and failed"
        await Gateway(client, 1).publish(turn("u1", 1))

        async def applied() -> bool:
            raw: Any = await client.hget(keys.session_key(0, "agent", "u1", "s-u1"), "n")
            return raw is not None and int(raw) == 2

        await wait_for(applied, seconds=60)


@pytest.mark.asyncio
async def test_unfenced_processor_commits_without_a_lease(client: Redis) -> None:
    """The manual override (ACCORD_SERVE_PARTITIONS) and tools commit without leases."""
    config = StoreConfig(partitions=1)
    await ensure_groups(client, [0], config.group)
    await Gateway(client, 1).publish(turn("u1", 1))
    processor = PartitionProcessor(client, 0, core_for(Settings()), config)
    report = await processor.process(await read_new(client, 0, config.group, "c", count=10))
    assert report.outcomes["applied"] == 1


# ------------------------------------------------------------------------ workers
@pytest.mark.asyncio
async def test_a_joining_worker_takes_a_fair_share_and_a_leaving_one_hands_over_at_once(
    client: Redis, redis_url: str
) -> None:
    """Join: 4 partitions split 2/2 with no operator step. Clean stop: the leaver's
    leases are free the moment it stopped, and the other worker takes them."""
    async with running_worker(settings(redis_url, consumer="w-a")) as first:
        assert held_by(first) == set(range(PARTITIONS))
        async with running_worker(settings(redis_url, consumer="w-b")) as second:

            async def balanced() -> bool:
                return held_by(first) == {0, 2} and held_by(second) == {1, 3}

            await wait_for(balanced, seconds=30)
            assert Counter((await owners(client)).values()) == {"w-a": 2, "w-b": 2}
        # `second` stopped cleanly: its partitions were released before stop returned.
        leases = await owners(client)
        assert leases[1] in {"", "w-a"}
        assert leases[3] in {"", "w-a"}
        assert "w-b" not in (await ownership.members(client, LEASE_MS)).last_beat_ms

        async def all_back() -> bool:
            return held_by(first) == set(range(PARTITIONS))

        await wait_for(all_back, seconds=30)


@pytest.mark.asyncio
async def test_a_crashed_workers_partitions_move_once_its_lease_expired(
    client: Redis, redis_url: str
) -> None:
    """SIGKILL: nothing is released; the survivor takes the dead worker's partitions
    after their leases expired (never before), and serves them."""
    env = worker_env(
        redis_url,
        ACCORD_PARTITIONS=str(PARTITIONS),
        ACCORD_LEASE_MS=str(LEASE_MS),
        ACCORD_CONSUMER="w-a-proc",
    )
    with worker_processes(1, env) as procs:
        async with running_worker(settings(redis_url, consumer="w-b")) as survivor:

            async def split() -> bool:
                return Counter((await owners(client)).values()) == {"w-a-proc": 2, "w-b": 2}

            await wait_for(split, seconds=30)
            dead = [p for p, owner in (await owners(client)).items() if owner == "w-a-proc"]
            expiry = {p: (await ownership.lease_of(client, p))[1] for p in dead}
            procs[0].send_signal(signal.SIGKILL)
            procs[0].wait()

            async def taken_over() -> bool:
                return held_by(survivor) == set(range(PARTITIONS))

            await wait_for(taken_over, seconds=30)
            for partition in dead:
                token, new_expiry = await ownership.lease_of(client, partition)
                assert ownership.owner_consumer(token) == "w-b"
                old_expiry = expiry[partition]
                assert new_expiry is not None
                assert old_expiry is not None
                # Acquired (new expiry - lease) no earlier than the dead lease ran out.
                assert new_expiry - LEASE_MS >= old_expiry
            gateway = Gateway(client, PARTITIONS)
            users = [f"user-{i}" for i in range(12)]
            assert {partition_of("agent", u, PARTITIONS) for u in users} >= set(dead)
            for user in users:
                await gateway.publish(turn(user, 1))
            await gateway.wait_processed(timeout_s=60)


@pytest.mark.asyncio
async def test_exactly_once_while_partitions_move(client: Redis, redis_url: str) -> None:
    """R15: input flows while workers join, leave and rejoin; every seq is applied once,
    in order, with no duplicate event and nothing left pending."""
    users = [f"user-{i}" for i in range(24)]
    seqs = 9
    gateway = Gateway(client, PARTITIONS)

    async def publish(first: int, last: int) -> None:
        for seq in range(first, last + 1):
            for user in users:
                await gateway.publish(turn(user, seq))
            await asyncio.sleep(0)

    async with contextlib.AsyncExitStack() as stack:
        await stack.enter_async_context(running_worker(settings(redis_url, consumer="w-a")))
        await publish(1, 3)
        second = await stack.enter_async_context(
            running_worker(settings(redis_url, consumer="w-b"))
        )
        await publish(4, 6)

        async def second_holds() -> bool:
            return len(held_by(second)) == 2

        await wait_for(second_holds, seconds=30)
        async with running_worker(settings(redis_url, consumer="w-c")):
            await publish(7, 8)
        await publish(9, seqs)
        await gateway.wait_processed(timeout_s=90)

    events = await gateway.read_events()
    ids = [event.event_id for event in events]
    assert len(ids) == len(set(ids))
    proposed = Counter(
        e.session_id for e in events if isinstance(e, StateChanged) and e.revision == 1
    )
    assert proposed == dict.fromkeys((f"s-{u}" for u in users), (seqs + 1) // 2)
    for user in users:
        p = partition_of("agent", user, PARTITIONS)
        raw = await client.hget(keys.session_key(p, "agent", user, f"s-{user}"), "n")
        assert int(raw or 0) == seqs + 1
    for p in range(PARTITIONS):
        for stream in input_streams(p):
            assert (await client.xpending(stream, GROUP))["pending"] == 0
        assert await client.xlen(stream_name("dead-letters", p)) == 0


@pytest.mark.asyncio
@pytest.mark.slow
@pytest.mark.cluster
@pytest.mark.timeout(180)
async def test_fence_is_checked_in_the_partitions_slot_on_a_cluster() -> None:
    """On Redis Cluster `lease:{p}` lives in the partition's slot: a fenced commit runs
    (no CROSSSLOT) while the lease holds the token, and is refused once it moved."""
    with redis_cluster() as url:
        client = RedisCluster.from_url(url)
        try:
            partitions = 4
            config = StoreConfig(partitions=partitions)
            gateway = Gateway(client, partitions)
            for partition in range(partitions):
                await ensure_groups(client, [partition], config.group)
            users = [f"user-{i}" for i in range(16)]
            for user in users:
                await gateway.publish(turn(user, 1))
            refused = 0
            for partition in range(partitions):
                lease = await ownership.acquire(client, partition, "owner", 60_000, 8)
                processor = PartitionProcessor(client, partition, core_for(Settings()), config)
                processor.set_fence(Fence(partition, lease.owner))
                entries = await read_new(client, partition, config.group, "owner", count=100)
                if not entries:
                    continue
                first, rest = entries[:1], entries[1:]
                assert (await processor.process(first)).outcomes["applied"] == 1
                assert await ownership.release(client, Fence(partition, lease.owner))
                assert (await ownership.acquire(client, partition, "next", 60_000, 8)).held
                if rest:
                    with pytest.raises(LeaseLost):
                        await processor.process(rest)
                    refused += 1
            assert refused >= 1
        finally:
            await client.aclose()
