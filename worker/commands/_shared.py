"""What the commands share: settings, a Redis client, and human or JSON output (the
options they share are in worker/commands/options.py)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import sys
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from datetime import tzinfo
from typing import Any, NoReturn, TypeVar
from urllib.parse import parse_qsl, urlsplit

import msgspec
import typer
from redis.exceptions import (
    AuthenticationError,
    NoPermissionError,
    RedisClusterException,
    ResponseError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from rich.console import Console, RenderableType
from rich.markup import escape

from store.layout import LayoutMismatch, check_layout
from store.scripts import AnyRedis
from worker.connection import DEFAULT_URL, connect, with_stored_partitions
from worker.render import escape as printable_escape
from worker.settings import Settings, redacted_url
from worker.zones import zone

T = TypeVar("T")

# What "Redis cannot be reached" looks like from redis-py: refused or reset
# connections, DNS failures and authentication (ConnectionError subclasses), timeouts,
# and a cluster with no reachable node. Anything else is a bug and keeps its traceback.
UNREACHABLE = (RedisConnectionError, RedisTimeoutError, RedisClusterException)

console = Console()
err_console = Console(stderr=True)


def print_json(value: Any) -> None:  # noqa: ANN401  (msgspec encodes Structs, dicts and lists)
    sys.stdout.write(msgspec.json.encode(value).decode() + "\n")
    sys.stdout.flush()


def emit(value: T, *, as_json: bool, human: Callable[[T], Iterable[RenderableType]]) -> None:
    """A command's answer: one JSON document with `--json`, else each of `human(value)`."""
    if as_json:
        print_json(value)
        return
    for shown in human(value):
        console.print(shown)


def refuse(command: str, line: str) -> NoReturn:
    """End `accord COMMAND` with one line on stderr (Redis or file data escaped), exit 2."""
    err_console.print(f"[red]accord {command}:[/] {printable_escape(line)}", soft_wrap=True)
    raise typer.Exit(2)


# The longest a command waits for the partition count before its own work.
LAYOUT_READ_S = 3.0


def settings_or_exit() -> Settings:
    try:
        return Settings.from_env()
    except ValueError as error:
        # One line whatever the terminal width: it is grepped from logs. Escaped: a value
        # or a form in brackets ("[user:password@]") is text, not Rich markup.
        err_console.print(f"[red]configuration error:[/] {escape(str(error))}", soft_wrap=True)
        raise typer.Exit(2) from error


def deployment_settings(timeout_s: float = LAYOUT_READ_S) -> Settings:
    """The settings of a running deployment: exit 2 on a bad one, or without REDIS_URL.

    `timeout_s`: the command's own `--timeout`. Reading the partition count waits at
    most that (and at most LAYOUT_READ_S), so a silent Redis holds a command about
    the bound its user gave, not three seconds more."""
    settings = settings_or_exit()
    if settings.redis_url is None:
        err_console.print(
            "[red]REDIS_URL is not set.[/] This command talks to a running accord deployment;"
            " `accord dev` starts one on this machine (embedded Redis, worker, console) and"
            " prints the REDIS_URL to export.",
            soft_wrap=True,
        )
        raise typer.Exit(2)
    # Unset ACCORD_PARTITIONS: the count Redis holds (a repartition may have changed it).
    bound = min(timeout_s, LAYOUT_READ_S)
    return run_anywhere(lambda: with_stored_partitions(settings, timeout_s=bound))


