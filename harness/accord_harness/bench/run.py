"""One benchmark run: every throughput, latency and memory figure against one embedded Redis.

Order: the baseline, FastStream's batch subscriber and the floor (bench/floor.py:
the least an exactly-once worker with accord's core must do) drain the same backlog
(median of `rounds`, interleaved); then, for `rounds` rounds in a turning order, one
worker process, two separate ones and `accord worker -n 2` drain it (throughput and
scaling, medians); each one-process phase runs right after a bare loop of its own, and
one process's ratio to the bare loop is the median of those pairs; the one-process
phases also take a paced load at each of `load_shares` of their peak (steady state),
and the first is measured (RSS, session bytes); the deep backlog's row comes after.
Every end-to-end phase is checked exactly-once against the oracle. Micro-benchmarks
last. Nothing here asserts a timing; `Figures.ok` is the correctness of the run only.
"""

from __future__ import annotations

import asyncio
import dataclasses
import math
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
from redis.asyncio import Redis

from accord_harness.bench import micro
from accord_harness.bench.endtoend import (
    Workers,
    backlog,
    drain_rate,
    drain_start,
    exactly_once,
    held_backlog,
    paced_latency,
    percentiles,
    release,
    session_bytes,
    view_instant,
    view_reads,
    view_scopes,
)
from accord_harness.bench.floor import floor_loop
from accord_harness.bench.loops import Drain, bare_loop, faststream_batch
from accord_harness.bench.workload import Workload, build
from store.embedded import EmbeddedRedis


@dataclass(frozen=True)
class Plan:
    sessions: int
    blocks: int
    latency_sessions: int
    rounds: int
    # Several partitions, so two workers split them 2/2 and a move is a real hand-over.
    partitions: int = 4
    # Steady state: a paced load at each of these shares of the one process's peak, over
    # `latency_sessions` sessions of their own (latency p50/p99, the longest wait).
    load_shares: tuple[float, ...] = (0.2,)
    timeout_s: float = 300.0
    # Real-length chat (bench/chatter.py) instead of the short noise lines.
    real_text: bool = False
    # The deep backlog (sessions, blocks), one row beside the production shape: one
    # process against the bare loop run just before it.
    deep: tuple[int, int] | None = None


PLANS = {
    # CI: well under a minute including two worker start-ups; figures are printed only.
    "small": Plan(sessions=100, blocks=6, latency_sessions=40, rounds=1, timeout_s=120),
    # A quarter of full, one round: figures in minutes on a busy shared machine.
    "medium": Plan(
        sessions=3_000,
        blocks=2,
        latency_sessions=2_500,
        rounds=1,
        partitions=2,
        load_shares=(0.5, 0.8),
        real_text=True,
    ),
    # What a live gateway gives (docs/performance.md): 12,000 sessions interleaved over
    # two partitions, so a read holds about one entry per session, real-length chat;
    # steady state paced at half and four fifths of the peak over 10,000 sessions; and
    # the deep backlog of 2,000 sessions of 40 entries (about a dozen per read) as one row.
    "full": Plan(
        sessions=12_000,
        blocks=2,
        latency_sessions=10_000,
        rounds=3,
        partitions=2,
        load_shares=(0.5, 0.8),
        real_text=True,
        timeout_s=600.0,
        deep=(2000, 10),
    ),
}


