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

from collections import OrderedDict
from typing import Generic, TypeVar

import msgspec

from store.core_port import ScopeT, SessionT
from store.gate import ParkedEntry

K = TypeVar("K")
V = TypeVar("V")


class ScopeSnapshot(msgspec.Struct, Generic[ScopeT]):
    version: str
    state: ScopeT
    # Deadline index members of the scope's records as committed: member -> ms.
    deadlines: dict[str, int]


# Structs, not dataclasses: a snapshot is built per session a batch touches, and a
# Struct is several times cheaper to build.
class SessionSnapshot(msgspec.Struct, Generic[SessionT]):
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


class LruCache(Generic[K, V]):
    """A bounded mapping that forgets the least recently used entry (size 0: off)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        value = self._items.get(key)
        if value is not None:
            self._items.move_to_end(key)
        return value

    def put(self, key: K, value: V) -> None:
        if self.size <= 0:
            return
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.size:
            self._items.popitem(last=False)

    def drop(self, key: K) -> None:
        self._items.pop(key, None)

    def __len__(self) -> int:
        return len(self._items)
