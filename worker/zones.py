"""One time zone per command: every instant a command or the console shows is in it.

Stored instants keep the offset of the input that caused them (a deadline may carry
-05:00, the turn +00:00); shown side by side they seem to run backwards. So each
command converts every instant to one zone (`--tz`, UTC by default) and says which.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

DEFAULT_ZONE = "UTC"
TZ_HELP = "Show every time in this IANA zone (e.g. Europe/Berlin); default UTC."


def zone(name: str) -> tzinfo:
    """The zone called `name`; ValueError naming it when there is no such zone."""
    if name.upper() == "UTC":
        return UTC
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as error:
        message = f"unknown time zone {name!r} (use an IANA name such as Europe/Berlin)"
        raise ValueError(message) from error


def shown(at: datetime, where: tzinfo) -> str:
    """`2026-11-29 20:25:36`: the instant in the command's zone, seconds precision."""
    return at.astimezone(where).strftime("%Y-%m-%d %H:%M:%S")


def zone_name(where: tzinfo) -> str:
    return "UTC" if where is UTC else str(where)


def parse_instant(text: str) -> datetime:
    """An RFC 3339 instant (`2026-03-02T10:00:00Z`, `...+08:00`); naive means UTC.

    ValueError with the accepted form when it is not one.
    """
    try:
        value = datetime.fromisoformat(text.strip())
    except ValueError as error:
        message = f"not an RFC 3339 instant: {text!r} (e.g. 2026-03-02T10:00:00Z)"
        raise ValueError(message) from error
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


_UNITS_MS = {"s": 1_000, "m": 60_000, "h": 3_600_000, "d": 86_400_000, "w": 604_800_000}
_AGO = re.compile(r"([0-9]{1,9})([smhdw])")


def time_bound(text: str, now_ms: int) -> int:
    """Epoch ms of a list's time bound: a span back from `now_ms` (`90s`, `15m`, `1h`,
    `2d`, `1w`) or an RFC 3339 instant. ValueError saying both forms when it is neither."""
    ago = _AGO.fullmatch(text.strip())
    if ago:
        return now_ms - int(ago[1]) * _UNITS_MS[ago[2]]
    try:
        return int(parse_instant(text).timestamp() * 1000)
    except ValueError:
        message = f"not a time: {text!r} (a span back from now such as 15m, 1h, 2d, or an"
        raise ValueError(message + " RFC 3339 instant such as 2026-03-02T10:00:00Z)") from None