# A record of measured numbers: fields alike in shape to worker.settings.Settings', no
# logic shared (CONTRIBUTING.md, "Repeated shapes").
@dataclass
class Figures:
    size: str
    entries: int
    flow_share: float
    load_average: tuple[float, float, float]
    baseline_per_s: float = 0.0
    faststream_batch_per_s: float = 0.0
    # The floor: read, decode, the core on in-memory state, one minimal commit per read.
    floor_per_s: float = 0.0
    # One worker process (it also serves latency, RSS and memory).
    e2e_per_s: float = 0.0
    # Two processes sharing the partitions by ownership: two separate `accord worker`
    # processes (as KEDA's pods), and one `accord worker -n 2`.
    e2e_two_processes_per_s: float = 0.0
    e2e_worker_n2_per_s: float = 0.0
    # Each round's two ratios to its own one-process phase (separate, `-n 2`): the
    # machine's speed drifts between rounds, less within one.
    scaling_by_round: list[tuple[float, float]] = field(default_factory=list)
    # Each round's bare loop, run just before its one-process phase, and the one
    # process's rate over it: the target's ratio is their median. The reference phase's
    # baseline ran a minute or more earlier, and the shared machine's speed moves by a
    # fifth in less (a run's bare loop gave 123k/s there and 105-110k/s in the others).
    baseline_by_round: list[float] = field(default_factory=list)
    e2e_vs_baseline_by_round: list[float] = field(default_factory=list)
    # CPU microseconds per entry, consumer side ("client") and Redis side, per phase; for
    # the end-to-end phases also the cores busy over the drain: workers + Redis
    # ("cores") and every process on the machine ("machine_cores").
    cpu_us_per_entry: dict[str, dict[str, float]] = field(default_factory=dict)
    # Latency at the first of `load_shares` of the peak, measured after every round's
    # one-process drain
    # (a single run swung between 5 and 20 ms on the shared machine): each round's
    # figures, and their medians (p50, p99, rate) with the samples and misses summed.
    latency: dict[str, float] = field(default_factory=dict)
    latency_by_round: list[dict[str, float]] = field(default_factory=list)
    # The same for every share of the plan ("0.5", "0.8"): medians, and each round's.
    latency_by_share: dict[str, dict[str, float]] = field(default_factory=dict)
    latency_rounds_by_share: dict[str, list[dict[str, float]]] = field(default_factory=dict)
    # The deep backlog's row (Plan.deep): entries, bare loop and one process per second,
    # their ratio, and CPU per entry.
    deep: dict[str, float] = field(default_factory=dict)
    # Scope view reads (the client's one HGET) while one worker drains the backlog, and
    # the same reads on the idle server right after, as the baseline.
    view_read: dict[str, dict[str, float]] = field(default_factory=dict)
    worker_rss_mb: float = 0.0
    redis_session_bytes: dict[str, float] = field(default_factory=dict)
    recognizer: dict[str, float] = field(default_factory=dict)
    deadlines: dict[str, float] = field(default_factory=dict)
    exactly_once: dict[str, dict[str, Any]] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return all(check["ok"] for check in self.exactly_once.values())

    def ratios(self) -> dict[str, float]:
        def share(value: float, base: float) -> float:
            return round(value / base, 3) if base else float("nan")

        paired = self.e2e_vs_baseline_by_round
        return {
            "e2e_vs_baseline": (
                round(statistics.median(paired), 3)
                if paired
                else share(self.e2e_per_s, self.baseline_per_s)
            ),
            "e2e_vs_reference_baseline": share(self.e2e_per_s, self.baseline_per_s),
            "faststream_batch_vs_baseline": share(self.faststream_batch_per_s, self.baseline_per_s),
            "floor_vs_baseline": share(self.floor_per_s, self.baseline_per_s),
            "e2e_vs_floor": share(self.e2e_per_s, self.floor_per_s),
            "scaling_2_vs_1_process": share(self.e2e_two_processes_per_s, self.e2e_per_s),
            "scaling_worker_n2_vs_1_process": share(self.e2e_worker_n2_per_s, self.e2e_per_s),
            "view_read_p50_loaded_vs_idle": share(
                self.view_read.get("loaded", {}).get("p50_ms", 0),
                self.view_read.get("idle", {}).get("p50_ms", 0),
            ),
        }

    def to_json(self) -> str:
        plain = {**dataclasses.asdict(self), "ratios": self.ratios(), "ok": self.ok}
        return msgspec.json.encode(plain).decode()

    def lines(self) -> list[str]:
        r = self.ratios()
        lat = self.latency
        rec = self.recognizer
        out = [
            (
                f"workload: {self.entries} entries, {self.flow_share:.1%} in agreement flows"
                f" (size {self.size}); load average {self.load_average[0]:.2f}"
            ),
            f"baseline (bare XREADGROUP+decode+XACK): {self.baseline_per_s:,.0f} entries/s",
            (
                f"FastStream batch subscriber alone:      {self.faststream_batch_per_s:,.0f}"
                f" entries/s ({r['faststream_batch_vs_baseline']:.2f}x baseline)"
            ),
            (
                f"floor (read, decode, core, minimal commit): {self.floor_per_s:,.0f}"
                f" entries/s ({r['floor_vs_baseline']:.2f}x baseline)"
            ),
            (
                f"accord end to end, 1 process:                   {self.e2e_per_s:,.0f}"
                f" entries/s ({r['e2e_vs_baseline']:.2f}x the bare loop beside it,"
                f" {r['e2e_vs_reference_baseline']:.2f}x baseline, {r['e2e_vs_floor']:.2f}x floor)"
            ),
            "1 process by round (x the bare loop run just before it): "
            + ", ".join(
                f"{ratio:.2f} of {bare:,.0f}/s"
                for ratio, bare in zip(
                    self.e2e_vs_baseline_by_round, self.baseline_by_round, strict=True
                )
            ),
            (
                f"accord end to end, 2 separate processes:         "
                f"{self.e2e_two_processes_per_s:,.0f} entries/s"
                f" ({r['scaling_2_vs_1_process']:.2f}x one process)"
            ),
            (
                f"accord end to end, accord worker -n 2:           "
                f"{self.e2e_worker_n2_per_s:,.0f} entries/s"
                f" ({r['scaling_worker_n2_vs_1_process']:.2f}x one process)"
            ),
            "scaling by round (2 separate, -n 2; x that round's one process): "
            + ", ".join(f"{a:.2f} / {b:.2f}" for a, b in self.scaling_by_round),
            (
                f"latency XADD->event at {lat.get('rate', 0):,.0f}/s:"
                f" p50 {lat.get('p50_ms', 0):.2f} ms, p99 {lat.get('p99_ms', 0):.2f} ms"
                f" ({lat.get('samples', 0):.0f} samples"
                + (
                    f", medians of {len(self.latency_by_round)} rounds)"
                    if len(self.latency_by_round) > 1
                    else ")"
                )
            ),
            "latency by round (p50 / p99 ms at rate): "
            + ", ".join(
                f"{one['p50_ms']:.2f} / {one['p99_ms']:.2f} at {one['rate']:,.0f}/s"
                for one in self.latency_by_round
            ),
            *(
                f"steady state at {share} of peak ({one['rate']:,.0f}/s): p50 {one['p50_ms']:.2f}"
                f" ms, p99 {one['p99_ms']:.2f} ms, longest wait {one['max_ms']:.1f} ms,"
                f" {one['missing']:.0f} events missing"
                for share, one in self.latency_by_share.items()
            ),
            *(
                [
                    (
                        f"deep backlog ({self.deep['entries']:.0f} entries, about a dozen per"
                        f" session per read): 1 process {self.deep['e2e_per_s']:,.0f}/s ="
                        f" {self.deep['ratio']:.2f}x the bare loop beside it"
                        f" ({self.deep['bare_per_s']:,.0f}/s);"
                        f" {self.deep['client_us']:.1f} us consumer +"
                        f" {self.deep['redis_us']:.1f} us Redis per entry"
                    )
                ]
                if self.deep
                else []
            ),
            *(
                f"view read ({name}): p50 {v['p50_ms']:.3f} ms, p99 {v['p99_ms']:.3f} ms"
                f" ({v['samples']:.0f} reads)"
                for name, v in self.view_read.items()
            ),
            f"view read p50 under load: {r['view_read_p50_loaded_vs_idle']:.2f}x idle",
            *(
                f"CPU per entry, {name}: {cpu['client']:.1f} us consumer + "
                f"{cpu['redis']:.1f} us Redis"
                + (
                    f"; cores busy: {cpu['cores']:.2f} workers + Redis,"
                    f" {cpu['machine_cores']:.2f} of {os.cpu_count()} machine-wide"
                    if "cores" in cpu
                    else ""
                )
                for name, cpu in self.cpu_us_per_entry.items()
            ),
            f"worker peak RSS: {self.worker_rss_mb:.1f} MB",
            (
                f"Redis per idle session: {self.redis_session_bytes.get('mean', 0):.0f} B mean,"
                f" {self.redis_session_bytes.get('max', 0):.0f} B max"
            ),
            (
                f"recognizer: {rec.get('ordinary_turns_per_s', 0):,.0f} ordinary turns/s,"
                f" {rec.get('proposals_per_s', 0):,.0f} full proposals/s (CPU time)"
            ),
            (
                f"deadlines: find {self.deadlines.get('find_us', 0):.1f} us,"
                f" resolve {self.deadlines.get('resolve_us', 0):.1f} us per call (CPU time)"
            ),
        ]
        checks = (f"{k} {'ok' if v['ok'] else v}" for k, v in self.exactly_once.items())
        out.append("exactly once: " + ", ".join(checks))
        out.append(f"run took {self.seconds:.1f} s")
        return out


