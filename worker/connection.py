"""The store's Redis client from settings: one Redis, its primary under Sentinel (a
redis+sentinel:// URL, contracts/redis_url.py), or Redis Cluster when configured.

Kept apart from the composition root so CLI reads (check, view, events) do not pay
for importing FastStream.

No client sends a `CLIENT` command on connect (redis-py and FastStream send `CLIENT
SETINFO`, and redis-py's RESP3 maintenance-notifications handshake `CLIENT
MAINT_NOTIFICATIONS`, by default, on every new connection): the deploy ACL's users have
no `CLIENT` command, and each refused call is a NOPERM line in `ACL LOG`, drowning the
denials an operator must see there.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any, cast
from urllib.parse import urlsplit

import hiredis
from redis.asyncio import Redis, RedisCluster
from redis.asyncio.connection import Connection, SSLConnection
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.maint_notifications import MaintNotificationsConfig
from redis.typing import EncodableT

from accord_client.contracts.redis_url import parse_sentinel_url
from accord_client.sentinel import (
    PrimaryConnection,
    PrimarySSLConnection,
    primary_options,
    sentinel_options,
    sentinel_redis,
)
from contracts.redis_url import is_sentinel_url
from store.layout import stored_layout
from store.scripts import AnyRedis, use_functions
from worker.settings import Settings, redacted_url

DEFAULT_URL = "redis://127.0.0.1:6379/0"


def quiet_options() -> dict[str, Any]:
    """redis-py keywords that keep every CLIENT command off a new connection."""
    return {
        "driver_info": None,
        "maint_notifications_config": MaintNotificationsConfig(enabled=False),
    }


class TimedSends(Connection):
    """Sends bounded by `asyncio.timeout` rather than `asyncio.wait_for`.

    redis-py bounds every send with `asyncio.wait_for` under its socket timeout, and on
    Python 3.11 that wraps each send in a Task of its own, run on a later turn of the
    event loop: a tenth of this process's CPU per round trip, paid for every read and
    commit, which is most of a worker's CPU at a steady load. `asyncio.timeout` bounds the
    same wait, the writer's drain, without a Task (on 3.12 and later `wait_for` is itself
    built on it, and this changes nothing). The rest is redis-py's own handling: a
    timed-out send drops the connection and raises its TimeoutError, a failed one its
    ConnectionError, a cancelled one drops it and stays a cancellation
    (docs/performance.md, "Settings that trade memory for speed").
    """

    async def send_packed_command(
        self,
        command: bytes | str | Iterable[bytes],
        check_health: bool = True,  # noqa: FBT001, FBT002  (redis-py's own signature)
    ) -> None:
        if not self.socket_timeout:
            await super().send_packed_command(command, check_health)
            return
        if not self.is_connected:
            await self.connect_check_health(check_health=False)
        if check_health:
            health: Any = self.check_health  # untyped in redis-py
            await health()
        writer = cast("asyncio.StreamWriter", self._writer)
        try:
            if isinstance(command, str):
                command = command.encode()
            writer.writelines([command] if isinstance(command, bytes) else command)
            async with asyncio.timeout(self.socket_timeout):
                await writer.drain()
        except TimeoutError:
            await self.disconnect(nowait=True)
            raise RedisTimeoutError("Timeout writing to socket") from None
        except OSError as error:
            await self.disconnect(nowait=True)
            code, message = ("UNKNOWN", error.args[0]) if len(error.args) == 1 else error.args[:2]
            raise RedisConnectionError(
                f"Error {code} while writing to socket. {message}."
            ) from error
        except BaseException:
            # As redis-py: a send cut short may have left part of a command on the wire.
            await self.disconnect(nowait=True)
            raise


class HiredisPacking(TimedSends):
    """Commands packed by hiredis's C encoder, as redis-py's blocking client does.

    redis-py's asyncio connection packs in Python, argument by argument, and a commit
    script's call carries thousands of them: about 0.7 ms of the worker's CPU for 2,000
    arguments against 0.16 ms here (docs/performance.md, "Transport"). The bytes
    on the wire are the same (str as UTF-8, bytes, int, float); anything else, or a
    client with another encoding or `encoding_errors`, goes through redis-py's packing.
    """

    def pack_command(self, *args: EncodableT) -> list[bytes]:
        encoder = self.encoder
        if (
            encoder.encoding.lower().replace("-", "") != "utf8"
            or encoder.encoding_errors != "strict"
        ):
            return super().pack_command(*args)
        first = args[0]
        if isinstance(first, str):
            args = (*first.encode().split(), *args[1:])
        elif isinstance(first, bytes) and b" " in first:
            args = (*first.split(), *args[1:])
        try:
            # hiredis's stub types the tuple as one item; it takes any number.
            packed: bytes = hiredis.pack_command(cast("Any", args))
        except TypeError:
            # What hiredis refuses (bytearray, bool, None...): redis-py's own packing,
            # which converts or raises its DataError as it always did.
            return super().pack_command(*args)
        return [packed]


class QuietConnection(HiredisPacking):
    """A TCP connection that sends no CLIENT command on connect."""

    def __init__(self, **kwargs: Any) -> None:  # noqa: ANN401  (redis-py's own keywords, passed on)
        super().__init__(**(kwargs | quiet_options()))


class QuietSSLConnection(HiredisPacking, SSLConnection):
    """A TLS connection that sends no CLIENT command on connect."""

    def __init__(self, **kwargs: Any) -> None:  # noqa: ANN401  (redis-py's own keywords, passed on)
        super().__init__(**(kwargs | quiet_options()))


class QuietSentinelConnection(HiredisPacking, PrimaryConnection):
    """A TCP connection to the primary the sentinels name, packed by hiredis, that sends
    no CLIENT command on connect (the client's class finds the primary and refuses the
    replies of a former one, accord_client.sentinel; the packing and the quiet handshake
    are the same as above).
    """

    def __init__(self, **kwargs: Any) -> None:  # noqa: ANN401  (redis-py's own keywords, passed on)
        # redis-py's sentinel module is unannotated.
        super().__init__(**(kwargs | quiet_options()))  # type: ignore[no-untyped-call]


class QuietSentinelSSLConnection(HiredisPacking, PrimarySSLConnection):
    """The same over TLS (rediss+sentinel://)."""

    def __init__(self, **kwargs: Any) -> None:  # noqa: ANN401  (redis-py's own keywords, passed on)
        super().__init__(**(kwargs | quiet_options()))  # type: ignore[no-untyped-call]


def sentinel_client(url: str, options: dict[str, Any]) -> Redis:
    """The client of the primary the sentinels of `url` name (accord_client.sentinel),
    over the connection classes above: hiredis packing and no CLIENT command, on the
    primary as on the sentinels."""
    tls = parse_sentinel_url(url).tls
    return sentinel_redis(
        url,
        timeout_s=options.get("socket_timeout"),
        sentinel_extra=quiet_options(),
        connection_class=QuietSentinelSSLConnection if tls else QuietSentinelConnection,
        **options,
    )


def sentinel_broker_options(url: str) -> dict[str, Any]:
    """FastStream's RedisSentinelBroker keywords for a redis+sentinel:// `url`: the same
    sentinels, primary and connection classes as `connect`'s client."""
    target = parse_sentinel_url(url)
    primary = primary_options(target)
    tls = primary.pop("ssl", False)
    return {
        # Shown in the AsyncAPI document only: never the password.
        "specification_url": redacted_url(url),
        "sentinels": target.sentinels,
        "sentinel_master_name": target.service,
        "sentinel_kwargs": sentinel_options(target) | quiet_options(),
        "connection_class": QuietSentinelSSLConnection if tls else QuietSentinelConnection,
        **primary,
    }


def broker_connection_options(url: str) -> dict[str, type[Connection]]:
    """FastStream's broker sets the library name itself; a connection class that drops
    it keeps CLIENT SETINFO off the wire (TCP and TLS; a `unix://` URL keeps the default)."""
    scheme = urlsplit(url).scheme
    if scheme == "rediss":
        return {"connection_class": QuietSSLConnection}
    if scheme == "redis":
        return {"connection_class": QuietConnection}
    return {}


def answer_options(timeout_s: float) -> dict[str, Any]:
    """redis-py keywords bounding every answer (connect included) to `timeout_s` seconds.

    No retries: redis-py's default retries a timed-out command three more times with
    backoff, so a silent Redis would take four times the bound, and a command-line
    user asked for one bound. (A URL's own `?socket_timeout=` still wins.)
    """
    return {
        "socket_timeout": timeout_s,
        "socket_connect_timeout": timeout_s,
        "retry": Retry(NoBackoff(), 0),
    }


async def with_stored_partitions(settings: Settings, *, timeout_s: float = 3.0) -> Settings:
    """`settings` with the partition count Redis holds, when ACCORD_PARTITIONS was not
    given (a repartitioned deployment's workers restart with its new count by themselves).
    Unchanged when given, with no REDIS_URL, or when Redis does not answer: the start
    then fails on its own, with its own line."""
    if settings.partitions_given or settings.redis_url is None:
        return settings
    redis = connect(settings, timeout_s=timeout_s)
    try:
        layout = await stored_layout(redis)
    except (RedisError, OSError, ValueError):
        return settings
    finally:
        await redis.aclose()
    if layout is None or layout.partitions == settings.partitions:
        return settings
    return settings.replaced(partitions=layout.partitions).checked()


def connect(settings: Settings, *, timeout_s: float | None = None) -> AnyRedis:
    """The client for `settings`; with `timeout_s`, no answer waits longer than that.
    In function mode its scripts run by FCALL (store/scripts.py)."""
    url = settings.redis_url or DEFAULT_URL
    options = quiet_options() | (answer_options(timeout_s) if timeout_s is not None else {})
    redis: AnyRedis = (
        sentinel_client(url, options)
        if is_sentinel_url(url)
        else RedisCluster.from_url(url, **options)
        if settings.redis_cluster
        # The broker's connection class: commands packed by hiredis (a commit's arguments).
        else Redis.from_url(url, **(options | broker_connection_options(url)))
    )
    return use_functions(redis) if settings.redis_functions else redis
