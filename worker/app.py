"""The one composition root: settings in, a runnable FastStream worker out.

Everything else receives what it needs from here (Cosmic Python's bootstrap). The
worker is a FastStream app (its host: broker, start-up and shutdown hooks) running
loops of our own: one merged reader per partition held (worker/merged_reader.py;
docs/store.md, "Reading the input streams"), the ownership loop that leases partitions,
the reclaimer (XPENDING/XCLAIM), the sweeper (expiry and gap skips) and the watchdog
(heartbeat, vanished streams). Shutdown stops the loops, each at a boundary between
store calls, and closes the store's client last. Every commit is one Lua script, so
nothing is ever half-applied, and entries read but not committed stay pending for the
reclaimer.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, Protocol

from faststream import FastStream
from faststream.redis import RedisBroker, RedisClusterBroker, RedisSentinelBroker
from faststream.redis.configs.state import ConnectionState, RedisSentinelConnectionState
from redis.asyncio.sentinel import SentinelConnectionPool
from redis.exceptions import RedisError

from contracts.redis_url import is_sentinel_url
from core import native
from store.durability import WaitAofUnsupported, check_wait_aof
from store.intake import ensure_groups, missing_groups
from store.layout import LayoutMismatch, claim_layout
from store.processor import PartitionProcessor
from store.scripts import AnyRedis
from worker.connection import (
    DEFAULT_URL,
    broker_connection_options,
    connect,
    sentinel_broker_options,
)
from worker.consumer import Dispatcher, Processor
from worker.engine import Engine
from worker.functions import LibraryMismatch, check_library
from worker.health import Health, Watchdog, start_http
from worker.merged_reader import merged_loop
from worker.observability import FRAMEWORK_LOGGER, Metrics, get_logger
from worker.ownership import Fenceable, Ownership
from worker.reclaim import RECLAIM_PAGE, Reclaimer
from worker.settings import Settings
from worker.sweeper import Sweeper, SweepTarget


class PartitionPort(Processor, Fenceable, Protocol):
    """The store's processor of one partition, as the worker drives it."""


PartitionFactory = Callable[[AnyRedis, int, Settings], PartitionPort]


def core_for(settings: Settings) -> Engine:
    """The real core, configured from settings (time zone, scope limits)."""
    return Engine(default_timezone=settings.default_timezone, policy=settings.policy)


def store_partition(redis: AnyRedis, partition: int, settings: Settings) -> PartitionPort:
    """The production PartitionFactory: the store's processor over the real core, traced
    when `ACCORD_OTLP_ENDPOINT` is set (docs/operations.md, "Traces")."""
    if settings.otlp_endpoint:
        # Imported only then: a worker that does not trace never loads OpenTelemetry.
        # (Settings refuse the variable when the otel extra is missing.)
        from worker.tracing import otlp_provider, traced_factory  # noqa: PLC0415

        return traced_factory(otlp_provider(settings.otlp_endpoint))(redis, partition, settings)
    processor: PartitionPort = PartitionProcessor(
        redis, partition, core_for(settings), settings.store
    )
    return processor


class _SentinelState(RedisSentinelConnectionState):
    """FastStream's Sentinel connection, closing the sentinels' clients with the primary's
    (FastStream closes only the primary's and leaves the others' connections open)."""

    async def disconnect(self) -> None:
        pool = self._client.connection_pool if self._client is not None else None
        await super().disconnect()
        if isinstance(pool, SentinelConnectionPool):
            await pool.sentinel_manager.aclose()


class SentinelBroker(RedisSentinelBroker):
    """FastStream's Sentinel broker over `_SentinelState` (the hook FastStream offers)."""

    def _make_connection_state(
        self, connection_options: dict[str, Any], kwargs: dict[str, Any]
    ) -> ConnectionState[Any]:
        return _SentinelState(
            connection_options,
            sentinels=list(kwargs["sentinels"]),
            master_name=kwargs["sentinel_master_name"],
            sentinel_kwargs=kwargs.get("sentinel_kwargs"),
        )


def make_broker(settings: Settings) -> RedisBroker:
    url = settings.redis_url or DEFAULT_URL
    # FastStream's own lines (connection errors, start and stop) go through the
    # structlog-formatted stdlib logger.
    options: dict[str, Any] = {
        "logger": logging.getLogger(FRAMEWORK_LOGGER),
        "log_level": logging.DEBUG,
    }
    if is_sentinel_url(url):
        # The broker only hosts the app (the worker reads with its own client); it is
        # FastStream's own Sentinel broker, asking the same sentinels for the same primary.
        return SentinelBroker(**(options | sentinel_broker_options(url)))
    if settings.redis_cluster:
        return RedisClusterBroker(url, **options)
    options |= broker_connection_options(url)
    return RedisBroker(url, **options)