async def _fresh(redis: Redis, workload: Workload) -> dict[str, list[tuple[int, int]]]:
    await redis.flushall()
    return await backlog(redis, workload)


async def _reference_loops(
    redis: Redis, url: str, workload: Workload, plan: Plan, figures: Figures
) -> None:
    total = len(workload.documents)
    bare: list[Drain] = []
    floor: list[Drain] = []
    framework = []
    for _ in range(plan.rounds):
        await _fresh(redis, workload)
        bare.append(await bare_loop(redis, workload.partitions, total))
        await _fresh(redis, workload)
        framework.append(await faststream_batch(redis, url, workload.partitions, total))
        await _fresh(redis, workload)
        floor.append(await floor_loop(redis, workload.partitions, total))
    figures.baseline_per_s = statistics.median(d.per_s for d in bare)
    figures.faststream_batch_per_s = statistics.median(framework)
    figures.floor_per_s = statistics.median(d.per_s for d in floor)
    figures.cpu_us_per_entry["baseline"] = _cpu(bare)
    figures.cpu_us_per_entry["floor"] = _cpu(floor)


def _cpu(drains: list[Drain]) -> dict[str, float]:
    cpu = {
        "client": statistics.median(d.cpu_us for d in drains),
        "redis": statistics.median(d.redis_cpu_us for d in drains),
    }
    if all(math.isfinite(d.machine_cores) for d in drains):
        # Cores kept busy by the workers and Redis, and by everything on the machine: two
        # workers cannot scale past what the shared machine leaves them.
        cpu["cores"] = statistics.median(
            d.per_s * (d.cpu_us + d.redis_cpu_us) / 1e6 for d in drains
        )
        cpu["machine_cores"] = statistics.median(d.machine_cores for d in drains)
    return cpu


