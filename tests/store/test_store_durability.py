"""Durable commits on a real primary with a real replica (R15, DESIGN 5).

With `wait_replicas` a batch is done only once the replica has its commit, and its
events reach the streams subscribers read only then: while the replica is stopped
(SIGSTOP) the batch is held, nothing is published, and the shortfall is counted; once it
runs again the batch finishes and the replica holds everything the primary said.
What a commit left held (its worker died before publishing) is published by the
sweeper's pass, by the lease's owner only. A commit whose outcome the worker did not
learn (its answer died with the primary, its publish failed) is never undone by what the
worker remembered from before it.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

import pytest
import pytest_asyncio
import redis
import redis.asyncio
from accord_harness.reading import read_new
from accord_harness.store_harness import chat
from redis.asyncio import RedisCluster
from redis.exceptions import ConnectionError as RedisConnectionError

from contracts.streams import GROUP
from store import durability, keys, ownership
from store.config import StoreConfig
from store.durability import (
    LATE_PUBLISHES,
    SHORT_WAITS,
    Replication,
    WaitAofUnsupported,
    acknowledged,
    check_wait_aof,
    on_one_connection,
)
from store.embedded import SERVER_VARIABLE, EmbeddedCluster, EmbeddedRedis
from store.intake import ensure_groups
from store.ownership import Fence, LeaseLost
from store.processor import PartitionProcessor
from store.scripts import COMMIT
from tests.support.fake_core import FakeCore
from tests.support.redis_deploy_kit import redis7_binary
from tests.support.replica_kit import PATIENCE_S, Pair, pair, replica_of
from tests.support.sentinel_kit import SentinelTopology, sentinel_topology
from tests.support.worker_kit import wait_for
from worker.connection import quiet_options, sentinel_client

pytestmark = [pytest.mark.redis, pytest.mark.asyncio]
__all__ = ["pair"]  # the fixture, imported to be found by pytest

SCOPE = ("agent", "user")
# Short, so a stopped replica shows several shortfalls quickly.
DURABLE = StoreConfig(wait_replicas=1, wait_timeout_ms=100)


@pytest_asyncio.fixture
async def clients(pair: Pair) -> AsyncIterator[tuple[redis.asyncio.Redis, redis.asyncio.Redis]]:
    primary = redis.asyncio.Redis.from_url(pair.primary.url)
    replica = redis.asyncio.Redis.from_url(pair.replica.url)
    await ensure_groups(primary, [0], GROUP)
    yield primary, replica
    await primary.aclose()
    await replica.aclose()


async def _dies(self: Replication, fence: Fence | None) -> int:  # noqa: ARG001
    """A worker dying between its commit and the publish (Replication.publish)."""
    raise ConnectionError("the worker died here")


async def _events_anywhere(client: redis.asyncio.Redis) -> int:
    """Events held in the outbox or published: what a durable commit guarantees. Both
    read in one MULTI: a publish replicating between two reads would count one twice."""
    pipe = client.pipeline(transaction=True)
    pipe.xlen(keys.outbox_stream(0))
    pipe.xlen(keys.events_stream(0))
    held, published = await pipe.execute()
    return int(held) + int(published)


def _short_waits(
    client: redis.asyncio.Redis | RedisCluster, count: int
) -> Callable[[], Awaitable[bool]]:
    """A condition: the partition's WAITs came back short at least `count` times."""

    async def reached() -> bool:
        return await _stat(client, SHORT_WAITS) >= count

    return reached


async def _stat(client: redis.asyncio.Redis | RedisCluster, field: str) -> int:
    return int(await client.hget(keys.stats_key(0), field) or 0)


async def _propose(client: redis.asyncio.Redis | RedisCluster, session: str) -> None:
    document = chat(SCOPE, session, 1, "propose tea")
    await client.xadd("chat-turn:{0}", {"__data__": json.dumps(document)})


