"""One chaos run: workload and oracle, Redis and proxy, workers, faults, then the check.

The gateway writes straight to Redis (it is not under test); the workers reach Redis
through the fault proxy. Faults are spread over the write phase at random moments
from the plan's seed. When every write is done and every fault injected, the run
waits until the store has settled (everything applied, nothing pending, parked or
undelivered), stops the workers and compares what Redis holds with the oracle.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import redis
import redis.asyncio

from accord_harness.chaos.check import Checker, Findings, Written
from accord_harness.chaos.faults import HARNESS, RedisNode, Workers, kill_clients
from accord_harness.chaos.proxy import FaultProxy
from accord_harness.chaos.workload import Poison, Workload, build
from accord_harness.documents import Document, encode, stream_of
from accord_harness.oracle import Outcome, compute
from accord_harness.store_harness import settled
from contracts.streams import DATA_FIELD, GROUP, as_text, input_streams
from store import keys
from store.intake import ensure_groups
from store.keys import heartbeat_pattern
from store.scripts import AnyRedis
from worker.engine import Engine

CHUNK = 20
RETRYABLE = (redis.ConnectionError, redis.TimeoutError, redis.BusyLoadingError, OSError)
# A gateway's write is also retried after READONLY: a node demoted under it stored nothing.
GATEWAY_RETRYABLE = (*RETRYABLE, redis.ReadOnlyError)


@dataclass(frozen=True)
class Plan:
    size: str
    sessions: int
    events_per_session: int
    write_rate: float  # documents per second, so faults land while work is in flight
    worker_kills: int
    redis_restarts: int
    client_kills: int
    proxy_resets: int
    stalls: int
    latency_windows: int
    partitions: int = 2
    workers: int = 3
    crash_share: float = 0.5  # share of worker starts armed at a random crash point
    crash_after: tuple[int, int] = (3, 60)  # ... dying there after this many batches
    stall_s: float = 2.0
    poison_copies: int = 2
    duplicate_rate: float = 0.05
    window: int = 64
    fsync: str = "always"
    seed: int = 9
    settle_timeout_s: float = 300.0
    plant: str | None = None
    cache_size: int | None = None  # the store's state cache (None: the default)
    # Partition moves while entries flow (docs/store.md, "Partition ownership"): workers
    # added (a scale-up) and stopped cleanly (SIGTERM: released at once, then restarted);
    # every worker kill moves the dead worker's partitions after its lease.
    worker_adds: int = 1
    worker_stops: int = 2
    lease_ms: int = 2_000
    # False: the workers run the shipped default settings (reclaim, gap timeout, delivery
    # limit), as an operator would. True: quick reclaim, no gap skips and a high delivery
    # limit, so a short CI run settles fast (`worker_env`).
    tuned: bool = False
    # A whole-fleet outage: at this share of the write phase every worker is SIGKILLed
    # and none runs for `outage_s` while the gateway keeps writing; then `workers`
    # workers start together and catch up (0: no outage).
    outage_s: float = 0.0
    outage_at: float = 0.2
    # Replicated Redis (chaos/failover.py): a primary, two replicas, three Sentinels, and
    # one failover per entry, `kill9` (right after a gateway burst was acknowledged) or
    # `sigstop` (paused until Sentinel fails over). Empty: the single-node run above.
    failovers: tuple[str, ...] = ()
    replication_delay_ms: float = 10.0
    # The gateway's WAIT after its XADDs (same connection, same pipeline): the replicas
    # that must have an append before it counts as acknowledged (0: no WAIT).
    gateway_wait: int = 0
    gateway_wait_timeout_ms: int = 1_000
    # The durability setting of the workers, ACCORD_WAIT_REPLICAS (0: off, the default):
    # a batch is done, and its events published, once this many replicas have it.
    wait_replicas: int = 0
    # Workers given a redis+sentinel:// REDIS_URL find the primary themselves; without,
    # they are restarted on the new primary's address after each failover.
    sentinel_url: bool = False
    # Acknowledged appends a failover lost, written again by the gateway (an outbox).
    resend_lost: bool = False
    # ACCORD_GAP_TIMEOUT_MS (None: the shipped or tuned value). A failover without the
    # durability setting loses inputs for good; their successors must be skipped for the
    # run to settle.
    gap_timeout_ms: int | None = None
    # The failovers on a Redis Cluster (chaos/cluster_failover.py: three primaries with a
    # replica each) instead of a primary under Sentinel.
    cluster: bool = False


PLANS = {
    "small": Plan(
        size="small", sessions=60, events_per_session=40, write_rate=80.0, worker_kills=4,
        redis_restarts=2, client_kills=6, proxy_resets=3, stalls=2, latency_windows=2,
        stall_s=1.0, poison_copies=1, settle_timeout_s=120.0, tuned=True,
    ),
    # Replicated Redis with three failovers (chaos/failover.py, docs/reliability.md).
    "failover": Plan(
        size="failover", sessions=155, events_per_session=32, write_rate=40.0, worker_kills=0,
        redis_restarts=0, client_kills=0, proxy_resets=0, stalls=0, latency_windows=0,
        crash_share=0.0, worker_adds=0, worker_stops=0, poison_copies=1, tuned=True,
        failovers=("kill9", "sigstop", "kill9"), gap_timeout_ms=5_000, settle_timeout_s=180.0,
    ),
    "failover-small": Plan(
        size="failover-small", sessions=50, events_per_session=24, write_rate=30.0,
        worker_kills=0, redis_restarts=0, client_kills=0, proxy_resets=0, stalls=0,
        latency_windows=0, crash_share=0.0, worker_adds=0, worker_stops=0, poison_copies=1,
        tuned=True, failovers=("kill9", "sigstop", "kill9"), gap_timeout_ms=5_000,
        settle_timeout_s=90.0,
    ),
    # The same failovers on a Redis Cluster (chaos/cluster_failover.py): four partitions,
    # so that every one of the three shards serves one. A gap timeout of 15 s: a paused
    # primary holds the gateway's appends to its shard for its promotion (about 3 s) plus
    # the client's timeout (3 s), and a seq written after that hold must not be skipped.
    "cluster-failover": Plan(
        size="cluster-failover", sessions=155, events_per_session=32, write_rate=40.0,
        worker_kills=0, redis_restarts=0, client_kills=0, proxy_resets=0, stalls=0,
        latency_windows=0, crash_share=0.0, worker_adds=0, worker_stops=0, poison_copies=1,
        tuned=True, failovers=("kill9", "sigstop", "kill9"), gap_timeout_ms=15_000,
        settle_timeout_s=180.0, partitions=4, cluster=True,
    ),
    "cluster-failover-small": Plan(
        size="cluster-failover-small", sessions=50, events_per_session=24, write_rate=30.0,
        worker_kills=0, redis_restarts=0, client_kills=0, proxy_resets=0, stalls=0,
        latency_windows=0, crash_share=0.0, worker_adds=0, worker_stops=0, poison_copies=1,
        tuned=True, failovers=("kill9", "sigstop", "kill9"), gap_timeout_ms=15_000,
        settle_timeout_s=90.0, partitions=4, cluster=True,
    ),
    "full": Plan(
        size="full", sessions=1000, events_per_session=100, write_rate=700.0, worker_kills=30,
        redis_restarts=4, client_kills=40, proxy_resets=12, stalls=6, latency_windows=6,
        outage_s=40.0,
    ),
    # The two runs that decide whether the defaults lose input (docs/reliability.md).
    "kills": Plan(
        size="kills", sessions=400, events_per_session=60, write_rate=300.0, worker_kills=20,
        redis_restarts=1, client_kills=0, proxy_resets=0, stalls=0, latency_windows=0,
        crash_share=0.0, worker_adds=0, worker_stops=0,
    ),
    "outage": Plan(
        size="outage", sessions=400, events_per_session=60, write_rate=300.0, worker_kills=0,
        redis_restarts=0, client_kills=0, proxy_resets=0, stalls=0, latency_windows=0,
        crash_share=0.0, outage_s=40.0, worker_adds=0, worker_stops=0,
    ),
}  # fmt: skip


@dataclass
class Report:
    plan: dict[str, Any]
    workload: dict[str, Any] = field(default_factory=dict)
    faults: dict[str, Any] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    lost_on_restart: list[dict[str, Any]] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    differences: list[str] = field(default_factory=list)
    by_check: dict[str, int] = field(default_factory=dict)
    settled: bool = False
    # The server the run was made against, as it names itself (ACCORD_REDIS_SERVER).
    server: str = ""
    # Replicated runs: the lag measured, each failover, and the loss counted.
    failover: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.settled and not self.differences

    def to_json(self) -> str:
        return json.dumps(asdict(self) | {"ok": self.ok}, indent=2, ensure_ascii=False)


@dataclass
class Gateway:
    """Writes the workload as a producer would; remembers what Redis acknowledged."""

    redis: AnyRedis
    partitions: int
    entries: dict[tuple[str, str], bytes] = field(default_factory=dict)
    poison: dict[tuple[str, str], Poison] = field(default_factory=dict)
    # (acknowledged at, stream, entry id, item) of recent writes, to measure loss.
    recent: list[tuple[float, str, str, Document | Poison]] = field(default_factory=list)
    retries: int = 0
    # WAIT for this many replicas after the XADDs, on the same connection (0: none); a
    # burst that fewer replicas acknowledged in time is not acknowledged: written again.
    wait_replicas: int = 0
    wait_timeout_ms: int = 1_000
    wait_short: int = 0
    # The longest a burst took to be acknowledged, retries included (a failover's hold).
    slowest_write_ms: int = 0

    async def write(self, items: list[Document | Poison]) -> None:
        began = time.monotonic()
        while True:
            try:
                ids = await self._append(items)
            except self.retryable:
                # Unknown which were stored: write them all again (a duplicate is harmless).
                # READONLY: the node was demoted under the gateway (a failover Sentinel made
                # by itself), which stored none of them; the harness's watch points the
                # gateway at the new primary meanwhile (`FailoverChaos._watch`).
                self.retries += 1
                await asyncio.sleep(0.2)
                continue
            if not self.wait_replicas:
                break
            if int(ids.pop()) >= self.wait_replicas:
                break
            self.wait_short += 1
        now = time.monotonic()
        self.slowest_write_ms = max(self.slowest_write_ms, round((now - began) * 1000))
        for item, raw in zip(items, ids, strict=True):
            stream, fields = self._entry(item)
            entry_id = as_text(raw)
            self._remember(stream, entry_id, item, fields)
            self.recent.append((now, stream, entry_id, item))
        cutoff = now - 10.0
        if self.recent and self.recent[0][0] < cutoff:
            self.recent = [r for r in self.recent if r[0] >= cutoff]

    # Failures after which it is unknown which appends were stored.
    retryable: ClassVar[tuple[type[Exception], ...]] = GATEWAY_RETRYABLE

    async def _append(self, items: list[Document | Poison]) -> list[Any]:
        """XADD each item, then (`wait_replicas`) WAIT on the same connection: the entry
        ids, and the WAIT's answer last."""
        pipe = self.redis.pipeline(transaction=False)
        for item in items:
            stream, fields = self._entry(item)
            pipe.xadd(stream, fields)  # type: ignore[arg-type]
        if self.wait_replicas:
            pipe.execute_command("WAIT", self.wait_replicas, self.wait_timeout_ms)
        ids: list[Any] = await pipe.execute()
        return ids

    def _entry(self, item: Document | Poison) -> tuple[str, dict[str, bytes]]:
        if isinstance(item, Poison):
            return item.stream, item.fields
        return stream_of(item, self.partitions), {DATA_FIELD: encode(item)}

    def _remember(
        self, stream: str, entry_id: str, item: Document | Poison, fields: dict[str, bytes]
    ) -> None:
        if isinstance(item, Poison):
            self.poison[(stream, entry_id)] = item
        else:
            self.entries[(stream, entry_id)] = fields[DATA_FIELD]

    async def recover_lost(self, killed_at: float, *, resend: bool = True) -> dict[str, Any]:
        """After a restart or a failover: acknowledged writes that Redis no longer has,
        written again (`resend`, as a gateway with an outbox would) or left lost, counted.

        `window_ms`: how long before the kill the oldest lost write was acknowledged.
        """
        lost: list[tuple[float, str, str, Document | Poison]] = []
        for acked_at, stream, entry_id, item in self.recent:
            found: Any = await self.redis.xrange(stream, min=entry_id, max=entry_id)
            _, fields = self._entry(item)
            if not found or found[0][1].get(DATA_FIELD.encode()) != fields.get(DATA_FIELD):
                lost.append((acked_at, stream, entry_id, item))
        self.recent = []
        # Not resent, they stay in `entries`: the final check counts them as lost.
        if resend and lost:
            for _, stream, entry_id, _ in lost:
                self.entries.pop((stream, entry_id), None)
                self.poison.pop((stream, entry_id), None)
            await self.write([item for *_, item in lost])
        window = killed_at - min(acked for acked, *_ in lost) if lost else 0.0
        return {"lost": len(lost), "window_ms": round(window * 1000)}