async def _end_to_end(  # noqa: PLR0913  (one phase's inputs, all needed)
    redis: Redis, url: str, workload: Workload, *, latency_loads: dict[float, Workload],
    plan: Plan, processes: int, figures: Figures, logs: Path,
    launch: str = "separate", first: bool = False, phase: str = "",
) -> Drain:  # fmt: skip
    await redis.flushall()
    # Written before the workers start, held back from them until each reads and owns its
    # share: start-up (imports, connections, the partitions' hand-over) is left out, no
    # write competes with the drain, and every phase measures alike (endtoend.py).
    ids = await held_backlog(redis, workload)
    workers = Workers(url, workload.partitions, processes, logs, launch)
    phase = phase or f"{processes}_process" + (f"_{launch}" if processes > 1 else "")
    workers.start()
    try:
        await workers.ready(redis, plan.timeout_s)
        written_from = await drain_start(redis, workers)
        await release(redis, workload.partitions)
        # From the backlog's release to the end of the drain.
        stop_reads = asyncio.Event()
        scopes, instant = view_scopes(workload), view_instant(workload)
        reads = (
            asyncio.create_task(view_reads(url, workload.partitions, scopes, stop_reads, instant))
            if first
            else None
        )
        drain = await drain_rate(redis, workers, ids, plan.timeout_s, written_from)
        if reads is not None:
            stop_reads.set()
            figures.view_read["loaded"] = percentiles(await reads)
            idle = await view_reads(url, workload.partitions, scopes, 300, instant)
            figures.view_read["idle"] = percentiles(idle)
        checked = [workload]
        for share, load in latency_loads.items():
            paced = await paced_latency(redis, url, load, drain.per_s * share, plan.timeout_s)
            figures.latency_rounds_by_share.setdefault(str(share), []).append(paced)
            checked.append(load)
        if first:
            figures.worker_rss_mb = max(workers.peak_rss_bytes()) / 2**20
            figures.redis_session_bytes = await session_bytes(redis)
    finally:
        codes = workers.stop()
    check = await exactly_once(redis, checked)
    check["worker_exit_codes"] = codes
    check["ok"] = check["ok"] and all(code == 0 for code in codes)
    if figures.exactly_once.get(phase, {}).get("ok", True):  # a failed round's check stays
        figures.exactly_once[phase] = check
    return drain