async def test_a_durable_batch_is_on_the_replica_when_it_returns_r15(
    clients: tuple[redis.asyncio.Redis, redis.asyncio.Redis],
) -> None:
    """R15 across a failover: when `process` returns, the replica already holds the
    batch's state, acks and events, read from the replica with no wait at all."""
    primary, replica = clients
    # A wait as long as the test's patience: a healthy replica on a busy machine can take
    # longer than DURABLE's 100 ms to acknowledge, which is a short wait, not the subject.
    patient = StoreConfig(wait_replicas=1, wait_timeout_ms=int(PATIENCE_S * 1000))
    processor = PartitionProcessor(primary, 0, FakeCore(), patient)
    await _propose(primary, "s")
    report = await processor.process(await read_new(primary, 0, GROUP, "c"))
    assert report.outcomes["applied"] == 1
    assert len(report.events) == 1
    # No sleep, no poll: WAIT returned only once the replica acknowledged all of it.
    # The commit's event is there, held or already published (the publish after the
    # wait is not waited for: a lost publish is redone from the outbox).
    assert await _events_anywhere(replica) == 1
    assert await replica.exists(keys.session_key(0, *SCOPE, "s")) == 1
    pending: Any = await replica.xpending("chat-turn:{0}", GROUP)
    assert pending["pending"] == 0
    assert await _stat(primary, SHORT_WAITS) == 0


