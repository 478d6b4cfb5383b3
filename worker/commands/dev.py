"""`accord dev`: a whole deployment on this machine for trying accord out.

An embedded Redis (or REDIS_URL when set), one worker and the console in this process;
prints the REDIS_URL to export for the other commands and the console's address, and
stops all three on Ctrl-C. The embedded server's data goes with it.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import socket

import typer

from worker.app import build_worker, store_partition
from worker.commands import options
from worker.commands._shared import console, err_console, require_answer, settings_or_exit
from worker.console.server import Access, Console, bind, serve
from worker.demo import redis_url
from worker.observability import configure_logging
from worker.settings import Settings, redacted_url


def register(app: typer.Typer) -> None:
    @app.command()
    def dev(
        port: options.ConsolePort = options.CONSOLE_PORT,
        timeout: options.Timeout = options.TIMEOUT_S,
    ) -> None:
        """Start an embedded Redis, a worker and the console; Ctrl-C stops them all."""
        base = settings_or_exit()
        if base.redis_url is not None:
            require_answer(base, timeout_s=timeout)
        try:
            sock = bind("127.0.0.1", port)
        except OSError as error:
            err_console.print(f"[red]accord dev: cannot listen on 127.0.0.1:{port}: {error}[/]")
            raise typer.Exit(2) from error
        with redis_url(base) as url:
            settings = dataclasses.replace(
                base,
                redis_url=url,
                consumer=f"dev-{os.getpid()}",
                metrics_port=0,
                log_level=os.environ.get("ACCORD_LOG_LEVEL", "WARNING"),
            )
            configure_logging(settings.log_level, json=False)
            _say_where(settings, sock, embedded=base.redis_url is None)
            with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C is how it stops
                asyncio.run(_run(settings, sock, timeout_s=timeout))
        console.print("accord dev: stopped")


def _say_where(settings: Settings, sock: socket.socket, *, embedded: bool) -> None:
    host, port = sock.getsockname()[:2]
    url = settings.redis_url or ""
    where = "embedded, its data goes when this stops" if embedded else "REDIS_URL"
    console.print(f"[bold]accord dev[/]: Redis {redacted_url(url)} ({where})", soft_wrap=True)
    console.print(f"  export REDIS_URL={url}", soft_wrap=True, highlight=False)
    console.print(f"  worker: one, {settings.partitions} partition(s), in this process")
    console.print(f"  console: http://{host}:{port}/", soft_wrap=True)
    console.print("  Ctrl-C stops all three")


async def _run(settings: Settings, sock: socket.socket, *, timeout_s: float) -> None:
    """The worker and the console until Ctrl-C (or SIGTERM), then both stopped."""
    worker = build_worker(settings, store_partition)
    await worker.start()
    try:
        await serve(Console(settings, Access(None), timeout_s=timeout_s), sock)
    finally:
        await worker.stop()
