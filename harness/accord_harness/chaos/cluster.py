"""A Redis Cluster on loopback: three primaries, each with a replica, whose replication lags.

Real `redis-server` processes (`server_binary()`, as the Sentinel topology), each with
`cluster-enabled yes`, `appendonly yes` and a directory of its own (its `nodes.conf` with
it, so a killed node restarts as the same cluster node). Failover is the cluster's own:
a replica whose primary has not answered the cluster bus for `cluster-node-timeout` is
promoted once a majority of the primaries agree; the primary comes back (restarted, or
resumed from a pause), learns of the promotion by gossip and turns into a replica of its
successor, dropping what that one lacks.

Replication lags as on a network: every node announces its `LagProxy`'s port as its
address (`cluster-announce-port`), so a replica's link to its primary, which the replica
opens to the address its primary announces, runs through the primary's proxy and is
delayed (`measure_lag` shows it). Clients learn the same addresses (`CLUSTER SLOTS`,
`MOVED`) and pass through the proxies without delay. The cluster bus goes direct
(`cluster-announce-bus-port`): failure detection sees the nodes themselves.

    topology = ClusterRedis(directory, delay_ms=10)
    await topology.start()
    primary = await topology.primary_of("stats:{0}")   # the primary serving that key
    await topology.kill9(primary)                       # or pause(primary) ... resume(primary)
    new = await topology.await_failover(primary)
    await topology.restart(primary)                     # rejoins as a replica of `new`
    await topology.await_healthy()
    await topology.stop()
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass
from typing import Any

import redis.asyncio
from redis.crc import key_slot

from accord_harness.chaos.faults import HARNESS
from accord_harness.chaos.replicated import RETRYABLE, LaggedNodes, Node
from store.embedded import cluster_port

SLOTS = 16384
# The bus port is the client port plus this (as `cluster_port()` chose it free).
BUS_OFFSET = 10000


@dataclass(frozen=True)
class View:
    """One node's view of the cluster (`CLUSTER NODES`), by node name."""

    primaries: dict[str, set[int]]  # primary -> the slots it serves
    primary_of: dict[str, str]  # replica -> its primary
    failed: set[str]


