"""The TypeScript client's durability setting on a real primary and replica
(clients/typescript/test/durable.test.ts; R15, DESIGN 5): an append returns only once the
replica has it, a stopped replica leaves it unconfirmed, and the retry with the same
message id gets the same seq; on a Cluster, the same for the shard's replica. Node and
npm are required: never skipped."""

from __future__ import annotations

import os

import pytest

from store.embedded import EmbeddedCluster
from tests.support.replica_kit import Pair, pair, replica_of
from tests.support.typescript_kit import run_in_client

pytestmark = [pytest.mark.redis, pytest.mark.slow, pytest.mark.timeout(300)]
__all__ = ["pair"]  # the fixture, imported for pytest to find


def test_typescript_appends_wait_for_the_replica(built: str, pair: Pair) -> None:
    env = {
        **os.environ,
        "ACCORD_PRIMARY_URL": pair.primary.url,
        "ACCORD_REPLICA_URL": pair.replica.url,
        "ACCORD_REPLICA_PID": str(pair.replica.pid),
    }
    command = [built, "--test", "--test-reporter=tap", "dist/test/durable.test.js"]
    done = run_in_client(command, env)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    # The Cluster's suite is skipped here (the next test runs it); no test is.
    assert "# pass 2" in done.stdout, done.stdout[-2000:]
    assert "# skipped 0" in done.stdout, "no TypeScript test may be skipped here"


def test_typescript_appends_on_a_cluster_wait_for_their_shards_replica(built: str) -> None:
    """R15 on a sharded deployment: the TypeScript client's append and its WAIT go to the
    primary serving the partition; stopping that shard's replica leaves the append
    unconfirmed (a WAIT sent to another node would count another shard's replica)."""
    with EmbeddedCluster(replicas=1) as cluster:
        replica = replica_of(cluster, "chat-turn:{0}")
        env = {
            **os.environ,
            "ACCORD_CLUSTER_URL": cluster.url,
            "ACCORD_CLUSTER_REPLICA_URL": replica.url,
            "ACCORD_CLUSTER_REPLICA_PID": str(replica.pid),
        }
        command = [
            built, "--test", "--test-reporter=tap",
            "--test-name-pattern=Redis Cluster|the shard", "dist/test/durable.test.js",
        ]  # fmt: skip
        done = run_in_client(command, env)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "# pass 1" in done.stdout, done.stdout[-2000:]
    assert "# fail 0" in done.stdout, done.stdout[-2000:]
