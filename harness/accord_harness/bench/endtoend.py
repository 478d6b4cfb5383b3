"""accord end to end: real worker processes, XADD in, committed agreement events out.

The producer (this process) writes a workload's entries with pipelined XADDs; worker
processes (`accord worker`, as deployed) consume them. What is measured:

- throughput: the backlog is written first, held back from the consumer group (the
  group starts at its end), then the workers start; once every worker reads and owns
  its share of the partitions, the backlog is handed to them at once (`release`:
  XGROUP SETID to 0), so every phase measures the same thing: a drain by workers
  already balanced, with no producer competing for the cores and no partition moving.
  Progress is the number of entries acked (acked only inside the Lua commit, so acked
  means committed), read from `XINFO GROUPS` every few milliseconds. The rate is taken
  from 10% of the backlog to the end, which leaves the first reads out;
- latency at a fraction of that peak: entries paced at `rate`, each stamped just
  before its XADD; a reader blocked on the agreement-events streams stamps every
  event as it arrives. Latency is XADD to the first event of that input (all of an
  input's events are committed in one script), so it counts the inputs that owe an
  event: proposals, acceptances, confirmations;
- exactly once: every input acked, none dead-lettered, and the agreement events
  committed are exactly as many as the oracle (the pure core run once per input, in
  seq order) produces, with no event id twice;
- the workers' peak RSS (`VmHWM`) and Redis's `MEMORY USAGE` of the session hashes.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import gc
import os
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, cast

import msgspec
from redis.asyncio import Redis

from accord_client import AccordClient
from accord_harness.bench.loops import Drain, machine_busy_s, redis_cpu_s, streams_of
from accord_harness.bench.workload import Workload, entries
from accord_harness.oracle import compute
from contracts.streams import DATA_FIELD, GROUP, EntryId, as_text
from store import keys, ownership
from store.intake import ensure_groups
from store.keys import heartbeat_pattern
from worker.engine import Engine

DATA = DATA_FIELD.encode()
# One input of a latency run: XADD sent, its stream and entry id, its first event seen.
Stamp = tuple[float, str, str, float]
# Each poll (XINFO GROUPS on every input stream) costs this process about 1 ms of CPU:
# every 5 ms it took ~14% of a core from the workers it measures; every 20 ms, ~4%, and
# a drain of several seconds is still timed to within 1%.
POLL_S = 0.02
START_SHARE = 0.1


async def write(
    redis: Redis, items: Sequence[tuple[str, bytes]]
) -> dict[str, list[tuple[int, int]]]:
    """XADD every entry (pipelined, 500 at a time); the ids written, per stream, in order."""
    ids: dict[str, list[tuple[int, int]]] = {}
    for start in range(0, len(items), 500):
        chunk = items[start : start + 500]
        pipe = redis.pipeline(transaction=False)
        for stream, data in chunk:
            pipe.xadd(stream, {DATA: data})
        for (stream, _), entry_id in zip(chunk, await pipe.execute(), strict=True):
            ids.setdefault(stream, []).append(EntryId.parse(entry_id))
    return ids


async def acked(redis: Redis, ids: dict[str, list[tuple[int, int]]]) -> int:
    """Entries of `ids` the group has delivered and acknowledged."""
    pipe = redis.pipeline(transaction=False)
    for stream in ids:
        pipe.xinfo_groups(stream)
    done = 0
    for stream, groups in zip(ids, await pipe.execute(), strict=True):
        group = next(g for g in groups if g["name"] in {GROUP, GROUP.encode()})
        delivered = bisect.bisect_right(ids[stream], EntryId.parse(group["last-delivered-id"]))
        done += delivered - int(group["pending"])
    return done


async def backlog(redis: Redis, workload: Workload) -> dict[str, list[tuple[int, int]]]:
    """The workload as a worker's backlog: the groups made, then every entry written."""
    await ensure_groups(redis, range(workload.partitions), GROUP)
    return await write(redis, entries(workload))


