"""A chaos run on replicated Redis: failovers under load, and what they take back.

The topology is `ReplicatedRedis` (a primary, two replicas whose replication lags as on
a network, three Sentinels). The gateway writes the workload at the plan's rate, the
workers process it, and a subscriber follows `agreement-events:{p}` as any consumer of
events would, remembering every event it read. Each failover of the plan:

- `kill9` SIGKILLs the primary a few milliseconds after a gateway burst was acknowledged,
  `sigstop` pauses it a few milliseconds after the subscriber read an event (either may be
  on no replica yet) until Sentinel has promoted a replica, then resumes it (it comes back
  believing it is the primary, and Sentinel turns it into a replica of the new one,
  dropping what that one lacks);
- the events the subscriber has read that the promoted replica lacks (in its streams
  and its outbox) are counted before any worker is restarted on it;
- a worker SIGKILLed while the primary is gone, and one holding entries soon after the
  fleet moved to the new primary;
- every client follows the new primary (`_follow`), the killed node is started again as
  a replica, and the next failover waits until both replicas have caught up.

Then the run settles and is compared with the reference (the oracle: the same inputs,
applied once each, in order, with no fault), record by record and event by event, and
counted as a failover's losses are described (docs/reliability.md, "Replicated Redis"):
acknowledged appends lost (and inputs of which no copy is left), records lost or
changed, events the subscriber read that were taken back, event ids read with two
different contents, and sessions that skipped a seq.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

import redis.asyncio

from accord_harness.chaos.check import (
    Findings,
    compare_records,
    taken_back,
    xrange_all,
)
from accord_harness.chaos.faults import HARNESS, Workers
from accord_harness.chaos.replicated import Node, ReplicatedRedis
from accord_harness.chaos.run import (
    RETRYABLE,
    Chaos,
    Gateway,
    Report,
    plant_keys,
    server_name,
    session_fields,
    worker_env,
)
from accord_harness.chaos.workload import Workload
from accord_harness.oracle import Outcome
from accord_harness.store_harness import settled
from contracts.streams import DATA_FIELD, GROUP, as_text
from store import keys
from store.intake import ensure_groups
from store.scripts import AnyRedis

FAILOVERS = ("kill9", "sigstop")


def client(url: str, timeout_s: float = 3.0) -> redis.asyncio.Redis:
    """A harness client that gives up on a paused primary instead of hanging with it."""
    return redis.asyncio.Redis.from_url(
        url, client_name=HARNESS, socket_timeout=timeout_s, socket_connect_timeout=timeout_s
    )


@dataclass
class Subscriber:
    """Reads every events stream from the start and on, as a consumer of events does,
    remembering each (event id, event) it read; reconnects wherever `redis` points."""

    redis: AnyRedis
    partitions: int
    seen: list[tuple[str, Any]] = field(default_factory=list)
    errors: int = 0
    last: dict[str, str] = field(default_factory=dict)
    # Set on every read that brought events (a failover lands right after one), and
    # the stream of the last events read.
    fresh: asyncio.Event = field(default_factory=asyncio.Event)
    fresh_stream: str = ""

    def __post_init__(self) -> None:
        self.last = {keys.events_stream(p): "0-0" for p in range(self.partitions)}

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            await self.read(block_ms=200)

    async def read(self, block_ms: int | None = None) -> int:
        """One XREAD of every stream from where it stopped; how many events it read."""
        try:
            reply: Any = await self.redis.xread(self.last, count=1000, block=block_ms)  # type: ignore[arg-type]
        except RETRYABLE:
            self.errors += 1
            await asyncio.sleep(0.1)  # (a dead primary refuses at once: do not spin)
            return 0
        read = 0
        for stream, entries in reply or ():
            for entry_id, fields in entries:
                event = json.loads(fields[DATA_FIELD.encode()])
                self.seen.append((event["event_id"], event))
                self.last[as_text(stream)] = as_text(entry_id)
                self.fresh_stream = as_text(stream)
                read += 1
        if read:
            self.fresh.set()
        return read


class Topology(Protocol):
    """What a failover run needs of its topology (`ReplicatedRedis`, `ClusterRedis`)."""

    nodes: list[Node]

    async def kill9(self, node: Node) -> None: ...
    async def pause(self, node: Node) -> None: ...
    async def resume(self, node: Node) -> None: ...
    async def restart(self, node: Node) -> None: ...
    async def await_failover(self, old: Node, timeout_s: float = 60.0) -> Node: ...
    async def stop(self) -> None: ...


class FailoverChaos(Chaos):
    """`Chaos` on a `ReplicatedRedis`, with the plan's failovers as its faults. The
    topology's own parts are hooks (`_start_topology`, `_connect`, `_victim`, `_heal`,
    `_follow`, `_watch`, `_read_and_missing`) that `ClusterFailoverChaos` replaces."""

    topology: Topology
    sentinel: ReplicatedRedis
    admin: AnyRedis
    gateway: Gateway
    workers: Workers
    subscriber: Subscriber

    async def run(self) -> Report:
        plan, started = self.plan, time.monotonic()
        if unknown := set(plan.failovers) - set(FAILOVERS):
            raise ValueError(f"failovers must be among {FAILOVERS}, not {sorted(unknown)}")
        workload, expected = await self._prepare()
        self.failovers: list[dict[str, Any]] = []
        # Failovers Sentinel made by itself (`_watch`), and the lock that keeps the watch
        # out of a planned failover; `following` is the address every client uses.
        self.unplanned: list[dict[str, Any]] = []
        self.following_lock = asyncio.Lock()
        self.following = 0
        await self._start_topology()
        try:
            findings = await self._run(workload, expected)
        finally:
            await self.topology.stop()
        self.report.seconds["total"] = round(time.monotonic() - started, 1)
        self.report.counts = findings.counts
        self.report.by_check = findings.by_check()
        self.report.differences = [str(d) for d in findings.differences]
        return self.report

    async def _start_topology(self) -> None:
        self.sentinel = ReplicatedRedis(
            self.workdir / "redis", delay_ms=self.plan.replication_delay_ms, fsync=self.plan.fsync
        )
        self.topology = self.sentinel
        await self.sentinel.start()

    async def _connect(self) -> None:
        """Measure the lag; the harness's clients, the gateway, the subscriber and the
        workers (not started), on the primary."""
        plan = self.plan
        lag = await self.sentinel.measure_lag()
        self.report.failover["lag"] = lag
        self.say(f"replication lag {lag}")
        primary = await self.sentinel.primary()
        self.following = primary.address
        self.admin = client(primary.url, timeout_s=10.0)
        self.report.server = await server_name(self.admin)
        self.gateway = Gateway(
            client(primary.url), plan.partitions,
            wait_replicas=plan.gateway_wait, wait_timeout_ms=plan.gateway_wait_timeout_ms,
        )  # fmt: skip
        self.subscriber = Subscriber(client(primary.url), plan.partitions)
        workers_url = self.sentinel.sentinel_url if plan.sentinel_url else primary.url
        self.workers = Workers(
            plan.workers, worker_env(workers_url, plan), self.rng, self.workdir,
            crash_share=plan.crash_share, crash_after=plan.crash_after,
        )  # fmt: skip

    async def _run(self, workload: Workload, expected: Outcome) -> Findings:
        plan = self.plan
        await self._connect()
        stop_reading = asyncio.Event()
        background: list[asyncio.Task[None]] = []
        try:
            await ensure_groups(self.admin, tuple(range(plan.partitions)), GROUP)
            await plant_keys(self.admin, workload)
            self.workers.start()
            background += [
                asyncio.create_task(self._tend(self.workers)),
                asyncio.create_task(self._watch()),
            ]
            reader = asyncio.create_task(self.subscriber.run(stop_reading))
            await self._await_workers(self.admin, plan.workers)
            span = len(workload.writes) / plan.write_rate
            write_started = time.monotonic()
            writer = asyncio.create_task(self._write(self.gateway, workload))
            await self._failovers(span)
            await writer
            self.report.seconds["writes"] = round(time.monotonic() - write_started, 1)
            settle_started = time.monotonic()
            self.report.settled = await self._settle_quiet()
            self.report.seconds["settle"] = round(time.monotonic() - settle_started, 1)
            stop_reading.set()
            await reader
            while await self.subscriber.read():  # what was committed before the stop
                pass
            await _cancel(background)
            # In a thread: stopping workers waits on them, and they on Redis.
            await asyncio.to_thread(self.workers.stop)
            findings = await self._check(self.admin, workload, expected, self.gateway)
            await self._count_losses(expected, findings)
        finally:
            stop_reading.set()
            await _cancel(background)
            await asyncio.to_thread(self.workers.stop)
            for each in (self.admin, self.gateway.redis, self.subscriber.redis):
                await each.aclose()
        self._faults()
        return findings

    async def _failovers(self, span: float) -> None:
        """The plan's failovers, spread over the writes, each one after the last healed."""
        started = time.monotonic()
        count = len(self.plan.failovers)
        for index, how in enumerate(self.plan.failovers):
            at = (index + 0.5) / count * span
            await asyncio.sleep(max(0.0, at - (time.monotonic() - started)))
            await self._failover(how)

    async def _failover(self, how: str) -> None:
        async with self.following_lock:
            await self._fail_over(how)

    async def _fail_over(self, how: str) -> None:
        topology = self.topology
        old = await self._victim()
        # Land a few ms after the gateway's last writes were acknowledged (a kill), or
        # after the subscriber read an event (a pause): with replication a few ms behind,
        # those may be on no replica. Waiting for an event lets the burst replicate; a
        # burst alone rarely meets a commit's window (and a skipped wait is caught there).
        self.burst_acked.clear()
        await self.burst_acked.wait()
        if how == "sigstop":
            self.subscriber.fresh.clear()
            with contextlib.suppress(TimeoutError):  # (no event at all: the burst suffices)
                await asyncio.wait_for(self.subscriber.fresh.wait(), timeout=2.0)
        old = self._at_moment(how, old)
        await asyncio.sleep(self.rng.uniform(0.002, 0.008))
        down_at = time.monotonic()
        if how == "kill9":
            await topology.kill9(old)
        else:
            await topology.pause(old)
        if self.workers.kill_random():
            self._count("worker_kill_during_failover")
        new = await topology.await_failover(old)
        promoted_ms = round((time.monotonic() - down_at) * 1000)
        missing = await self._read_and_missing(new)
        await self._follow(new)
        loss = await self.gateway.recover_lost(down_at, resend=self.plan.resend_lost)
        if how == "kill9":
            await topology.restart(old)
        else:
            await topology.resume(old)
        await self._kill_holding()
        await self._heal()
        record = {
            "how": how, "from": old.name, "to": new.name, "promoted_after_ms": promoted_ms,
            "acknowledged_lost": loss["lost"], "lost_window_ms": loss["window_ms"],
            "events_read_then_missing": missing,
            "healed_after_ms": round((time.monotonic() - down_at) * 1000),
        }  # fmt: skip
        self.failovers.append(record)
        self.say(f"failover {record}")

    async def _victim(self) -> Node:
        """The primary the next failover takes down."""
        return await self.sentinel.primary()

    def _at_moment(self, how: str, victim: Node) -> Node:  # noqa: ARG002  (a hook)
        """The node to take down, chosen at the moment (without a wait: the window is
        the replication lag): the one primary here."""
        return victim

    async def _heal(self) -> None:
        """Until the topology is whole again: both replicas caught up."""
        await self.sentinel.await_replicas(self.sentinel.replicas)

    async def _read_and_missing(self, promoted: Node) -> int:
        """Events the subscriber has read that the promoted replica lacks: what the failover
        took back, even where a redo publishes the same event again later. Counted before
        the harness restarts any worker on it (workers that follow Sentinel by themselves
        may already be redoing). An event still in the outbox there is not lacking: the
        commit survived, only its publishing did not, and it is published again with the
        same id (delivered twice, not taken back)."""
        probe = client(promoted.url, timeout_s=10.0)
        try:
            held: set[str] = set()
            for p in range(self.plan.partitions):
                for stream in (keys.events_stream(p), keys.outbox_stream(p)):
                    held.update(
                        event["event_id"]
                        for event in _events(await xrange_all(probe, stream))
                        if "event_id" in event
                    )
        finally:
            await probe.aclose()
        return len({event_id for event_id, _ in self.subscriber.seen} - held)

    async def _follow(self, primary: Node) -> None:
        """Point every client at the primary Sentinel just named.

        The one place that knows a failover happened: the gateway, the subscriber and the
        harness's own client reconnect there, and the workers are restarted with the new
        primary's URL, unless they were given the Sentinel URL (`Plan.sentinel_url`) and
        find the primary by themselves.
        """
        stale = (self.admin, self.gateway.redis, self.subscriber.redis)
        url, self.following = primary.url, primary.address
        self.admin = client(url, timeout_s=10.0)
        self.gateway.redis = client(url)
        self.subscriber.redis = client(url)
        if not self.plan.sentinel_url:
            self.workers.restart_all({"REDIS_URL": url})
        for each in stale:
            with contextlib.suppress(*RETRYABLE):
                await each.aclose()

    async def _watch(self) -> None:
        """Follow a failover Sentinel made by itself, and count it: a node slower to answer
        than down-after-milliseconds on a busy machine is failed over like a dead one,
        and clients that stayed on the demoted node would write where nobody reads."""
        while True:
            await asyncio.sleep(0.25)
            async with self.following_lock:
                address = await self.sentinel.sentinel_primary()
                if address is None or address == self.following:
                    continue
                with contextlib.suppress(RuntimeError):  # (not settled yet: next round)
                    new = await self.sentinel.primary()
                    if new.address != self.following:
                        record = {"to": new.name, "at_s": round(time.monotonic(), 1)}
                        self.unplanned.append(record)
                        self.say(f"unplanned failover {record}")
                        await self._follow(new)

    async def _kill_holding(self) -> None:
        """SIGKILL a worker holding entries while the fleet takes over the new primary."""
        await asyncio.sleep(self.rng.uniform(0.5, 2.0))
        for attempt in range(150):
            holding = await self._holding(self.admin)
            if self.workers.kill_holding(holding) or (
                attempt >= 100 and self.workers.kill_random()
            ):
                self._count("worker_kill_after_failover")
                return
            await asyncio.sleep(0.02)

    async def _settle_quiet(self) -> bool:
        """Until nothing is pending, undelivered or parked, twice a sweep interval apart
        (lost inputs end no session at its last seq: `applied` is the check's business)."""
        deadline = time.monotonic() + self.plan.settle_timeout_s
        quiet_since: float | None = None
        while time.monotonic() < deadline:
            calm = False
            with contextlib.suppress(*RETRYABLE):
                calm = await settled(self.admin, self.plan.partitions) and not any(
                    # What durable commits hold back until replicas have it.
                    [
                        await self.admin.xlen(keys.outbox_stream(p))
                        for p in range(self.plan.partitions)
                    ]
                )
            now = time.monotonic()
            if not calm:
                quiet_since = None
            elif quiet_since is None:
                quiet_since = now
            elif now - quiet_since >= 1.5:
                return True
            await asyncio.sleep(0.25)
        return False

    async def _count_losses(self, expected: Outcome, findings: Findings) -> None:
        checker_view = self.checker
        lost = [
            data for key, data in self.gateway.entries.items()
            if checker_view.present.get(key, {}).get(DATA_FIELD.encode()) != data
        ]  # fmt: skip
        held = set(checker_view.entries.values())
        no_copy = {
            (document["session_id"], int(document["seq"])) for document in map(json.loads, lost)
        } - held
        final = [
            (event["event_id"], event)
            for p in range(self.plan.partitions)
            for event in _events(await xrange_all(self.admin, keys.events_stream(p)))
        ]
        back = taken_back(self.subscriber.seen, final)
        skipped = await _sessions_skipped(self.admin, expected, self.plan.partitions)
        self.report.failover.update(
            failovers=self.failovers,
            unplanned_failovers=self.unplanned,
            acknowledged_appends_lost=len(lost),
            inputs_without_copy=len(no_copy),
            records=compare_records(expected.records, checker_view.records),
            subscriber_events_seen=back.seen,
            events_taken_back=len(back.taken_back),
            events_read_then_missing_at_failover=sum(
                f["events_read_then_missing"] for f in self.failovers
            ),
            ids_with_two_contents=len(back.two_contents),
            examples={
                "taken_back": back.taken_back[:5],
                "two_contents": {i: back.contents[i] for i in back.two_contents[:5]},
            },
            sessions_skipped_seq=len(skipped),
            gateway_wait=self.plan.gateway_wait,
            wait_replicas=self.plan.wait_replicas,
            sentinel_url=self.plan.sentinel_url,
            resend_lost=self.plan.resend_lost,
        )
        # What no other check sees: the subscriber's view (a take-back that a redo later
        # hides is still one: it read an event that then did not exist).
        for failover in self.failovers:
            if failover["events_read_then_missing"]:
                findings.add(
                    "taken_back", "failover",
                    f"{failover['events_read_then_missing']} events read were missing on "
                    f"{failover['to']} right after it was promoted",
                )  # fmt: skip
        for event_id in back.taken_back:
            findings.add("taken_back", "publish", f"{event_id} read, then gone")
        for event_id in back.two_contents:
            findings.add(
                "two_contents", "publish", f"{event_id}: {' / '.join(back.contents[event_id])}"
            )
        loss = self.report.failover
        records = loss["records"]
        self.say(
            f"failover loss: {loss['acknowledged_appends_lost']} acknowledged appends lost "
            f"({loss['inputs_without_copy']} inputs with no copy left); records lost "
            f"{records['lost']} / changed {records['changed']} of {records['expected']}; "
            f"a subscriber saw {loss['events_taken_back']} events then taken back "
            f"({loss['events_read_then_missing_at_failover']} missing right after a failover), "
            f"{loss['ids_with_two_contents']} ids with two contents; "
            f"{loss['sessions_skipped_seq']} sessions skipped a seq"
        )

    def _faults(self) -> None:
        self.report.faults = {
            **self.faults,
            "failovers": len(self.failovers),
            "worker_sigkills": self.workers.sigkills,
            "workers_restarted_on_new_primary": self.workers.restarted,
            "worker_exits_other": {str(k): v for k, v in self.workers.exits.items() if k != 137},
            "worker_starts": self.workers.spawned,
            "gateway_retries": self.gateway.retries,
            "gateway_wait_short": self.gateway.wait_short,
            "gateway_slowest_write_ms": self.gateway.slowest_write_ms,
            "subscriber_errors": self.subscriber.errors,
            "replication_links": sum(n.proxy.replication_links for n in self.topology.nodes),
        }


async def _cancel(tasks: list[asyncio.Task[None]]) -> None:
    """Cancel each task and wait until it has ended, cancelling it again while it runs on:
    redis-py's asyncio connection can lose a cancellation that lands in a command (redis-py
    8.1 on Python 3.11, a task's command while its connection reconnects), and a run waited
    on the watch for minutes. Waiting through `asyncio.wait` also lets this task's own
    cancellation (Ctrl-C) through, where `suppress(CancelledError)` around `await task`
    swallowed it."""
    for task in tasks:
        while not task.done():
            task.cancel()
            await asyncio.wait({task}, timeout=1.0)
        if not task.cancelled():
            task.result()  # a task's own failure is still raised
    tasks.clear()


def _events(entries: list[tuple[str, dict[bytes, bytes]]]) -> Iterator[Any]:
    for _, fields in entries:
        yield json.loads(fields[DATA_FIELD.encode()])


async def _sessions_skipped(admin: AnyRedis, expected: Outcome, partitions: int) -> list[str]:
    """Sessions whose gap rule gave up a seq (the session hash's skipped ranges)."""
    names = sorted(expected.next_seq)
    values = await session_fields(admin, partitions, names, "k")
    return [name for name, value in zip(names, values, strict=True) if value]
