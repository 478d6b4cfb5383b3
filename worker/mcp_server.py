"""`accord mcp`: the agent's side of accord as an MCP server (docs/gateway.md).

One tool, `soul_agreement_accept` (its definition is the contract's,
contracts/tools/soul_agreement_accept.json, and a call is the Python client's `accept`:
request/reply on the events stream, the typed `ToolOutcome` back), and two resources,
the session's view (R6) and a record's explanation (R16).

Whose agreements these are is the server's to say, never the model's: the scope
(agent, user) and the session are fixed when the server starts (`Binding`), and a
model's arguments name only a record and a revision. A record of another scope is
unknown here, exactly as one that does not exist (R3's `unknown_record`; the client's
`explain` refuses it the same way), so nothing is told or changed across scopes.
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
import socket
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import mcp_types as types
import msgspec
import uvicorn
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from redis.exceptions import RedisError
from starlette.types import ASGIApp, Receive, Scope, Send

from accord_client import (
    AcceptTimeoutError,
    AccordClient,
    AccordClientError,
    InvalidInputError,
    UnknownRecordError,
    accept_tool,
    tool_result_text,
)

# The client's own copy of the contract types (generated from contracts/): what it
# returns and takes are those, not the worker's classes of the same shape.
from accord_client.contracts.codec import Limits
from accord_client.contracts.explain import Explanation
from accord_client.contracts.outputs import ToolOutcome
from accord_client.contracts.tools import ACCEPT_TOOL_NAME, AcceptArguments, RejectionReason
from accord_client.contracts.view import SessionView
from accord_client.tools import RESULT_TEXTS
from worker.connection import connect
from worker.console.server import Access
from worker.settings import Settings

SERVER_NAME = "accord"
# Where the streamable HTTP transport answers.
MCP_PATH = "/mcp"
VIEW_URI = "accord://view"
EXPLAIN_TEMPLATE = "accord://records/{record_id}/explain"
_EXPLAIN_URI = re.compile(r"accord://records/(?P<record_id>[^/]+)/explain")
_JSON = "application/json"

INSTRUCTIONS = (
    "accord keeps the explicit agreements between this user and you. Read "
    f"{VIEW_URI} for the current agreements (their terms) and this session's pending "
    "proposals (record_id, revision, status): a pending proposal is not agreed yet. "
    f"Accept one only with {ACCEPT_TOOL_NAME}, passing its record_id and revision as "
    f"listed; {EXPLAIN_TEMPLATE} says why a record is what it is."
)


@dataclass(frozen=True)
class Binding:
    """Whose agreements this server serves: one scope and one of its sessions.

    Set by the server's configuration (`accord mcp --agent --user --session`), never by
    a model's arguments.
    """

    agent_id: str
    user_id: str
    session_id: str


def accept_definition() -> types.Tool:
    """The tool as MCP lists it: the contract's name, description and JSON Schema."""
    definition = accept_tool("anthropic")  # the one format with MCP's field names
    return types.Tool(
        name=definition["name"],
        description=definition["description"],
        input_schema=definition["input_schema"],
    )


