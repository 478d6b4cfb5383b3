"""`accord console`: the read-only web console (worker/console/)."""

from __future__ import annotations

import asyncio
import os
from typing import Annotated

import typer

from worker.commands import options
from worker.commands._shared import deployment_settings, err_console, require_answer
from worker.console.server import Access, Console, bind, is_loopback, serve

TOKEN_VARIABLE = "ACCORD_CONSOLE_TOKEN"  # noqa: S105  (the name of the variable)


def register(app: typer.Typer) -> None:
    @app.command()
    def console(
        host: Annotated[
            str, typer.Option(help="Address to listen on; off loopback a token is required.")
        ] = "127.0.0.1",
        port: options.ConsolePort = options.CONSOLE_PORT,
        timeout: options.Timeout = options.TIMEOUT_S,
    ) -> None:
        """Serve the read-only console: scopes, records, partitions, dead letters."""
        settings = deployment_settings(timeout)
        token = os.environ.get(TOKEN_VARIABLE) or None
        if token is None and not is_loopback(host):
            err_console.print(
                f"[red]accord console: listening on {host} needs {TOKEN_VARIABLE}[/] "
                "(authentication is off only on loopback)"
            )
            raise typer.Exit(2)
        # Redis must answer before the console listens (one line and exit 2 otherwise);
        # later, a page whose reads fail or time out says so (503).
        require_answer(settings, timeout_s=timeout)
        try:
            sock = bind(host, port)
        except (OSError, OverflowError, ValueError) as error:
            # OverflowError, ValueError: a host name socket refuses before any lookup.
            err_console.print(
                f"[red]accord console: cannot listen on {host}:{port}: {error}[/]", soft_wrap=True
            )
            raise typer.Exit(2) from error
        bound_host, bound_port = sock.getsockname()[:2]
        shown = f"[{bound_host}]" if ":" in bound_host else bound_host
        auth = "token required" if token else "no authentication (loopback)"
        typer.echo(f"accord console on http://{shown}:{bound_port}/ ({auth}); Ctrl-C stops")
        try:
            asyncio.run(serve(Console(settings, Access(token), timeout_s=timeout), sock))
        except KeyboardInterrupt:
            raise typer.Exit(0) from None
