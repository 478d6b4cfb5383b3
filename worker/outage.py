"""Redis unreachable: how the worker's loops wait for it, and what they say meanwhile.

Each loop (reader, reclaimer, sweeper, watchdog) that fails on Redis waits with
exponential backoff and logs one `redis_unavailable` line per backoff step, naming the
loop, the error and the next wait: no traceback, no line per second per loop. While
any loop finds Redis unreachable, `/readyz` answers 503 (worker/health.py); the first
success after an outage logs `redis_available` once.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from worker.consumer import sleep_or_stop

FIRST_S = 0.1
MAX_S = 5.0


@dataclass
class Reachability:
    """Which loops find Redis unreachable right now (empty: reachable as far as known)."""

    failing: set[str] = field(default_factory=set)

    @property
    def reachable(self) -> bool:
        return not self.failing


@dataclass
class Backoff:
    """One loop's backoff on Redis errors."""

    log: Any
    loop: str
    reachability: Reachability | None = None
    first_s: float = FIRST_S
    max_s: float = MAX_S
    pause_s: float = 0.0
    failures: int = 0

    async def wait(self, stop: asyncio.Event, error: BaseException) -> None:
        """After a failed Redis call: log one line, mark Redis unreachable, sleep the step."""
        self.pause_s = self.first_s if not self.failures else min(self.pause_s * 2, self.max_s)
        self.failures += 1
        if self.reachability is not None:
            self.reachability.failing.add(self.loop)
        cause = " ".join(str(error).split()) or type(error).__name__
        self.log.warning(
            "redis_unavailable",
            loop=self.loop,
            error=f"{type(error).__name__}: {cause}"[:300],
            attempt=self.failures,
            retry_in_s=round(self.pause_s, 2),
        )
        await sleep_or_stop(stop, self.pause_s)

    def reset(self) -> None:
        """After a Redis call that worked."""
        if self.failures:
            self.log.info("redis_available", loop=self.loop, after_attempts=self.failures)
        self.failures = 0
        self.pause_s = 0.0
        if self.reachability is not None:
            self.reachability.failing.discard(self.loop)