async def held_backlog(redis: Redis, workload: Workload) -> dict[str, list[tuple[int, int]]]:
    """The workload written with the group at the end of every input stream: workers
    started now read none of it until `release`."""
    ids = await write(redis, entries(workload))
    for stream in streams_of(workload.partitions):
        await redis.xgroup_create(stream, GROUP, id="$", mkstream=True)
    return ids


async def release(redis: Redis, partitions: int) -> None:
    """Hand a `held_backlog` to the group: every input stream's group back to id 0."""
    pipe = redis.pipeline(transaction=False)
    for stream in streams_of(partitions):
        pipe.xgroup_setid(stream, GROUP, "0")
    await pipe.execute()


async def until_acked(
    redis: Redis, ids: dict[str, list[tuple[int, int]]], total: int, poll_s: float
) -> None:
    """Wait until the group has acknowledged `total` entries of `ids`."""
    while await acked(redis, ids) < total:  # noqa: ASYNC110  (progress lives in Redis)
        await asyncio.sleep(poll_s)


# How the worker processes of a phase are started:
# - "separate": `count` processes of `accord worker`, as a KEDA Deployment's pods are, with
#   the default partition ownership (leases: each partition read by one of them);
# - "supervised": one `accord worker -n count`, which runs `count` children the same way;
# - "manual": `count` processes, each with its own ACCORD_SERVE_PARTITIONS (no leases).
LAUNCHES = ("separate", "supervised", "manual")


@dataclass
class Workers:
    """`accord worker` processes on one Redis, sharing the partitions (see LAUNCHES)."""

    url: str
    partitions: int
    count: int
    log_dir: Path
    launch: str = "separate"
    procs: tuple[subprocess.Popen[bytes], ...] = ()
    # Settings given to every worker on top of the bench's own (ACCORD_* names), for a
    # script that measures one setting against another (benchmarks/paced_latency.py).
    env: dict[str, str] = field(default_factory=dict)

    def start(self) -> None:
        procs = []
        command = [sys.executable, "-c", "from worker.cli import main; main()", "worker"]
        base = {
            **{k: v for k, v in os.environ.items() if not k.startswith("ACCORD_")},
            "REDIS_URL": self.url,
            "ACCORD_PARTITIONS": str(self.partitions),
            "ACCORD_METRICS_PORT": "0",
            "ACCORD_LOG_LEVEL": "WARNING",
            **self.env,
        }
        launches = 1 if self.launch == "supervised" else self.count
        for index in range(launches):
            env = dict(base)
            args = list(command)
            if self.launch == "supervised":
                args += ["-n", str(self.count)]
            else:
                env["ACCORD_CONSUMER"] = f"bench-{index}"
            if self.launch == "manual":
                serve = [p for p in range(self.partitions) if p % self.count == index]
                env["ACCORD_SERVE_PARTITIONS"] = ",".join(map(str, serve))
            name = f"worker-{self.launch}-{self.count}-{index}.log"
            log = (self.log_dir / name).open("ab")
            procs.append(subprocess.Popen(args, env=env, stdout=log, stderr=log))  # noqa: S603
            log.close()
        self.procs = tuple(procs)

    def pids(self) -> list[int]:
        """The worker processes: the started ones, and the children of a supervisor."""
        found = []
        for proc in self.procs:
            if self.launch != "supervised":
                found.append(proc.pid)
                continue
            with contextlib.suppress(OSError):
                children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text()
                found.extend(int(pid) for pid in children.split())
        return found

    def peak_rss_bytes(self) -> list[int]:
        """Each worker's high-water resident set (VmHWM), read while it still runs."""
        out = []
        for pid in self.pids():
            status = Path(f"/proc/{pid}/status").read_text()
            line = next(x for x in status.splitlines() if x.startswith("VmHWM:"))
            out.append(int(line.split()[1]) * 1024)
        return out

    async def ready(self, redis: Redis, timeout_s: float) -> None:
        """Wait until every worker's watchdog has written its first heartbeat and, with
        partition ownership, until every partition is owned and every worker owns some
        (the fair share a joining worker takes; docs/store.md)."""
        deadline = time.perf_counter() + timeout_s
        while True:
            beats = [key async for key in redis.scan_iter(match=heartbeat_pattern())]
            if len(beats) >= self.count and await self.balanced(redis):
                return
            if time.perf_counter() > deadline or not self.alive():
                raise RuntimeError(f"{self.count - len(beats)} worker(s) did not start")
            await asyncio.sleep(0.05)

    async def balanced(self, redis: Redis) -> bool:
        """Every partition owned, by `count` workers holding counts that differ by at
        most one. Not just "two owners": a worker that took every partition before the
        other joined hands them over one by one, and 3/1 is a state on the way."""
        if self.launch == "manual":
            return True
        owners = []
        for partition in range(self.partitions):
            token, _ = await ownership.lease_of(redis, partition)
            owners.append(ownership.owner_consumer(token))
        held = Counter(owners)
        return (
            all(owners)
            and len(held) == min(self.count, self.partitions)
            and max(held.values()) - min(held.values()) <= 1
        )

    def cpu_s(self) -> float:
        """CPU seconds the workers used so far (user + system, /proc/<pid>/stat)."""
        total = 0
        for pid in self.pids():
            fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14, 15)
        return total / os.sysconf("SC_CLK_TCK")

    def alive(self) -> bool:
        return all(proc.poll() is None for proc in self.procs)

    def stop(self) -> list[int]:
        for proc in self.procs:
            if proc.poll() is None:
                proc.terminate()
        codes = []
        for proc in self.procs:
            try:
                codes.append(proc.wait(timeout=30))
            except subprocess.TimeoutExpired:
                proc.kill()
                codes.append(proc.wait())
        return codes


