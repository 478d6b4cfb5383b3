"""`accord worker`: run N worker processes in one consumer group."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from typing import Annotated, Any

import typer

from worker import gc_tuning
from worker.app import build_worker, store_partition
from worker.commands._shared import settings_or_exit
from worker.connection import with_stored_partitions
from worker.observability import configure_logging, get_logger


def register(app: typer.Typer) -> None:
    @app.command()
    def worker(
        processes: Annotated[
            int, typer.Option("--processes", "-n", min=1, help="Worker processes to run.")
        ] = 1,
    ) -> None:
        """Consume the input streams and publish agreement events (until SIGTERM/Ctrl-C).

        Configured by environment variables (docs/cli.md): REDIS_URL, ACCORD_PARTITIONS,
        ACCORD_GROUP, ACCORD_BATCH_SIZE, ACCORD_GAP_TIMEOUT_MS, ACCORD_DELIVERY_LIMIT, ...
        """
        if processes > 1:
            raise typer.Exit(_supervise(processes))
        settings = asyncio.run(with_stored_partitions(settings_or_exit()))
        configure_logging(settings.log_level)
        built = build_worker(settings, store_partition)
        gc_tuning.tune(settings.gc_threshold)
        raise typer.Exit(asyncio.run(built.run()))


# A child that dies is started again after a pause doubling from RESTART_FIRST_S to
# RESTART_MAX_S; one that ran RESTART_STABLE_S is healthy again (its pause resets). A
# child that dies RESTART_LIMIT times in a row without running that long ends the
# supervisor with a non-zero code: something restarting cannot fix (a bad setting, Redis
# refusing the user) must not leave the deployment silently at reduced capacity.
RESTART_FIRST_S = 0.5
RESTART_MAX_S = 30.0
RESTART_STABLE_S = 60.0
RESTART_LIMIT = 5


@dataclass
class _Child:
    slot: int
    env: dict[str, str]
    proc: subprocess.Popen[bytes]
    started: float
    failures: int = 0
    restart_at: float | None = None


def _supervise(processes: int) -> int:
    """Start N single-process workers; restart one that dies; forward SIGINT/SIGTERM.

    Each child derives its own consumer name (hostname-pid), so none share a PEL. Exit
    code: 0 after a requested stop, else the failing child's code (or 1).
    """
    configure_logging(settings_or_exit().log_level)
    log = get_logger("accord.supervisor")
    env = {k: v for k, v in os.environ.items() if k != "ACCORD_CONSUMER"}
    # One metrics/health port each (base, base+1, ...): they cannot share one.
    base_port = settings_or_exit().metrics_port
    children = [
        _Child(slot, child_env, _start(child_env), time.monotonic())
        for slot in range(processes)
        for child_env in [{**env, "ACCORD_METRICS_PORT": str(base_port + slot if base_port else 0)}]
    ]
    stopping = threading.Event()

    def forward(signum: int, _frame: object) -> None:
        stopping.set()
        for child in children:
            if child.proc.poll() is None:
                child.proc.send_signal(signum)

    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)
    while not stopping.is_set():
        for child in children:
            failed = _tend(child, log)
            if failed is not None:
                forward(signal.SIGTERM, None)
                for other in children:
                    other.proc.wait()
                return failed
        stopping.wait(0.2)
    codes = [child.proc.wait() for child in children]
    return max(codes, key=abs)


def _start(env: dict[str, str]) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-c", "from worker.cli import main; main()", "worker"]
    return subprocess.Popen(command, env=env)  # noqa: S603  (our own CLI, fixed arguments)


def _tend(child: _Child, log: Any) -> int | None:  # noqa: ANN401  (a structlog logger)
    """Restart `child` if it died and its pause is over; an exit code to end with, or None."""
    now = time.monotonic()
    if child.restart_at is not None:
        if now >= child.restart_at:
            child.proc = _start(child.env)
            child.started, child.restart_at = now, None
            log.info("worker_restarted", slot=child.slot, pid=child.proc.pid)
        return None
    code = child.proc.poll()
    if code is None:
        return None
    ran = now - child.started
    child.failures = 1 if ran >= RESTART_STABLE_S else child.failures + 1
    if child.failures >= RESTART_LIMIT:
        log.critical(
            "worker_keeps_dying", slot=child.slot, exit_code=code, failures=child.failures,
            ran_s=round(ran, 1),
        )  # fmt: skip
        return code or 1
    pause = min(RESTART_FIRST_S * 2 ** (child.failures - 1), RESTART_MAX_S)
    child.restart_at = now + pause
    log.warning(
        "worker_died", slot=child.slot, pid=child.proc.pid, exit_code=code,
        ran_s=round(ran, 1), failures=child.failures, restart_in_s=pause,
    )  # fmt: skip
    return None
