"""The console as FastStream ASGI routes (AsgiFastStream, served by uvicorn).

Read-only by construction: every route answers GET and HEAD only (anything else is
405) and calls only the reads in `worker.console.data`. Authentication is off only
when the console listens on a loopback address; anywhere else it needs a token from
the environment (`ACCORD_CONSOLE_TOKEN`), sent as `Authorization: Bearer <token>` or
as the password of HTTP Basic (what a browser prompts for).
"""

from __future__ import annotations

import base64
import binascii
import hmac
import ipaddress
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from typing import Generic, TypeVar
from urllib.parse import parse_qs

import uvicorn
from faststream.asgi import AsgiFastStream, AsgiResponse
from faststream.asgi.types import Receive, Scope, Send
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisClusterException
from redis.exceptions import TimeoutError as RedisTimeoutError

from contracts.outputs import DeadLetterReason
from store.lookup import PrefixLookupError, one_record_named
from store.record_index import list_records
from store.scope_index import list_scopes
from store.scripts import AnyRedis
from store.status import fleet_status
from store.watermark import server_ms
from worker.connection import connect
from worker.console import data, pages
from worker.console.filters import (
    ListFilters,
    RecordFilters,
    ScopeFilters,
    checked,
    filters_or_empty,
    records_filters,
    refresh_seconds,
)
from worker.settings import Settings
from worker.zones import DEFAULT_ZONE, zone

Query = dict[str, str]

# Redis cannot be reached, or did not answer within the console's timeout: the page
# says so (503) instead of an error page without a reason.
_UNREACHABLE = (RedisConnectionError, RedisTimeoutError, RedisClusterException)
Render = Callable[[AnyRedis, Query], Awaitable[tuple[int, str]]]

# No script may run and nothing may load from elsewhere: the pages need neither.
_HEADERS = {
    "content-type": "text/html; charset=utf-8",
    "content-security-policy": (
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; "
        "frame-ancestors 'none'; base-uri 'none'"
    ),
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
}


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class Access:
    """Who may read: anyone on loopback without a token, else the token's holder."""

    token: str | None

    def allows(self, headers: list[tuple[bytes, bytes]]) -> bool:
        if self.token is None:
            return True
        expected = self.token.encode()
        for name, value in headers:
            if name.lower() != b"authorization":
                continue
            kind, _, credential = value.partition(b" ")
            if kind.lower() == b"bearer":
                return hmac.compare_digest(credential.strip(), expected)
            if kind.lower() == b"basic":
                try:
                    decoded = base64.b64decode(credential.strip(), validate=True)
                except (binascii.Error, ValueError):
                    return False
                return hmac.compare_digest(decoded.partition(b":")[2], expected)
        return False


def _query(scope: Scope) -> Query:
    raw = scope.get("query_string", b"").decode("utf-8", "replace")
    return {name: values[-1] for name, values in parse_qs(raw).items()}


class Page:
    """One read-only route: authenticate, parse the query, render, answer."""

    def __init__(self, console: Console, render: Render) -> None:
        self.console = console
        self.render = render

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["method"] not in {"GET", "HEAD"}:
            response = AsgiResponse(b"read-only console: GET only", 405, {"allow": "GET, HEAD"})
        elif not self.console.access.allows(scope.get("headers", [])):
            challenge = {"www-authenticate": 'Basic realm="accord console"'}
            response = AsgiResponse(b"token required", 401, challenge)
        else:
            query = _query(scope)
            try:
                zone(query.setdefault("tz", DEFAULT_ZONE))
            except ValueError as error:
                status, body = 400, pages.problem("Time zone", str(error), DEFAULT_ZONE)
            else:
                try:
                    if "refresh" in query:
                        refresh_seconds(query["refresh"])
                except ValueError as error:
                    status, body = 400, pages.problem("Auto-refresh", str(error), query["tz"])
                else:
                    status, body = await self._render(query)
            response = AsgiResponse(body.encode(), status, _HEADERS)
        await response(scope, receive, send)

    async def _render(self, query: Query) -> tuple[int, str]:
        try:
            return await self.render(self.console.redis(), query)
        except _UNREACHABLE as error:
            cause = " ".join(str(error).split()) or type(error).__name__
            if isinstance(error, RedisTimeoutError):
                cause = f"no answer within {self.console.timeout_s:g} s: {cause}"
            message = f"Redis cannot be reached: {cause}"
            return 503, pages.problem("Redis unavailable", message, query["tz"])


F = TypeVar("F", bound=ListFilters)
Q = TypeVar("Q")
P = TypeVar("P")


@dataclass(frozen=True)
class _Lists(Generic[F, Q, P]):
    """One list page's parts: its filters (their type, how a query is read into them and
    made the index's query) and the index read of one page."""

    kind: type[F]
    parse: Callable[[Query], F]
    query: Callable[[F, int], Q]
    read: Callable[[AnyRedis, int, Q, str | None], Awaitable[P]]