Counters = tuple[float, int, float, float, float]


async def drain_start(redis: Redis, workers: Workers) -> Counters:
    """Time and CPU counters taken just before the backlog is released (drain_rate's fallback)."""
    return (time.perf_counter(), 0, workers.cpu_s(), await redis_cpu_s(redis), machine_busy_s())


async def drain_rate(
    redis: Redis,
    workers: Workers,
    ids: dict[str, list[tuple[int, int]]],
    timeout_s: float,
    written_from: Counters | None = None,
) -> Drain:
    """Entries/s, and CPU per entry, from START_SHARE of the backlog acked to all of it.

    A backlog small enough to be all acked by the first poll is measured from
    `written_from` (taken just before its release) instead, over all of it.
    """
    total = sum(len(v) for v in ids.values())
    first: Counters | None = None
    deadline = time.perf_counter() + timeout_s
    while True:
        done = await acked(redis, ids)
        now = time.perf_counter()
        if first is None and done >= total * START_SHARE:
            first = (now, done, workers.cpu_s(), await redis_cpu_s(redis), machine_busy_s())
        if done >= total:
            break
        if now > deadline or not workers.alive():
            raise RuntimeError(f"workers stalled at {done}/{total} entries acked")
        await asyncio.sleep(POLL_S)
    assert first is not None
    entries = total - first[1]
    if (now <= first[0] or not entries) and written_from is not None:
        first, entries = written_from, total
    if now <= first[0] or not entries:  # all of it landed between two polls: a tiny backlog
        return Drain(float("nan"), float("nan"), float("nan"))
    cpu = (workers.cpu_s() - first[2]) / entries * 1e6
    server = (await redis_cpu_s(redis) - first[3]) / entries * 1e6
    machine = (machine_busy_s() - first[4]) / (now - first[0])
    return Drain(entries / (now - first[0]), cpu, server, machine)