# The end-to-end phases: (processes, launch). Each round runs all three, the order turned
# by one place a round, so no launch is always the last (the shared machine's speed
# drifts within minutes); rates and CPU are medians over the rounds.
PHASES = ((1, "separate"), (2, "separate"), (2, "supervised"))
PHASE_NAMES = {
    (1, "separate"): "end to end, one worker process",
    (2, "separate"): "end to end, two separate worker processes (partition ownership)",
    (2, "supervised"): "end to end, accord worker -n 2 (partition ownership)",
}


async def _scaling(  # noqa: PLR0913  (the run's inputs, all needed)
    redis: Redis, url: str, workload: Workload, *, latency_loads: dict[float, Workload],
    plan: Plan, figures: Figures, logs: Path, say: Callable[[str], None],
) -> None:  # fmt: skip
    drains: dict[tuple[int, str], list[Drain]] = {phase: [] for phase in PHASES}
    bare: list[Drain] = []
    for round_ in range(plan.rounds):
        for processes, launch in PHASES[round_ % 3 :] + PHASES[: round_ % 3]:
            # Every one-process phase also serves latency; the first also view reads, RSS
            # and memory.
            one = processes == 1
            first = one and not drains[processes, launch]
            if one:
                # Its own bare loop, just before: the pair's ratio sees one machine speed.
                say("bare loop (beside the one-process phase that follows)")
                await _fresh(redis, workload)
                bare.append(await bare_loop(redis, workload.partitions, len(workload.documents)))
            say(
                PHASE_NAMES[processes, launch]
                + (" (+ latency, RSS, memory)" if first else " (+ latency)" if one else "")
            )
            drain = await _end_to_end(
                redis, url, workload, latency_loads=latency_loads if one else {},
                plan=plan, processes=processes, figures=figures, logs=logs, launch=launch,
                first=first,
            )  # fmt: skip
            drains[processes, launch].append(drain)
    for (processes, launch), measured in drains.items():
        phase = f"{processes}_process" + (f"_{launch}" if processes > 1 else "")
        figures.cpu_us_per_entry[phase] = _cpu(measured)
    figures.e2e_per_s = statistics.median(d.per_s for d in drains[1, "separate"])
    figures.e2e_two_processes_per_s = statistics.median(d.per_s for d in drains[2, "separate"])
    figures.e2e_worker_n2_per_s = statistics.median(d.per_s for d in drains[2, "supervised"])
    figures.latency_by_share = {
        share: _latency(rounds) for share, rounds in figures.latency_rounds_by_share.items()
    }
    # The first share's, as the run's latency figure.
    figures.latency_by_round = next(iter(figures.latency_rounds_by_share.values()), [])
    figures.latency = _latency(figures.latency_by_round)
    figures.baseline_by_round = [round(d.per_s) for d in bare]
    figures.e2e_vs_baseline_by_round = [
        round(one.per_s / reference.per_s, 3)
        for one, reference in zip(drains[1, "separate"], bare, strict=True)
    ]
    figures.scaling_by_round = [
        (round(two.per_s / one.per_s, 3), round(n2.per_s / one.per_s, 3))
        for one, two, n2 in zip(*(drains[phase] for phase in PHASES), strict=True)
    ]


