"""The README's main command: `accord demo` with no REDIS_URL, and `accord worker -n 2`."""

from __future__ import annotations

import signal
import subprocess
import time

import pytest
import redis

from store.keys import heartbeat_pattern
from tests.support.cli_kit import ENTRY, accord_process, command_env
from tests.support.paths import ROOT
from tests.support.worker_kit import worker_env

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


@pytest.mark.parametrize("server", ["valkey", "redis"])
def test_demo_runs_every_scenario_in_both_languages_on_embedded_redis(server: str) -> None:
    """No REDIS_URL: the embedded Valkey 9 (the default) or Redis 6.2
    (ACCORD_REDIS_SERVER=redis) and a worker; every scenario EN and ZH with the same
    outcome on both; exit 0 (R1-R18)."""
    env = command_env(None, ACCORD_REDIS_SERVER=server)
    done = accord_process("demo", env=env, columns=160, timeout=200)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    out = done.stdout
    assert f"on embedded {server}-server" in out
    for number in range(1, 14):
        assert out.count(f"{number:02d} ") >= 2, f"scenario {number:02d} missing"
    for shown in (
        "(en)",
        "(zh)",
        "我接受这个约定",
        "proposed -> open (user_accepted",
        "open -> fulfilled (delivery_verified)",
        "expired -> fulfilled (delivery_verified)",
        "clarification requested",
        "open -> open (amendment_proposed, amendment no acceptance yet)",
        "open -> open (amendment_lapsed)",
        "claim unverified (agreement claim",
        "claim unverified (delivery claim",
        "demo done: 158 inputs",
    ):
        assert shown in out, shown


def test_worker_runs_n_processes_and_stops_them_on_sigterm(redis_url: str) -> None:
    """`accord worker -n 2`: two consumers with their own names; SIGTERM stops both, exit 0."""
    client = redis.Redis.from_url(redis_url)
    client.flushall()
    supervisor = subprocess.Popen(  # noqa: S603
        [*ENTRY, "worker", "-n", "2"], cwd=ROOT, env=worker_env(redis_url)
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
