"""What the list commands (`accord records`, `accord scopes`) share: their time bounds
and cursor checked before Redis is asked (one line, exit 2), and the bounds made
instants at Redis's clock (a span such as `1h` counts back from Redis's now)."""

from __future__ import annotations

from store.index_pages import CursorError, decode_cursor
from store.scripts import AnyRedis
from store.watermark import server_ms
from worker.commands._shared import refuse
from worker.zones import time_bound

NEXT_HINT = "next page: add --cursor "


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
