"""The benchmark's CI-size run: it runs, prints every figure, and is exactly once.

Timings are printed, never asserted (DESIGN section 5: speed is a ratio measured in a
benchmark, not a test). What is asserted is the run's correctness: every input of every
end-to-end phase acked, none dead-lettered, and exactly the oracle's agreement events
committed once each (R15), with one and with two worker processes.
"""

from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path
from typing import Any, cast

import pytest
import typer
from accord_harness import bench_command as bench
from accord_harness.bench import run as run_module
from accord_harness.bench.chatter import EN_ASSISTANT, EN_USER, ZH_ASSISTANT, ZH_USER
from accord_harness.bench.endtoend import (
    Workers,
    acked,
    expected_events,
    held_backlog,
    release,
    write,
)
from accord_harness.bench.floor import floor_loop
from accord_harness.bench.loops import machine_busy_s, streams_of
from accord_harness.bench.run import PLANS
from accord_harness.bench.workload import FLOW, build, entries
from redis.asyncio import Redis
from typer.testing import CliRunner

from contracts.streams import GROUP, EntryId
from core.intents import NoIntent
from core.recognition.recognizer import recognize
from store import ownership
from store.intake import ensure_groups
from store.ownership import Fence

pytestmark = [pytest.mark.redis, pytest.mark.slow]

LEASE_MS = 60_000


def test_workload_is_mostly_ordinary_with_a_few_percent_of_agreement_flows() -> None:
    workload = build(sessions=100, blocks=6, partitions=2)
    kinds = {d["type"] for d in workload.documents}
    todo_results = [d for d in workload.documents if d["type"] == "tool_result"]
    assert kinds == {"chat_turn", "tool_call", "tool_result"}
    assert all(d["name"] == "todo_write" and d["todos"] for d in todo_results)
    assert 0.02 <= workload.flow_entries / len(workload.documents) <= 0.06
    # Every flow commits proposed, agent_accepted, open and one tool outcome (R2-R5).
    assert expected_events([workload]) == workload.flows * FLOW


def test_seqs_of_every_session_are_gapless_and_written_in_order() -> None:
    """The producer writes each session's seq 1, 2, 3, ... in order (R15's contract)."""
    workload = build(sessions=30, blocks=3, partitions=2)
    last: dict[str, int] = {}
    for document in workload.documents:
        assert document["seq"] == last.get(document["session_id"], 0) + 1
        last[document["session_id"]] = document["seq"]


# Four worker phases, each starting Python processes: minutes on a loaded shared machine.
@pytest.mark.timeout(900)
def test_small_bench_run_prints_every_figure_and_is_exactly_once_r15() -> None:
    # In process (typer's runner), so a timeout still stops the workers and Redis it started.
    app = typer.Typer()
    bench.register(app)
    done = CliRunner().invoke(app, ["--json"], catch_exceptions=False)
    sys.stdout.write(done.stdout)  # the figures, for the CI log (-s or on failure)
    assert done.exit_code == 0
    figures = json.loads(done.stdout)
    assert figures["ok"] is True
    # Two processes sharing the partitions by ownership: separate, and `accord worker -n 2`.
    phases = (
        "1_process",
        "2_process_separate",
        "2_process_supervised",
    )
    assert set(figures["exactly_once"]) == set(phases)
    for phase in phases:
        check = figures["exactly_once"][phase]
        assert check["events_committed"] == check["events_expected"] > 0
        assert check["duplicate_event_ids"] == check["pending"] == check["dead_letters"] == 0
        started = 1 if phase.endswith("supervised") else int(phase[0])
        assert check["worker_exit_codes"] == [0] * started
    rates = ("baseline_per_s", "faststream_batch_per_s", "floor_per_s", "e2e_per_s",
             "e2e_two_processes_per_s", "e2e_worker_n2_per_s")  # fmt: skip
    for name in rates:
        assert figures[name] > 0, name
    # One round at this size: one pair of ratios, each to that round's one process.
    assert len(figures["scaling_by_round"]) == 1
    assert all(ratio > 0 for ratio in figures["scaling_by_round"][0])
    # The round's one process over the bare loop run just before it: the target's ratio.
    assert len(figures["baseline_by_round"]) == len(figures["e2e_vs_baseline_by_round"]) == 1
    assert figures["baseline_by_round"][0] > 0
    assert figures["ratios"]["e2e_vs_baseline"] == pytest.approx(
        figures["e2e_per_s"] / figures["baseline_by_round"][0], abs=1e-3
    )
    assert figures["latency"]["samples"] > 0
    assert figures["latency"]["missing"] == 0
    # Latency is measured after each round's one-process drain; one round here.
    assert len(figures["latency_by_round"]) == 1
    assert figures["latency"]["p50_ms"] == figures["latency_by_round"][0]["p50_ms"] > 0
    assert figures["worker_rss_mb"] > 0
    # The gateway's view read, under the drain and idle, through the real client.
    assert figures["view_read"]["loaded"]["samples"] > 0
    assert figures["view_read"]["idle"]["samples"] == 300
    assert figures["redis_session_bytes"]["sampled"] > 0
    assert set(figures["ratios"]) == {
        "e2e_vs_baseline",
        "e2e_vs_reference_baseline",
        "faststream_batch_vs_baseline",
        "floor_vs_baseline",
        "e2e_vs_floor",
        "view_read_p50_loaded_vs_idle",
        "scaling_2_vs_1_process",
        "scaling_worker_n2_vs_1_process",
    }
    assert all(math.isfinite(v) for v in figures["recognizer"].values())


