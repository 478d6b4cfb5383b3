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
from collections.abc import Iterable, Mapping
from typing import Any, Generic

import msgspec

from store.core_port import ScopeT, SessionT
from store.gate import ParkedEntry


class _Frozen(dict[Any, Any]):
    """An empty dict no one can fill: the one every snapshot without parked entries or
    deadlines shares (an empty dict per cached session and scope took 64 bytes each)."""

    def _refuse(self, *_args: object, **_kwargs: object) -> None:
        raise TypeError("the shared empty mapping of the state cache is read-only")

    # (Signatures differ from dict's; every one refuses.)
    __setitem__ = __delitem__ = update = setdefault = pop = clear = _refuse
    popitem = __ior__ = _refuse  # type: ignore[assignment]


NO_PARKED: dict[int, ParkedEntry] = _Frozen()
NO_DEADLINES: dict[str, int] = _Frozen()


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
# of 500 todos 58 KB -> 115 KB), plus the snapshot, its key and the cache's slot (320 B
# brings the count to 0.98-1.13 x the memory measured by benchmarks/cache_memory.py, on
# real-length and on short chat); parked entries are held as the bytes they are.
DECODED_PER_ENCODED_BYTE = 3
SNAPSHOT_BYTES = 320
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


def _put_sessions(
    held: dict[str, SessionSnapshot[Any]], sessions: Mapping[str, SessionSnapshot[Any]]
) -> tuple[int, int]:
    """Put `sessions` into `held`: (sessions added, change of their weight). Once per
    entry at a live gateway's shape, so `session_weight` is inline for the usual
    snapshot, the one without parked entries."""
    added = delta = 0
    for session_id, snapshot in sessions.items():
        older = held.get(session_id)
        if older is None:
            added += 1
        elif older.parked:
            delta -= session_weight(older)
        else:
            per_byte = 1 if older.core is None else DECODED_PER_ENCODED_BYTE
            delta -= SNAPSHOT_BYTES + per_byte * older.core_bytes
        held[session_id] = snapshot
        if snapshot.parked:
            delta += session_weight(snapshot)
        else:
            per_byte = 1 if snapshot.core is None else DECODED_PER_ENCODED_BYTE
            delta += SNAPSHOT_BYTES + per_byte * snapshot.core_bytes
    return added, delta


class ScopeEntry(msgspec.Struct, Generic[ScopeT, SessionT], gc=False):
    """One scope as the cache remembers it: its snapshot (None: not remembered, only
    some of its sessions are) and its sessions', weighed together."""

    scope: ScopeSnapshot[ScopeT] | None
    sessions: dict[str, SessionSnapshot[SessionT]]
    # What the byte budget counts the scope and its sessions as.
    weight: int = 0


class StateCache(Generic[ScopeT, SessionT]):
    """The scopes and sessions a processor committed, by scope, least recently used
    forgotten first.

    Bounded by the sessions and scopes it holds (`size` each, 0: off) and by their bytes
    as the weights count them (`max_bytes`, 0: no byte bound). A scope and its sessions
    are remembered and forgotten together: one lookup per scope and batch instead of one
    per session, and no key or slot of its own for a session (at one entry per session
    those were a third of what a cached session cost). A scope heavier than the whole
    budget is not kept, nor anything older of it.

    Hand-written rather than cachetools: two bounds at once, entries that grow in place,
    and a scope's sessions dropped with it.
    """

    def __init__(self, size: int, max_bytes: int = 0) -> None:
        self.size = size
        self.max_bytes = max_bytes
        self._byte_limit = max_bytes if max_bytes > 0 else sys.maxsize
        self._scopes: OrderedDict[tuple[str, str], ScopeEntry[ScopeT, SessionT]] = OrderedDict()
        # The weights of everything held, and the sessions held.
        self.bytes = 0
        self.sessions = 0

    def get(self, scope_id: tuple[str, str]) -> ScopeEntry[ScopeT, SessionT] | None:
        """The scope's entry (most recently used from now on), or None."""
        entry = self._scopes.get(scope_id)
        if entry is not None:
            self._scopes.move_to_end(scope_id)
        return entry

    def remember(
        self,
        scope_id: tuple[str, str],
        scope: ScopeSnapshot[ScopeT] | None,
        sessions: Mapping[str, SessionSnapshot[SessionT]],
    ) -> None:
        """Keep `scope` (if not None) and `sessions` as the scope's latest snapshots."""
        if self.size <= 0:
            return
        entry = self._scopes.get(scope_id)
        if entry is None:
            entry = self._scopes[scope_id] = ScopeEntry(None, {})
        else:
            self._scopes.move_to_end(scope_id)
        delta = 0
        if scope is not None:
            if entry.scope is not None:
                delta -= scope_weight(entry.scope)
            entry.scope = scope
            delta += scope_weight(scope)
        added, change = _put_sessions(entry.sessions, sessions)
        delta += change
        self.sessions += added
        entry.weight += delta
        self.bytes += delta
        if entry.weight > self._byte_limit:
            # Never kept beside (or instead of) its successor: the whole scope goes.
            self.forget(scope_id)
            return
        self._evict()

    def _evict(self) -> None:
        """Forget the least recently used scopes until the cache is within its bounds."""
        scopes = self._scopes
        while len(scopes) > self.size or self.sessions > self.size or self.bytes > self._byte_limit:
            _, forgotten = scopes.popitem(last=False)
            self.bytes -= forgotten.weight
            self.sessions -= len(forgotten.sessions)

    def advance(
        self,
        scope_id: tuple[str, str],
        version: str,
        moves: Iterable[tuple[SessionSnapshot[SessionT], int, bytes | None, SessionT | None, int]],
    ) -> None:
        """Move the scope's sessions on in place, as a commit with `version` wrote them:
        per session (its snapshot as the cache holds it, next seq, core state as stored,
        the state decoded if it was never stored, its size as stored). The sessions of a
        plain unit (store/unit.py, `SessionMove`): they went on in order, nothing parked.

        A scope forgotten since it was looked up (the cache cleared, or evicted) is left
        forgotten; its snapshots are updated all the same, read by nothing."""
        delta = 0
        for snapshot, next_seq, raw_core, core, core_bytes in moves:
            snapshot.version = version
            snapshot.next_seq = next_seq
            snapshot.gap_seen_ms = None
            if raw_core is snapshot.raw_core and core is snapshot.core:
                continue  # the core state as it was (most turns): the same weight
            # The weights as `_put_sessions` counts a snapshot without parked entries.
            per_byte = 1 if snapshot.core is None else DECODED_PER_ENCODED_BYTE
            delta -= per_byte * snapshot.core_bytes
            delta += (1 if core is None else DECODED_PER_ENCODED_BYTE) * core_bytes
            snapshot.raw_core = raw_core
            snapshot.core = core
            snapshot.core_bytes = core_bytes
        entry = self._scopes.get(scope_id)
        if entry is None or not delta:
            return
        entry.weight += delta
        self.bytes += delta
        if entry.weight > self._byte_limit:
            self.forget(scope_id)
            return
        self._evict()

    def forget(self, scope_id: tuple[str, str]) -> None:
        """Forget the scope and every session of it."""
        entry = self._scopes.pop(scope_id, None)
        if entry is not None:
            self.bytes -= entry.weight
            self.sessions -= len(entry.sessions)

    def __len__(self) -> int:
        """The scopes held."""
        return len(self._scopes)
