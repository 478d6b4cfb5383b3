"""`accord worker`: run N worker processes in one consumer group."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from typing import Annotated

import typer

from worker import gc_tuning
from worker.app import build_worker, store_partition
from worker.commands._shared import settings_or_exit
from worker.observability import configure_logging


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
        settings = settings_or_exit()
        configure_logging(settings.log_level)
        built = build_worker(settings, store_partition)
        gc_tuning.tune(settings.gc_threshold)
        raise typer.Exit(asyncio.run(built.run()))


def _supervise(processes: int) -> int:
    """Start N single-process workers; forward SIGINT/SIGTERM; exit with the worst code.

    Each child derives its own consumer name (hostname-pid), so none share a PEL.
    """
    env = {k: v for k, v in os.environ.items() if k != "ACCORD_CONSUMER"}
    command = [sys.executable, "-c", "from worker.cli import main; main()", "worker"]
    # One metrics/health port each (base, base+1, ...): they cannot share one.
    base_port = settings_or_exit().metrics_port
    children = [
        subprocess.Popen(  # noqa: S603  (our own CLI, fixed arguments)
            command,
            env={**env, "ACCORD_METRICS_PORT": str(base_port + index if base_port else 0)},
        )
        for index in range(processes)
    ]

    def forward(signum: int, _frame: object) -> None:
        for child in children:
            if child.poll() is None:
                child.send_signal(signum)

    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)
    codes = [child.wait() for child in children]
    return max(codes, key=abs)