@pytest.mark.asyncio
async def test_the_floor_loop_does_the_work_it_claims(redis_url: str) -> None:
    """The floor (harness/accord_harness/bench/floor.py) is a lower bound only if it does the
    work: every entry acked, every session's next seq stored, the core's agreement events
    appended."""
    workload = build(sessions=20, blocks=3, partitions=2)
    redis = Redis.from_url(redis_url)
    try:
        await redis.flushall()
        await ensure_groups(redis, range(2), GROUP)
        await write(redis, entries(workload))
        drain = await floor_loop(redis, 2, len(workload.documents))
        assert drain.per_s > 0
        for stream in streams_of(2):
            summary: Any = await redis.xpending(stream, GROUP)
            assert summary["pending"] == 0, stream
        last_seq: dict[tuple[str, ...], int] = {}
        for document in workload.documents:
            key = tuple(str(document[f]) for f in ("agent_id", "user_id", "session_id"))
            last_seq[key] = max(last_seq.get(key, 0), int(document["seq"]))
        for key, seq in last_seq.items():
            stored: Any = await redis.hget("floor-session:{p}:" + ":".join(key), "n")
            assert int(stored) == seq + 1, key
        assert await redis.xlen("floor-events:{p}") > 0
    finally:
        await redis.aclose()


@pytest.mark.asyncio
async def test_a_held_backlog_reaches_the_group_only_when_released(redis_url: str) -> None:
    """Every phase's drain starts with the whole backlog written and none of it read:
    a worker reading before `release` gets nothing, after it every entry, in order."""
    workload = build(sessions=10, blocks=2, partitions=2)
    redis = Redis.from_url(redis_url)
    try:
        await redis.flushall()
        ids = await held_backlog(redis, workload)
        streams = dict.fromkeys(streams_of(2), ">")
        before: Any = await redis.xreadgroup(GROUP, "early", cast("Any", streams))
        assert not before
        await release(redis, 2)
        after: Any = await redis.xreadgroup(GROUP, "late", cast("Any", streams))
        read = {stream.decode(): [entry_id for entry_id, _ in batch] for stream, batch in after}
        assert sum(map(len, read.values())) == len(workload.documents)
        for stream, written in ids.items():
            assert [EntryId.parse(i) for i in read[stream]] == written
        assert await acked(redis, ids) == 0
    finally:
        await redis.aclose()


@pytest.mark.asyncio
async def test_workers_count_as_balanced_only_when_each_owns_its_fair_share(
    redis_url: str, tmp_path: Path
) -> None:
    """A phase's clock starts once ownership has settled: a worker that took every
    partition before the other joined hands them over one at a time, so "every
    partition owned, by two workers" also holds at 3/1, and a partition would still
    move (its cache cleared, its pending claimed) inside the measured drain."""
    workers = Workers(redis_url, partitions=4, count=2, log_dir=tmp_path)
    redis = Redis.from_url(redis_url)
    try:
        await redis.flushall()
        for partition in (0, 1, 2):
            assert (await ownership.acquire(redis, partition, "first", LEASE_MS, 8)).held
        assert not await workers.balanced(redis)  # 3 and none: one owner
        assert (await ownership.acquire(redis, 3, "second", LEASE_MS, 8)).held
        assert not await workers.balanced(redis)  # 3/1: partition 1 is still to move
        token, _ = await ownership.lease_of(redis, 1)
        assert await ownership.release(redis, Fence(1, token))
        assert not await workers.balanced(redis)  # 2/1 and partition 1 unowned
        assert (await ownership.acquire(redis, 1, "second", LEASE_MS, 8)).held
        assert await workers.balanced(redis)  # 2/2
    finally:
        await redis.aclose()


