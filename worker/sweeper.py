"""Periodic work that no input triggers: expiry at deadlines, stale gap skips, heartbeat.

Expiry goes through the store's watermark-gated primitive (DESIGN 3, "Deadlines"):
a record expires only once every input written before its deadline is applied, and
the script is atomic, so any number of workers may sweep the same partition at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from redis.exceptions import RedisError, ResponseError

from contracts.outputs import OutputEvent
from store.compaction import Compaction
from store.ownership import LeaseLost
from worker.consumer import sleep_or_stop
from worker.observability import Metrics, log_events
from worker.outage import Backoff, Reachability

T = TypeVar("T")


class SweepTarget(Protocol):
    """What the sweeper needs from the store's processor of one partition."""

    # Without an argument the store uses Redis's clock (TIME), the same for every worker.
    async def sweep_expired(self) -> Sequence[OutputEvent]: ...

    async def skip_stale_gaps(self) -> int: ...

    # Session compaction and input trimming, as configured (both off by default).
    async def retain(self) -> Compaction: ...

    # Agreement events and dead letters durable commits left held (store/durability.py).
    async def publish_held(self) -> int: ...

    # Scopes the two calls above passed over since the last call, with why.
    def take_isolated(self) -> dict[tuple[str, str], str]: ...


@dataclass
class Sweeper:
    targets: dict[int, SweepTarget]
    metrics: Metrics
    log: Any
    reachability: Reachability | None = None

    async def sweep_once(self) -> int:
        """One pass over every partition; returns how many records expired.

        Each partition, and in it the gap skip and the expiry, runs on its own: a
        failure of one is logged and retried next period, never stopping the others
        (the store already passes over a scope it cannot commit, and says why).
        """
        expired = 0
        # A copy: with partition ownership the served partitions change while it sweeps.
        for partition, target in list(self.targets.items()):
            try:
                expired += await self._sweep_partition(partition, target)
            except LeaseLost as lost:
                if lost.partition in self.targets:
                    # Another worker owns the partition now: it sweeps it
                    # (store/ownership.py).
                    self.log.warning("lease_lost", partition=lost.partition)
                else:
                    # This worker released it while the pass ran (a clean stop, or its
                    # share moved to a joining worker): nothing was lost.
                    self.log.info("sweep_ended_by_release", partition=lost.partition)
        return expired

    async def _step(self, name: str, partition: int, step: Callable[[], Awaitable[T]]) -> T | None:
        """Run one step of a partition's sweep; None if it failed there (logged)."""
        try:
            return await step()
        except ResponseError:
            # A command error (a key of another type): this partition's, not Redis being
            # away; the other partitions and steps still run.
            self.log.exception(name, partition=partition)
        except (asyncio.CancelledError, LeaseLost, RedisError, OSError):
            raise  # Redis away: the loop backs off (worker/outage.py)
        except Exception:  # retried next period; the other steps still run
            self.log.exception(name, partition=partition)
        return None

    async def _sweep_partition(self, partition: int, target: SweepTarget) -> int:
        """Gap skips and expiry of one partition; how many records expired."""
        expired = 0
        skipped = await self._step("gap_skip_failed", partition, target.skip_stale_gaps)
        if skipped:
            self.metrics.gap_skips.inc(skipped)
            self.log.warning("gaps_skipped", partition=partition, count=skipped)
        events = await self._step("sweep_failed", partition, target.sweep_expired) or ()
        if events:
            expired += len(events)
            self.metrics.expired.inc(len(events))
            self.metrics.count_events(events)
            log_events(self.log, events)
        published = await self._step("publish_failed", partition, target.publish_held)
        if published:
            self.log.warning("held_events_published", partition=partition, count=published)
        retained = await self._step("retention_failed", partition, target.retain)
        if retained and (
            retained.compacted
            or retained.trimmed
            or retained.stale
            or retained.unindexed
            or retained.scopes_unindexed
        ):
            self.log.info(
                "retention",
                partition=partition,
                sessions_compacted=retained.compacted,
                entries_trimmed=retained.trimmed,
                stale_members_removed=retained.stale,
                records_unindexed=retained.unindexed,
                scopes_unindexed=retained.scopes_unindexed,
            )
        for (agent_id, user_id), reason in target.take_isolated().items():
            self.log.error(
                "unit_isolated",
                partition=partition,
                agent_id=agent_id[:256],
                user_id=user_id[:256],
                reason=reason,
            )
        return expired

    async def run(self, stop: asyncio.Event, interval_s: float) -> None:
        backoff = Backoff(self.log, "sweep", self.reachability)
        while not stop.is_set():
            try:
                await self.sweep_once()
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError) as error:
                await backoff.wait(stop, error)
                continue
            except Exception:  # a failed sweep is retried next period
                self.log.exception("sweep_failed")
            backoff.reset()
            await sleep_or_stop(stop, interval_s)
