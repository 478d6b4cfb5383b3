"""`accord mcp`: serve one session's agreements to an agent runtime over MCP
(worker/mcp_server.py; docs/gateway.md, "Use it from an MCP client").

The scope and the session are this command's options (or their environment variables),
so the runtime's configuration says whose agreements the model sees, never the model.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from enum import StrEnum
from typing import Annotated

import typer

from worker.commands import options
from worker.commands._shared import deployment_settings, refuse, require_answer
from worker.console.server import Access, bind, is_loopback

TOKEN_VARIABLE = "ACCORD_MCP_TOKEN"  # noqa: S105  (the name of the variable)
MCP_PORT = 8766


class Transport(StrEnum):
    STDIO = "stdio"
    HTTP = "http"


def register(app: typer.Typer) -> None:
    @app.command()
    def mcp(  # noqa: PLR0913, PLR0917  (the scope, the session and how to serve them)
        agent: Annotated[
            str,
            typer.Option(
                "--agent", envvar="ACCORD_MCP_AGENT", help="The scope's agent_id (fixed)."
            ),
        ],
        user: Annotated[
            str,
            typer.Option("--user", envvar="ACCORD_MCP_USER", help="The scope's user_id (fixed)."),
        ],
        session: Annotated[
            str,
            typer.Option(
                "--session", envvar="ACCORD_MCP_SESSION", help="The session served (fixed)."
            ),
        ],
        transport: Annotated[
            Transport, typer.Option("--transport", help="stdio, or streamable HTTP.")
        ] = Transport.STDIO,
        host: Annotated[
            str,
            typer.Option(help="HTTP: address to listen on; off loopback a token is required."),
        ] = "127.0.0.1",
        port: Annotated[
            int,
            typer.Option(min=0, max=65535, help="HTTP: port (0: any free port, printed)."),
        ] = MCP_PORT,
        accept_timeout: Annotated[
            float,
            typer.Option(min=0.1, help="Seconds a tool call waits for the worker's outcome."),
        ] = 10.0,
        timeout: options.Timeout = options.TIMEOUT_S,
    ) -> None:
        """Serve the accept tool, the session's view and records' explanations over MCP."""
        try:
            from worker.mcp_server import (  # noqa: PLC0415  (an optional extra)
                MCP_PATH,
                Binding,
                serve_http,
                serve_stdio,
            )
        except ImportError:
            refuse("mcp", "needs the MCP SDK, accord's `mcp` extra: pip install 'accord[mcp]'")
        for name, value in (("--agent", agent), ("--user", user), ("--session", session)):
            if not 1 <= len(value) <= 256:
                refuse("mcp", f"{name} must be 1 to 256 characters")
        binding = Binding(agent, user, session)
        settings = deployment_settings(timeout)
        token = os.environ.get(TOKEN_VARIABLE) or None
        if transport is Transport.HTTP and token is None and not is_loopback(host):
            refuse("mcp", f"listening on {host} needs {TOKEN_VARIABLE} (none only on loopback)")
        # Redis must answer before the runtime is told the server is there.
        require_answer(settings, timeout_s=timeout)
        if transport is Transport.STDIO:
            # stdout is the protocol's wire: nothing else may be printed there.
            with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C is how it stops
                asyncio.run(
                    serve_stdio(
                        settings, binding, accept_timeout_s=accept_timeout, timeout_s=timeout
                    )
                )
            return
        try:
            sock = bind(host, port)
        except (OSError, OverflowError, ValueError) as error:
            refuse("mcp", f"cannot listen on {host}:{port}: {error}")
        bound_host, bound_port = sock.getsockname()[:2]
        shown = f"[{bound_host}]" if ":" in bound_host else bound_host
        auth = "token required" if token else "no authentication (loopback)"
        typer.echo(f"accord mcp on http://{shown}:{bound_port}{MCP_PATH} ({auth}); Ctrl-C stops")
        try:
            asyncio.run(
                serve_http(
                    settings,
                    binding,
                    sock,
                    Access(token),
                    accept_timeout_s=accept_timeout,
                    timeout_s=timeout,
                )
            )
        except KeyboardInterrupt:
            raise typer.Exit(0) from None