@contextlib.contextmanager
def _no_full_collections() -> Iterator[None]:
    """This process's heap as it is now, left out of the collector's walks meanwhile.

    The bench's own process holds the workloads and their ids (hundreds of thousands of
    objects): a full collection of it takes 90-120 ms, and one that ran while the reader
    waited for events (seen in an experiment) would stamp the events arriving meanwhile
    that much late. Frozen, they are not walked; what the run allocates still is.
    """
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


async def paced_latency(  # noqa: PLR0913  (the run's inputs, and where to put the stamps)
    redis: Redis,
    url: str,
    workload: Workload,
    rate: float,
    timeout_s: float,
    *,
    stamps: dict[tuple[str, int], Stamp] | None = None,
) -> dict[str, float]:
    """Write `workload` at `rate` entries/s; XADD -> first committed event, in ms.

    With `stamps`, also each eventful input's (XADD sent, stream, entry id, event seen)
    on the monotonic clock, which other processes read alike
    (benchmarks/latency_stages.py matches them with the worker's own).
    """
    items = entries(workload)
    events = await _ends(redis, workload.partitions)
    sent: dict[tuple[str, int], float] = {}
    written: dict[tuple[str, int], tuple[str, str]] = {}
    seen: dict[tuple[Any, Any], float] = {}
    reader = Redis.from_url(url)
    decoder = msgspec.json.Decoder()

    async def read() -> None:
        while True:
            reply: Any = await reader.xread(cast("Any", events), block=1000)
            now = time.perf_counter()
            for stream, batch in reply or ():
                for entry_id, fields in batch:
                    events[stream.decode()] = entry_id
                    provenance = decoder.decode(fields[DATA]).get("provenance") or {}
                    seen.setdefault((provenance.get("session_id"), provenance.get("seq")), now)

    async def produce() -> None:
        started = time.perf_counter()
        for index, (stream, data) in enumerate(items):
            delay = started + index / rate - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            document = workload.documents[index]
            key = (document["session_id"], document["seq"])
            sent[key] = time.perf_counter()
            entry_id = await redis.xadd(stream, {DATA: data})
            written[key] = (stream, as_text(entry_id))

    expected = _eventful(workload)
    with _no_full_collections():
        task = asyncio.create_task(read())
        await produce()
        deadline = time.perf_counter() + timeout_s
        while not expected <= seen.keys() and time.perf_counter() < deadline:  # noqa: ASYNC110  (the reader task fills `seen`; polling it is simplest)
            await asyncio.sleep(0.01)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    await reader.aclose()
    latencies = [(seen[k] - sent[k]) * 1000 for k in expected if k in seen]
    kept = stamps if stamps is not None else {}
    kept.update((k, (sent[k], *written[k], seen[k])) for k in expected if k in seen)
    if not latencies:
        raise RuntimeError("no agreement event arrived during the latency run")
    return {
        "rate": rate,
        "samples": len(latencies),
        "missing": len(expected - seen.keys()),
        "p50_ms": statistics.median(latencies),
        "p99_ms": _percentile(latencies, 0.99),
        "max_ms": max(latencies),
    }


VIEW_READ_PERIOD_S = 0.005


def view_scopes(workload: Workload) -> list[tuple[str, str]]:
    """The scopes with agreements (their view has a document to decode), in write order."""
    flows = [d for d in workload.documents if d.get("name") == "soul_agreement_accept"]
    return list(dict.fromkeys((d["agent_id"], d["user_id"]) for d in flows or workload.documents))


def view_instant(workload: Workload) -> datetime:
    """The workload's last input time: a view read then shows everything it opened.

    Its inputs are stamped ahead of today's clock, and a view as of now leaves out what
    was not yet so (contracts.view), so reading at now would time empty views.
    """
    return max(datetime.fromisoformat(str(d["ts"])) for d in workload.documents)


