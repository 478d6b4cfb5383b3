"""One chaos worker process: `accord worker`'s own composition root, crash points armed.

    python -m accord_harness.chaos.node        # configured like `accord worker`, plus:

- `ACCORD_CHAOS_CRASH_AT`: a crash point of store/crash.py (`after_decode`,
  `after_load`, `before_commit`, `after_commit`); the process dies there with
  `os._exit(137)` ...
- `ACCORD_CHAOS_CRASH_AFTER`: ... once this many batches have been processed (so the
  harness picks a random moment), default 0;
- `ACCORD_CHAOS_CACHE_SIZE`: the store's state cache size (`StoreConfig.cache_size`;
  0 turns it off), to tell a cache's part in a difference from the rest;
- `ACCORD_CHAOS_PLANT`: a deliberate bug for the harness to catch, never set outside
  the demonstration. `ack_before_commit`: each batch is XACKed before it is processed,
  so a crash between the two loses it. `trusted_ack_only`: the commit script acks the
  entries of a unit planned from the cache (trusted by the commit mark) without
  writing its sessions' state, so the next owner of the partition reads sessions
  behind what was acked. `wait_skipped` (for runs with the durability setting on): a
  commit does not wait for replicas before its held events are published, so a
  failover can take back what subscribers read and lose what was acked.
  `advance_ahead`: the state cache moves a plain unit's sessions (store/state_cache.py
  `advance`) one seq past what the commit wrote, so each one's next input is acked as a
  duplicate without ever being applied.

Everything else is the production worker (`worker.app.build_worker`): its readers,
reclaimer, sweeper and watchdog, the store's processor over the real core.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import os
from collections.abc import Iterable, Sequence
from typing import Any

import store.commit
from contracts.streams import Entry
from store.compaction import Compaction
from store.crash import CRASH_POINTS, exit_at
from store.durability import Replication
from store.ownership import Fence
from store.processor import PartitionProcessor
from store.scripts import COMMIT, AnyRedis, LuaScript
from store.state_cache import StateCache
from store.unit import SessionMove
from worker.app import PartitionPort, build_worker, core_for
from worker.consumer import Outcome
from worker.observability import configure_logging
from worker.settings import Settings

PLANTS = ("ack_before_commit", "trusted_ack_only", "wait_skipped", "advance_ahead")


@dataclasses.dataclass
class Arming:
    """When (after how many batches of this process) and where the process dies."""

    point: str | None
    after: int
    plant: str | None
    batches: int = 0

    @classmethod
    def from_env(cls, env: dict[str, str]) -> Arming:
        point = env.get("ACCORD_CHAOS_CRASH_AT") or None
        if point is not None and point not in CRASH_POINTS:
            raise ValueError(f"ACCORD_CHAOS_CRASH_AT must be one of {CRASH_POINTS}, got {point}")
        plant = env.get("ACCORD_CHAOS_PLANT") or None
        if plant is not None and plant not in PLANTS:
            raise ValueError(f"ACCORD_CHAOS_PLANT must be one of {PLANTS}, got {plant}")
        return cls(point, int(env.get("ACCORD_CHAOS_CRASH_AFTER") or 0), plant)


class ChaosPartition:
    """The store's processor of one partition, armed to die at a point after N batches."""

    def __init__(self, inner: PartitionProcessor[Any, Any], arming: Arming) -> None:
        self.inner = inner
        self.arming = arming

    async def process(self, entries: Sequence[Entry]) -> Outcome:
        self.arming.batches += 1
        if self.arming.point is not None and self.arming.batches > self.arming.after:
            # The processor's crash seam: it dies at the named step of this batch.
            self.inner.crash = exit_at(self.arming.point)
        if self.arming.plant == "ack_before_commit":
            await _ack(self.inner.redis, self.inner.config.group, entries)
        return await self.inner.process(entries)

    async def sweep_expired(self) -> Sequence[object]:
        events: Sequence[object] = await self.inner.sweep_expired()
        return events

    async def skip_stale_gaps(self) -> int:
        return await self.inner.skip_stale_gaps()

    async def retain(self) -> Compaction:
        return await self.inner.retain()

    async def publish_held(self) -> int:
        return await self.inner.publish_held()

    def take_isolated(self) -> dict[tuple[str, str], str]:
        return self.inner.take_isolated()

    def set_fence(self, fence: Fence | None) -> None:
        self.inner.set_fence(fence)


