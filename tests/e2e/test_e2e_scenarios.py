"""End to end through the streams: the seed scenarios, EN and ZH, on two worker processes.

A gateway (worker/gateway.py, as any producer would) XADDs every bundled transcript
to the input streams; two `accord worker` processes in one consumer group apply
them, each reading with the merged reader (the one reading path: docs/store.md); the
test reads `agreement-events:{p}` and the session views and checks every
event and view against the rules (tests/support/worker_kit.py, EXPECTED). The same suite
runs against a three-master Redis Cluster started by the test.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from redis.asyncio import Redis, RedisCluster

from store.embedded import EmbeddedRedis
from tests.support.scenario_kit import PARTITIONS, check_all, play_all
from tests.support.worker_kit import (
    flushed,
    redis_cluster,
    worker_env,
    worker_processes,
)

pytestmark = [pytest.mark.asyncio, pytest.mark.redis, pytest.mark.slow, pytest.mark.timeout(900)]


@pytest.fixture(scope="module")
def single_redis() -> Iterator[str]:
    with EmbeddedRedis() as server:
        yield server.url


async def test_seed_scenarios_on_two_worker_processes(single_redis: str) -> None:
    """R1-R15 end to end: every seed scenario, EN and ZH, two workers sharing four
    partitions by leases (each partition read by one worker)."""
    await _play_on_two_workers(
        single_redis, worker_env(single_redis, ACCORD_PARTITIONS=str(PARTITIONS))
    )


async def test_seed_scenarios_on_two_workers_that_both_read_every_partition(
    single_redis: str,
) -> None:
    """R15 with a session's entries split between consumers: both workers name every
    partition (ACCORD_SERVE_PARTITIONS, no leases), so each reads part of every stream of
    one group and a session's seqs reach both; the ordering gate and the version checks
    still apply every input once, in order, and every scenario ends as the rules say."""
    every = ",".join(str(p) for p in range(PARTITIONS))
    env = worker_env(single_redis, ACCORD_PARTITIONS=str(PARTITIONS), ACCORD_SERVE_PARTITIONS=every)
    await _play_on_two_workers(single_redis, env)


async def _play_on_two_workers(url: str, env: dict[str, str]) -> None:
    """Every seed scenario through two `accord worker` processes started with `env`, on
    an emptied Redis: an earlier test's heartbeats would pass for these workers' and the
    play would start before they read."""
    flushed(url)
    with worker_processes(2, env):
        client = Redis.from_url(url)
        try:
            results = await play_all(client, f"~{uuid.uuid4().hex[:6]}")
        finally:
            await client.aclose()
    check_all(results)


@pytest.mark.cluster
async def test_seed_scenarios_on_a_three_master_cluster() -> None:
    """The same suite on Redis Cluster: partitions spread over the shards by hash tag."""
    with redis_cluster() as url:
        env = worker_env(
            url,
            ACCORD_PARTITIONS=str(PARTITIONS),
            ACCORD_REDIS_CLUSTER="1",
        )
        with worker_processes(2, env):
            client = RedisCluster.from_url(url)
            try:
                results = await play_all(client, f"~{uuid.uuid4().hex[:6]}")
                streams = [f"chat-turn:{{{p}}}" for p in range(PARTITIONS)]
                slots = {await client.cluster_keyslot(stream) for stream in streams}
                nodes = [client.get_node_from_key(stream) for stream in streams]
                shards = {node.name for node in nodes if node is not None}
            finally:
                await client.aclose()
    check_all(results)
    # Four partitions, four slots, on all three masters (slots 1584, 5649, 9842, 13907).
    assert len(slots) == PARTITIONS
    assert len(shards) == 3
