"""What the commands share: settings, a Redis client, and human or JSON output."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Awaitable, Callable, Coroutine
from datetime import tzinfo
from typing import Any, TypeVar
from urllib.parse import urlsplit

import msgspec
import typer
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoPermissionError, RedisClusterException
from redis.exceptions import TimeoutError as RedisTimeoutError
from rich.console import Console
from rich.markup import escape

from store.layout import LayoutMismatch, check_layout
from store.scripts import AnyRedis
from worker.connection import DEFAULT_URL, connect
from worker.settings import Settings, redacted_url
from worker.zones import DEFAULT_ZONE, TZ_HELP, zone

T = TypeVar("T")

# What "Redis cannot be reached" looks like from redis-py: refused or reset
# connections, DNS failures and authentication (ConnectionError subclasses), timeouts,
# and a cluster with no reachable node. Anything else is a bug and keeps its traceback.
UNREACHABLE = (RedisConnectionError, RedisTimeoutError, RedisClusterException)

console = Console()
err_console = Console(stderr=True)

JSON_HELP = "Print JSON (one document per line) instead of human-readable output."

# Every command that shows a time takes `--tz` with this default and help.
TZ_DEFAULT = DEFAULT_ZONE
TZ_OPTION_HELP = TZ_HELP


def wants_json(flag: bool) -> bool:  # noqa: FBT001  (a CLI flag)
    return flag


def print_json(value: Any) -> None:  # noqa: ANN401  (msgspec encodes Structs, dicts and lists)
    sys.stdout.write(msgspec.json.encode(value).decode() + "\n")
    sys.stdout.flush()


def settings_or_exit() -> Settings:
    try:
        return Settings.from_env()
    except ValueError as error:
        # One line whatever the terminal width: it is grepped from logs.
        err_console.print(f"[red]configuration error:[/] {error}", soft_wrap=True)
        raise typer.Exit(2) from error


def require_url(settings: Settings) -> Settings:
    if settings.redis_url is None:
        err_console.print(
            "[red]REDIS_URL is not set.[/] This command talks to a running accord deployment; "
            "`accord demo` starts an embedded Redis by itself."
        )
        raise typer.Exit(2)
    return settings


def run_with_redis(
    settings: Settings,
    body: Callable[[AnyRedis], Awaitable[T]],
    *,
    unreachable_exit: int = 2,
) -> T:
    """Run `body(redis)` on a fresh asyncio client, closing it afterwards.

    When Redis cannot be reached, print one line (`unreachable_line`) on stderr and
    exit with `unreachable_exit` instead of a page of traceback.
    """

    async def main() -> T:
        redis = connect(settings)
        try:
            # A command with another partition count would read and write the wrong keys.
            # (Not for a user without the layout key, nor here when Redis is unreachable:
            # the command itself says that its own way.)
            with contextlib.suppress(NoPermissionError, *UNREACHABLE):
                await check_layout(redis, settings.partitions, settings.group)
            return await body(redis)
        finally:
            await redis.aclose()

    try:
        return run(main())
    except UNREACHABLE as error:
        sys.stderr.write(unreachable_line(settings, error) + "\n")
        raise typer.Exit(unreachable_exit) from None
    except LayoutMismatch as error:
        sys.stderr.write(f"accord: configuration error: {error}\n")
        raise typer.Exit(2) from None


def unreachable_line(settings: Settings, error: BaseException) -> str:
    """One line naming the URL (password redacted) and the cause, fit for any log."""
    cause = " ".join(str(error).split()) or type(error).__name__
    password = urlsplit(settings.redis_url or "").password
    if password:
        # redis-py does not echo passwords, but a cause is printed, so be sure.
        cause = cause.replace(password, "***")
    url = redacted_url(settings.redis_url or DEFAULT_URL)
    return f"accord: cannot reach Redis at {url}: {cause}"


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coroutine)


def zone_or_exit(name: str) -> tzinfo:
    """The `--tz` zone, or one line and exit 2 when there is no such zone."""
    try:
        return zone(name)
    except ValueError as error:
        err_console.print(f"[red]{escape(str(error))}[/]")
        raise typer.Exit(2) from error
