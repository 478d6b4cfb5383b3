"""`accord mcp` as a command: bad arguments and settings are one line and exit 2
(docs/cli.md, "Exit codes"); with a token the HTTP server answers its holder only;
without a worker a tool call times out as the client's does, never as an acceptance; and
a Redis that goes away is an error answer, never a crash."""

from __future__ import annotations

import sys
import uuid

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from accord_client import tool_result_text
from store.embedded import EmbeddedRedis
from tests.support.cli_kit import accord_here, command_env
from tests.support.mcp_kit import WAIT_S, fresh_scope, http_server
from tests.support.worker_kit import flushed

pytestmark = [pytest.mark.timeout(300)]

SCOPE = ["--agent", "a", "--user", "u", "--session", "s"]


def one_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert "Traceback" not in stderr
    assert len(lines) == 1, stderr
    return lines[0]


@pytest.mark.parametrize(
    ("args", "env", "said"),
    [
        (["--user", "u", "--session", "s"], {}, "Missing option '--agent'"),
        ([*SCOPE, "--transport", "pigeon"], {}, "Invalid value for '--transport'"),
        ([*SCOPE, "--transport", "http", "--port", "99999"], {}, "Invalid value for '--port'"),
        ([*SCOPE, "--accept-timeout", "0"], {}, "Invalid value for '--accept-timeout'"),
        (["--agent", "", "--user", "u", "--session", "s"], {}, "--agent must be 1 to 256"),
        (["--agent", "a", "--user", "u", "--session", "s" * 257], {}, "--session must be 1 to"),
        (
            [*SCOPE, "--transport", "http", "--host", "0.0.0.0"],  # noqa: S104  (refused)
            {},
            "listening on 0.0.0.0 needs ACCORD_MCP_TOKEN",
        ),
        (SCOPE, {"REDIS_URL": ""}, "REDIS_URL is not set"),
        (SCOPE, {"REDIS_URL": "redis://127.0.0.1:1/0"}, "cannot reach Redis"),
    ],
)
def test_bad_arguments_and_settings_are_one_line_and_exit_2(
    args: list[str], env: dict[str, str], said: str
) -> None:
    """Refused before serving anything: no scope, an unknown transport, a port out of
    range, an empty or over-long id, an unauthenticated non-loopback listener, no Redis."""
    ran = accord_here("mcp", *args, env=command_env("redis://127.0.0.1:1/0") | env)
    assert ran.returncode == 2, ran
    assert said in one_line(ran.stderr)
    assert ran.stdout == ""


def test_without_the_sdk_it_says_which_extra_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    """An install without the `mcp` extra: one line naming it, exit 2, no traceback."""
    monkeypatch.setitem(sys.modules, "worker.mcp_server", None)  # as if `mcp` were absent
    ran = accord_here("mcp", *SCOPE, env=command_env("redis://127.0.0.1:1/0"))
    assert ran.returncode == 2
    assert "pip install 'accord[mcp]'" in one_line(ran.stderr)


@pytest.mark.redis
@pytest.mark.slow
@pytest.mark.asyncio
async def test_with_a_token_the_http_server_answers_its_holder_only(redis_url: str) -> None:
    """With ACCORD_MCP_TOKEN set, a request without it (or with another) gets 401 and
    no MCP answer; the SDK's client sending it as a bearer token is served."""
    token = uuid.uuid4().hex
    # Flushed: another module's stored layout (a partition count) would refuse the server.
    with http_server(flushed(redis_url), fresh_scope(), ACCORD_MCP_TOKEN=token) as endpoint:
        async with httpx2.AsyncClient(timeout=WAIT_S) as plain:
            for headers in ({}, {"authorization": "Bearer wrong"}):
                answer = await plain.post(endpoint, json={}, headers=headers)
                assert answer.status_code == 401
        bearer = httpx2.AsyncClient(headers={"authorization": f"Bearer {token}"}, timeout=WAIT_S)
        async with bearer, Client(streamable_http_client(endpoint, http_client=bearer)) as client:
            [tool] = (await client.list_tools()).tools
    assert tool.name == "soul_agreement_accept"


@pytest.mark.redis
@pytest.mark.slow
@pytest.mark.asyncio
async def test_without_a_worker_the_call_is_not_answered_and_never_claimed(
    redis_url: str,
) -> None:
    """No worker: past `--accept-timeout` the tool says there is no answer yet, as the
    client's timeout text, flagged as an error; never an acceptance (R3)."""
    with http_server(flushed(redis_url), fresh_scope(), "--accept-timeout", "0.5") as endpoint:
        async with Client(endpoint, read_timeout_seconds=WAIT_S) as client:
            result = await client.call_tool(
                "soul_agreement_accept", {"record_id": "agr-1", "expected_revision": 1}
            )
    assert result.is_error
    [content] = result.content
    assert content.type == "text"
    assert content.text == tool_result_text(None)
    assert result.structured_content is not None
    assert result.structured_content["accepted"] is False
    assert result.structured_content["timeout"] is True


@pytest.mark.redis
@pytest.mark.slow
@pytest.mark.asyncio
async def test_redis_going_away_is_an_error_answer_and_the_server_stays() -> None:
    """Redis stops under a running server: the tool answers an error result and a read an
    MCP error, each saying accord is unavailable, and the server still answers after."""
    with (
        EmbeddedRedis() as server,
        http_server(server.url, fresh_scope(), "--timeout", "2") as endpoint,
    ):
        async with Client(endpoint, read_timeout_seconds=WAIT_S) as client:
            await client.read_resource("accord://view")  # served while Redis is up
            server.stop()
            result = await client.call_tool(
                "soul_agreement_accept", {"record_id": "agr-1", "expected_revision": 1}
            )
            assert result.is_error
            [content] = result.content
            assert content.type == "text"
            assert content.text.startswith("accord is unavailable: ")
            with pytest.raises(MCPError, match="accord is unavailable"):
                await client.read_resource("accord://view")
            [tool] = (await client.list_tools()).tools
    assert tool.name == "soul_agreement_accept"
