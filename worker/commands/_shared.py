"""What the commands share: settings, a Redis client, and human or JSON output."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

import msgspec
import typer
from rich.console import Console

from worker.connection import connect
from worker.consumer import AnyRedis
from worker.settings import Settings

T = TypeVar("T")

console = Console()
err_console = Console(stderr=True)

JSON_HELP = "Print JSON (one document per line) instead of human-readable output."


def wants_json(flag: bool) -> bool:  # noqa: FBT001  (a CLI flag)
    return flag


def print_json(value: Any) -> None:  # noqa: ANN401  (msgspec encodes Structs, dicts and lists)
    sys.stdout.write(msgspec.json.encode(value).decode() + "\n")
    sys.stdout.flush()


def settings_or_exit() -> Settings:
    try:
        return Settings.from_env()
    except ValueError as error:
        err_console.print(f"[red]configuration error:[/] {error}")
        raise typer.Exit(2) from error


def require_url(settings: Settings) -> Settings:
    if settings.redis_url is None:
        err_console.print(
            "[red]REDIS_URL is not set.[/] This command talks to a running accord deployment; "
            "`accord demo` starts an embedded Redis by itself."
        )
        raise typer.Exit(2)
    return settings


def run_with_redis(settings: Settings, body: Callable[[AnyRedis], Awaitable[T]]) -> T:
    """Run `body(redis)` on a fresh asyncio client, closing it afterwards."""

    async def main() -> T:
        redis = connect(settings)
        try:
            return await body(redis)
        finally:
            await redis.aclose()

    return run(main())


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coroutine)