def run_anywhere(make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """`asyncio.run` of what `make` returns, in a thread of its own when this thread
    already runs an event loop (a command called from async code, or under Playwright's
    sync API in the browser tests), where `asyncio.run` is refused."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(make())
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(lambda: asyncio.run(make())).result()


def run_with_redis(  # noqa: PLR0913  (the body, its bounds and how failures are said)
    settings: Settings,
    body: Callable[[AnyRedis], Awaitable[T]],
    *,
    timeout_s: float,
    unreachable_exit: int = 2,
    on_unreachable: Callable[[str], T] | None = None,
    handled: tuple[type[ResponseError], ...] = (),
    layout_check: bool = True,
) -> T:
    """Run `body(redis)` on a fresh asyncio client, closing it afterwards.

    No answer from Redis waits longer than `timeout_s` (the command's `--timeout`).
    When Redis cannot be reached or does not answer in time, print one line
    (`unreachable_line`) on stderr and exit with `unreachable_exit` instead of a page of
    traceback, or, given `on_unreachable`, return what it makes of that line. A Redis
    error reply ends it the same way (`refused_line`, exit 2), except those `handled`
    names: the caller says them its own way.
    """

    async def main() -> T:
        redis = connect(settings, timeout_s=timeout_s)
        try:
            # A command with another partition count would read and write the wrong keys.
            # (Not for a user without the layout key.)
            if layout_check:  # (`accord repartition` changes the layout: it checks its own)
                with contextlib.suppress(NoPermissionError):
                    await check_layout(redis, settings.partitions, settings.group)
            return await body(redis)
        finally:
            await redis.aclose()

    try:
        return run(main())
    except UNREACHABLE as error:
        line = unreachable_line(settings, error, timeout_s=timeout_s)
        if on_unreachable is not None:
            return on_unreachable(line)
        sys.stderr.write(line + "\n")
        raise typer.Exit(unreachable_exit) from None
    except ResponseError as error:
        if isinstance(error, handled):
            raise
        # Redis answered, and said no: a database the URL names that it does not have, a
        # command the user may not run, a key of another type. Not a bug of this command.
        line = refused_line(settings, error)
        if on_unreachable is not None:
            return on_unreachable(line)
        sys.stderr.write(line + "\n")
        raise typer.Exit(2) from None
    except LayoutMismatch as error:
        sys.stderr.write(f"accord: configuration error: {error}\n")
        raise typer.Exit(2) from None


def require_answer(settings: Settings, *, timeout_s: float) -> None:
    """Exit (one line, code 2) unless Redis answers within `timeout_s`: for commands that
    start something long-running (a console, a demo's worker) only on a Redis that answers.
    """
    run_with_redis(settings, _nothing_more, timeout_s=timeout_s)


async def _nothing_more(_redis: AnyRedis) -> None:
    """Connecting and the layout check before this are the question."""


def unreachable_line(
    settings: Settings, error: BaseException, *, timeout_s: float | None = None
) -> str:
    """One line naming the URL (password redacted) and the cause, fit for any log; for a
    timeout, the bound that ran out too."""
    cause = " ".join(str(error).split()) or type(error).__name__
    for secret in _passwords(settings.redis_url or ""):
        # redis-py does not echo passwords, but a cause is printed, so be sure.
        cause = cause.replace(secret, "***")
    if isinstance(error, RedisTimeoutError) and timeout_s is not None:
        cause = f"no answer within {timeout_s:g} s (--timeout): {cause}"
    url = redacted_url(settings.redis_url or DEFAULT_URL)
    return f"accord: cannot reach Redis at {url}: {cause}{_hint(settings, error)}"


def _passwords(url: str) -> list[str]:
    """The passwords `url` carries: the data nodes' and, in the query, any other
    (`password=`, a Sentinel URL's `sentinel_password=`)."""
    parts = urlsplit(url)
    found = [parts.password or ""]
    found += [v for k, v in parse_qsl(parts.query) if "password" in k]
    return [secret for secret in found if secret]


def refused_line(settings: Settings, error: ResponseError) -> str:
    """One line for a Redis that answered with an error: the URL, its words, a hint."""
    cause = " ".join(str(error).split())[:300] or type(error).__name__
    url = redacted_url(settings.redis_url or DEFAULT_URL)
    return f"accord: Redis at {url} refused: {cause}{_hint(settings, error)}"


def _hint(settings: Settings, error: BaseException) -> str:
    """What to change, for the refusals a new user meets first."""
    text = str(error)
    parts = urlsplit(settings.redis_url or "")
    if (
        "NOAUTH" in text
        or "Authentication required" in text
        or (isinstance(error, AuthenticationError) and not parts.password)
    ):
        return (
            " (this Redis needs a password: put it in REDIS_URL,"
            " redis://USER:PASSWORD@HOST:PORT; docs/operations.md)"
        )
    if "WRONGPASS" in text or isinstance(error, AuthenticationError):
        return " (the user or password in REDIS_URL is not accepted)"
    if "DB index is out of range" in text:
        return f" (REDIS_URL names database {parts.path.lstrip('/')}; this Redis has fewer)"
    if isinstance(error, NoPermissionError):
        return " (the Redis user lacks this permission: docs/security.md lists what each needs)"
    return ""


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coroutine)


def zone_or_exit(name: str) -> tzinfo:
    """The `--tz` zone, or one line and exit 2 when there is no such zone."""
    try:
        return zone(name)
    except ValueError as error:
        err_console.print(f"[red]{escape(str(error))}[/]")
        raise typer.Exit(2) from error