async def view_reads(
    url: str,
    partitions: int,
    scopes: Sequence[tuple[str, str]],
    stop: asyncio.Event | int,
    as_of: datetime | None = None,
) -> list[float]:
    """Scope views read as a gateway reads them (`AccordClient.scope_view`: one HGET,
    decode, filter by deadline) at `as_of` (default now), one every VIEW_READ_PERIOD_S
    until `stop` is set (or `stop` reads when it is a count); each read's latency in ms."""
    client = AccordClient(Redis.from_url(url), partitions=partitions)
    latencies: list[float] = []
    try:
        while not (stop.is_set() if isinstance(stop, asyncio.Event) else len(latencies) >= stop):
            agent_id, user_id = scopes[len(latencies) % len(scopes)]
            started = time.perf_counter()
            await client.scope_view(agent_id, user_id, as_of=as_of)
            latencies.append((time.perf_counter() - started) * 1000)
            await asyncio.sleep(VIEW_READ_PERIOD_S)
    finally:
        await client.aclose()
    return latencies


def percentiles(latencies: Sequence[float]) -> dict[str, float]:
    if not latencies:
        return {"samples": 0, "p50_ms": float("nan"), "p99_ms": float("nan")}
    return {
        "samples": len(latencies),
        "p50_ms": statistics.median(latencies),
        "p99_ms": _percentile(latencies, 0.99),
    }


async def _ends(redis: Redis, partitions: int) -> dict[str, bytes]:
    """The last id of each agreement-events stream: where the latency reader starts.

    Not `$`, which would miss events committed before its first XREAD reaches Redis.
    """
    ends: dict[str, bytes] = {}
    for p in range(partitions):
        last: Any = await redis.xrevrange(keys.events_stream(p), count=1)
        ends[keys.events_stream(p)] = last[0][0] if last else b"0-0"
    return ends


def _eventful(workload: Workload) -> set[tuple[str, int]]:
    """(session, seq) of the inputs the oracle says commit at least one event."""
    expected = compute(Engine(), workload.documents, workload.partitions)
    return {(session, seq) for session, seqs in expected.event_seq.items() for seq in seqs}


def expected_events(workloads: Sequence[Workload]) -> int:
    total = 0
    for workload in workloads:
        oracle = compute(Engine(), workload.documents, workload.partitions)
        total += sum(len(events) for events in oracle.events.values())
    return total


async def exactly_once(redis: Redis, workloads: Sequence[Workload]) -> dict[str, Any]:
    """Every input acked once, nothing dead-lettered, the oracle's events each once."""
    partitions = workloads[0].partitions
    pending = 0
    for stream in streams_of(partitions):
        groups: Any = await redis.xinfo_groups(stream)
        pending += sum(int(g["pending"]) for g in groups)
    ids: Counter[str] = Counter()
    dead = 0
    for p in range(partitions):
        written: Any = await redis.xrange(keys.events_stream(p))
        for _, fields in written:
            ids[msgspec.json.decode(fields[DATA])["event_id"]] += 1
        dead += await redis.xlen(keys.dead_letters_stream(p))
    expected = expected_events(workloads)
    committed = sum(ids.values())
    duplicates = sum(n - 1 for n in ids.values() if n > 1)
    return {
        "ok": pending == 0 and dead == 0 and duplicates == 0 and committed == expected,
        "events_expected": expected,
        "events_committed": committed,
        "duplicate_event_ids": duplicates,
        "pending": pending,
        "dead_letters": dead,
    }


async def session_bytes(redis: Redis, sample: int = 500) -> dict[str, float]:
    """MEMORY USAGE of idle session hashes (mean and max over a sample)."""
    sizes: list[int] = []
    async for key in redis.scan_iter(match="session:*", count=1000):
        usage = await redis.memory_usage(key)
        if usage is not None:
            sizes.append(int(usage))
        if len(sizes) >= sample:
            break
    if not sizes:
        return {"mean": float("nan"), "max": float("nan"), "sampled": 0}
    return {"mean": statistics.fmean(sizes), "max": max(sizes), "sampled": len(sizes)}
