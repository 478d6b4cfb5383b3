"""What the list commands (`accord records`, `accord scopes`) share: their time bounds
and cursor checked before Redis is asked (one line, exit 2), and the bounds made
instants at Redis's clock (a span such as `1h` counts back from Redis's now)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from datetime import tzinfo
from typing import TypeVar

from rich.console import RenderableType

from store.index_pages import CursorError, decode_cursor
from store.scripts import AnyRedis
from store.watermark import server_ms
from worker.commands._shared import (
    deployment_settings,
    emit,
    refuse,
    run_with_redis,
    zone_or_exit,
)
from worker.zones import time_bound

NEXT_HINT = "next page: add --cursor "
T = TypeVar("T")
# One page, read: (redis, partitions, since ms, until ms) -> the page.
Read = Callable[[AnyRedis, int, int | None, int | None], Awaitable[T]]


def check(command: str, since: str | None, until: str | None, cursor: str | None) -> None:
    """Refuse (one line, exit 2) a time bound or a cursor that cannot be read."""
    for name, value in (("--since", since), ("--until", until)):
        if value is not None:
            try:
                time_bound(value, 0)
            except ValueError as error:
                refuse(command, f"{name}: {error}")
    if cursor is not None:
        try:
            decode_cursor(cursor)
        except CursorError as error:
            refuse(command, f"--cursor: {error}")


async def window(
    redis: AnyRedis, since: str | None, until: str | None
) -> tuple[int | None, int | None]:
    """(since, until) in Redis ms; Redis's clock is read only when a bound is given."""
    now = await server_ms(redis) if since or until else 0
    return (
        None if since is None else time_bound(since, now),
        None if until is None else time_bound(until, now),
    )


def show_page(  # noqa: PLR0913  (a list command's options, how it reads and shows a page)
    command: str,
    *,
    since: str | None,
    until: str | None,
    cursor: str | None,
    tz: str,
    timeout: float,
    as_json: bool,
    read: Read[T],
    human: Callable[[T, tzinfo], Iterable[RenderableType]],
) -> None:
    """A list command: its input checked (one line, exit 2), one page read from the
    deployment's Redis with the time bounds at Redis's clock, shown as JSON or `human`."""
    where = zone_or_exit(tz)
    check(command, since, until, cursor)
    settings = deployment_settings(timeout)

    async def body(redis: AnyRedis) -> T:
        since_ms, until_ms = await window(redis, since, until)
        return await read(redis, settings.partitions, since_ms, until_ms)

    page = run_with_redis(settings, body, timeout_s=timeout)
    emit(page, as_json=as_json, human=lambda page: human(page, where))