def test_machine_busy_counts_the_cpu_this_process_spends() -> None:
    """The bench says how much of the shared machine a phase had: `machine_busy_s`
    counts every process's CPU, so it grows by at least what this one spins."""
    before_machine, before_self = machine_busy_s(), time.process_time()
    while time.process_time() - before_self < 0.3:
        pass
    spent = time.process_time() - before_self
    # Clock ticks are 10 ms: allow two of them either side.
    assert machine_busy_s() - before_machine >= spent - 0.02


def test_the_rounds_latency_is_their_medians_with_samples_summed() -> None:
    """One latency figure from several rounds: the median round, not the first or best."""
    rounds = [
        {
            "rate": 2000.0,
            "samples": 300,
            "missing": 0,
            "p50_ms": 5.0,
            "p99_ms": 30.0,
            "max_ms": 40.0,
        },
        {
            "rate": 2200.0,
            "samples": 300,
            "missing": 1,
            "p50_ms": 19.0,
            "p99_ms": 12.0,
            "max_ms": 60.0,
        },
        {
            "rate": 2100.0,
            "samples": 299,
            "missing": 0,
            "p50_ms": 6.0,
            "p99_ms": 20.0,
            "max_ms": 25.0,
        },
    ]
    assert run_module._latency(rounds) == {
        "rate": 2100.0,
        "samples": 899,
        "missing": 1,
        "p50_ms": 6.0,
        "p99_ms": 20.0,
        "max_ms": 60.0,
    }
    assert run_module._latency([]) == {}


def test_the_printed_figures_show_each_rounds_pair_and_the_median_ratio() -> None:
    """The one-process line gives the median of the rounds' ratios to the bare loop run
    just before each, beside the ratio to the reference phase's baseline, and a line lists
    every round's ratio with its bare loop (what the JSON holds, in words)."""
    figures = run_module.Figures(
        size="full", entries=100, flow_share=0.02, load_average=(0.5, 0.5, 0.5)
    )
    figures.baseline_per_s, figures.floor_per_s, figures.e2e_per_s = 120_000, 80_000, 60_000
    figures.baseline_by_round = [100_000, 150_000, 110_000]
    figures.e2e_vs_baseline_by_round = [0.6, 0.4, 0.55]
    assert figures.ratios()["e2e_vs_baseline"] == 0.55
    assert figures.ratios()["e2e_vs_reference_baseline"] == 0.5
    lines = "\n".join(figures.lines())
    assert "(0.55x the bare loop beside it, 0.50x baseline, 0.75x floor)" in lines
    assert "0.60 of 100,000/s, 0.40 of 150,000/s, 0.55 of 110,000/s" in lines


def test_the_production_chatter_is_of_real_length_and_holds_no_phrase_r1() -> None:
    """R1, R18: every line of the production-shape chat is an ordinary turn (no intent read
    as a user's, no claim as the assistant's), English 40-200 characters, Chinese 15-80;
    a line with a phrase is found, so the check can fail."""
    english, chinese = EN_USER + EN_ASSISTANT, ZH_USER + ZH_ASSISTANT
    assert all(40 <= len(line) <= 200 for line in english)
    assert all(15 <= len(line) <= 80 for line in chinese)
    for line in english + chinese:
        assert recognize(line, "user") == NoIntent(), line
        assert recognize(line, "assistant") == NoIntent(), line
    assert recognize("Let's agree: start with the conclusion.", "user") != NoIntent()


def test_the_production_shape_holds_about_one_entry_per_session_per_read() -> None:
    """The production plan interleaves enough sessions that a read of the batch size
    (2,000 per stream) holds at most about 1.5 entries per session."""
    plan = PLANS["full"]
    workload = build(
        sessions=plan.sessions, blocks=plan.blocks, partitions=plan.partitions, real_text=True
    )
    read = workload.documents[: 2_000 * 3]
    sessions = {(d["agent_id"], d["user_id"], d["session_id"]) for d in read}
    assert len(read) / len(sessions) <= 1.5
