"""Named crash points of the processor, for the crash-recovery tests.

A test worker runs in a subprocess with `StoreConfig(crash_at=<point>)` (its runner reads
`ACCORD_CRASH_AT`) and dies with `os._exit(137)` at that step, as a SIGKILL would: no
`finally`, no flush. Another consumer then reclaims its pending entries.
"""

from __future__ import annotations

import os

# In processing order. The commit itself is one Lua script: it cannot be cut in half.
CRASH_POINTS = ("after_decode", "after_load", "before_commit", "after_commit")


def crash_point(armed: str | None, name: str) -> None:
    if armed == name:
        os._exit(137)
