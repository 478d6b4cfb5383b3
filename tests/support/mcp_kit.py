"""Running `accord mcp` for tests: over stdio as a subprocess the SDK's client launches,
as an HTTP server process on a loopback port the OS picks, or in this process."""

from __future__ import annotations

import contextlib
import queue
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from redis.asyncio import Redis

from accord_client import AccordClient
from tests.support.cli_kit import ENTRY, accord_running, command_env, lines_of
from tests.support.paths import ROOT
from worker.mcp_server import Binding, build_server

AGENT = "agent-mira"
WAIT_S = 90.0  # generous: a busy machine starts a subprocess slowly


@dataclass(frozen=True)
class Scope:
    """One user's relationship with the agent, and the session the server serves."""

    user_id: str
    session_id: str

    def args(self) -> list[str]:
        return ["mcp", "--agent", AGENT, "--user", self.user_id, "--session", self.session_id]


def fresh_scope() -> Scope:
    return Scope(f"user-{uuid.uuid4().hex[:8]}", "session-1")


@contextlib.contextmanager
def http_server(url: str, scope: Scope, *extra: str, **env: str) -> Iterator[str]:
    """`accord mcp --transport http --port 0` as a process: the endpoint it prints."""
    args = [*scope.args(), "--transport", "http", "--port", "0", *extra]
    with accord_running(*args, env=command_env(url, **env), merged=True) as process:
        assert process.stdout is not None
        lines = lines_of(process.stdout)
        try:
            line = lines.get(timeout=WAIT_S)
        except queue.Empty:
            pytest.fail(f"accord mcp printed nothing within {WAIT_S} s")
        assert line.startswith("accord mcp on http://127.0.0.1:"), line
        yield line.split()[3]


@contextlib.asynccontextmanager
async def mcp_client(transport: str, url: str, scope: Scope) -> AsyncIterator[Client]:
    """The SDK's client connected to an `accord mcp` serving `scope` on `transport`."""
    if transport == "stdio":
        # The scope from the environment here (the HTTP server takes it as options).
        env = command_env(
            url,
            ACCORD_MCP_AGENT=AGENT,
            ACCORD_MCP_USER=scope.user_id,
            ACCORD_MCP_SESSION=scope.session_id,
        )
        params = StdioServerParameters(
            command=ENTRY[0], args=[*ENTRY[1:], "mcp"], env=env, cwd=ROOT
        )
        async with Client(params, read_timeout_seconds=WAIT_S) as client:
            yield client
        return
    if transport == "memory":
        # The same server in this process (the SDK's in-memory connection): its handlers
        # run where coverage sees them.
        async with AccordClient(Redis.from_url(url)) as accord:
            server = build_server(accord, Binding(AGENT, scope.user_id, scope.session_id))
            async with Client(server, read_timeout_seconds=WAIT_S) as client:
                yield client
        return
    with http_server(url, scope) as endpoint:
        async with Client(endpoint, read_timeout_seconds=WAIT_S) as client:
            yield client