class _Handlers:
    """The server's request handlers, all bound to one scope and session."""

    def __init__(self, accord: AccordClient, binding: Binding, accept_timeout_s: float) -> None:
        self.accord = accord
        self.binding = binding
        self.session = accord.session(binding.agent_id, binding.user_id, binding.session_id)
        self.accept_timeout_s = accept_timeout_s

    async def list_tools(
        self, _ctx: ServerRequestContext[Any], _params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[accept_definition()])

    async def call_tool(
        self, _ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        if params.name != ACCEPT_TOOL_NAME:
            return _refused(f"unknown tool {params.name!r}: this server has {ACCEPT_TOOL_NAME}")
        try:
            # The contract's own type decides what is well formed: exactly a record_id and
            # an integer revision (no scope, no session, nothing else), as the worker does.
            arguments = msgspec.convert(params.arguments or {}, AcceptArguments)
        except msgspec.ValidationError as error:
            return _malformed(str(error))
        try:
            outcome = await self.session.accept(
                arguments.record_id,
                arguments.expected_revision,
                timeout=self.accept_timeout_s,
                call_id=f"mcp-{uuid.uuid4().hex}",
            )
        except InvalidInputError as error:
            return _malformed(str(error))
        except AcceptTimeoutError as error:
            # Written, not answered yet: the model must not claim an acceptance.
            return types.CallToolResult(
                content=[types.TextContent(text=tool_result_text(None))],
                structured_content={"accepted": False, "timeout": True, "call_id": error.call_id},
                is_error=True,
            )
        except (AccordClientError, RedisError, OSError) as error:
            return _refused(f"accord is unavailable: {_one_line(error)}")
        return _outcome(outcome)

    async def list_resources(
        self, _ctx: ServerRequestContext[Any], _params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        view = types.Resource(
            uri=VIEW_URI,
            name="view",
            title="Agreements of this session",
            description=(
                "Current agreements of the scope (their terms) and this session's pending "
                "proposals and amendments with record_id, revision and status (R6)."
            ),
            mime_type=_JSON,
        )
        return types.ListResourcesResult(resources=[view])

    async def list_templates(
        self, _ctx: ServerRequestContext[Any], _params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        explain = types.ResourceTemplate(
            uri_template=EXPLAIN_TEMPLATE,
            name="explain",
            title="Why a record is what it is",
            description="A record of this scope explained revision by revision (R16).",
            mime_type=_JSON,
        )
        return types.ListResourceTemplatesResult(resource_templates=[explain])

    async def read_resource(
        self, _ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        try:
            document = await self._document(uri)
        except UnknownRecordError as error:
            # Another scope's record is unknown here, exactly as a missing one.
            raise MCPError(types.INVALID_PARAMS, str(error)) from None
        except (AccordClientError, RedisError, OSError) as error:
            raise MCPError(
                types.INTERNAL_ERROR, f"accord is unavailable: {_one_line(error)}"
            ) from None
        text = msgspec.json.encode(document).decode()
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, mime_type=_JSON, text=text)]
        )

    async def _document(self, uri: str) -> SessionView | Explanation:
        if uri == VIEW_URI:
            return await self.session.view()
        if match := _EXPLAIN_URI.fullmatch(uri):
            scope = self.binding.agent_id, self.binding.user_id
            return await self.accord.explain(*scope, match["record_id"])
        raise MCPError(types.INVALID_PARAMS, f"unknown resource {uri!r}")


def build_server(
    accord: AccordClient, binding: Binding, *, accept_timeout_s: float = 10.0
) -> Server[Any]:
    """The MCP server of `binding`, reading and writing through `accord`."""
    handlers = _Handlers(accord, binding, accept_timeout_s)
    return Server(
        SERVER_NAME,
        instructions=INSTRUCTIONS,
        on_list_tools=handlers.list_tools,
        on_call_tool=handlers.call_tool,
        on_list_resources=handlers.list_resources,
        on_list_resource_templates=handlers.list_templates,
        on_read_resource=handlers.read_resource,
    )


def _outcome(outcome: ToolOutcome) -> types.CallToolResult:
    """The worker's answer: its text for the model, the typed outcome beside it."""
    return types.CallToolResult(
        content=[types.TextContent(text=tool_result_text(outcome))],
        structured_content=msgspec.to_builtins(outcome),
        # A rejection is the tool saying no: flagged, so a runtime shows it as such.
        is_error=not outcome.accepted,
    )


def _malformed(detail: str) -> types.CallToolResult:
    """Arguments that break the contract: refused before anything is written (R3)."""
    reason = RejectionReason.MALFORMED_ARGUMENTS
    # The contract's text is a template (its braces are doubled); nothing to fill here.
    text = f"{RESULT_TEXTS[reason].format()} ({detail})"
    return types.CallToolResult(
        content=[types.TextContent(text=text)],
        structured_content={"accepted": False, "reason": reason.value, "detail": detail},
        is_error=True,
    )


def _refused(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=text)], is_error=True)


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split())[:300] or type(error).__name__


@contextlib.asynccontextmanager
async def accord_client(settings: Settings, *, timeout_s: float) -> AsyncIterator[AccordClient]:
    """The deployment's client: its partitions, input limits and script mode."""
    redis = connect(settings, timeout_s=timeout_s)
    async with AccordClient(
        redis,
        partitions=settings.partitions,
        limits=Limits(**dataclasses.asdict(settings.store.limits)),
        functions=settings.redis_functions,
    ) as accord:
        yield accord


async def serve_stdio(
    settings: Settings, binding: Binding, *, accept_timeout_s: float, timeout_s: float
) -> None:
    """Serve over this process's stdin and stdout until the runtime closes them."""
    async with accord_client(settings, timeout_s=timeout_s) as accord:
        server = build_server(accord, binding, accept_timeout_s=accept_timeout_s)
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())


async def serve_http(  # noqa: PLR0913  (the server's parts)
    settings: Settings,
    binding: Binding,
    sock: socket.socket,
    access: Access,
    *,
    accept_timeout_s: float,
    timeout_s: float,
) -> None:
    """Serve streamable HTTP at `/mcp` on `sock` until stopped (SIGINT/SIGTERM)."""
    async with accord_client(settings, timeout_s=timeout_s) as accord:
        server = build_server(accord, binding, accept_timeout_s=accept_timeout_s)
        # `host` turns on the SDK's DNS-rebinding protection when it is loopback.
        app = server.streamable_http_app(streamable_http_path=MCP_PATH, host=sock.getsockname()[0])
        # The session manager starts in the app's lifespan.
        config = uvicorn.Config(
            guarded(app, access), log_level="warning", access_log=False, lifespan="on"
        )
        await uvicorn.Server(config).serve(sockets=[sock])


def guarded(app: ASGIApp, access: Access) -> ASGIApp:
    """`app` behind the console's access rule: off loopback, the token's holder only."""

    async def guard(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not access.allows(scope.get("headers", [])):
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [(b"content-type", b"text/plain"), (b"www-authenticate", b"Bearer")],
                }
            )
            await send({"type": "http.response.body", "body": b"token required"})
            return
        await app(scope, receive, send)

    return guard