async def plant_keys(admin: AnyRedis, workload: Workload) -> None:
    """Give the uncommittable poison's keys another type before any worker reads them."""
    for bad in workload.writes:
        if isinstance(bad, Poison) and bad.plant_key:
            await admin.set(bad.plant_key, b"not a hash")


def worker_env(url: str, plan: Plan) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACCORD_")}
    env.update(
        REDIS_URL=url,
        ACCORD_PARTITIONS=str(plan.partitions),
        ACCORD_METRICS_PORT="0",
        ACCORD_LOG_LEVEL="WARNING",
    )
    if plan.tuned:
        env.update(
            ACCORD_RECLAIM_IDLE_MS="1000",
            # No gap may be skipped: every seq arrives, however late (else: a difference).
            ACCORD_GAP_TIMEOUT_MS="600000",
            # Crashes redeliver often; only poison may reach dead letters.
            ACCORD_DELIVERY_LIMIT="1000",
            ACCORD_SWEEP_INTERVAL_MS="500",
            # Short leases, so a killed worker's partitions move several times in a run.
            ACCORD_LEASE_MS=str(plan.lease_ms),
        )
    if plan.gap_timeout_ms is not None:
        env["ACCORD_GAP_TIMEOUT_MS"] = str(plan.gap_timeout_ms)
    if plan.wait_replicas:
        env["ACCORD_WAIT_REPLICAS"] = str(plan.wait_replicas)
    if plan.plant:
        env["ACCORD_CHAOS_PLANT"] = plan.plant
    if plan.cache_size is not None:
        env["ACCORD_CHAOS_CACHE_SIZE"] = str(plan.cache_size)
    return env