async def _ack(redis: AnyRedis, group: str, entries: Sequence[Entry]) -> None:
    """The planted bug: acknowledge before the commit that applies the entries."""
    by_stream: dict[str, list[str]] = {}
    for entry in entries:
        by_stream.setdefault(entry.stream, []).append(entry.entry_id)
    for stream, ids in by_stream.items():
        await redis.xack(stream, group, *ids)


def _plant_trusted_ack_only() -> None:
    """The planted bug: commit.lua skips the session writes of trusted units, those
    planned in full and the plain lane's (whose session loop never runs)."""
    planted = COMMIT.source
    for line, bug in (
        ("    if s.n then write_session(s) end",
         "    if s.n and not unit.t then write_session(s) end"),
        ("      for j = i + 2, last, 4 do\n        if p[j + 3] > 0 then",
         "      for j = i + 2, 0, 4 do\n        if p[j + 3] > 0 then"),
    ):  # fmt: skip
        if line not in planted:
            raise RuntimeError("trusted_ack_only: commit.lua no longer has the line to plant in")
        planted = planted.replace(line, bug)
    sha = hashlib.sha1(planted.encode()).hexdigest()  # noqa: S324  (Redis names scripts by SHA-1)
    # The committer runs the script its module names (store/commit.py imports COMMIT).
    vars(store.commit)["COMMIT"] = LuaScript("commit", planted, sha)


def _plant_advance_ahead() -> None:
    """The planted bug: the cache remembers a plain unit's sessions one seq ahead."""
    advance = StateCache.advance

    def ahead(
        self: StateCache[Any, Any],
        scope_id: tuple[str, str],
        version: str,
        moves: Iterable[SessionMove[Any]],
    ) -> None:
        moved = [(snapshot, seq + 1, raw, core, size) for snapshot, seq, raw, core, size in moves]
        advance(self, scope_id, version, moved)

    StateCache.advance = ahead  # type: ignore[method-assign]


def _plant_wait_skipped() -> None:
    """The planted bug: a durable commit runs its script and publishes without a WAIT."""

    async def unwaited(
        self: Replication, script: LuaScript, keys_: list[str], args: list[Any]
    ) -> Any:  # noqa: ANN401  (the script's reply)
        return await script.run(self.redis, keys_, args)

    # Every committer's Replication runs this instead (a method looked up on the class).
    Replication.run_then_wait = unwaited  # type: ignore[method-assign]


def main() -> int:
    env = dict(os.environ)
    settings = Settings.from_env(env)
    arming = Arming.from_env(env)
    configure_logging(settings.log_level)

    config = settings.store
    if arming.plant == "trusted_ack_only":
        _plant_trusted_ack_only()
    if arming.plant == "wait_skipped":
        _plant_wait_skipped()
    if arming.plant == "advance_ahead":
        _plant_advance_ahead()
    if env.get("ACCORD_CHAOS_CACHE_SIZE"):
        config = dataclasses.replace(config, cache_size=int(env["ACCORD_CHAOS_CACHE_SIZE"]))

    def factory(redis: AnyRedis, partition: int, s: Settings) -> PartitionPort:
        inner = PartitionProcessor(redis, partition, core_for(s), config)
        port: PartitionPort = ChaosPartition(inner, arming)  # type: ignore[assignment]
        return port

    return asyncio.run(build_worker(settings, factory).run())


if __name__ == "__main__":
    raise SystemExit(main())
