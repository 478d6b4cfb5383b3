"""The processor's crash points: the one seam through which crash tests stop a batch.

The processor calls its `CrashHook` at each named step of a batch; in production the
hook is `no_crash`. A crash test builds its processor with `exit_at(point)` (the chaos
worker reads the point from `ACCORD_CHAOS_CRASH_AT`, the crash tests take it as an
argument): the process dies there with `os._exit(137)`, as a SIGKILL would: no
`finally`, no flush. Another consumer then reclaims its pending entries.
"""

from __future__ import annotations

import os
from typing import Literal, Protocol, get_args

# In processing order. The commit itself is one Lua script: it cannot be cut in half.
CrashPoint = Literal["after_decode", "after_load", "before_commit", "after_commit"]
CRASH_POINTS: tuple[CrashPoint, ...] = get_args(CrashPoint)


class CrashHook(Protocol):
    def __call__(self, point: CrashPoint) -> None: ...


def no_crash(point: CrashPoint) -> None:
    """Production: every crash point passes."""


def exit_at(armed: str) -> CrashHook:
    """A hook that kills the process at the crash point `armed` (ValueError if unknown)."""
    if armed not in CRASH_POINTS:
        raise ValueError(f"crash point must be one of {CRASH_POINTS}, got {armed!r}")

    def hook(point: CrashPoint) -> None:
        if point == armed:
            os._exit(137)

    return hook