async def _acquisitions(admin: AnyRedis, partitions: int) -> dict[str, int]:
    """Per partition, how often its lease was acquired (its epoch): 1 means it never moved."""
    epochs: dict[str, int] = {}
    for partition in range(partitions):
        raw = await admin.hget(keys.lease_key(partition), "n")
        epochs[str(partition)] = int(raw or 0)
    return epochs


def schedule(plan: Plan, rng: random.Random, span_s: float) -> list[tuple[float, str]]:
    """(seconds from start, fault) for every fault of the plan, spread over the writes."""
    faults: list[tuple[float, str]] = []

    def spread(name: str, count: int) -> None:
        faults.extend((rng.uniform(0.05, 0.95) * span_s, name) for _ in range(count))

    spread("worker_kill", plan.worker_kills)
    spread("worker_add", plan.worker_adds)
    spread("worker_stop", plan.worker_stops)
    kinds = (
        ["redis_kill9", "redis_shutdown_nosave"]
        if plan.fsync == "always"
        else ["redis_power_loss", "redis_kill9"]
    )
    faults.extend(
        ((k + 0.5) / plan.redis_restarts * span_s, kinds[k % 2]) for k in range(plan.redis_restarts)
    )
    faults.extend(
        (rng.uniform(0.05, 0.95) * span_s, ("kill_blocked", "kill_script")[k % 2])
        for k in range(plan.client_kills)
    )
    spread("proxy_reset", plan.proxy_resets)
    spread("stall", plan.stalls)
    spread("latency", plan.latency_windows)
    if plan.outage_s:
        faults.append((plan.outage_at * span_s, "outage"))
    return sorted(faults)


