"""A primary and its replica: real redis-server processes on loopback, for the tests of
the durability setting (the store's commits and the gateway client's appends)."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from store.embedded import EmbeddedCluster, EmbeddedRedis

# Generous: a busy machine may be slow to replicate, never this slow.
PATIENCE_S = 30.0


class Pair:
    """A primary and its replica, both started with `extra` server arguments; the replica
    can be stopped (SIGSTOP) and resumed."""

    def __init__(self, extra: tuple[str, ...] = ()) -> None:
        self.extra = extra
        self.primary = EmbeddedRedis(extra_args=extra)
        self.replica = EmbeddedRedis()

    def start(self) -> None:
        """Both servers running, the replica's link online (every test needs it so)."""
        self.primary.start()
        replicaof = ("--replicaof", "127.0.0.1", str(self.primary.port))
        self.replica.extra_args = (*self.extra, *replicaof)
        self.replica.start()
        deadline = time.monotonic() + PATIENCE_S
        with redis.Redis(port=self.replica.port) as replica:
            while not _linked(replica.info("replication")):
                if time.monotonic() > deadline:
                    raise AssertionError(f"the replica did not link within {PATIENCE_S} s")
                time.sleep(0.02)

    def stop(self) -> None:
        self.replica_signal(signal.SIGCONT)
        self.replica.stop()
        self.primary.stop()

    def replica_signal(self, sig: signal.Signals) -> None:
        if self.replica.pid is not None:
            os.kill(self.replica.pid, sig)


def _linked(info: Any) -> bool:
    """Whether a replica's INFO replication shows its link to the primary up: its first
    sync loaded. (Valkey's primary shows a replica `online` while that sync still runs,
    and a WAIT meanwhile counts it out.)"""
    return bool(info.get("master_link_status") == "up")


@pytest.fixture
def pair() -> Iterator[Pair]:
    """A running primary and replica, stopped after the test (import it as a fixture)."""
    servers = Pair()
    servers.start()
    yield servers
    servers.stop()


def replica_of(cluster: EmbeddedCluster, key: str) -> EmbeddedRedis:
    """The replica of the shard that serves `key` (asked of each node itself: the
    cluster's gossip may not have spread the replicas' roles yet)."""
    sync = redis.RedisCluster.from_url(cluster.url)
    try:
        primary: Any = sync.get_node_from_key(key)  # type: ignore[no-untyped-call]
        port = primary.port
    finally:
        sync.close()
    for node in cluster.nodes:
        with redis.Redis(port=node.port) as plain:
            info: Any = plain.info("replication")
        if info.get("role") == "slave" and int(info.get("master_port", 0)) == port:
            return node
    raise AssertionError(f"no replica of the node on port {port}")
