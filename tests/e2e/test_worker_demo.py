"""The README's main command: `accord demo` with no REDIS_URL, and `accord worker -n 2`."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
import redis

from store.keys import heartbeat_pattern
from tests.support.worker_kit import ROOT, worker_env

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

ACCORD = [sys.executable, "-c", "from worker.cli import main; main()"]


def test_demo_runs_every_scenario_in_both_languages_on_embedded_redis() -> None:
    """No REDIS_URL: embedded Redis and a worker; every scenario EN and ZH; exit 0."""
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env["COLUMNS"] = "160"
    done = subprocess.run(  # noqa: S603
        [*ACCORD, "demo"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=200,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    out = done.stdout
    assert "on embedded Redis" in out
    for number in range(1, 14):
        assert out.count(f"{number:02d} ") >= 2, f"scenario {number:02d} missing"
    assert "(en)" in out
    assert "(zh)" in out
    assert "我接受这个约定" in out
    assert "proposed -> open (user_accepted" in out
    assert "open -> fulfilled (delivery_verified)" in out
    assert "expired -> fulfilled (delivery_verified)" in out
    assert "clarification requested" in out
    assert "open -> open (amendment_proposed, amendment no acceptance yet)" in out
    assert "open -> open (amendment_lapsed)" in out
    assert "claim unverified (agreement claim" in out
    assert "claim unverified (delivery claim" in out
    assert "demo done: 158 inputs" in out


def test_worker_runs_n_processes_and_stops_them_on_sigterm(redis_url: str) -> None:
    """`accord worker -n 2`: two consumers with their own names; SIGTERM stops both, exit 0."""
    client = redis.Redis.from_url(redis_url)
    client.flushall()
    supervisor = subprocess.Popen(  # noqa: S603
        [*ACCORD, "worker", "-n", "2"], cwd=ROOT, env=worker_env(redis_url)
    )
    try:
        # Generous: two interpreters start and import the worker on a possibly busy machine.
        deadline = time.monotonic() + 150
        beats: list[bytes] = []
        while time.monotonic() < deadline and len(beats) < 2:
            time.sleep(0.1)
            beats = list(client.scan_iter(match=heartbeat_pattern()))
        # One heartbeat key per consumer name: two processes, two names, two PELs.
        assert len(beats) == 2
    finally:
        supervisor.send_signal(signal.SIGTERM)
        code = supervisor.wait(timeout=90)
        client.close()
    assert code == 0