class Chaos:
    def __init__(self, plan: Plan, workdir: Path, say: Callable[[str], None]) -> None:
        self.plan = plan
        self.workdir = workdir
        self.say = say
        self.rng = random.Random(plan.seed)  # noqa: S311  (reproducible fault timing)
        self.report = Report(plan=asdict(plan))
        self.faults: dict[str, int] = {}
        # Per partition, how often its lease was acquired in the run (moves + 1).
        self.acquisitions: dict[str, int] = {}
        # (monotonic time, AOF bytes) of the last few seconds, for `power_loss`.
        self.aof_sizes: list[tuple[float, int]] = []
        # Set after every burst the gateway was told was stored (a kill lands right after).
        self.burst_acked = asyncio.Event()

    def _count(self, name: str, n: int = 1) -> None:
        self.faults[name] = self.faults.get(name, 0) + n

    async def _prepare(self) -> tuple[Workload, Outcome]:
        """The workload of the plan's seed and the oracle's outcome of it (the reference)."""
        plan, started = self.plan, time.monotonic()
        workload = build(
            seed=plan.seed, sessions=plan.sessions, events_per_session=plan.events_per_session,
            partitions=plan.partitions, duplicate_rate=plan.duplicate_rate, window=plan.window,
            poison_copies=plan.poison_copies,
        )  # fmt: skip
        expected = await asyncio.to_thread(compute, Engine(), workload.documents, plan.partitions)
        self.report.seconds["oracle"] = round(time.monotonic() - started, 1)
        poison = sum(isinstance(w, Poison) for w in workload.writes)
        self.report.workload = {
            "sessions": workload.sessions, "scopes": workload.scopes,
            "languages": workload.languages, "documents": len(workload.documents),
            "writes": len(workload.writes), "poison": poison,
            "duplicates": len(workload.writes) - len(workload.documents) - poison,
            "oracle_events": sum(len(v) for v in expected.events.values()),
        }  # fmt: skip
        self.say(f"workload {self.report.workload}")
        return workload, expected

    async def run(self) -> Report:
        plan, started = self.plan, time.monotonic()
        workload, expected = await self._prepare()
        node = RedisNode(self.workdir / "redis", fsync=plan.fsync)
        node.directory.mkdir(parents=True, exist_ok=True)
        node.start()
        proxy = FaultProxy("127.0.0.1", node.port)
        await proxy.start()
        admin = redis.asyncio.Redis(port=node.port, client_name=HARNESS)
        self.report.server = await server_name(admin)
        self.say(f"server {self.report.server}")
        gateway = Gateway(redis.asyncio.Redis(port=node.port, client_name=HARNESS), plan.partitions)
        workers = Workers(
            plan.workers, worker_env(proxy.url, plan), self.rng, self.workdir,
            crash_share=plan.crash_share, crash_after=plan.crash_after,
        )  # fmt: skip
        try:
            await ensure_groups(admin, tuple(range(plan.partitions)), GROUP)
            await plant_keys(admin, workload)
            workers.start()
            tender = asyncio.create_task(self._tend(workers))
            sampler = asyncio.create_task(self._sample_aof(node))
            await self._await_workers(admin, plan.workers)
            span = len(workload.writes) / plan.write_rate
            write_started = time.monotonic()
            writer = asyncio.create_task(self._write(gateway, workload))
            injector = asyncio.create_task(
                self._inject(schedule(plan, self.rng, span), node, proxy, admin, gateway, workers)
            )
            await writer
            self.report.seconds["writes"] = round(time.monotonic() - write_started, 1)
            await injector
            settle_started = time.monotonic()
            self.report.settled = await self._settle(admin, workload, expected.next_seq)
            self.report.seconds["settle"] = round(time.monotonic() - settle_started, 1)
            for task in (tender, sampler):
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            stop_started = time.monotonic()
            workers.stop()
            self.report.seconds["stop"] = round(time.monotonic() - stop_started, 1)
            findings = await self._check(admin, workload, expected, gateway)
        finally:
            workers.stop()
            await proxy.close()
            await admin.aclose()
            await gateway.redis.aclose()
            node.stop()
        self._finish(findings, workers, proxy, node, gateway)
        self.report.seconds["total"] = round(time.monotonic() - started, 1)
        return self.report

    def _finish(
        self, findings: Findings, workers: Workers, proxy: FaultProxy, node: RedisNode,
        gateway: Gateway,
    ) -> None:  # fmt: skip
        self.report.faults = {
            **self.faults,
            "worker_sigkills": workers.sigkills,
            "sigkills_holding_pending": workers.kills_holding,
            "crash_point_exits": workers.crashes,
            "worker_exits_other": {str(k): v for k, v in workers.exits.items() if k != 137},
            "worker_starts": workers.spawned,
            "worker_clean_stops": workers.stops,
            "partition_acquisitions": self.acquisitions,
            "redis_restarts": node.restarts,
            "proxy_connections": proxy.connections,
            "proxy_connections_reset": proxy.resets,
            "proxy_stalls": proxy.stalls,
            "gateway_retries": gateway.retries,
            # Entries past the delivery limit tried alone (store/suspects.py), as the
            # workers logged them: how often the takeover race was met and survived.
            "suspect_tries": sum(
                path.read_text(errors="replace").count("suspects_tried_alone")
                for path in self.workdir.glob("worker-*.log")
            ),
        }
        self.report.counts = findings.counts
        self.report.by_check = findings.by_check()
        self.report.differences = [str(d) for d in findings.differences]

    async def _tend(self, workers: Workers) -> None:
        while True:
            workers.tend()
            await asyncio.sleep(0.2)

    async def _write(self, gateway: Gateway, workload: Workload) -> None:
        started = time.monotonic()
        for index in range(0, len(workload.writes), CHUNK):
            await gateway.write(workload.writes[index : index + CHUNK])
            self.burst_acked.set()
            ahead = (index + CHUNK) / self.plan.write_rate - (time.monotonic() - started)
            if ahead > 0:
                await asyncio.sleep(ahead)

    async def _inject(  # noqa: C901, PLR0913, PLR0917  (one branch per fault)
        self,
        faults: list[tuple[float, str]],
        node: RedisNode,
        proxy: FaultProxy,
        admin: redis.asyncio.Redis,
        gateway: Gateway,
        workers: Workers,
    ) -> None:
        started = time.monotonic()
        background: set[asyncio.Task[None]] = set()
        for at, fault in faults:
            await asyncio.sleep(max(0.0, at - (time.monotonic() - started)))
            if fault.startswith("worker_"):
                await self._worker_fault(fault, workers, admin)
            elif fault == "outage":
                await self._outage(workers)
            elif fault.startswith("redis_"):
                how = fault.removeprefix("redis_")
                keep = self._synced_bytes(node)
                killed_at = time.monotonic()
                cut = await asyncio.to_thread(node.restart, how, 0.5, keep)
                await self._await_redis(admin)
                loss = await gateway.recover_lost(killed_at)
                self.report.lost_on_restart.append(
                    {"how": how, "fsync": node.fsync, "aof_bytes_cut": cut, **loss}
                )
                self.say(f"redis {how} restart: {loss}")
            elif fault in {"kill_blocked", "kill_script"}:
                kind = "blocked_read" if fault == "kill_blocked" else "after_script"
                # Catch one in the act: with partition ownership only the owners read
                # (fewer blocked reads than workers x partitions), so try for 3 s.
                for _ in range(300):
                    if await kill_clients(admin, kind, self.rng):
                        self._count(f"client_kill_{kind}")
                        break
                    await asyncio.sleep(0.01)
            elif fault == "proxy_reset":
                proxy.reset_all()
                self._count(fault)
            elif fault == "stall":
                task = asyncio.create_task(proxy.stall(self.plan.stall_s))
                background.add(task)
                task.add_done_callback(background.discard)
            elif fault == "latency":
                task = asyncio.create_task(self._latency(proxy))
                background.add(task)
                task.add_done_callback(background.discard)
                self._count(fault)
        await asyncio.gather(*background)

    async def _worker_fault(self, fault: str, workers: Workers, admin: redis.asyncio.Redis) -> None:
        """Kill, add or cleanly stop a worker: each moves partitions between workers."""
        if fault == "worker_add":
            workers.add()
            self._count(fault)
        elif fault == "worker_stop":
            if workers.stop_random():
                self._count(fault)
        else:
            # A worker caught holding uncommitted entries, else (after 10 s) any.
            for attempt in range(600):  # all may be starting again: wait for a live one
                holding = await self._holding(admin)
                if workers.kill_holding(holding) or (attempt >= 500 and workers.kill_random()):
                    self._count(fault)
                    break
                await asyncio.sleep(0.02)

    async def _check(
        self, admin: AnyRedis, workload: Workload, expected: Outcome, gateway: Gateway
    ) -> Findings:
        """The comparison with the oracle, and how often each partition's lease moved."""
        check_started = time.monotonic()
        self.checker = Checker(admin, workload, expected)
        findings = await self.checker.run(Written(gateway.entries, gateway.poison), GROUP)
        self.report.seconds["check"] = round(time.monotonic() - check_started, 1)
        self.acquisitions = await _acquisitions(admin, self.plan.partitions)
        return findings

    async def _holding(self, admin: AnyRedis) -> set[str]:
        """Consumers with entries pending (read, not yet committed) right now."""
        names: set[str] = set()
        with contextlib.suppress(*RETRYABLE):
            for p in range(self.plan.partitions):
                for stream in input_streams(p):
                    summary: Any = await admin.xpending(stream, GROUP)
                    names.update(
                        as_text(c["name"]) for c in summary["consumers"] or () if int(c["pending"])
                    )
        return names

    async def _outage(self, workers: Workers) -> None:
        """Every worker down for `outage_s` while the gateway writes on, then all restart."""
        workers.paused = True
        killed = 0
        while workers.kill_random():
            killed += 1
        self.say(f"outage: {killed} workers killed, none running for {self.plan.outage_s}s")
        await asyncio.sleep(self.plan.outage_s)
        workers.paused = False
        self._count("outage_workers_killed", killed)
        self._count("outage_s", round(self.plan.outage_s))

    def _synced_bytes(self, node: RedisNode) -> int | None:
        """The AOF's size one fsync period ago: all `everysec` promises to have on disk."""
        if node.fsync == "always" or not self.aof_sizes:
            return None
        horizon = time.monotonic() - 1.0
        older = [size for at, size in self.aof_sizes if at <= horizon]
        return older[-1] if older else self.aof_sizes[0][1]

    async def _sample_aof(self, node: RedisNode) -> None:
        while True:
            self.aof_sizes.append((time.monotonic(), node.aof_bytes()))
            del self.aof_sizes[:-40]
            await asyncio.sleep(0.1)

    async def _latency(self, proxy: FaultProxy) -> None:
        proxy.latency_s = self.rng.uniform(0.002, 0.02)
        await asyncio.sleep(self.rng.uniform(1.0, 4.0))
        proxy.latency_s = 0.0

    async def _await_workers(self, admin: AnyRedis, count: int) -> None:
        """Until `count` workers beat: faults before then would hit nobody."""
        for _ in range(600):
            beats = [key async for key in admin.scan_iter(match=heartbeat_pattern())]
            if len(beats) >= count:
                return
            await asyncio.sleep(0.1)
        raise RuntimeError("workers did not start within 60s")

    async def _await_redis(self, admin: redis.asyncio.Redis) -> None:
        for _ in range(600):
            with contextlib.suppress(*RETRYABLE):
                if await admin.ping():
                    return
            await asyncio.sleep(0.1)
        raise RuntimeError("redis did not come back")

    async def _settle(
        self, admin: redis.asyncio.Redis, workload: Workload, next_seq: dict[str, int]
    ) -> bool:
        deadline = time.monotonic() + self.plan.settle_timeout_s
        while time.monotonic() < deadline:
            with contextlib.suppress(*RETRYABLE):
                if await settled(admin, workload.partitions) and await _all_applied(
                    admin, workload.partitions, next_seq
                ):
                    return True
            await asyncio.sleep(0.5)
        return False


