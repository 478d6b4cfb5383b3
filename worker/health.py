"""Health: an HTTP endpoint for Kubernetes probes and Prometheus, a heartbeat, a watchdog.

- `GET /healthz` (liveness): 200 while the worker runs and has not hit a fatal
  condition; 503 otherwise.
- `GET /readyz` (readiness): 200 once the consumer groups exist and the reading loops
  have started, and while no loop finds Redis unreachable
  (worker/outage.py); 503 otherwise.
- `GET /metrics`: the Prometheus text format of the worker's registry.

The watchdog checks every few seconds that the input streams and the group still
exist: if someone deletes a stream or the group, the worker says so at CRITICAL and
stops with a non-zero exit code instead of idling. The heartbeat key lets `accord check`
list live workers (arq's health-check key, with an expiry).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from redis.exceptions import RedisError

from contracts.streams import as_text, input_streams
from store.intake import read_groups
from store.keys import heartbeat_key, heartbeats_key
from store.scripts import AnyRedis
from store.status import undelivered
from store.unread import RemovedUnread, removed_unread
from worker.consumer import sleep_or_stop, wall_ms
from worker.observability import Metrics
from worker.outage import Backoff, Reachability

# Counting undelivered entries on Redis 6.2 stops here (the gauge saturates). The count
# is an XRANGE that ships every entry it counts, every tick, during a backlog: at 10,000
# it took a tenth of the worker's time draining one (measured; the history of
# docs/performance.md in git).
_LAG_CAP = 1_000
# A heartbeats-set member this long past its beat's expiry is a worker that is gone.
_GONE_MS = 60_000


class Heartbeat(msgspec.Struct, frozen=True):
    consumer: str
    group: str
    partitions: tuple[int, ...]
    started_at_ms: int
    at_ms: int


@dataclass
class Health:
    ready: bool = False
    fatal: str | None = None
    started_at_ms: int = field(default_factory=wall_ms)
    reachability: Reachability = field(default_factory=Reachability)

    @property
    def live(self) -> bool:
        return self.fatal is None


async def _respond(writer: asyncio.StreamWriter, status: str, body: bytes, ctype: str) -> None:
    head = (
        f"HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    writer.write(head.encode() + body)
    with contextlib.suppress(ConnectionError):
        await writer.drain()
    await _close(writer)


async def _close(writer: asyncio.StreamWriter) -> None:
    """Close and wait for it: a transport only closing when its loop ends is left open
    (a ResourceWarning when it is collected later)."""
    writer.close()
    with contextlib.suppress(ConnectionError):
        await writer.wait_closed()


def http_handler(
    health: Health, registry: CollectorRegistry
) -> Callable[[asyncio.StreamReader, asyncio.StreamWriter], Any]:
    """A minimal HTTP/1.1 handler: three GET paths, nothing else."""

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request = await asyncio.wait_for(reader.readline(), timeout=5)
        except (TimeoutError, ConnectionError):
            await _close(writer)
            return
        parts = request.decode("latin-1").split()
        path = parts[1] if len(parts) >= 2 else ""
        text = "text/plain; charset=utf-8"
        if path == "/metrics":
            await _respond(writer, "200 OK", generate_latest(registry), CONTENT_TYPE_LATEST)
        elif path == "/healthz":
            ok = health.live
            await _respond(
                writer, "200 OK" if ok else "503 Service Unavailable",
                b"ok\n" if ok else f"fatal: {health.fatal}\n".encode(), text,
            )  # fmt: skip
        elif path == "/readyz":
            ok = health.live and health.ready and health.reachability.reachable
            reason = b"not ready\n" if health.reachability.reachable else b"redis unreachable\n"
            await _respond(
                writer, "200 OK" if ok else "503 Service Unavailable",
                b"ready\n" if ok else reason, text,
            )  # fmt: skip
        else:
            await _respond(writer, "404 Not Found", b"not found\n", text)

    return serve


async def start_http(
    health: Health, registry: CollectorRegistry, port: int, host: str = "127.0.0.1"
) -> asyncio.Server:
    """Serve the three paths on `host`: loopback by default; the Kubernetes manifests
    bind 0.0.0.0 (ACCORD_METRICS_HOST) so the kubelet and Prometheus reach the pod."""
    return await asyncio.start_server(http_handler(health, registry), host, port)


@dataclass
class Watchdog:
    """Heartbeat plus the check that the streams and group are still there."""

    redis: AnyRedis
    health: Health
    consumer: str
    group: str
    partitions: Sequence[int]
    on_fatal: Callable[[str], None]
    log: Any
    metrics: Metrics | None = None
    # Consumers idle this long with nothing pending are removed from the group (0: never;
    # see Settings.prune_idle_ms for why that is the default).
    prune_idle_ms: int = 0
    # The evidence of the last removal of unread inputs reported per stream: one log line
    # and one count per removal, however many passes still see it.
    reported_removals: dict[str, str] = field(default_factory=dict)

    async def check_removed_unread(
        self, groups: Mapping[str, dict[str, Any]] | None = None
    ) -> list[RemovedUnread]:
        """Input entries removed before the group read them (store/unread.py): each new
        removal is logged (`inputs_removed_unread`, an error) and counted in
        `accord_inputs_removed_unread_total`, which an alert pages on. `groups`: this
        pass's XINFO GROUPS by stream (`check_once`), else read here."""
        found: list[RemovedUnread] = []
        for partition in self.partitions:
            for stream in input_streams(partition):
                mine = None if groups is None else groups.get(stream)
                if groups is not None and mine is None:
                    continue  # vanished: check_once said so
                removed = await removed_unread(self.redis, stream, self.group, mine)
                if removed is None:
                    self.reported_removals.pop(stream, None)
                    continue
                if self.reported_removals.get(stream) == removed.evidence:
                    continue
                self.reported_removals[stream] = removed.evidence
                found.append(removed)
                self.log.error(
                    "inputs_removed_unread",
                    stream=stream,
                    delivered=removed.delivered,
                    evidence=removed.evidence,
                )
                if self.metrics is not None:
                    self.metrics.removed_unread.labels(stream).inc()
        return found

    async def prune_consumers(self) -> list[str]:
        """Remove consumers of dead processes: nothing pending, idle past `prune_idle_ms`.

        Every restart adds a consumer (names are hostname-pid); without pruning the
        group lists them forever. A consumer with pending entries is kept: the
        reclaimer empties it first. A live consumer polls every BLOCK period, so it is
        never this idle; if one were removed, its next XREADGROUP recreates it.
        """
        removed: list[str] = []
        if self.prune_idle_ms <= 0:
            return removed
        for partition in self.partitions:
            for stream in input_streams(partition):
                consumers: Any = await self.redis.xinfo_consumers(stream, self.group)
                for consumer in consumers:
                    name = as_text(consumer["name"])
                    idle = int(consumer["idle"])
                    if name == self.consumer or consumer["pending"] or idle < self.prune_idle_ms:
                        continue
                    await self.redis.xgroup_delconsumer(stream, self.group, name)
                    removed.append(f"{stream}/{name}")
        if removed:
            self.log.info("consumers_pruned", consumers=removed)
        return removed

    async def measure_lag(self, groups: Mapping[str, dict[str, Any]] | None = None) -> None:
        """`accord_consumer_lag`: entries not yet delivered to the group plus pending ones.

        Redis 7 reports `lag` in XINFO GROUPS; on 6.2 (or after entries were removed
        unread, where Redis 7 has no count) the undelivered part is counted with one
        bounded XRANGE after the group's last-delivered id. `groups`: this pass's XINFO
        GROUPS by stream (`check_once`), else read here.
        """
        if self.metrics is None:
            return
        if groups is None:
            groups = (await read_groups(self.redis, self.partitions, self.group)).found
        for stream, group in groups.items():
            lag = await undelivered(self.redis, stream, group, _LAG_CAP, count_unknown=True)
            self.metrics.lag.labels(stream).set((lag or 0) + int(group["pending"]))

    async def _write_beat(self, ttl_ms: int) -> int:
        """The heartbeat key, living `ttl_ms`, and its name's score (the key's expiry) in
        the heartbeats set; the wall time it was written at."""
        now = wall_ms()
        beat = Heartbeat(
            self.consumer, self.group, tuple(self.partitions), self.health.started_at_ms, now
        )
        await self.redis.set(heartbeat_key(self.consumer), msgspec.json.encode(beat), px=ttl_ms)
        await self.redis.zadd(heartbeats_key(), {self.consumer: now + ttl_ms})
        return now

    async def beat(self, ttl_ms: int) -> None:
        now = await self._write_beat(ttl_ms)
        # Names of workers gone for a minute (restarted pods get new names) are dropped,
        # so the set stays as small as the fleet.
        gone: Any = await self.redis.zrangebyscore(heartbeats_key(), "-inf", now - _GONE_MS)
        if gone:
            await self.redis.zrem(heartbeats_key(), *gone)

    async def depart(self) -> None:
        """A clean stop: the heartbeat key goes now (a TTL of 1 ms: the worker's user may
        not DEL) instead of when its TTL runs out, and the heartbeats set scores the name
        as gone now, so `accord status` and the console show the worker departed at once,
        listed a minute more with whatever it still holds (store/status.py)."""
        await self._write_beat(1)

    async def check_once(self) -> dict[str, dict[str, Any]] | None:
        """None (and the worker told to stop) when input streams or the group vanished;
        else the group's XINFO GROUPS entry by stream, which the rest of the pass reads
        (one XINFO GROUPS per stream and pass)."""
        read = await read_groups(self.redis, self.partitions, self.group)
        if read.missing:
            reason = (
                f"input streams or consumer group {self.group!r} vanished:"
                f" {', '.join(read.missing)}"
            )
            self.health.fatal = reason
            self.log.critical("streams_vanished", group=self.group, streams=read.missing)
            self.on_fatal(reason)
            return None
        return read.found

    async def run(self, stop: asyncio.Event, interval_s: float) -> None:
        backoff = Backoff(self.log, "watchdog", self.health.reachability)
        while not stop.is_set():
            try:
                groups = await self.check_once()
                if groups is None:
                    return
                await self.beat(int(interval_s * 3000))
                await self.measure_lag(groups)
                await self.check_removed_unread(groups)
                await self.prune_consumers()
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError) as error:  # Redis unreachable is not fatal
                await backoff.wait(stop, error)
                continue
            except Exception:  # a bug in one check must not end the watchdog
                self.log.exception("watchdog_failed")
            backoff.reset()
            await sleep_or_stop(stop, interval_s)


async def live_workers(redis: AnyRedis) -> list[Heartbeat]:
    """Workers whose heartbeat key has not expired, found through the heartbeats set
    (no SCAN: the ACL withholds it, since it cannot be confined to accord's keys)."""
    beats: list[Heartbeat] = []
    names: Any = await redis.zrange(heartbeats_key(), 0, -1)
    for name in names:
        raw = await redis.get(heartbeat_key(as_text(name)))
        if raw:
            beats.append(msgspec.json.decode(raw, type=Heartbeat))
    return sorted(beats, key=lambda b: b.consumer)