@dataclass
class ClusterRedis(LaggedNodes):
    """The topology (module docstring): `primaries` shards of one primary and
    `replicas` replicas each."""

    primaries: int = 3
    replicas: int = 1
    node_timeout_ms: int = 1500

    async def start(self) -> None:
        for _ in range(self.primaries * (1 + self.replicas)):
            await self._launch(await self._add_node(cluster_port))
        await self._join()
        await self.await_healthy()

    async def stop(self) -> None:
        await self._stop_nodes()

    @property
    def url(self) -> str:
        """A URL for `RedisCluster` (any node's: the client learns the rest)."""
        return self.nodes[0].url

    # -- who is primary ----------------------------------------------------------------

    async def view(self, exclude: Node | None = None) -> View:
        """The cluster as the first live node (other than `exclude`) answering sees it."""
        for node in self.nodes:
            if node is exclude or not node.alive():
                continue
            with contextlib.suppress(*RETRYABLE):
                text: Any = await self._client(node.port).execute_command(  # type: ignore[no-untyped-call]
                    "CLUSTER", "NODES"
                )
                return self.parse(text.decode() if isinstance(text, bytes) else str(text))
        raise RuntimeError("no cluster node answers")

    async def primary_of(self, key: str, exclude: Node | None = None) -> Node:
        """The primary that serves `key`'s slot, once that node says it is a primary."""
        slot = key_slot(key.encode())
        deadline = time.monotonic() + self.startup_timeout_s
        while time.monotonic() < deadline:
            with contextlib.suppress(RuntimeError):
                view = await self.view(exclude)
                for name, slots in view.primaries.items():
                    node = self._named(name)
                    usable = slot in slots and name not in view.failed and node is not exclude
                    if usable and await self.role(node) == "master":
                        return node
            await asyncio.sleep(0.05)
        raise RuntimeError(f"no primary serves {key} (slot {slot})")

    async def await_failover(self, old: Node, timeout_s: float = 60.0) -> Node:
        """Until another node serves `old`'s slots as a primary (the cluster failed over)."""
        view = await self.view(exclude=old)
        slots = view.primaries.get(old.name) or set()
        if not slots:
            raise RuntimeError(f"{old.name} serves no slot: nothing to fail over")
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            with contextlib.suppress(RuntimeError):
                view = await self.view(exclude=old)
                for name, served in view.primaries.items():
                    node = self._named(name)
                    if node is not old and slots <= served and await self.role(node) == "master":
                        return node
            await asyncio.sleep(0.05)
        raise RuntimeError(f"the cluster did not fail over from {old.name} within {timeout_s}s")

    async def await_healthy(self, timeout_s: float = 90.0) -> None:
        """Until every node runs, the cluster is `ok` everywhere, and each of the
        `primaries` slot-serving primaries has its `replicas` linked and caught up."""
        deadline = time.monotonic() + timeout_s
        problem = "not checked"
        while time.monotonic() < deadline:
            with contextlib.suppress(*RETRYABLE, RuntimeError):
                problem = await self._unhealthy()
                if not problem:
                    return
            await asyncio.sleep(0.1)
        raise RuntimeError(f"the cluster did not heal within {timeout_s}s: {problem}")

    async def _unhealthy(self) -> str:
        """What is not healthy yet (module docstring), or ''."""
        if not all(node.alive() for node in self.nodes):
            return "a node is down"
        for node in self.nodes:
            info: Any = await self._client(node.port).execute_command("CLUSTER", "INFO")  # type: ignore[no-untyped-call]
            if not _state_ok(info):
                return f"{node.name}: cluster_state is not ok"
        view = await self.view()
        if len(view.primaries) != self.primaries or view.failed:
            return f"primaries {sorted(view.primaries)}, failed {sorted(view.failed)}"
        for name in view.primaries:
            if problem := await self._shard_unhealthy(view, name):
                return problem
        return ""

    async def _shard_unhealthy(self, view: View, name: str) -> str:
        primary = self._named(name)
        replicas = [self._named(r) for r, p in view.primary_of.items() if p == name]
        if len(replicas) < self.replicas:
            return f"{name} has {len(replicas)} replicas"
        info: Any = await self._client(primary.port).info("replication")
        offset = int(info["master_repl_offset"])
        for replica in replicas:
            info = await self._client(replica.port).info("replication")
            linked = info.get("master_link_status") == "up"
            if not linked or info.get("master_port") != primary.address:
                return f"{replica.name}'s link to {name} is not up"
            if offset - int(info.get("slave_repl_offset", 0)) > 1_000_000:
                return f"{replica.name} is behind {name}"
        return ""

    # -- faults ------------------------------------------------------------------------

    async def restart(self, node: Node) -> None:
        """Start a killed node on its files (its `nodes.conf` too): it rejoins and turns
        into a replica of the node that took its slots."""
        await self._launch(node)

    # -- lag -----------------------------------------------------------------------------

    async def measure_lag(self, probes: int = 3) -> dict[str, Any]:
        """On every shard: write on the primary, read at once on its replicas (`READONLY`
        connections): how often the write was not there yet, and after how many ms it was."""
        view = await self.view()
        absent, total, lags = 0, 0, []
        for name, slots in sorted(view.primaries.items()):
            primary = self._named(name)
            replicas = [self._named(r) for r, p in view.primary_of.items() if p == name]
            readers = [await _readonly(replica) for replica in replicas]
            try:
                for probe in range(probes):
                    key, value = _key_in(slots, f"accord-lag-probe:{probe}"), str(time.time_ns())
                    await self._client(primary.port).set(key, value)
                    written = time.monotonic()
                    for reader in readers:
                        total += 1
                        absent += await reader.get(key) is None
                    for reader, replica in zip(readers, replicas, strict=True):
                        while (await reader.get(key)) != value.encode():
                            if time.monotonic() - written > 10:
                                raise RuntimeError(f"{replica.name} lacks {key} after 10s")
                            await asyncio.sleep(0.001)
                        lags.append((time.monotonic() - written) * 1000)
                    await self._client(primary.port).delete(key)
            finally:
                for reader in readers:
                    await reader.aclose()
        return {
            "delay_ms": self.delay_ms,
            "absent_right_after": f"{absent}/{total}",
            "visible_after_ms": [round(lag, 1) for lag in lags],
        }

    # -- processes -----------------------------------------------------------------------

    def _named(self, name: str) -> Node:
        return next(node for node in self.nodes if node.name == name)

    def parse(self, text: str) -> View:
        """`CLUSTER NODES` lines: `id ip:port@bus flags master ping pong epoch link slots...`;
        nodes are told apart by the port they announce (their proxy's)."""
        by_port = {node.address: node.name for node in self.nodes}
        names: dict[str, str] = {}
        rows = [line.split() for line in text.strip().splitlines()]
        for row in rows:
            port = int(row[1].split("@")[0].rsplit(":", 1)[1] or 0)
            if port in by_port:
                names[row[0]] = by_port[port]
        primaries: dict[str, set[int]] = {}
        primary_of: dict[str, str] = {}
        failed: set[str] = set()
        for row in rows:
            name = names.get(row[0])
            if name is None:
                continue
            flags = row[2].split(",")
            if "fail" in flags or "fail?" in flags:
                failed.add(name)
            if "master" in flags:
                slots = primaries.setdefault(name, set())
                for part in row[8:]:
                    if part.startswith("["):  # a slot being migrated
                        continue
                    first, _, last = part.partition("-")
                    slots.update(range(int(first), int(last or first) + 1))
            elif row[3] in names:
                primary_of[name] = names[row[3]]
        return View({n: s for n, s in primaries.items() if s}, primary_of, failed)

    async def _launch(self, node: Node) -> None:
        await self._write_config_and_start(node, [
            *self._base_config(node),
            "cluster-enabled yes",
            "cluster-config-file nodes.conf",
            f"cluster-node-timeout {self.node_timeout_ms}",
            # A replica whose primary died promotes however long its link was down.
            "cluster-replica-validity-factor 0",
            # Everyone (replicas included) reaches the node through its proxy; the bus
            # goes direct.
            "cluster-announce-ip 127.0.0.1",
            f"cluster-announce-port {node.proxy.port}",
            f"cluster-announce-bus-port {node.port + BUS_OFFSET}",
        ])  # fmt: skip

    async def _join(self) -> None:
        """Slots in equal ranges over the primaries, every node met (on the bus), then
        each replica attached to its primary (as `redis-cli --cluster create` does)."""
        clients = [self._client(node.port) for node in self.nodes]
        for epoch, client in enumerate(clients, start=1):
            await client.execute_command("CLUSTER SET-CONFIG-EPOCH", epoch)  # type: ignore[no-untyped-call]
        for i, client in enumerate(clients[: self.primaries]):
            first, end = i * SLOTS // self.primaries, (i + 1) * SLOTS // self.primaries
            await client.execute_command("CLUSTER ADDSLOTS", *range(first, end))  # type: ignore[no-untyped-call]
        for client in clients[1:]:
            await client.execute_command("CLUSTER MEET", "127.0.0.1", self.nodes[0].port)  # type: ignore[no-untyped-call]
        ids = [
            (await client.execute_command("CLUSTER", "MYID")).decode()  # type: ignore[no-untyped-call]
            for client in clients
        ]
        deadline = time.monotonic() + self.startup_timeout_s
        while True:
            views = [await self._known(client) for client in clients]
            if all(set(ids) <= known for known in views):
                break
            if time.monotonic() > deadline:
                raise RuntimeError("the cluster's nodes did not meet in time")
            await asyncio.sleep(0.05)
        for k, client in enumerate(clients[self.primaries :]):
            await client.execute_command("CLUSTER REPLICATE", ids[k // self.replicas])  # type: ignore[no-untyped-call]

    async def _known(self, client: redis.asyncio.Redis) -> set[str]:
        """The ids a node knows with their announced address (past the handshake)."""
        text: Any = await client.execute_command("CLUSTER", "NODES")  # type: ignore[no-untyped-call]
        known = set()
        for row in (line.split() for line in text.decode().strip().splitlines()):
            if "handshake" not in row[2] and not row[1].startswith(":"):
                known.add(row[0])
        return known


def _state_ok(info: Any) -> bool:  # noqa: ANN401  (a Redis reply)
    """`CLUSTER INFO` says `cluster_state:ok` (redis-py parses it into a dict, or not)."""
    if isinstance(info, dict):
        return str(info.get("cluster_state")) == "ok"
    text = info.decode() if isinstance(info, bytes) else str(info)
    return "cluster_state:ok" in text


def _key_in(slots: set[int], prefix: str) -> str:
    """A key `prefix{tag}` whose slot is among `slots`."""
    for tag in range(100_000):
        key = f"{prefix}{{{tag}}}"
        if key_slot(key.encode()) in slots:
            return key
    raise RuntimeError("no key found for the slots")


async def _readonly(node: Node) -> redis.asyncio.Redis:
    """One connection to a replica that may serve reads (`READONLY`): else a cluster
    replica answers every read with MOVED to its primary."""
    client = redis.asyncio.Redis(
        port=node.port, single_connection_client=True, socket_timeout=5.0, client_name=HARNESS
    )
    await client.execute_command("READONLY")  # type: ignore[no-untyped-call]
    return client