async def _all_applied(
    admin: redis.asyncio.Redis, partitions: int, next_seq: dict[str, int]
) -> bool:
    values = await session_fields(admin, partitions, list(next_seq), "n")
    return all(int(v or 1) == next_seq[n] for n, v in zip(next_seq, values, strict=True))


async def session_fields(
    admin: AnyRedis, partitions: int, names: list[str], name: str
) -> list[Any]:
    """One field of each session's hash; `names` are the oracle's `agent|user|session`."""
    from contracts.partition import partition_of  # noqa: PLC0415

    pipe = admin.pipeline(transaction=False)
    for session_name in names:
        agent, user, session = session_name.split("|")
        pipe.hget(
            keys.session_key(partition_of(agent, user, partitions), agent, user, session), name
        )
    values: list[Any] = await pipe.execute()
    return values


async def server_name(admin: AnyRedis) -> str:
    """`Valkey 9.1.2` or `Redis 6.2.14`: what INFO says the server is."""
    info: Any = await admin.info("server")
    if "valkey_version" in info:
        return f"Valkey {info['valkey_version']}"
    return f"Redis {info['redis_version']}"


async def run_chaos(
    plan: Plan, workdir: Path | None = None, say: Callable[[str], None] = print
) -> Report:
    """Run `plan`; keep the worker logs and Redis files under `workdir` (else a temp dir)."""
    # (imported here: the replicated run builds on this module)
    from accord_harness.chaos.cluster_failover import ClusterFailoverChaos  # noqa: PLC0415
    from accord_harness.chaos.failover import FailoverChaos  # noqa: PLC0415

    kind: type[Chaos] = Chaos
    if plan.failovers:
        kind = ClusterFailoverChaos if plan.cluster else FailoverChaos
    if workdir is not None:
        await asyncio.to_thread(workdir.mkdir, parents=True, exist_ok=True)
        return await kind(plan, workdir, say).run()
    directory = Path(tempfile.mkdtemp(prefix="accord-chaos-"))
    try:
        return await kind(plan, directory, say).run()
    finally:
        shutil.rmtree(directory, ignore_errors=True)
