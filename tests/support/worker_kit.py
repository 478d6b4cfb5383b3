"""Helpers for the worker and end-to-end tests: real workers, a real gateway, real Redis.

- `running_worker`: the worker's FastStream app in this event loop (same code as
  `accord worker`), with a partition factory that tests may wrap to inject faults;
- `worker_processes`: N `accord worker` processes, ready when their heartbeats are;
- `redis_cluster`: a three-master Redis Cluster on loopback of the embedded server;
- `gateway_xadd`, `process_new`: one partition's store driven by hand, entry by entry;
- `EXPECTED`: what each bundled transcript must produce, the same in English and Chinese.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from datetime import UTC, datetime
from typing import Any

import redis
import redis.asyncio
from accord_harness.documents import FAMILY_OF_TYPE, encode
from accord_harness.reading import read_new

from contracts.outputs import (
    AgreementEvent,
    ClaimUnverified,
    ClarificationRequested,
    StateChanged,
    ToolOutcome,
)
from contracts.streams import DATA_FIELD, GROUP, stream_name
from contracts.view import SessionView
from store.embedded import EmbeddedCluster
from store.processor import PartitionProcessor
from store.scripts import AnyRedis
from store.unit import Event
from store.watermark import server_ms
from tests.support.paths import ROOT
from worker.app import PartitionFactory, Worker, build_worker, store_partition
from worker.settings import Settings


def summarize(event: AgreementEvent) -> str:
    """An event as the tables below spell it: what changed, never ids or times."""
    if isinstance(event, StateChanged):
        text = f"{event.to_state.value}:{event.cause.value}:{event.revision}"
        if event.revision == 1:
            text += ":deadline" if event.deadline_at is not None else ""
            text += ":bound" if event.binding is not None else ""
        return text
    if isinstance(event, ToolOutcome):
        if event.accepted:
            return "accepted"
        reason = event.reason.value if event.reason else "?"
        return f"rejected:{reason}:{event.current_revision}"
    if isinstance(event, ClarificationRequested):
        return f"clarify:{event.kind.value}:{len(event.candidates)}"
    if isinstance(event, ClaimUnverified):
        return f"claim_unverified:{event.kind.value}"
    return f"refused:{event.reason.value}"


def summarize_view(view: SessionView) -> tuple[int, tuple[str, ...]]:
    """(number of current agreements, statuses of this session's pending proposals and,
    as `amendment:<status>`, of its pending amendments)."""
    amendments = tuple(f"amendment:{a.status}" for a in view.pending_amendments)
    return len(view.current_agreements), (
        *(p.status for p in view.pending_proposals),
        *amendments,
    )


# The first three revisions of an agreement opened agent first (scenarios 09-13).
OPENED = ["proposed:proposed:1", "proposed:agent_accepted:2", "accepted", "open:user_accepted:3"]

# Per transcript: the events in commit order, and per session (by its suffix in the
# transcript) the view after the last turn. Derived from the rules, scenario by scenario.
EXPECTED: dict[str, tuple[list[str], dict[str, tuple[int, tuple[str, ...]]]]] = {
    # R1-R6: prose accepts nothing; tool call + confirmation open it; s2 sees it (R6).
    "01-propose-and-accept": (
        ["proposed:proposed:1", "proposed:agent_accepted:2", "accepted", "open:user_accepted:3"],
        {"s1": (1, ()), "s2": (1, ())},
    ),
    # R3, R5: the user first; a stale revision is refused with the current one.
    "02-user-accepts-first": (
        [
            "proposed:proposed:1",
            "proposed:user_accepted:2",
            "rejected:stale_revision:2",
            "open:agent_accepted:3",
            "accepted",
        ],
        {"s1": (1, ())},
    ),
    # R1: promise, remember, task, question, assistant text, "ok": nothing.
    "03-not-an-agreement": ([], {"s1": (0, ())}),
    # R4, R8: two candidates, so a clarification each time and nothing changes.
    "04-ambiguous-confirmation": (
        [
            "proposed:proposed:1",
            "proposed:proposed:1",
            "clarify:confirmation:2",
            "clarify:cancellation:2",
        ],
        {"s1": (0, ("awaiting_both", "awaiting_both"))},
    ),
    # R8: cancelled; a later acceptance is refused: the record is no longer proposed (R3).
    "05-cancel": (
        [
            "proposed:proposed:1",
            "proposed:agent_accepted:2",
            "accepted",
            "open:user_accepted:3",
            "cancelled:user_cancelled:4",
            "rejected:wrong_state:4",
        ],
        {"s1": (0, ())},
    ),
    # R9: expiry by event time; an acceptance after the deadline is refused.
    "06-deadline": (
        [
            "proposed:proposed:1:deadline",
            "proposed:agent_accepted:2",
            "accepted",
            "open:user_accepted:3",
            "expired:deadline_reached:4",
            "proposed:proposed:1:deadline",
            "expired:deadline_reached:2",
            "rejected:past_deadline:2",
        ],
        {"s1": (0, ())},
    ),
    # R10-R12: failed write, "done" and another item do nothing; the bound item fulfils.
    "07-todo-delivery": (
        [
            "proposed:proposed:1:bound",
            "proposed:agent_accepted:2",
            "accepted",
            "open:user_accepted:3",
            "fulfilled:delivery_verified:4",
        ],
        {"s1": (0, ())},
    ),
    # R13: an expired bound agreement is still fulfilled by verified late delivery.
    "08-late-delivery": (
        [
            "proposed:proposed:1:deadline:bound",
            "proposed:agent_accepted:2",
            "accepted",
            "open:user_accepted:3",
            "expired:deadline_reached:4",
            "fulfilled:delivery_verified:5",
        ],
        {"s1": (0, ())},
    ),
    # R17: an amendment, the agent first: its old revision is stale; then the user.
    "09-amendment-agent-first": (
        [
            *OPENED,
            "open:amendment_proposed:4",
            "rejected:stale_revision:4",
            "open:amendment_agent_accepted:5",
            "accepted",
            "open:amendment_user_accepted:6",
        ],
        {"s1": (1, ())},
    ),
    # R17: the user accepts the amendment first, then the agent (the current revision).
    "10-amendment-user-first": (
        [
            *OPENED,
            "open:amendment_proposed:4",
            "open:amendment_user_accepted:5",
            "open:amendment_agent_accepted:6",
            "accepted",
        ],
        {"s1": (1, ())},
    ),
    # R17: "cancel the change": the agreement stays open; accepting it now is wrong_state.
    "11-amendment-cancelled": (
        [
            *OPENED,
            "open:amendment_proposed:4",
            "open:amendment_cancelled:5",
            "rejected:wrong_state:5",
        ],
        {"s1": (1, ())},
    ),
    # R17, R9: the agreement expires with the amendment pending: the lapse comes first.
    "12-amendment-lapses": (
        [
            "proposed:proposed:1:deadline",
            *OPENED[1:],
            "open:amendment_proposed:4",
            "open:amendment_lapsed:5",
            "expired:deadline_reached:6",
            "rejected:past_deadline:6",
        ],
        {"s1": (0, ())},
    ),
    # R18: an agreement claim with no agreement; a delivery claim before the todo is
    # completed (flagged) and after (fulfilled, nothing to flag). The state is untouched.
    "13-claims": (
        [
            "claim_unverified:agreement",
            "proposed:proposed:1:bound",
            *OPENED[1:],
            "claim_unverified:delivery",
            "fulfilled:delivery_verified:4",
        ],
        {"s1": (0, ())},
    ),
}


def now_s() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


def worker_settings(url: str, **changes: object) -> Settings:
    """Worker settings for tests: no metrics port, quick reclaim and sweeps."""
    base = Settings(
        redis_url=url,
        metrics_port=0,
        reclaim_idle_ms=300,
        sweep_interval_ms=100,
        consumer=f"test-{os.getpid()}-{time.monotonic_ns()}",
    )
    return base.replaced(**changes)


@contextlib.asynccontextmanager
async def running_worker(
    settings: Settings, factory: PartitionFactory = store_partition
) -> AsyncIterator[Worker]:
    worker = build_worker(settings, factory)
    await worker.start()
    try:
        yield worker
    finally:
        await worker.stop()


def flushed(url: str) -> str:
    """`url` after emptying its Redis, for a module fixture that starts a worker on the
    shared test server: an earlier test's stored layout (`accord:config`, another
    partition count) would make the worker refuse to start."""
    client = redis.Redis.from_url(url)
    try:
        client.flushall()
    finally:
        client.close()
    return url


def worker_env(url: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACCORD_")}
    env.update(
        {
            "REDIS_URL": url,
            "ACCORD_METRICS_PORT": "0",
            "ACCORD_LOG_LEVEL": "WARNING",
            "ACCORD_RECLAIM_IDLE_MS": "1000",
            **extra,
        }
    )
    return env


@contextlib.contextmanager
def worker_processes(
    count: int, env: dict[str, str], *, probe_url: str | None = None
) -> Iterator[list[subprocess.Popen[bytes]]]:
    """`count` processes of `accord worker`, stopped with SIGTERM (graceful) at the end.
    Ready once each has a heartbeat, read at `probe_url` (default: their REDIS_URL; a
    node's own URL where theirs is a Sentinel URL)."""
    command = [sys.executable, "-c", "from worker.cli import main; main()", "worker"]
    logs = [tempfile.TemporaryFile() for _ in range(count)]  # noqa: SIM115  (closed below)
    procs = [
        subprocess.Popen(  # noqa: S603
            command,
            env=env,
            cwd=ROOT,
            stdout=log,
            stderr=log,
            preexec_fn=_die_with_parent,  # noqa: PLW1509  (one prctl call, libc loaded before fork)
        )
        for log in logs
    ]
    try:
        _wait_ready(procs, {**env, "REDIS_URL": probe_url or env["REDIS_URL"]}, count)
        yield procs
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
        for proc, log in zip(procs, logs, strict=True):
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            log.close()


def _die_with_parent() -> None:
    """In the child: SIGTERM it when the test process dies, so no worker outlives a run
    that was killed (a timeout, Ctrl-C) and joins a later run's Redis on a reused port."""
    if _LIBC is not None:
        _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


_PR_SET_PDEATHSIG = 1
_LIBC = ctypes.CDLL("libc.so.6", use_errno=True) if sys.platform.startswith("linux") else None


READY_TIMEOUT_S = 90


def _wait_ready(procs: list[subprocess.Popen[bytes]], env: dict[str, str], count: int) -> None:
    from store.keys import heartbeat_pattern  # noqa: PLC0415

    cluster = env.get("ACCORD_REDIS_CLUSTER") == "1"
    client: redis.Redis | redis.RedisCluster = (
        redis.RedisCluster.from_url(env["REDIS_URL"])
        if cluster
        else redis.Redis.from_url(env["REDIS_URL"])
    )
    # Generous: on a loaded two-core machine a worker took 20 s to start (imports).
    deadline = time.monotonic() + READY_TIMEOUT_S
    try:
        while time.monotonic() < deadline:
            for proc in procs:
                if proc.poll() is not None:
                    raise RuntimeError(f"worker exited early with {proc.returncode}")
            beats = list(client.scan_iter(match=heartbeat_pattern()))
            if len(beats) >= count:
                return
            time.sleep(0.1)
    finally:
        client.close()
    raise RuntimeError(f"workers did not become ready within {READY_TIMEOUT_S}s")


@contextlib.contextmanager
def redis_cluster() -> Iterator[str]:
    """Three masters on loopback, slots spread evenly: the URL of the product's own
    `EmbeddedCluster`."""
    with EmbeddedCluster() as cluster:
        yield cluster.url


async def wait_for(predicate: Callable[[], Awaitable[bool]], seconds: float = 15.0) -> None:
    """Poll an async predicate until it is true."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if await predicate():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("condition not reached in time")


async def gateway_xadd(client: AnyRedis, document: dict[str, Any], partition: int = 0) -> None:
    """XADD an input document as a gateway does: to its type's stream (an undecodable
    document still has a type), as UTF-8 JSON (the byte limits count what was sent)."""
    stream = stream_name(FAMILY_OF_TYPE[document["type"]], partition)
    await client.xadd(stream, {DATA_FIELD: encode(document)})


async def process_new(
    client: redis.asyncio.Redis, processor: PartitionProcessor[Any, Any], consumer: str
) -> list[Event]:
    """Read the processor's partition as `consumer` and process until nothing is new:
    every event published on the way."""
    events: list[Event] = []
    while entries := await read_new(client, processor.partition, GROUP, consumer, count=50):
        events += (await processor.process(entries)).events
    return events


async def next_millisecond(client: AnyRedis) -> None:
    """Return once Redis's clock has moved past the millisecond it reads now, so that what
    is committed next is scored later than what was committed before (list tests whose
    order would otherwise rest on a tie)."""
    start = await server_ms(client)
    while await server_ms(client) <= start:
        pass


async def http_get(port: int, path: str) -> tuple[int, str]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    await writer.drain()
    raw = await reader.read()
    writer.close()
    head, _, body = raw.decode().partition("\r\n\r\n")
    return int(head.split()[1]), body