@dataclass
class Worker:
    """A built worker: the FastStream app and the parts tests and commands look at."""

    settings: Settings
    app: FastStream
    broker: RedisBroker
    redis: AnyRedis
    dispatcher: Dispatcher
    reclaimer: Reclaimer
    sweeper: Sweeper
    watchdog: Watchdog
    health: Health
    metrics: Metrics
    log: Any
    # Partition ownership by leases (None: a fixed set of partitions, see Settings).
    ownership: Ownership | None = None
    stopping: asyncio.Event = field(default_factory=asyncio.Event)
    tasks: list[asyncio.Task[None]] = field(default_factory=list)
    http: asyncio.Server | None = None
    exit_code: int = 0

    def fail(self, reason: str) -> None:
        """A condition restarting cannot fix by itself: exit non-zero, loudly."""
        self.exit_code = 1
        self.health.fatal = reason
        self.app.exit()

    def spawn(self, loop: Coroutine[Any, Any, None], name: str) -> None:
        """Run one of the worker's loops, failing the worker if it ends before the stop."""
        task = asyncio.create_task(loop, name=name)
        task.add_done_callback(self.loop_ended)
        self.tasks.append(task)

    def loop_ended(self, task: asyncio.Task[None]) -> None:
        """A loop that ends before the stop would leave the worker up but idle: fail it.

        The loops catch what Redis going away raises; anything else that escapes one is
        a bug, and a restarted process is better than one that no longer reads.
        """
        if self.stopping.is_set() or task.cancelled() or self.exit_code:
            return  # a stop, or a failure already said (the watchdog's returns after it)
        error = task.exception()
        cause = f": {type(error).__name__}: {error}" if error else ""
        reason = f"{task.get_name()} ended{cause}"
        self.log.critical("loop_failed", loop=task.get_name(), error=reason, exc_info=error)
        self.fail(reason)

    async def start(self) -> None:
        """Start in a running event loop (the demo and tests embed a worker this way)."""
        await self.app.start()

    async def stop(self) -> None:
        await self.app.stop()

    async def run(self) -> int:
        """Run until SIGINT/SIGTERM (graceful) or a fatal condition; the exit code."""
        try:
            await self.app.run()
        except (LayoutMismatch, LibraryMismatch, WaitAofUnsupported) as error:
            # A configuration error, like a bad setting: one line, exit 2.
            self.log.critical("worker_refused", error=str(error))
            await self._abandon()
            return 2
        except Exception as error:  # noqa: BLE001  (any start-up failure ends the same way)
            # A start-up failure (Redis unreachable, metrics port taken, ...): say it in one
            # line, stop whatever loops already started, and exit non-zero instead of
            # leaving half a worker running.
            self.log.critical("worker_failed", error=f"{type(error).__name__}: {error}")
            await self._abandon()
            return self.exit_code or 1
        return self.exit_code

    async def _abandon(self) -> None:
        """After a failed start: stop whatever loops already started, close the clients."""
        self.stopping.set()
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        with contextlib.suppress(Exception):
            await self.broker.stop()
        with contextlib.suppress(Exception):
            await self.redis.aclose()


def build_worker(
    settings: Settings, partition_factory: PartitionFactory, *, metrics: Metrics | None = None
) -> Worker:
    log = get_logger("accord.worker").bind(consumer=settings.consumer)
    metrics = metrics or Metrics()
    redis = connect(settings)
    partitions = settings.served()
    ports = {p: partition_factory(redis, p, settings) for p in partitions}
    dispatcher = Dispatcher(dict(ports), metrics, log)
    # With ownership the reclaimer, sweeper and watchdog see the partitions this worker
    # holds right now: the ownership loop fills these in place as leases come and go.
    served: list[int] = [] if settings.owns_by_lease else list(partitions)
    sweep_targets: dict[int, SweepTarget] = {} if settings.owns_by_lease else dict(ports)
    broker = make_broker(settings)
    app = FastStream(broker, logger=logging.getLogger(FRAMEWORK_LOGGER))
    health = Health()

    def _fail(reason: str) -> None:
        worker.fail(reason)

    worker = Worker(
        settings=settings,
        app=app,
        broker=broker,
        redis=redis,
        dispatcher=dispatcher,
        reclaimer=Reclaimer(
            redis,
            dispatcher,
            served,
            settings.group,
            settings.consumer,
            settings.reclaim_idle_ms,
            RECLAIM_PAGE,
            log,
            health.reachability,
        ),
        sweeper=Sweeper(sweep_targets, metrics, log, health.reachability),
        watchdog=Watchdog(
            redis,
            health,
            settings.consumer,
            settings.group,
            served,
            on_fatal=_fail,
            log=log,
            metrics=metrics,
            prune_idle_ms=settings.prune_idle_ms,
        ),
        health=health,
        metrics=metrics,
        log=log,
    )
    if settings.owns_by_lease:
        # The loop's settings passed field by field on purpose: it depends on the values it
        # uses, each checked by mypy, not on all of Settings (CONTRIBUTING.md, "Repeated
        # shapes").
        worker.ownership = Ownership(
            redis,
            dispatcher,
            dict(ports),
            lambda partition, stop: _merged_loop(worker, partition, stop),
            consumer=settings.consumer,
            group=settings.group,
            partitions=settings.partitions,
            lease_ms=settings.lease_ms,
            batch_size=settings.batch_size,
            log=log,
            on_failure=_fail,
            served=served,
            sweep_targets=sweep_targets,
        )
    _wire_lifecycle(worker)
    return worker


