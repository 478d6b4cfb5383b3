"""A worker that cannot start says so and exits non-zero; `-n N` gives each process its
own metrics port. Real worker processes against the embedded Redis."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from store.embedded import free_port
from tests.support.paths import ROOT
from tests.support.worker_kit import worker_env

pytestmark = [pytest.mark.redis, pytest.mark.timeout(90)]

COMMAND = [sys.executable, "-c", "from worker.cli import main; main()", "worker"]


def test_a_taken_metrics_port_fails_the_start_with_one_line_and_exit_1(redis_url: str) -> None:
    """No half-started worker: the loops never start, the process exits 1 and says why."""
    with socket.socket() as taken:
        taken.bind(("0.0.0.0", 0))  # noqa: S104  (the worker binds all interfaces too)
        taken.listen()
        port = taken.getsockname()[1]
        env = worker_env(redis_url, ACCORD_METRICS_PORT=str(port), ACCORD_LOG_LEVEL="INFO")
        done = subprocess.run(  # noqa: S603  (our own CLI)
            COMMAND, env=env, cwd=ROOT, capture_output=True, timeout=60, check=False
        )
    assert done.returncode == 1
    assert b'"worker_failed"' in done.stdout + done.stderr
    assert b"address already in use" in done.stdout + done.stderr


def _healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as reply:
            return bool(reply.status == 200)
    except OSError:
        return False


def test_worker_processes_get_one_metrics_port_each_and_stop_on_sigterm(redis_url: str) -> None:
    """`accord worker -n 2` with ACCORD_METRICS_PORT=P serves /healthz on P and P+1."""
    base = free_port()
    while not _port_free(base + 1):
        base = free_port()
    env = worker_env(redis_url, ACCORD_METRICS_PORT=str(base))
    supervisor = subprocess.Popen(  # noqa: S603  (our own CLI)
        [*COMMAND, "-n", "2"], env=env, cwd=ROOT
    )
    try:
        deadline = time.monotonic() + 60
        while not (_healthy(base) and _healthy(base + 1)):
            assert supervisor.poll() is None, "supervisor exited early"
            assert time.monotonic() < deadline, "workers never became healthy"
            time.sleep(0.2)
    finally:
        supervisor.send_signal(signal.SIGTERM)
        code = supervisor.wait(timeout=45)
    assert code == 0


def _port_free(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("0.0.0.0", port))  # noqa: S104
        except OSError:
            return False
        return True
