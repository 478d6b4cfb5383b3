"""The gateway client's durability setting on a real primary with a real replica
(R15, DESIGN 5): with `wait_replicas` an append returns its seq only once the replica has
it; while the replica cannot answer, the append is not confirmed (retried, then
`AppendUnavailableError` caused by `NotReplicatedError`), and a retry with the same
message id once it answers returns the same seq, the replica then holding it."""

from __future__ import annotations

import os
import signal
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
import redis.asyncio

from accord_client import AccordClient, AppendUnavailableError, InvalidInputError
from accord_client.errors import NotReplicatedError
from store.embedded import EmbeddedCluster
from tests.support.replica_kit import Pair, pair, replica_of

pytestmark = [pytest.mark.redis, pytest.mark.asyncio]
__all__ = ["pair"]  # the fixture, imported to be found by pytest


@pytest_asyncio.fixture
async def replica(pair: Pair) -> AsyncIterator[redis.asyncio.Redis]:
    client = redis.asyncio.Redis.from_url(pair.replica.url)
    yield client
    await client.aclose()


async def test_an_append_returns_once_the_replica_has_it_r15(
    pair: Pair, replica: redis.asyncio.Redis
) -> None:
    """R15: the seq comes back only when the replica holds the entry (read from the
    replica at once, no wait)."""
    async with AccordClient.from_url(pair.primary.url, wait_replicas=1) as client:
        appended = await client.session("a", "u", "s").user("hello there", message_id="m1")
    assert appended.seq == 1
    assert await replica.xlen(appended.stream) == 1


async def test_a_stopped_replica_leaves_the_append_unconfirmed_and_a_retry_safe(
    pair: Pair, replica: redis.asyncio.Redis
) -> None:
    """Without the replica the append is not confirmed, however often it is retried;
    once the replica answers, the retry with the same message id gets the same seq (the
    entry written once) and returns only when the replica holds it."""
    async with AccordClient.from_url(
        pair.primary.url, wait_replicas=1, wait_timeout_ms=100, retries=1, retry_backoff_s=0.01
    ) as client:
        session = client.session("a", "u", "s")
        pair.replica_signal(signal.SIGSTOP)
        with pytest.raises(AppendUnavailableError) as failed:
            await session.user("hello there", message_id="m1")
        assert isinstance(failed.value.__cause__, NotReplicatedError)
        pair.replica_signal(signal.SIGCONT)
        again = await session.user("hello there", message_id="m1")
    assert (again.seq, again.repeated) == (1, True)
    assert await replica.xlen(again.stream) == 1


async def test_without_the_setting_an_append_does_not_wait(pair: Pair) -> None:
    """The default: the replica stopped changes nothing for the gateway."""
    pair.replica_signal(signal.SIGSTOP)
    async with AccordClient.from_url(pair.primary.url) as client:
        appended = await client.session("a", "u", "s").user("hello there")
    assert (appended.seq, appended.repeated) == (1, False)


async def test_the_setting_below_zero_is_refused() -> None:
    with pytest.raises(InvalidInputError, match="wait_replicas"):
        AccordClient(redis.asyncio.Redis(), wait_replicas=-1)


async def test_on_redis_cluster_the_wait_follows_the_append_to_its_shard_r15() -> None:
    """R15 on a sharded deployment: the append and its WAIT go to the primary of the
    session's slot on one connection, so when the seq comes back that shard's replica
    holds the entry; with the replica stopped the append is not confirmed."""
    with EmbeddedCluster(replicas=1) as cluster:
        async with AccordClient.from_url(
            cluster.url, cluster=True, wait_replicas=1, wait_timeout_ms=100, retries=1
        ) as client:
            session = client.session("a", "u", "s")
            appended = await session.user("hello there", message_id="m1")
            shard = replica_of(cluster, appended.stream)
            replica = redis.asyncio.Redis(port=shard.port)
            try:
                await replica.readonly()
                assert await replica.xlen(appended.stream) == 1
                assert shard.pid is not None
                os.kill(shard.pid, signal.SIGSTOP)
                try:
                    with pytest.raises(AppendUnavailableError) as failed:
                        await session.user("second turn", message_id="m2")
                    assert isinstance(failed.value.__cause__, NotReplicatedError)
                finally:
                    os.kill(shard.pid, signal.SIGCONT)
                again = await session.user("second turn", message_id="m2")
                assert (again.seq, again.repeated) == (2, True)
                assert await replica.xlen(again.stream) == 2
            finally:
                await replica.aclose()
