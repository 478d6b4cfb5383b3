"""A client of the primary that Redis Sentinel names, from a redis+sentinel:// URL.

The URL's form is the contracts' (`accord_client.contracts.redis_url`); the client is
redis-py's own (`Sentinel.master_for`): each new connection asks the sentinels for the
current primary, and one to a primary that was demoted is dropped, so after a failover
the next command goes to the promoted replica. What is added here: closing the client
closes the sentinels' connections too, and a failure to find the primary says in one
line whether no sentinel answered or none names a primary for the service. The worker
builds its own client from these parts (worker/connection.py).
"""

from __future__ import annotations

from typing import Any, cast

from redis.asyncio import Redis
from redis.asyncio.retry import Retry
from redis.asyncio.sentinel import MasterNotFoundError, Sentinel, SentinelConnectionPool
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from accord_client.contracts.redis_url import SentinelUrl, parse_sentinel_url

# How long a sentinel may take to answer before the next one is asked: a sentinel
# answers from memory, so a silent one is passed over rather than waited on.
SENTINEL_ANSWER_S = 2.0


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
    those to the sentinels; `timeout_s` bounds a sentinel's answer."""
    target = parse_sentinel_url(url)
    primary = primary_options(target)
    if "connection_class" in options:
        primary.pop("ssl", None)  # the pool passes `ssl` on to a class of the caller's
    # redis-py's sentinel module is unannotated.
    manager = ExplainedSentinel(  # type: ignore[no-untyped-call]
        target.sentinels,
        sentinel_kwargs=sentinel_options(target, timeout_s) | (sentinel_extra or {}),
    )
    client: Redis = manager.master_for(
        target.service, redis_class=SentinelClient, **(primary | options)
    )
    return client
