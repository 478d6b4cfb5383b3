"""The failover chaos run on Redis Cluster: `FailoverChaos` on a `ClusterRedis`.

Everything the Sentinel run does (chaos/failover.py: the workload, the failovers and their
moments, the worker kills, the subscriber, the check against the reference and the count
of losses), on three primaries with a replica each. What differs is the topology's part:

- each failover takes down the primary serving a partition drawn from the seed (the
  partitions spread over all three shards), and the cluster's replica takes its slots
  over by itself after `cluster-node-timeout`;
- workers run with `ACCORD_REDIS_CLUSTER=1` and follow the promotion by themselves
  (MOVED, connection errors, the slots map relearnt): no restart. Their REDIS_URL (the
  start-up node) is moved to a live primary for later starts. The subscriber's readers
  follow by themselves too; the gateway and the harness's own client start again from
  the promoted primary (`_follow`);
- the gateway sends each shard's XADDs and its WAIT on one connection to that shard's
  primary (`store.durability.on_one_connection`, as the Python client's appends do);
  the subscriber reads each events stream on its own (no XREAD spans two slots);
- what the subscriber read that the promoted replica lacks is counted on the partitions
  that replica now serves; a failover the cluster made by itself (a node slower than
  the node timeout) is listed in `unplanned_failovers`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from dataclasses import dataclass, field
from typing import Any, ClassVar

import redis.asyncio
from redis.asyncio import RedisCluster
from redis.crc import key_slot
from redis.exceptions import RedisClusterException, ResponseError

from accord_harness.chaos.check import xrange_all
from accord_harness.chaos.cluster import ClusterRedis
from accord_harness.chaos.failover import FailoverChaos, Subscriber, _events
from accord_harness.chaos.faults import HARNESS, Workers
from accord_harness.chaos.replicated import Node
from accord_harness.chaos.run import RETRYABLE, Gateway, server_name, worker_env
from accord_harness.chaos.workload import Poison
from accord_harness.documents import Document
from contracts.streams import DATA_FIELD, as_text
from store import keys
from store.durability import on_one_connection
from store.scripts import AnyRedis

# A cluster adds its own: CLUSTERDOWN while a shard has no primary, MOVED/TRYAGAIN while
# the slots map changes (on_one_connection relearns it first), a node gone.
CLUSTER_RETRYABLE = (*RETRYABLE, RedisClusterException, ResponseError)


def cluster_client(url: str, timeout_s: float = 3.0) -> RedisCluster:
    """A harness client of the cluster that gives up on a paused node instead of hanging."""
    return RedisCluster.from_url(
        url, client_name=HARNESS, socket_timeout=timeout_s, socket_connect_timeout=timeout_s
    )


@dataclass
class ClusterGateway(Gateway):
    """The gateway on a cluster: per shard, its XADDs then its WAIT on one connection."""

    retryable: ClassVar[tuple[type[Exception], ...]] = CLUSTER_RETRYABLE

    async def _append(self, items: list[Document | Poison]) -> list[Any]:
        by_slot: dict[int, list[int]] = {}
        entries = [self._entry(item) for item in items]
        for index, (stream, _) in enumerate(entries):
            by_slot.setdefault(key_slot(stream.encode()), []).append(index)
        ids: list[Any] = [None] * len(items)
        fewest = self.wait_replicas
        for indexes in by_slot.values():
            calls: list[tuple[Any, ...]] = [
                ("XADD", entries[i][0], "*", *_flat(entries[i][1])) for i in indexes
            ]
            if self.wait_replicas:
                calls.append(("WAIT", self.wait_replicas, self.wait_timeout_ms))
            answers = await on_one_connection(self.redis, entries[indexes[0]][0], calls)
            if self.wait_replicas:
                fewest = min(fewest, int(answers.pop()))
            for index, answer in zip(indexes, answers, strict=True):
                ids[index] = answer
        return [*ids, fewest] if self.wait_replicas else ids


def _flat(fields: dict[str, bytes]) -> list[Any]:
    return [part for pair in fields.items() for part in pair]


@dataclass
class ClusterSubscriber(Subscriber):
    """The subscriber on a cluster: each stream is in a slot of its own and no XREAD
    spans two, so each stream is followed by a blocking XREAD of its own, on a client of
    its own (`url`): an event is read as soon as it is published, as the Sentinel run's
    subscriber reads it, and a failover can land within the replication lag after it."""

    url: str = ""
    by_stream: dict[str, set[str]] = field(default_factory=dict)

    async def run(self, stop: asyncio.Event) -> None:
        await asyncio.gather(*(self._follow(stream, stop) for stream in list(self.last)))

    async def _follow(self, stream: str, stop: asyncio.Event) -> None:
        reader = cluster_client(self.url)
        try:
            while not stop.is_set():
                await self._read(reader, stream, block_ms=200)
        finally:
            await reader.aclose()

    async def read(self, block_ms: int | None = None) -> int:
        """Each stream once, from where it stopped (what was published before a stop)."""
        return sum([await self._read(self.redis, s, block_ms) for s in list(self.last)])

    async def _read(self, reader: AnyRedis, stream: str, block_ms: int | None) -> int:
        try:
            reply: Any = await reader.xread({stream: self.last[stream]}, count=1000, block=block_ms)
        except CLUSTER_RETRYABLE:
            self.errors += 1
            await asyncio.sleep(0.1)  # (a node down answers at once: do not spin)
            return 0
        read = 0
        for _, entries in reply or ():
            for entry_id, fields in entries:
                event = json.loads(fields[DATA_FIELD.encode()])
                self.seen.append((event["event_id"], event))
                self.by_stream.setdefault(stream, set()).add(event["event_id"])
                self.last[stream] = as_text(entry_id)
                read += 1
        if read:
            self.fresh_stream = stream
            self.fresh.set()
        return read


class ClusterFailoverChaos(FailoverChaos):
    """`FailoverChaos` on a `ClusterRedis` (module docstring)."""

    cluster: ClusterRedis

    async def _start_topology(self) -> None:
        self.cluster = ClusterRedis(
            self.workdir / "redis", delay_ms=self.plan.replication_delay_ms, fsync=self.plan.fsync
        )
        self.topology = self.cluster
        await self.cluster.start()

    async def _connect(self) -> None:
        plan, topology = self.plan, self.cluster
        lag = await topology.measure_lag()
        self.report.failover["lag"] = lag
        self.say(f"replication lag {lag}")
        self.primaries = set((await topology.view()).primaries)
        url = topology.url
        probe = redis.asyncio.Redis(port=topology.nodes[0].port, client_name=HARNESS)
        try:
            self.report.server = await server_name(probe)
        finally:
            await probe.aclose()
        self.admin = cluster_client(url, timeout_s=10.0)
        self.gateway = ClusterGateway(
            cluster_client(url), plan.partitions,
            wait_replicas=plan.gateway_wait, wait_timeout_ms=plan.gateway_wait_timeout_ms,
        )  # fmt: skip
        self.subscriber = ClusterSubscriber(cluster_client(url), plan.partitions, url=url)
        self.shard_primaries = await self._shard_primaries()
        self.partition_of_slot = {
            key_slot(keys.stats_key(p).encode()): p for p in range(plan.partitions)
        }
        env = worker_env(url, plan) | {"ACCORD_REDIS_CLUSTER": "1"}
        self.workers = Workers(
            plan.workers, env, self.rng, self.workdir,
            crash_share=plan.crash_share, crash_after=plan.crash_after,
        )  # fmt: skip

    async def _victim(self) -> Node:
        """The primary of a partition drawn from the seed."""
        partition = self.rng.randrange(self.plan.partitions)
        return await self.cluster.primary_of(keys.stats_key(partition))

    def _at_moment(self, how: str, victim: Node) -> Node:
        """The primary whose writes may be on no replica yet: a kill lands on the one
        that acknowledged the gateway's last append, a pause on the one that published
        the event the subscriber just read (else the one drawn)."""
        stream = self.gateway.recent[-1][1] if how == "kill9" and self.gateway.recent else ""
        if how == "sigstop":
            stream = self.subscriber.fresh_stream
        partition = self.partition_of_slot.get(key_slot(stream.encode())) if stream else None
        return victim if partition is None else self.shard_primaries[partition]

    async def _shard_primaries(self) -> dict[int, Node]:
        return {
            p: await self.cluster.primary_of(keys.stats_key(p)) for p in range(self.plan.partitions)
        }

    async def _heal(self) -> None:
        await self.cluster.await_healthy()
        self.primaries = set((await self.cluster.view()).primaries)
        self.shard_primaries = await self._shard_primaries()

    async def _follow(self, primary: Node) -> None:
        """The workers follow the promotion by themselves (later starts begin at a live
        primary). The harness's own clients start again from the promoted primary, as the
        Sentinel run's do: a client whose slots map still names the paused primary waits
        out a timeout on each call, and the count of lost appends (`recover_lost`) that
        precedes the resume held the primary paused for 25 s instead of until promotion."""
        self.workers.env["REDIS_URL"] = primary.url
        stale = (self.admin, self.gateway.redis)
        self.admin = cluster_client(primary.url, timeout_s=10.0)
        self.gateway.redis = cluster_client(primary.url)
        for each in stale:
            with contextlib.suppress(*CLUSTER_RETRYABLE):
                await each.aclose()

    async def _read_and_missing(self, promoted: Node) -> int:
        """Events the subscriber read, of the partitions `promoted` now serves, that it
        lacks (outbox entries count as held: see FailoverChaos)."""
        view = await self.cluster.view()
        served = view.primaries.get(promoted.name, set())
        probe = redis.asyncio.Redis(port=promoted.port, client_name=HARNESS, socket_timeout=10)
        missing = 0
        try:
            for p in range(self.plan.partitions):
                if key_slot(keys.events_stream(p).encode()) not in served:
                    continue
                held: set[str] = set()
                for stream in (keys.events_stream(p), keys.outbox_stream(p)):
                    held.update(
                        event["event_id"]
                        for event in _events(await xrange_all(probe, stream))
                        if "event_id" in event
                    )
                assert isinstance(self.subscriber, ClusterSubscriber)
                read = self.subscriber.by_stream.get(keys.events_stream(p), set())
                missing += len(read - held)
        finally:
            await probe.aclose()
        return missing

    async def _watch(self) -> None:
        """Count a failover the cluster made by itself (its primaries changed outside a
        planned failover); the clients follow it as they follow any."""
        while True:
            await asyncio.sleep(0.25)
            async with self.following_lock:
                with contextlib.suppress(RuntimeError):
                    primaries = set((await self.cluster.view()).primaries)
                    if primaries != self.primaries:
                        record = {
                            "to": sorted(primaries - self.primaries),
                            "from": sorted(self.primaries - primaries),
                            "at_s": round(time.monotonic(), 1),
                        }
                        self.unplanned.append(record)
                        self.say(f"unplanned failover {record}")
                        self.primaries = primaries
