"""A client of the primary that Redis Sentinel names, from a redis+sentinel:// URL.

The URL's form is the contracts' (`accord_client.contracts.redis_url`); the client is
redis-py's own (`Sentinel.master_for`): each new connection asks the sentinels for the
current primary, and one to a primary that was demoted is dropped at its first READONLY
reply. What is added here: no connection keeps talking to a former primary (`PrimaryPool`,
`PrimaryConnection`: redis-py's asyncio pool asks the sentinels only when it opens a
connection, and reuses the ones it has, so a primary that was paused through a failover
and resumed, still a primary until Sentinel demotes it some seconds later, went on
answering and taking writes it then drops); closing the client closes the sentinels'
connections too; and a failure to find the primary says in one line whether no sentinel
answered or none names a primary for the service. The worker builds its own client from
these parts (worker/connection.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from typing import Any, cast

from redis.asyncio import Redis
from redis.asyncio.connection import AbstractConnection, SSLConnection
from redis.asyncio.retry import Retry
from redis.asyncio.sentinel import (
    MasterNotFoundError,
    Sentinel,
    SentinelConnectionPool,
    SentinelManagedConnection,
)
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from accord_client.contracts.redis_url import SentinelUrl, parse_sentinel_url

# How long a sentinel may take to answer before the next one is asked: a sentinel
# answers from memory, so a silent one is passed over rather than waited on.
SENTINEL_ANSWER_S = 2.0

# How old the sentinels' naming of the primary may be when a connection is handed out or a
# reply is used: after a promotion, a former primary's connections and replies are used
# for at most about this long. It costs one SENTINEL MASTERS a second per client while
# commands run, answered from a sentinel's memory.
PRIMARY_CHECK_S = 1.0


class SentinelUnreachableError(MasterNotFoundError):
    """No sentinel of the URL answered (a ConnectionError: Redis cannot be reached)."""


class NoSuchServiceError(MasterNotFoundError):
    """The sentinels answered, but none names a primary it sees up for the service."""


class ExplainedSentinel(Sentinel):
    """redis-py's Sentinel, saying in one line why no primary was found.

    redis-py's MasterNotFoundError lists each sentinel as the repr of its client; an
    operator needs to know whether no sentinel answered (the URL's hosts, the network, the
    sentinels' password) or they answered without a primary for the service (its name, or
    a failover under way). The search is redis-py's own, step for step: the first
    sentinel that names a primary it sees up wins and is asked first next time.
    """

    async def discover_master(self, service_name: str) -> tuple[str, int]:
        unreachable: list[str] = []
        for index, sentinel in enumerate(self.sentinels):
            try:
                # SENTINEL MASTERS, parsed by redis-py's callback: name -> state.
                masters = cast("dict[str, dict[str, Any]]", await sentinel.sentinel_masters())
            except (RedisConnectionError, RedisTimeoutError) as error:
                unreachable.append(f"{_address(sentinel)}: {' '.join(str(error).split())}")
                continue
            state = masters.get(service_name)
            if state and self.check_master_state(state, service_name):
                self.sentinels[0], self.sentinels[index] = sentinel, self.sentinels[0]
                return state["ip"], state["port"]
        if len(unreachable) == len(self.sentinels):
            raise SentinelUnreachableError(f"no sentinel reachable ({'; '.join(unreachable)})")
        where = ", ".join(_address(sentinel) for sentinel in self.sentinels)
        raise NoSuchServiceError(
            f"the sentinels at {where} name no primary for the service {service_name!r}"
            " (not monitored by that name, or down with no failover yet)"
        )


class PrimaryPool(SentinelConnectionPool):
    """redis-py's Sentinel pool, with no connection to an address the sentinels stopped
    naming as the primary.

    redis-py's asyncio pool asks the sentinels only when a connection connects, and its
    `release` keeps a connection to a former primary (the synchronous pool drops one). A
    primary paused through a failover and resumed is still a primary for some seconds,
    until Sentinel demotes it: it answers the connections it had, and keeps the writes
    they send until the demotion drops them. So here the sentinels are asked again when
    their last naming is older than PRIMARY_CHECK_S, at every checkout (redis-py then
    disconnects the idle connections to the old address), and a connection to another
    address is disconnected when released. A reply read on one is refused
    (`PrimaryConnection`). When no sentinel answers, or none names a primary (the primary
    seen down, a failover under way), the known address is kept: the sentinels' own
    outage does not stop a primary that still answers.
    """

    def __init__(self, service_name: str, sentinel_manager: Sentinel, **kwargs: Any) -> None:  # noqa: ANN401  (redis-py's own keywords, passed on)
        # redis-py's sentinel module is unannotated.
        super().__init__(service_name, sentinel_manager, **kwargs)  # type: ignore[no-untyped-call]
        self.named_at = -math.inf
        self._asking: asyncio.Future[Any] | None = None

    async def get_master_address(self) -> tuple[str, int]:
        address = cast("tuple[str, int]", await super().get_master_address())  # type: ignore[no-untyped-call]
        self.named_at = time.monotonic()
        return address

    def doubt(self) -> None:
        """A connection failed or was refused as read-only: the primary may have moved, so
        the next checkout or reply asks the sentinels first."""
        self.named_at = -math.inf

    async def current_primary(self) -> tuple[str, int] | None:
        """The primary's address, as the sentinels named it at most PRIMARY_CHECK_S ago
        when they can be asked (one question at a time for all the pool's callers), else as
        they last named it (None before any naming)."""
        if time.monotonic() - self.named_at >= PRIMARY_CHECK_S:
            if self._asking is None or self._asking.done():
                self._asking = asyncio.ensure_future(self.get_master_address())
                # Retrieved even when every caller waiting on it was cancelled.
                self._asking.add_done_callback(_retrieved)
            # Shielded: a caller cancelled does not cancel the question for the others.
            # Unanswered, the known address stays (the class's docstring).
            with contextlib.suppress(MasterNotFoundError, RedisConnectionError, RedisTimeoutError):
                await asyncio.shield(self._asking)
        return cast("tuple[str, int] | None", self.master_address)

    def moved_from(self, connection: AbstractConnection) -> bool:
        """Whether `connection` is connected to another address than the primary's."""
        host = getattr(connection, "host", None)
        port = getattr(connection, "port", None)
        known = self.master_address
        return connection.is_connected and known is not None and known != (host, port)

    async def get_connection(self, *_args: Any, **_kwargs: Any) -> Any:  # noqa: ANN401  (redis-py's own signature; its arguments are deprecated and unused)
        await self.current_primary()
        # redis-py's connection module is partly unannotated.
        return await super().get_connection()  # type: ignore[no-untyped-call]

    async def release(self, connection: AbstractConnection) -> None:
        if self.is_master and self.moved_from(connection):
            await connection.disconnect()
        await super().release(connection)


def _retrieved(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


class PrimaryConnection(SentinelManagedConnection):
    """A connection of a `PrimaryPool` that refuses a reply read from a former primary.

    A read sent before the primary paused (a blocking XREADGROUP, an append) is answered
    when it resumes, after the promotion, with what only the old primary holds, which the
    demotion then drops. The reply is used only when the sentinels, asked at most
    PRIMARY_CHECK_S before, still name this connection's address; otherwise the connection
    is dropped and the call fails as at a connection loss (ConnectionError), so the caller
    retries on the promoted replica. Any connection error makes the pool ask again.
    """

    async def read_response(self, *args: Any, **kwargs: Any) -> Any:  # noqa: ANN401  (redis-py's own signature)
        pool = self.connection_pool
        ours = isinstance(pool, PrimaryPool) and pool.is_master
        try:
            response = await super().read_response(*args, **kwargs)
        except RedisConnectionError:
            # Also a demoted primary's READONLY, which redis-py turns into this.
            if ours:
                pool.doubt()
            raise
        if ours:
            await pool.current_primary()
            if pool.moved_from(self):
                where = f"{self.host}:{self.port}"
                await self.disconnect()
                raise RedisConnectionError(
                    f"{where} is no longer the primary the sentinels name; its reply is dropped"
                )
        return response


class PrimarySSLConnection(PrimaryConnection, SSLConnection):
    """The same over TLS (rediss+sentinel://)."""


def _address(client: Redis) -> str:
    kwargs = client.connection_pool.connection_kwargs
    return f"{kwargs.get('host')}:{kwargs.get('port')}"


class SentinelClient(Redis):
    """The primary's client; closing it closes the clients of the sentinels too (redis-py
    leaves those to the Sentinel, which the caller of `master_for` never sees)."""

    async def aclose(self, close_connection_pool: bool | None = None) -> None:  # noqa: FBT001  (redis-py's own signature)
        await super().aclose(close_connection_pool)
        pool = self.connection_pool
        if isinstance(pool, SentinelConnectionPool):
            await pool.sentinel_manager.aclose()


def tls_options(target: SentinelUrl) -> dict[str, Any]:
    """The TLS keywords of a rediss+sentinel:// URL (none for redis+sentinel://)."""
    if not target.tls:
        return {}
    options: dict[str, Any] = {"ssl": True}
    for name, value in target.tls_options:
        off = value.strip().lower() in {"false", "0", "no", "off"}
        options[name] = not off if name == "ssl_check_hostname" else value
    return options


def sentinel_options(target: SentinelUrl, timeout_s: float | None = None) -> dict[str, Any]:
    """The keywords of the connections to the sentinels themselves: their own credentials,
    TLS as the URL says, answers bounded (`timeout_s`, else SENTINEL_ANSWER_S) and no
    retry (the next sentinel is the retry)."""
    bound = SENTINEL_ANSWER_S if timeout_s is None else timeout_s
    return {
        "username": target.sentinel_username,
        "password": target.sentinel_password,
        "socket_timeout": bound,
        "socket_connect_timeout": bound,
        "retry": Retry(NoBackoff(), 0),
        **tls_options(target),
    }


def primary_options(target: SentinelUrl) -> dict[str, Any]:
    """The keywords of the connections to the primary: the data nodes' user and database,
    and TLS (the pool picks redis-py's TLS connection class from `ssl`)."""
    return {
        "username": target.username,
        "password": target.password,
        "db": target.db,
        **tls_options(target),
    }


def sentinel_redis(
    url: str,
    *,
    timeout_s: float | None = None,
    sentinel_extra: dict[str, Any] | None = None,
    **options: Any,  # noqa: ANN401  (redis-py's connection keywords, passed on)
) -> Redis:
    """The client of the primary named by the redis+sentinel:// `url` (ValueError of one
    line for a URL of another form). `options` go to the connections to the primary (a
    `connection_class` of the caller's replaces the choice by `ssl`), `sentinel_extra` to
    those to the sentinels; `timeout_s` bounds a sentinel's answer. A `connection_class`
    of the caller's derives from `PrimaryConnection` (or its TLS variant) to refuse the
    replies of a former primary."""
    target = parse_sentinel_url(url)
    primary = primary_options(target)
    if "connection_class" not in options:
        tls = primary.get("ssl", False)
        options["connection_class"] = PrimarySSLConnection if tls else PrimaryConnection
    primary.pop("ssl", None)  # the pool passes `ssl` on to a class of the caller's
    # redis-py's sentinel module is unannotated.
    manager = ExplainedSentinel(  # type: ignore[no-untyped-call]
        target.sentinels,
        sentinel_kwargs=sentinel_options(target, timeout_s) | (sentinel_extra or {}),
    )
    client: Redis = manager.master_for(
        target.service,
        redis_class=SentinelClient,
        connection_pool_class=PrimaryPool,
        **(primary | options),
    )
    return client
