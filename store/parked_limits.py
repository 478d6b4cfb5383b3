"""Limits on parked entries, per session and per partition (count and bytes).

Past either limit a session's gap is given up at once, as after the gap timeout (the
skipped seqs recorded in `k` and counted in `stats:{p}`), rather than holding more:
past the limits memory, not time, is what runs out (docs/store.md, "How a batch goes").
The partition's totals are counted in `stats:{p}` (`parked_entries`, `parked_bytes`) by
every commit that parks or drains, from the deltas planned here; the processor reads
them once per sweep period and keeps them up to date with its own commits in between
(one owner per partition). An entry counts by its payload's bytes (`parked_data`, the
entry's `__data__`), as for the session's limits.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from store.config import StoreConfig
from store.gate import GatePlan, ParkedEntry
from store.state_cache import SessionSnapshot


class PartitionRoom(msgspec.Struct):
    """What the partition may still park in the batch being planned (may be negative)."""

    entries: int
    size: int


def room_left(config: StoreConfig, parked_entries: int, parked_bytes: int) -> PartitionRoom:
    return PartitionRoom(
        config.max_partition_parked_entries - parked_entries,
        config.max_partition_parked_bytes - parked_bytes,
    )


def over_session_limits(config: StoreConfig, before: SessionSnapshot[Any], plan: GatePlan) -> bool:
    """Whether the session would hold more parked entries, or bytes, than allowed."""
    waiting = [e for seq, e in before.parked.items() if seq >= plan.next_seq]
    count = len(waiting) + len(plan.park)
    if count > config.max_parked_entries:
        return True
    size = sum(len(e.data) for e in waiting) + sum(len(a.data) for _, a in plan.park)
    return size > config.max_parked_bytes


def over_partition_room(room: PartitionRoom | None, plan: GatePlan) -> bool:
    """Whether parking the plan's new entries would take the partition past its limits
    (what the plan drains is not counted back: the check errs on the safe side)."""
    if room is None:
        return False
    size = sum(len(a.data) for _, a in plan.park)
    return len(plan.park) > room.entries or size > room.size


def parked_delta(
    before: Mapping[int, ParkedEntry], after: Mapping[int, ParkedEntry]
) -> tuple[int, int]:
    """(entries, bytes) the session's parked hash grows by (negative: shrinks)."""
    size_before = sum(len(e.data) for e in before.values())
    size_after = sum(len(e.data) for e in after.values())
    return len(after) - len(before), size_after - size_before
