"""The Python client on a three-master Redis Cluster: every script and read stays in
one slot (the partition's tag), whichever shard the partition lives on."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from redis.asyncio import RedisCluster

from accord_client import AccordClient, Delivery
from contracts.partition import partition_of
from contracts.streams import stream_name
from tests.support.paths import EXAMPLES
from tests.support.worker_kit import redis_cluster

pytestmark = [pytest.mark.redis, pytest.mark.cluster, pytest.mark.asyncio, pytest.mark.slow]

PARTITIONS = 6  # tags {0}..{5} land on all three shards
EXAMPLE = EXAMPLES / "state_changed.proposed.json"


@pytest.fixture(scope="module")
def cluster_url() -> Iterator[str]:
    with redis_cluster() as url:
        yield url


async def test_appends_views_and_subscriptions_work_on_every_shard(cluster_url: str) -> None:
    """R15 on a cluster: each session numbered 1..n by the append script, no CROSSSLOT;
    views read; a subscription over all partitions polls each shard's stream."""
    redis = RedisCluster.from_url(cluster_url)
    client = AccordClient(redis, partitions=PARTITIONS)
    try:
        await redis.initialize()
        scopes = [
            next(
                (f"agent-{i}", "u")
                for i in range(1000)
                if partition_of(f"agent-{i}", "u", PARTITIONS) == p
            )
            for p in range(PARTITIONS)
        ]
        found = [redis.get_node_from_key(stream_name("chat-turn", p)) for p in range(PARTITIONS)]
        nodes = {node.name for node in found if node is not None}
        assert len(nodes) == 3, "all three masters"
        for agent_id, user_id in scopes:
            session = client.session(agent_id, user_id, "s")
            seqs = [(await session.user(f"turn {n}", message_id=f"m{n}")).seq for n in range(3)]
            assert seqs == [1, 2, 3]
            assert (await session.user("again", message_id="m1")).seq == 2
            view = await session.view()
            assert view.current_agreements == ()
            assert view.pending_proposals == ()
        data = json.dumps(json.loads(EXAMPLE.read_text("utf-8")))
        for p in (0, PARTITIONS - 1):
            await redis.xadd(
                stream_name("agreement-events", p), {"__data__": data.replace("@1", f"@1-{p}")}
            )
        got: list[Delivery] = []
        async for delivery in client.subscribe("svc", block_ms=100):
            got.append(delivery)
            if len(got) == 2:
                break
        assert sorted(d.partition for d in got) == [0, PARTITIONS - 1]
        entries: Any = await redis.xrange(
            stream_name("chat-turn", partition_of(*scopes[0], PARTITIONS))
        )
        assert [json.loads(f[b"__data__"])["seq"] for _, f in entries] == [1, 2, 3]
    finally:
        await redis.aclose()
