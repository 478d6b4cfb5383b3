"""The replicated topology of the failover chaos run (harness/accord_harness/chaos/replicated.py):
replicas lag as across a network, Sentinel fails over from a killed primary to a replica
that lacks its last acknowledged write, and the old primary rejoins as a replica and
drops that write (docs/reliability.md, "Replicated Redis")."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio
from accord_harness.chaos.replicated import Node, ReplicatedRedis

# Far above a busy machine's scheduling hiccups: the write that follows must still be
# in flight when the primary dies right after acknowledging it.
DELAY_MS = 200.0


async def _await_value(node: Node, key: str, value: bytes) -> None:
    client = redis.asyncio.Redis(port=node.port)
    try:
        deadline = time.monotonic() + 30
        while await client.get(key) != value:
            assert time.monotonic() < deadline, f"{node.name} never got {key}"
            await asyncio.sleep(0.01)
    finally:
        await client.aclose()


async def _ask(node: Node, command: str, *args: str) -> Any:
    """`command` on `node`, again on a fresh connection if the node drops ours: Sentinel
    ends a reconfiguration with `CLIENT KILL TYPE normal`, which a second sentinel may
    repeat a moment after the role has changed."""
    deadline = time.monotonic() + 30
    while True:
        client = redis.asyncio.Redis(port=node.port)
        try:
            return await client.execute_command(command, *args)  # type: ignore[no-untyped-call]
        except redis.ConnectionError:
            assert time.monotonic() < deadline, f"{node.name} kept dropping {command}"
            await asyncio.sleep(0.05)
        finally:
            await client.aclose()


async def _await_role(topology: ReplicatedRedis, node: Node, role: str) -> None:
    # (a replica loading its primary's copy answers LOADING for a moment)
    deadline = time.monotonic() + 30
    while (found := await topology.role(node)) != role:
        assert time.monotonic() < deadline, f"{node.name} is {found}, not {role}"
        await asyncio.sleep(0.05)


@pytest.mark.slow
@pytest.mark.asyncio
@pytest.mark.timeout(180)
async def test_a_failover_loses_the_acknowledged_write_still_in_flight(tmp_path: Path) -> None:
    """A write the primary acknowledged is on no replica right after; killed then, the
    primary's successor lacks it, and the old primary, restarted, follows the successor
    and drops it too. Sentinel (quorum 2 of 3) promotes one of the two replicas."""
    topology = ReplicatedRedis(tmp_path, delay_ms=DELAY_MS)
    await topology.start()
    try:
        lag = await topology.measure_lag(probes=2)
        assert lag["absent_right_after"] == "4/4", lag
        assert min(lag["visible_after_ms"]) >= DELAY_MS, lag
        primary = await topology.primary()
        writer = redis.asyncio.Redis.from_url(primary.url)
        try:
            await writer.set("before", "1")
            for node in topology.nodes:
                await _await_value(node, "before", b"1")
            assert await writer.set("last", "1")  # acknowledged ...
        finally:
            await writer.aclose()
        await topology.kill9(primary)  # ... and still in flight to the replicas
        new = await topology.await_failover(primary)
        assert new is not primary
        await _await_role(topology, new, "master")
        assert await _ask(new, "GET", "before") == b"1"
        assert await _ask(new, "GET", "last") is None
        await topology.restart(primary)
        await topology.await_replicas(2)
        assert await _ask(new, "SET", "after", "1")
        await _await_role(topology, primary, "slave")
        await _await_value(primary, "after", b"1")
        assert await _ask(primary, "GET", "last") is None  # its own copy went with the resync
        assert sum(node.proxy.replication_links for node in topology.nodes) >= 3
    finally:
        await topology.stop()
