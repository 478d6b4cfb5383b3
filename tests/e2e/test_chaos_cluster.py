"""The Redis Cluster topology of the failover chaos run (harness/accord_harness/chaos/cluster.py):
a replica's link to its primary runs through the primary's proxy and lags as across a
network, the cluster promotes the replica of a killed primary by itself, and that replica
lacks the write the primary acknowledged last; the old primary, restarted on its files,
rejoins as the successor's replica and drops the write (docs/reliability.md, "Replicated
Redis")."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
import redis.asyncio
from accord_harness.chaos.cluster import ClusterRedis, View
from accord_harness.chaos.cluster_failover import ClusterGateway
from accord_harness.chaos.proxy import LagProxy
from accord_harness.chaos.replicated import Node
from accord_harness.chaos.workload import build
from redis.asyncio import RedisCluster

from contracts.streams import hash_tag
from store import keys
from store.embedded import EmbeddedCluster
from tests.support.replica_kit import replica_of

# Far above a busy machine's scheduling hiccups: the write that follows must still be
# in flight when the primary dies right after acknowledging it.
DELAY_MS = 200.0
KEY = "chaos-cluster-test:{0}"


async def _await_value(node: Node, key: str, value: bytes | None) -> None:
    """Until `node` (a primary, or a replica read with READONLY) has `key` at `value`."""
    client = redis.asyncio.Redis(port=node.port, single_connection_client=True)
    try:
        await client.execute_command("READONLY")  # type: ignore[no-untyped-call]
        deadline = time.monotonic() + 30
        while await client.get(key) != value:
            assert time.monotonic() < deadline, f"{node.name}: {key} is not {value!r}"
            await asyncio.sleep(0.01)
    finally:
        await client.aclose()


def test_the_view_reads_primaries_replicas_and_failed_nodes_by_announced_port() -> None:
    """`CLUSTER NODES` is read by the proxy port each node announces: slot ranges (a
    migrating slot left out) give a primary its slots, a replica names its primary, and a
    node flagged fail (or fail?) is failed. Nodes of no proxy of ours are ignored."""
    topology = ClusterRedis(Path("/nonexistent"))
    topology.nodes = [
        Node(f"node-{i}", Path("/nonexistent"), 7000 + i, LagProxy(0, 0.0, port=9000 + i))
        for i in range(3)
    ]
    text = (
        "aaa 127.0.0.1:9000@17000 myself,master - 0 0 1 connected 0-99 200 [300->-bbb]\n"
        "bbb 127.0.0.1:9001@17001 master,fail - 0 0 2 connected 100-199\n"
        "ccc 127.0.0.1:9002@17002 slave aaa 0 0 3 connected\n"
        "ddd 127.0.0.1:9999@19999 master - 0 0 4 connected 201\n"
    )
    view = topology.parse(text)
    assert view == View(
        primaries={"node-0": {*range(100), 200}, "node-1": set(range(100, 200))},
        primary_of={"node-2": "node-0"},
        failed={"node-1"},
    )


@pytest.mark.slow
@pytest.mark.asyncio
@pytest.mark.timeout(180)
async def test_a_cluster_failover_loses_the_acknowledged_write_still_in_flight(
    tmp_path: Path,
) -> None:
    """Replication in the cluster lags (a write acknowledged by each primary is on none of
    the replicas right after); a write acknowledged by the primary of `{0}` and killed
    then is on neither the replica the cluster promotes nor, once restarted and rejoined as
    that replica's replica, the old primary itself."""
    topology = ClusterRedis(tmp_path, delay_ms=DELAY_MS)
    await topology.start()
    try:
        lag = await topology.measure_lag(probes=1)
        assert lag["absent_right_after"] == "3/3", lag
        assert min(lag["visible_after_ms"]) >= DELAY_MS, lag
        primary = await topology.primary_of(KEY)
        writer = redis.asyncio.Redis(port=primary.port)
        try:
            await writer.set(KEY, "before")
            view = await topology.view()
            (replica,) = [n for n in topology.nodes if view.primary_of.get(n.name) == primary.name]
            await _await_value(replica, KEY, b"before")
            assert await writer.set(KEY, "last")  # acknowledged ...
        finally:
            await writer.aclose()
        await topology.kill9(primary)  # ... and still in flight to the replica
        new = await topology.await_failover(primary)
        assert new is not primary
        await _await_value(new, KEY, b"before")
        await topology.restart(primary)
        await topology.await_healthy()
        assert await topology.role(primary) == "slave"
        assert primary.name in (await topology.view()).primary_of
        await _await_value(primary, KEY, b"before")  # its own copy went with the resync
        assert sum(node.proxy.replication_links for node in topology.nodes) >= 4
    finally:
        await topology.stop()


@pytest.mark.asyncio
@pytest.mark.timeout(120)
async def test_the_cluster_gateway_appends_each_shard_with_its_wait_in_order() -> None:
    """The chaos gateway on a cluster (R15's durable appends): a burst spanning every
    shard is acknowledged with each item's entry id in the burst's order, and only once
    each shard's replica has its appends (the WAIT follows the XADDs to the shard's
    primary: a keyless WAIT routed elsewhere would count another shard's replica)."""
    workload = build(seed=3, sessions=12, events_per_session=3, partitions=4, poison_copies=1)
    burst = workload.writes[:40]
    with EmbeddedCluster(replicas=1) as servers:
        client = RedisCluster.from_url(servers.url)
        gateway = ClusterGateway(client, 4, wait_replicas=1)
        try:
            await gateway.write(burst)
            assert gateway.wait_short == 0
            written = {**gateway.entries, **gateway.poison}
            assert len(written) == len(burst)
            for stream, entry_id in written:
                assert await client.xrange(stream, min=entry_id, max=entry_id)
            for p in range(4):
                replica = replica_of(servers, keys.events_stream(p))
                reader = redis.asyncio.Redis(port=replica.port, single_connection_client=True)
                try:
                    await reader.execute_command("READONLY")  # type: ignore[no-untyped-call]
                    for stream, entry_id in written:
                        if stream.endswith(hash_tag(p)):
                            assert await reader.xrange(stream, min=entry_id, max=entry_id)
                finally:
                    await reader.aclose()
        finally:
            await client.aclose()