async def _deep_row(  # noqa: PLR0913, PLR0917  (the run's inputs, all needed)
    redis: Redis, url: str, plan: Plan, figures: Figures, logs: Path,
    say: Callable[[str], None],
) -> None:  # fmt: skip
    """The deep backlog, one row: a bare loop, then one process, on the same backlog."""
    assert plan.deep is not None
    sessions, blocks = plan.deep
    deep = build(sessions=sessions, blocks=blocks, partitions=plan.partitions, prefix="deep")
    say("deep backlog: bare loop, then one process")
    await _fresh(redis, deep)
    bare = await bare_loop(redis, deep.partitions, len(deep.documents))
    one = await _end_to_end(
        redis, url, deep, latency_loads={}, plan=plan, processes=1, figures=figures,
        logs=logs, phase="1_process_deep",
    )  # fmt: skip
    figures.deep = {
        "entries": len(deep.documents),
        "bare_per_s": round(bare.per_s),
        "e2e_per_s": round(one.per_s),
        "ratio": round(one.per_s / bare.per_s, 3),
        "client_us": one.cpu_us,
        "redis_us": one.redis_cpu_us,
    }


def _latency(rounds: list[dict[str, float]]) -> dict[str, float]:
    """The rounds' latency as one figure: medians of p50, p99 and rate, the longest
    wait, and the samples and misses summed."""
    if not rounds:
        return {}
    return {
        "rate": statistics.median(r["rate"] for r in rounds),
        "samples": sum(r["samples"] for r in rounds),
        "missing": sum(r["missing"] for r in rounds),
        "p50_ms": statistics.median(r["p50_ms"] for r in rounds),
        "p99_ms": statistics.median(r["p99_ms"] for r in rounds),
        "max_ms": max(r["max_ms"] for r in rounds),
    }


async def run(size: str, say: Callable[[str], None] = lambda _: None) -> Figures:
    plan = PLANS[size]
    started = time.perf_counter()
    workload = build(
        sessions=plan.sessions, blocks=plan.blocks, partitions=plan.partitions,
        real_text=plan.real_text,
    )  # fmt: skip
    # One paced workload per share (each one's sessions and seqs are written once).
    latency_loads = {
        share: build(
            sessions=plan.latency_sessions,
            blocks=plan.blocks,
            partitions=plan.partitions,
            prefix=f"lat{index}",
            real_text=plan.real_text,
        )
        for index, share in enumerate(plan.load_shares)
    }
    figures = Figures(
        size=size,
        entries=len(workload.documents),
        flow_share=workload.flow_entries / len(workload.documents),
        load_average=os.getloadavg(),
    )
    with EmbeddedRedis() as server, tempfile.TemporaryDirectory() as logs:
        redis = Redis.from_url(server.url)
        try:
            say("reference loops (bare redis-py, FastStream batch subscriber, floor)")
            await _reference_loops(redis, server.url, workload, plan, figures)
            await _scaling(
                redis, server.url, workload, latency_loads=latency_loads, plan=plan,
                figures=figures, logs=Path(logs), say=say,
            )  # fmt: skip
            if plan.deep is not None:
                await _deep_row(redis, server.url, plan, figures, Path(logs), say)
        finally:
            await redis.aclose()
    say("micro-benchmarks (recognizer, deadlines)")
    figures.recognizer = micro.recognizer()
    figures.deadlines = micro.deadlines()
    figures.seconds = time.perf_counter() - started
    return figures
