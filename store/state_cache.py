"""What a processor remembers of the scopes and sessions it committed (optimistic cache).

A worker mostly sees the same conversations again, so it keeps the state it last
committed, with the versions it wrote, and skips the load for them. The cache is never
trusted for a write: every commit checks the versions in Redis, and a unit whose check
fails (another worker, the sweeper or the gap skipper committed since) is dropped from
the cache, reloaded and retried. Decisions taken without a write (a duplicate, a late
arrival) are checked the same way: next seqs and skipped ranges only grow while Redis
keeps what it acknowledged, but a power cut under `appendfsync everysec` or a failover
moves them back. Versions are tokens unique to one commit, so a rolled-back key never
matches what the cache holds (docs/reliability.md).
"""

from __future__ import annotations

import sys
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Generic, TypeVar

import msgspec

from store.core_port import ScopeT, SessionT
from store.gate import ParkedEntry

K = TypeVar("K")
V = TypeVar("V")


# Snapshots are never tracked by the garbage collector (`gc=False`): trees of immutable
# values in no cycle, kept by the thousand in the cache, where a tracked one was walked by
# every full collection (pauses of 30-40 ms at a live gateway's shape).
class ScopeSnapshot(msgspec.Struct, Generic[ScopeT], gc=False):
    version: str
    state: ScopeT
    # Deadline index members of the scope's records as committed: member -> ms.
    deadlines: dict[str, int]
    # The state's encoded size as stored, what the cache's byte budget counts it by.
    state_bytes: int = 0


# Structs, not dataclasses: a snapshot is built per session a batch touches, and a
# Struct is several times cheaper to build.
class SessionSnapshot(msgspec.Struct, Generic[SessionT], gc=False):
    version: str
    next_seq: int
    skipped: tuple[tuple[int, int], ...]
    parked: dict[int, ParkedEntry]
    # The core's session state: bytes as loaded, decoded on first use.
    raw_core: bytes | None
    core: SessionT | None = None
    # Redis's time (ms) when the session's current gap was observed (`g`), as loaded.
    # None after this processor's own commit (the script reads the time itself), and
    # for a session parked before the field existed: the gap skipper reloads its
    # candidates and falls back to the oldest parked entry's id time.
    gap_seen_ms: int | None = None
    # The core state's encoded size as stored (`raw_core`, or the encoding committed).
    core_bytes: int = 0


# What the byte budget counts a snapshot as: its state decoded takes two to three times
# its encoded bytes (measured: a scope of ten open agreements 9.3 KB -> 28 KB, a session
# of 500 todos 58 KB -> 115 KB), plus the snapshot, its key and the cache's slot (512 B
# brings the count to 0.96 x the memory measured by benchmarks/cache_memory.py); parked
# entries are held as the bytes they are.
DECODED_PER_ENCODED_BYTE = 3
SNAPSHOT_BYTES = 512
PARKED_ENTRY_BYTES = 128


def scope_weight(snapshot: ScopeSnapshot[Any]) -> int:
    """A cached scope snapshot's bytes, as the budget counts them."""
    members = sum(len(member) + 64 for member in snapshot.deadlines)
    return SNAPSHOT_BYTES + DECODED_PER_ENCODED_BYTE * snapshot.state_bytes + members


def session_weight(snapshot: SessionSnapshot[Any]) -> int:
    """A cached session snapshot's bytes, as the budget counts them (its state as
    stored when it is kept encoded, the processor's way, else decoded)."""
    per_byte = 1 if snapshot.core is None else DECODED_PER_ENCODED_BYTE
    weight = SNAPSHOT_BYTES + per_byte * snapshot.core_bytes
    if not snapshot.parked:  # the usual case, without a generator
        return weight
    return weight + sum(
        PARKED_ENTRY_BYTES + len(entry.stream) + len(entry.entry_id) + len(entry.data)
        for entry in snapshot.parked.values()
    )


class LruCache(Generic[K, V]):
    """A mapping bounded by its number of entries (`size`, 0: off) and, with `weigh`, by
    their bytes (`max_bytes`, 0: no byte bound); past either it forgets the least
    recently used entries first. A value heavier than the whole budget is not kept.

    Hand-written rather than cachetools: two bounds at once, where its LRUCache has one
    `maxsize` (and raises for a value larger than that).
    """

    def __init__(
        self, size: int, max_bytes: int = 0, weigh: Callable[[V], int] | None = None
    ) -> None:
        self.size = size
        self.max_bytes = max_bytes
        # The byte bound as a number every weight total is compared with.
        self._byte_limit = max_bytes if max_bytes > 0 else sys.maxsize
        self._weigh = weigh
        self._items: OrderedDict[K, tuple[V, int]] = OrderedDict()
        # The weights of the entries held.
        self.bytes = 0

    def get(self, key: K) -> V | None:
        item = self._items.get(key)
        if item is None:
            return None
        self._items.move_to_end(key)
        return item[0]

    def put(self, key: K, value: V) -> None:
        if self.size <= 0:
            return
        items = self._items
        weight = self._weigh(value) if self._weigh is not None else 0
        older = items.get(key)
        if older is not None:
            self.bytes -= older[1]
        if weight > self._byte_limit:
            # The older value goes too: a snapshot is replaced, never kept beside (or
            # instead of) its successor.
            if older is not None:
                del items[key]
            return
        items[key] = (value, weight)
        items.move_to_end(key)
        self.bytes += weight
        while len(items) > self.size or self.bytes > self._byte_limit:
            _, (_, forgotten) = items.popitem(last=False)
            self.bytes -= forgotten

    def drop(self, key: K) -> None:
        item = self._items.pop(key, None)
        if item is not None:
            self.bytes -= item[1]

    def __len__(self) -> int:
        return len(self._items)