def _merged_loop(worker: Worker, partition: int, stop: asyncio.Event) -> Coroutine[Any, Any, None]:
    settings = worker.settings
    return merged_loop(
        worker.redis,
        worker.dispatcher,
        partition=partition,
        group=settings.group,
        consumer=settings.consumer,
        count=settings.batch_size,
        block_ms=settings.block_ms,
        stop=stop,
        reachability=worker.health.reachability,
        read_bytes=settings.read_bytes,
        entry_limit=settings.store.limits.max_entry_bytes,
    )


def _spawn_merged_readers(worker: Worker) -> None:
    """One merged reading loop per partition of a fixed set, stopped with the other
    loops at a boundary between store calls."""
    for partition in worker.settings.served():
        worker.spawn(_merged_loop(worker, partition, worker.stopping), f"read-{partition}")


async def _start_reading(worker: Worker) -> None:
    """The readers: by ownership (the partitions leased), or the fixed set."""
    if worker.ownership is not None:
        # The first beat now, so a lone worker reads as soon as it is ready.
        try:
            await worker.ownership.tick()
        except Exception as error:  # noqa: BLE001  (the loop retries every beat)
            worker.log.warning("ownership_failed", error=f"{type(error).__name__}: {error}")
        worker.spawn(worker.ownership.run(worker.stopping), "ownership")
    else:
        _spawn_merged_readers(worker)


async def _refuse_what_redis_cannot_do(worker: Worker) -> None:
    """The refusals a start can meet (LayoutMismatch, LibraryMismatch,
    WaitAofUnsupported: exit 2), before any group is made or entry read."""
    settings = worker.settings
    # First the layout: a worker with another partition count must not read a thing.
    # (During `accord repartition` a worker starts as usual: it helps drain the old
    # layout until the mover fences the leases, then waits, store/repartition.py.)
    await claim_layout(worker.redis, settings.partitions, settings.group)
    if settings.redis_functions:
        # Nor may one call functions of another release (or none at all).
        await check_library(worker.redis)
    if settings.store.wait_aof:
        # Nor commit batches whose wait for the AOF then fails every time.
        await check_wait_aof(worker.redis)


def _wire_lifecycle(worker: Worker) -> None:
    settings = worker.settings
    app = worker.app

    @app.on_startup
    async def create_groups() -> None:
        await _refuse_what_redis_cannot_do(worker)
        # At id 0 before anything reads: entries written before the first start count.
        created = await ensure_groups(worker.redis, settings.served(), settings.group)
        recognizer = native.state()
        worker.log.info(
            "worker_starting",
            partitions=list(settings.served()),
            group=settings.group,
            groups_created=created,
            cluster=settings.redis_cluster,
            # Compiled or Python recognizer, and why (core/native.py; ACCORD_NATIVE).
            native=recognizer.active,
            native_reason=recognizer.reason,
        )

    @app.after_startup
    async def start_loops() -> None:
        if settings.metrics_port:
            # First, so a port already taken fails the start before any loop runs.
            worker.http = await start_http(
                worker.health, worker.metrics.registry, settings.metrics_port, settings.metrics_host
            )
        reclaim_every = max(0.05, settings.reclaim_idle_ms / 2000)
        sweep_every = settings.sweep_interval_ms / 1000
        worker.spawn(worker.reclaimer.run(worker.stopping, reclaim_every), "reclaim")
        worker.spawn(worker.sweeper.run(worker.stopping, sweep_every), "sweep")
        worker.spawn(worker.watchdog.run(worker.stopping, 2.0), "watchdog")
        await _start_reading(worker)
        worker.health.ready = True
        worker.log.info("worker_ready", metrics_port=settings.metrics_port)

    @app.on_shutdown
    async def stop_loops() -> None:
        worker.health.ready = False
        worker.stopping.set()
        # Each loop finishes its current store call (one atomic script) and returns.
        await asyncio.gather(*worker.tasks, return_exceptions=True)
        # Every loop done and every lease released: say so now, not when the beat expires.
        with contextlib.suppress(RedisError, OSError):
            await worker.watchdog.depart()
        if worker.http is not None:
            worker.http.close()
            await worker.http.wait_closed()

    @app.after_shutdown
    async def report_and_close() -> None:
        if worker.exit_code == 0:
            # A group that vanished (a deleted stream, XGROUP DESTROY) while running ends
            # the reading loops' reads in NOGROUP: say so loudly and fail.
            with contextlib.suppress(Exception):
                missing = await missing_groups(worker.redis, settings.served(), settings.group)
                if missing:
                    worker.exit_code = 1
                    worker.log.critical("streams_vanished", group=settings.group, streams=missing)
        await worker.redis.aclose()
        worker.log.info("worker_stopped", exit_code=worker.exit_code)