class Console:
    """The routes of one console over one deployment (settings: partitions, group);
    no Redis answer waits longer than `timeout_s`."""

    def __init__(self, settings: Settings, access: Access, *, timeout_s: float = 10.0) -> None:
        self.settings = settings
        self.access = access
        self.timeout_s = timeout_s
        self._redis: AnyRedis | None = None

    def redis(self) -> AnyRedis:
        if self._redis is None:
            self._redis = connect(self.settings, timeout_s=self.timeout_s)
        return self._redis

    async def close(self) -> None:
        if self._redis is not None:
            await self._redis.aclose()

    def app(self) -> AsgiFastStream:
        routes = [
            ("/", self.home),
            ("/scope", self.scope),
            ("/record", self.record),
            ("/records", self.records),
            ("/scopes", self.scopes),
            ("/partitions", self.partitions),
            ("/dead-letters", self.dead_letters),
        ]
        # No broker: the console reads with its own client and runs no subscriber.
        return AsgiFastStream(asgi_routes=[(path, Page(self, render)) for path, render in routes])

    async def home(self, _redis: AnyRedis, query: Query) -> tuple[int, str]:
        tz = query["tz"]
        return 200, pages.home(tz)

    async def scope(self, redis: AnyRedis, query: Query) -> tuple[int, str]:
        tz = query["tz"]
        where = zone(tz)
        agent, user = query.get("agent", ""), query.get("user", "")
        if not agent or not user:
            return 400, pages.problem("Scope", "give both an agent and a user", tz)
        found = await data.scope_page(
            redis, self.settings.partitions, agent, user, datetime.now(UTC)
        )
        return (200 if found.known else 404), pages.scope(found, where, tz)

    async def record(self, redis: AnyRedis, query: Query) -> tuple[int, str]:
        tz = query["tz"]
        where = zone(tz)
        prefix = query.get("id", "").strip()
        try:
            found = await one_record_named(redis, self.settings.partitions, prefix)
        except PrefixLookupError as error:
            return 404, pages.problem("Record", str(error), tz)
        if isinstance(found, list):
            return (404 if not found else 300), pages.record_choice(prefix, found, tz)
        return 200, pages.record(found, where, tz)

    async def records(self, redis: AnyRedis, query: Query) -> tuple[int, str]:
        """Records across partitions, newest change first, filtered, one page a cursor."""
        lists = _Lists(RecordFilters, records_filters, RecordFilters.query, list_records)
        return await self._list(redis, query, lists, pages.records)

    async def scopes(self, redis: AnyRedis, query: Query) -> tuple[int, str]:
        """Scopes across partitions, newest change first, filtered, one page a cursor."""

        def parse(query: Query) -> ScopeFilters:
            return checked(query, ScopeFilters)

        lists = _Lists(ScopeFilters, parse, ScopeFilters.query, list_scopes)
        return await self._list(redis, query, lists, pages.scopes)

    async def _list(
        self,
        redis: AnyRedis,
        query: Query,
        lists: _Lists[F, Q, P],
        render: Callable[[P | None, F, tzinfo, str, str], str],
    ) -> tuple[int, str]:
        """A list page: its filters read, one page of the index, the page; a filter it
        cannot read, or a cursor no page gave out, is a 400 saying which."""
        tz = query["tz"]
        try:
            filters = lists.parse(query)
            now = await server_ms(redis) if filters.timed else 0
            selected = lists.query(filters, now)
            found = await lists.read(
                redis, self.settings.partitions, selected, filters.cursor or None
            )
        except ValueError as error:
            empty = filters_or_empty(query, lists.kind)
            return 400, render(None, empty, zone(tz), tz, str(error))
        return 200, render(found, filters, zone(tz), tz, "")

    async def partitions(self, redis: AnyRedis, query: Query) -> tuple[int, str]:
        tz = query["tz"]
        fleet = await fleet_status(
            redis, self.settings.partitions, self.settings.group, live_ms=self.settings.lease_ms
        )
        return 200, pages.partitions(fleet, tz, refresh=query.get("refresh", ""))

    async def dead_letters(self, redis: AnyRedis, query: Query) -> tuple[int, str]:
        """Dead letters, newest first, filtered by reason and partition."""
        tz = query["tz"]
        reason, partition = query.get("reason", ""), query.get("partition", "")
        reasons = {r.value for r in DeadLetterReason}
        if reason and reason not in reasons:
            message = f"reason: no reason {reason!r} (one of {', '.join(sorted(reasons))})"
            return 400, pages.problem("Dead letters", message, tz)
        count = self.settings.partitions
        if partition and not (partition.isdigit() and int(partition) < count):
            message = f"partition: a number from 0 to {count - 1}"
            return 400, pages.problem("Dead letters", message, tz)
        found = await data.dead_letters(
            redis, count, reason=reason or None, partition=int(partition) if partition else None
        )
        shown = {"reason": reason, "partition": partition, "refresh": query.get("refresh", "")}
        return 200, pages.dead_letters(found, zone(tz), tz, **shown)


def bind(host: str, port: int) -> socket.socket:
    """A listening socket (port 0: any free one), made before serving so it can be named."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    return sock


async def serve(console: Console, sock: socket.socket) -> None:
    """Serve until stopped (SIGINT/SIGTERM), then close the Redis client.

    Lifespan is off: FastStream's lifespan starts brokers, and the console has none.
    """
    config = uvicorn.Config(console.app(), log_level="warning", access_log=False, lifespan="off")
    try:
        await uvicorn.Server(config).serve(sockets=[sock])
    finally:
        await console.close()
