"""`accord mcp` through the MCP SDK's own client, against a real worker on a real Redis.

Every test runs on both transports: stdio (the server as a subprocess, as an agent
runtime launches it) and streamable HTTP (an `accord mcp --transport http` process on
a loopback port the OS picks), and once more with the same server in this process. A
gateway (the Python client) writes the user's turns in the same session the server is
bound to; the model's side is only what the MCP client can do: list and call the tool,
read the resources.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import msgspec
import pytest
import pytest_asyncio
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, TextResourceContents
from redis.asyncio import Redis

from accord_client import AccordClient, Session, tool_result_text
from accord_client.contracts.outputs import ToolOutcome
from contracts.tool_definitions import definitions
from tests.support.mcp_kit import AGENT, WAIT_S, fresh_scope, mcp_client
from tests.support.worker_kit import flushed, worker_env, worker_processes

pytestmark = [pytest.mark.asyncio, pytest.mark.redis, pytest.mark.slow, pytest.mark.timeout(300)]

# The two transports a runtime uses, and the same server in-process (what coverage sees).
TRANSPORTS = ["stdio", "http", "memory"]


@pytest.fixture(scope="module")
def worker_url(redis_url: str) -> Iterator[str]:
    with worker_processes(1, worker_env(flushed(redis_url))):
        yield redis_url


@pytest_asyncio.fixture
async def gateway(worker_url: str) -> AsyncIterator[AccordClient]:
    async with AccordClient(Redis.from_url(worker_url)) as accord:
        yield accord


async def view_of(client: Client) -> dict[str, Any]:
    result = await client.read_resource("accord://view")
    [contents] = result.contents
    assert isinstance(contents, TextResourceContents)
    assert contents.mime_type == "application/json"
    document: dict[str, Any] = json.loads(contents.text)
    return document


async def explain_of(client: Client, record_id: str) -> dict[str, Any]:
    result = await client.read_resource(f"accord://records/{record_id}/explain")
    [contents] = result.contents
    assert isinstance(contents, TextResourceContents)
    document: dict[str, Any] = json.loads(contents.text)
    return document


def text_of(result: CallToolResult) -> str:
    [content] = result.content
    assert content.type == "text"
    return content.text


async def propose(session: Session, terms: str) -> str:
    """A user's proposal in `session`, applied by the worker: its record id (R1, R2)."""
    turn = await session.user(f"Let's agree: {terms}")
    await session.wait_applied(turn.seq, timeout=WAIT_S)
    view = await session.view()
    [proposal] = [p for p in view.pending_proposals if p.terms == terms]
    return proposal.record_id


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_tool_is_the_contracts_definition(worker_url: str, transport: str) -> None:
    """The server lists one tool, `soul_agreement_accept`, with the contract's name,
    description and JSON Schema unchanged (R3: exactly record_id and expected_revision),
    and the two resources: the view and the explain template."""
    contract = definitions()
    async with mcp_client(transport, worker_url, fresh_scope()) as client:
        [tool] = (await client.list_tools()).tools
        resources = (await client.list_resources()).resources
        templates = (await client.list_resource_templates()).resource_templates
    assert tool.name == contract["name"] == "soul_agreement_accept"
    assert tool.description == contract["description"]
    assert tool.input_schema == contract["parameters"]
    assert [r.uri for r in resources] == ["accord://view"]
    assert [t.uri_template for t in templates] == ["accord://records/{record_id}/explain"]


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_the_agent_accepts_through_mcp(
    worker_url: str, gateway: AccordClient, transport: str
) -> None:
    """A proposal shows in the view resource as pending with its record id, revision and
    status, never as agreed (R6); the tool accepts it for the agent with the client's
    typed outcome and result text (R3); after the user's confirmation it is current
    memory, terms only (R5, R6); explain walks its revisions (R16)."""
    scope = fresh_scope()
    session = gateway.session(AGENT, scope.user_id, scope.session_id)
    terms = "next time we discuss a plan, start with the conclusion"
    record_id = await propose(session, terms)
    async with mcp_client(transport, worker_url, scope) as client:
        view = await view_of(client)
        assert view["current_agreements"] == []
        [pending] = view["pending_proposals"]
        assert (pending["record_id"], pending["revision"], pending["terms"]) == (
            record_id,
            1,
            terms,
        )
        assert pending["status"] == "awaiting_both"

        result = await client.call_tool(
            "soul_agreement_accept", {"record_id": record_id, "expected_revision": 1}
        )
        assert not result.is_error
        outcome = result.structured_content
        assert outcome is not None
        assert outcome["accepted"] is True
        assert (outcome["record_id"], outcome["current_revision"]) == (record_id, 2)
        assert (outcome["agent_id"], outcome["user_id"], outcome["session_id"]) == (
            AGENT,
            scope.user_id,
            scope.session_id,
        )
        # The structured content is the worker's typed outcome, and the text is the one
        # the client gives a gateway for it.
        typed = msgspec.json.decode(json.dumps(outcome), type=ToolOutcome)
        assert typed.accepted
        assert text_of(result) == tool_result_text(typed)
        [pending] = (await view_of(client))["pending_proposals"]
        assert (pending["revision"], pending["status"]) == (2, "awaiting_user")

        turn = await session.user("I accept this agreement.")
        await session.wait_applied(turn.seq, timeout=WAIT_S)
        view = await view_of(client)
        assert view["current_agreements"] == [{"record_id": record_id, "terms": terms}]
        assert view["pending_proposals"] == []

        explained = await explain_of(client, record_id)
    assert (explained["record_id"], explained["state"], explained["revision"]) == (
        record_id,
        "open",
        3,
    )
    causes = [r["cause"] for r in explained["revisions"]]
    assert causes == ["proposed", "agent_accepted", "user_accepted"]


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_bad_input_gets_a_clear_error_result(
    worker_url: str, gateway: AccordClient, transport: str
) -> None:
    """An unknown record, a wrong revision, garbage arguments, another tool, an unknown
    resource: each a clear error naming what is wrong, the server still answering after
    them (R3). Arguments that break the contract write nothing: the session's seq stays."""
    scope = fresh_scope()
    session = gateway.session(AGENT, scope.user_id, scope.session_id)
    record_id = await propose(session, "always offer green tea first")
    async with mcp_client(transport, worker_url, scope) as client:
        unknown = await client.call_tool(
            "soul_agreement_accept", {"record_id": "agr-nothing", "expected_revision": 1}
        )
        assert unknown.is_error
        assert unknown.structured_content is not None
        assert unknown.structured_content["reason"] == "unknown_record"
        assert "there is no record agr-nothing" in text_of(unknown)

        stale = await client.call_tool(
            "soul_agreement_accept", {"record_id": record_id, "expected_revision": 7}
        )
        assert stale.is_error
        assert stale.structured_content is not None
        assert stale.structured_content["reason"] == "stale_revision"
        assert stale.structured_content["current_revision"] == 1
        assert "is now at revision 1" in text_of(stale)

        written = await session.applied_seq()
        garbage: list[dict[str, Any] | None] = [
            None,
            {},
            {"record_id": record_id},
            {"record_id": record_id, "expected_revision": "1"},
            {"record_id": record_id, "expected_revision": True},
            {"record_id": record_id, "expected_revision": 0},
            {"record_id": "", "expected_revision": 1},
            {"record_id": "x" * 257, "expected_revision": 1},
            {"record_id": [record_id], "expected_revision": 1},
            {"record_id": record_id, "expected_revision": 1.5},
        ]
        for arguments in garbage:
            result = await client.call_tool("soul_agreement_accept", arguments)
            assert result.is_error, arguments
            assert result.structured_content is not None
            assert result.structured_content["reason"] == "malformed_arguments", arguments
            assert text_of(result).startswith("Not accepted: the arguments must be exactly")

        other_tool = await client.call_tool("todo_write", {"todos": []})
        assert other_tool.is_error
        assert "unknown tool 'todo_write'" in text_of(other_tool)

        with pytest.raises(MCPError, match="unknown record 'agr-nothing'"):
            await client.read_resource("accord://records/agr-nothing/explain")
        with pytest.raises(MCPError, match="unknown resource"):
            await client.read_resource("accord://sessions/other/view")

        # Still serving, and nothing the garbage said was written or changed.
        [pending] = (await view_of(client))["pending_proposals"]
    assert (pending["record_id"], pending["revision"], pending["status"]) == (
        record_id,
        1,
        "awaiting_both",
    )
    assert await session.applied_seq() == written


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_model_cannot_reach_another_users_agreements(
    worker_url: str, gateway: AccordClient, transport: str
) -> None:
    """The scope and session are the server's: a model that names another user's record
    (even one made in a session of the same name) cannot read it, explain it or accept
    it. It is answered as unknown, exactly as a missing record, and the other user's
    record does not change (R3, R6); arguments naming a scope are malformed."""
    ours, theirs = fresh_scope(), fresh_scope()
    their_session = gateway.session(AGENT, theirs.user_id, ours.session_id)
    their_record = await propose(their_session, "send the weekly report every Monday")
    async with mcp_client(transport, worker_url, ours) as client:
        view = await view_of(client)
        assert view["user_id"] == ours.user_id
        assert (view["current_agreements"], view["pending_proposals"]) == ([], [])
        with pytest.raises(MCPError, match="unknown record"):
            await client.read_resource(f"accord://records/{their_record}/explain")

        result = await client.call_tool(
            "soul_agreement_accept", {"record_id": their_record, "expected_revision": 1}
        )
        assert result.is_error
        assert result.structured_content is not None
        assert result.structured_content["reason"] == "unknown_record"
        assert result.structured_content["user_id"] == ours.user_id

        # The model cannot move the server to their scope through the arguments.
        smuggled = await client.call_tool(
            "soul_agreement_accept",
            {"record_id": their_record, "expected_revision": 1, "user_id": theirs.user_id},
        )
        assert smuggled.is_error
        assert smuggled.structured_content is not None
        assert smuggled.structured_content["reason"] == "malformed_arguments"

    why = await gateway.explain(AGENT, theirs.user_id, their_record)
    assert (why.state, why.revision) == ("proposed", 1)
    [pending] = (await their_session.view()).pending_proposals
    assert (pending.record_id, pending.revision, pending.status) == (
        their_record,
        1,
        "awaiting_both",
    )