async def test_with_wait_aof_a_batch_returns_once_primary_and_replica_wrote_it_r15(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`wait_aof` (ACCORD_WAIT_AOF) on Valkey, both AOFs on: the commit waits by WAITAOF
    for the primary's AOF and the replica's, which acknowledge it at once; the batch
    finishes with nothing short and its event is published. (What it adds, surviving a
    restart of both at once, needs a power cut to show: a kill keeps the page cache.)"""
    monkeypatch.setenv(SERVER_VARIABLE, "valkey")  # WAITAOF: Redis 7.2 and later, Valkey
    servers = Pair(extra=("--appendonly", "yes"))
    servers.start()
    primary = redis.asyncio.Redis.from_url(servers.primary.url)
    try:
        await ensure_groups(primary, [0], GROUP)
        await check_wait_aof(primary)
        config = StoreConfig(wait_replicas=1, wait_aof=True, wait_timeout_ms=int(PATIENCE_S * 1000))
        processor = PartitionProcessor(primary, 0, FakeCore(), config)
        await _propose(primary, "s")
        report = await processor.process(await read_new(primary, 0, GROUP, "c"))
        assert len(report.events) == 1
        assert await _stat(primary, SHORT_WAITS) == 0
        assert await primary.xlen(keys.events_stream(0)) == 1
        stats: Any = await primary.info("commandstats")
        assert stats["cmdstat_waitaof"]["calls"] >= 1
    finally:
        await primary.aclose()
        servers.stop()


@pytest.mark.parametrize("server", ["6.2", "7.0", "valkey without AOF"])
async def test_wait_aof_is_refused_where_redis_cannot_wait_for_an_aof(
    server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Redis 6.2 and 7.0 have no WAITAOF, and a primary whose AOF is off refuses it:
    the check a worker makes at start (ACCORD_WAIT_AOF=1) says which, in one sentence,
    rather than commit batches whose wait then fails every time."""
    chosen = {"6.2": "redis", "7.0": str(redis7_binary()), "valkey without AOF": "valkey"}
    monkeypatch.setenv(SERVER_VARIABLE, chosen[server])
    expected = "appendonly yes" if server.startswith("valkey") else "Redis 7.2 or later"
    with EmbeddedRedis() as embedded:
        client = redis.asyncio.Redis.from_url(embedded.url)
        try:
            info: Any = await client.info("server")
            if server == "7.0":  # Debian's 7.0.15: before WAITAOF (7.2)
                assert info["redis_version"].startswith("7.0.")
            with pytest.raises(WaitAofUnsupported, match=expected):
                await check_wait_aof(client)
        finally:
            await client.aclose()


async def test_a_stopped_replica_holds_the_batch_and_its_events(
    pair: Pair, clients: tuple[redis.asyncio.Redis, redis.asyncio.Redis]
) -> None:
    """While the replica cannot acknowledge, the batch does not finish and subscribers
    see nothing of it (the events wait in the outbox); the shortfalls are counted. Once
    the replica runs again the batch finishes and its events are published."""
    primary, replica = clients
    processor = PartitionProcessor(primary, 0, FakeCore(), DURABLE)
    await _propose(primary, "s")
    entries = await read_new(primary, 0, GROUP, "c")
    pair.replica_signal(signal.SIGSTOP)
    batch = asyncio.create_task(processor.process(entries))

    await wait_for(_short_waits(primary, 2), PATIENCE_S)
    assert not batch.done()
    assert await primary.xlen(keys.events_stream(0)) == 0
    assert await primary.xlen(keys.outbox_stream(0)) == 1

    pair.replica_signal(signal.SIGCONT)
    report = await asyncio.wait_for(batch, PATIENCE_S)
    assert len(report.events) == 1
    assert await primary.xlen(keys.events_stream(0)) == 1
    assert await primary.xlen(keys.outbox_stream(0)) == 0
    assert await replica.exists(keys.session_key(0, *SCOPE, "s")) == 1


async def test_without_the_setting_events_are_published_at_once_and_nothing_waits(
    pair: Pair, clients: tuple[redis.asyncio.Redis, redis.asyncio.Redis]
) -> None:
    """The default (`wait_replicas` 0): the commit publishes directly, with the replica
    stopped too; the outbox is never written."""
    primary, _ = clients
    processor = PartitionProcessor(primary, 0, FakeCore(), StoreConfig())
    await _propose(primary, "s")
    pair.replica_signal(signal.SIGSTOP)
    report = await asyncio.wait_for(
        processor.process(await read_new(primary, 0, GROUP, "c")), PATIENCE_S
    )
    assert len(report.events) == 1
    assert await primary.xlen(keys.events_stream(0)) == 1
    assert await primary.exists(keys.outbox_stream(0)) == 0
    assert await _stat(primary, SHORT_WAITS) == 0


async def test_what_a_dead_worker_left_held_is_published_by_the_sweeper_pass(
    clients: tuple[redis.asyncio.Redis, redis.asyncio.Redis],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A worker that dies between its commit and the publish leaves its events in the
    outbox: the next sweeper pass publishes them (after a wait), once, and counts it."""
    primary, replica = clients
    processor = PartitionProcessor(primary, 0, FakeCore(), DURABLE)

    with monkeypatch.context() as patch:
        patch.setattr(Replication, "publish", _dies)
        await _propose(primary, "s")
        with pytest.raises(ConnectionError):
            await processor.process(await read_new(primary, 0, GROUP, "c"))
    assert await primary.xlen(keys.events_stream(0)) == 0
    assert await replica.xlen(keys.outbox_stream(0)) == 1  # the commit was waited for

    assert await processor.publish_held() == 1
    assert await primary.xlen(keys.events_stream(0)) == 1
    assert await primary.xlen(keys.outbox_stream(0)) == 0
    assert await _stat(primary, LATE_PUBLISHES) == 1
    assert await processor.publish_held() == 0  # nothing left: one XLEN, no write
    assert await _stat(primary, LATE_PUBLISHES) == 1


async def test_a_worker_fenced_out_publishes_nothing(
    clients: tuple[redis.asyncio.Redis, redis.asyncio.Redis],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Held events belong to the partition's owner: a worker whose lease was taken over
    gets LeaseLost from the publish and moves nothing; the owner publishes them."""
    primary, _ = clients
    first = await ownership.acquire(primary, 0, "w1", 10_000, 8)
    assert first.held
    fence = Fence(0, first.owner)
    processor = PartitionProcessor(primary, 0, FakeCore(), DURABLE)
    processor.set_fence(fence)

    with monkeypatch.context() as patch:
        patch.setattr(Replication, "publish", _dies)
        await _propose(primary, "s")
        with pytest.raises(ConnectionError):
            await processor.process(await read_new(primary, 0, GROUP, "c"))

    await ownership.release(primary, fence)
    second = await ownership.acquire(primary, 0, "w2", 10_000, 8)
    assert second.held
    with pytest.raises(LeaseLost):
        await processor.publish_held()
    assert await primary.xlen(keys.events_stream(0)) == 0
    owner = PartitionProcessor(primary, 0, FakeCore(), DURABLE)
    owner.set_fence(Fence(0, second.owner))
    assert await owner.publish_held() == 1
    assert await primary.xlen(keys.events_stream(0)) == 1


@pytest.fixture(scope="module")
def cluster() -> Iterator[EmbeddedCluster]:
    with EmbeddedCluster(replicas=1) as servers:
        yield servers


async def test_on_redis_cluster_the_wait_follows_the_commit_to_its_shard_r15(
    cluster: EmbeddedCluster,
) -> None:
    """R15 on a sharded deployment: the commit and its WAIT reach the partition's primary
    on one connection, so when `process` returns that shard's replica holds the batch;
    with that replica stopped the next batch is held and publishes nothing."""
    client = RedisCluster.from_url(cluster.url)
    await client.flushall()
    await ensure_groups(client, [0], GROUP)
    shard_replica = replica_of(cluster, keys.stats_key(0))
    replica = redis.asyncio.Redis(port=shard_replica.port)
    await replica.readonly()
    processor = PartitionProcessor(client, 0, FakeCore(), DURABLE)
    try:
        await _propose(client, "s")
        report = await processor.process(await read_new(client, 0, GROUP, "c"))
        assert len(report.events) == 1
        assert await _events_anywhere(replica) == 1  # no wait: it is there

        await _propose(client, "t")
        entries = await read_new(client, 0, GROUP, "c")
        assert shard_replica.pid is not None
        os.kill(shard_replica.pid, signal.SIGSTOP)
        try:
            batch = asyncio.create_task(processor.process(entries))

            await wait_for(_short_waits(client, 2), PATIENCE_S)
            assert not batch.done()
            assert await client.xlen(keys.events_stream(0)) == 1
        finally:
            os.kill(shard_replica.pid, signal.SIGCONT)
        report = await asyncio.wait_for(batch, PATIENCE_S)
        assert len(report.events) == 1
        assert await _events_anywhere(replica) == 2
    finally:
        await client.aclose()
        await replica.aclose()


async def test_on_redis_cluster_the_wait_aof_check_asks_every_primary(
    cluster: EmbeddedCluster,
) -> None:
    """The start-up check of ACCORD_WAIT_AOF reaches the primaries of a cluster (the
    embedded nodes run without AOF, or, on Redis 6.2 and 7.0, without WAITAOF): refused
    there as on one Redis."""
    client = RedisCluster.from_url(cluster.url)
    try:
        with pytest.raises(WaitAofUnsupported, match="ACCORD_WAIT_AOF=1 needs"):
            await check_wait_aof(client)
    finally:
        await client.aclose()


async def test_a_lost_cluster_node_is_relearned_for_the_next_call_r15() -> None:
    """R15 through a Cluster failover: a commit sent to a primary that died raises (the
    batch stays pending) and the client relearns the layout, so the retry reaches the
    promoted replica instead of the dead node again."""
    with EmbeddedCluster(replicas=1) as servers:
        client = RedisCluster.from_url(servers.url)
        route = keys.stats_key(0)
        try:
            touch = ("HINCRBY", route, "probe", 1)
            assert await on_one_connection(client, route, [touch]) == [1]
            shard_replica = replica_of(servers, route)
            promoted = redis.asyncio.Redis(port=shard_replica.port)
            await promoted.execute_command("CLUSTER", "FAILOVER", "TAKEOVER")  # type: ignore[no-untyped-call]
            primary = client.get_node_from_key(route)
            assert primary is not None
            old = next(n for n in servers.nodes if n.port == primary.port)
            assert old.pid is not None
            os.kill(old.pid, signal.SIGKILL)

            async def is_primary() -> bool:
                info: Any = await promoted.info("replication")
                return bool(info.get("role") == "master")

            await wait_for(is_primary, PATIENCE_S)
            await promoted.aclose()
            with pytest.raises(RedisConnectionError):
                await on_one_connection(client, route, [touch])

            async def reaches_the_promoted_replica() -> bool:
                # (The other nodes may name the dead one for a moment yet: retried, as a
                # worker retries its batch.)
                try:
                    return await on_one_connection(client, route, [touch]) == [2]
                except RedisConnectionError:
                    return False

            await wait_for(reaches_the_promoted_replica, PATIENCE_S)
        finally:
            await client.aclose()


async def _turn(client: redis.asyncio.Redis, seq: int, text: str = "hello") -> None:
    document = chat(SCOPE, "s", seq, text)
    await client.xadd("chat-turn:{0}", {"__data__": json.dumps(document)})


async def _applied(client: redis.asyncio.Redis) -> list[int]:
    """The seqs the session's state has applied, in order (the fake core keeps them)."""
    raw: Any = await client.hget(keys.session_key(0, *SCOPE, "s"), "c")
    return list(FakeCore().decode_session(raw, "s").seqs)


def _answer_dies_with_the_primary(
    topology: SentinelTopology, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The next durable commit runs on the primary and its replica acknowledges it; then
    the primary is killed (-9) and the promoted, and the worker gets a connection reset
    instead of the answer, as a commit's answer in flight dies with its primary."""
    real = durability.on_one_connection

    async def answer_lost(redis: Any, route: str, calls: list[tuple[Any, ...]]) -> list[Any]:
        answers = await real(redis, route, calls)
        if calls[0][:2] == ("EVALSHA", COMMIT.sha):
            monkeypatch.setattr(durability, "on_one_connection", real)
            assert acknowledged(answers[1], DURABLE), "the replica has the commit"
            await asyncio.to_thread(topology.kill_primary)
            raise RedisConnectionError("Connection reset by peer")
        return answers

    monkeypatch.setattr(durability, "on_one_connection", answer_lost)


@pytest.mark.slow
async def test_a_commit_whose_answer_died_with_the_primary_is_not_undone_r15(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """R15 across a kill -9 failover with the lease outliving it (the workers' shipped
    lease): the durable commit of seq 2 reaches the replica, and the primary dies before
    its answer reaches the worker (the batch fails; on the promoted replica seq 2 is
    applied and its entry acked). The same processor then commits on the new primary,
    first the sweeper's pass (which writes the commit mark again), then seq 3 of the same
    session: seq 3 applies after seq 2. What the processor remembered from before seq 2
    is not written back over it, which left seq 2 acked and never applied, and seq 3
    parked until the gap timeout gave seq 2 up."""
    # Two replicas: the promoted one must have a replica of its own to acknowledge.
    with sentinel_topology(replicas=2) as topology:
        client = sentinel_client(topology.url(), quiet_options())
        try:
            await ensure_groups(client, [0], GROUP)
            lease = await ownership.acquire(client, 0, "w1", 600_000, 8)
            processor = PartitionProcessor(client, 0, FakeCore(), DURABLE)
            processor.set_fence(Fence(0, lease.owner))
            await _turn(client, 1)
            await processor.process(await read_new(client, 0, GROUP, "c"))

            _answer_dies_with_the_primary(topology, monkeypatch)
            await _turn(client, 2)
            with pytest.raises(RedisConnectionError):
                await processor.process(await read_new(client, 0, GROUP, "c"))
            assert await _applied(client) == [1, 2], "the promoted replica has seq 2"

            await processor.sweep_expired()
            mark: Any = await client.hget(keys.lease_key(0), "m")
            assert mark.decode() == processor.committer.mark, "the mark is the worker's again"
            await _turn(client, 3)
            report = await processor.process(await read_new(client, 0, GROUP, "c"))
            assert report.outcomes == {"applied": 1}
            assert await _applied(client) == [1, 2, 3]
            assert await client.exists(keys.parked_key(0, *SCOPE, "s")) == 0
            pending: Any = await client.xpending("chat-turn:{0}", GROUP)
            assert pending["pending"] == 0
        finally:
            await client.aclose()


async def test_a_commit_whose_publish_failed_is_not_undone_r15(
    clients: tuple[redis.asyncio.Redis, redis.asyncio.Redis],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """R15 when the connection fails between a durable commit and its publish: the batch
    of seq 2 raises although Redis holds it (and its mark), and the processor goes on
    with the next batch of the same session. Seq 3 applies after seq 2, not over what the
    processor remembered from before it."""
    primary, _ = clients
    lease = await ownership.acquire(primary, 0, "w1", 600_000, 8)
    processor = PartitionProcessor(primary, 0, FakeCore(), DURABLE)
    processor.set_fence(Fence(0, lease.owner))
    await _turn(primary, 1)
    await processor.process(await read_new(primary, 0, GROUP, "c"))

    with monkeypatch.context() as patch:
        patch.setattr(Replication, "publish", _dies)
        await _turn(primary, 2, "propose tea")  # an event: the commit holds it to publish
        with pytest.raises(ConnectionError):
            await processor.process(await read_new(primary, 0, GROUP, "c"))
    assert await _applied(primary) == [1, 2]

    await _turn(primary, 3)
    report = await processor.process(await read_new(primary, 0, GROUP, "c"))
    assert report.outcomes == {"applied": 1}
    assert await _applied(primary) == [1, 2, 3]
    assert await primary.exists(keys.parked_key(0, *SCOPE, "s")) == 0
