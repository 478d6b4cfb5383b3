"""The chaos harness at its small size, and the planted bug it must catch (R15).

Real `accord worker` processes (harness/accord_harness/chaos/node.py) on a real redis-server with
`appendonly yes` and `appendfsync always`, reached through the fault proxy, while the
harness SIGKILLs workers, arms crash points, restarts Redis (SHUTDOWN NOSAVE, kill -9),
CLIENT KILLs connections, resets, stalls and slows the proxy, writes duplicates,
reorders across the three streams and writes poison. `accord chaos --size full` is
the same with 1,000 sessions and 100,000 events (docs/reliability.md).
"""

from __future__ import annotations

import dataclasses

import pytest
import typer
from accord_harness import chaos_command
from accord_harness.chaos.run import PLANS, Report, run_chaos
from typer.testing import CliRunner


def _summary(report: Report) -> str:
    return "\n".join([str(report.by_check), *report.differences[:30]])


@pytest.mark.redis
@pytest.mark.slow
@pytest.mark.asyncio
@pytest.mark.timeout(400)
async def test_every_fault_at_small_size_ends_equal_to_the_oracle() -> None:
    """R15: nothing lost, no duplicate event, same per-session order and store, DLQ = poison,
    while partitions move between workers that are killed, added and stopped."""
    report = await run_chaos(PLANS["small"], say=lambda _: None)
    assert report.settled, _summary(report)
    assert report.differences == [], _summary(report)
    faults = report.faults
    # The faults did happen (a run that injected nothing would prove nothing).
    assert faults["worker_sigkills"] >= 4
    assert faults["redis_restarts"] == {"kill9": 1, "shutdown_nosave": 1}
    assert faults.get("client_kill_blocked_read", 0) >= 1
    assert faults.get("client_kill_after_script", 0) >= 1
    assert faults["proxy_connections_reset"] >= 1
    assert faults["proxy_stalls"] >= 1
    assert sum(faults["crash_point_exits"].values()) >= 1
    # Partitions moved while entries flowed: a worker joined, workers stopped cleanly
    # and were killed, and leases changed hands (docs/store.md, "Partition ownership").
    assert faults["worker_add"] == 1
    assert faults["worker_clean_stops"] >= 1
    assert any(n > 1 for n in faults["partition_acquisitions"].values())
    # Suspects tried alone are counted from the worker logs (a number, 0 when none).
    assert isinstance(faults["suspect_tries"], int)
    assert all(loss["lost"] == 0 for loss in report.lost_on_restart)
    counts = report.counts
    assert counts["lost_writes"] == 0
    assert counts["events"] == report.workload["oracle_events"]
    # Every poison entry in the streams is dead-lettered once: a gateway XADD retried
    # across a connection reset or a Redis restart may have stored a poison entry twice,
    # and each copy is its own entry (the check names any other dead letter).
    assert counts["dead_letters"] == counts["poison_entries"] >= report.workload["poison"]
    assert report.workload["duplicates"] > 0


@pytest.mark.redis
@pytest.mark.slow
@pytest.mark.asyncio
@pytest.mark.timeout(300)
async def test_a_planted_ack_before_commit_is_caught() -> None:
    """R15: a worker that XACKs before its commit loses inputs; the checks name them."""
    plan = dataclasses.replace(
        PLANS["small"],
        sessions=16,
        events_per_session=24,
        write_rate=60.0,
        worker_kills=2,
        redis_restarts=0,
        client_kills=0,
        proxy_resets=0,
        stalls=0,
        latency_windows=0,
        crash_share=1.0,
        crash_after=(1, 4),
        settle_timeout_s=15.0,
        plant="ack_before_commit",
    )
    report = await run_chaos(plan, say=lambda _: None)
    assert not report.ok
    assert not report.settled
    # Sessions stop at the lost seq; what follows waits parked behind it.
    assert report.by_check.get("applied", 0) >= 1, _summary(report)
    assert report.by_check.get("event_order", 0) >= 1, _summary(report)
    assert any(d.startswith("[applied] session=") for d in report.differences)


def test_an_unknown_planted_bug_is_one_line_and_exit_2() -> None:
    """`accord chaos --plant` names a bug the harness knows, or says which it knows."""
    app = typer.Typer()
    chaos_command.register(app)
    done = CliRunner().invoke(app, ["--plant", "nonsense"])
    assert done.exit_code == 2
    assert "--plant must be one of ack_before_commit, trusted_ack_only" in done.output
    assert "Traceback" not in done.output
