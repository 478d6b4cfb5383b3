"""Loading the state a batch needs: key names, the processor's cache, `load.lua`.

What this processor committed last is remembered (store/state_cache.py says why that is
safe); the rest is read in one `load.lua` round trip. A scope whose keys cannot be read
or decoded is not loaded: it is marked broken with why, and its unit is isolated.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, Generic, NamedTuple

import msgspec

from contracts.streams import entry_ms, hash_tag
from store import keys
from store.admission import error_text
from store.config import StoreConfig
from store.core_port import CorePort, ScopeT, SessionT
from store.gate import ParkedEntry, parse_skipped
from store.scripts import LOAD, AnyRedis
from store.state_cache import (
    NO_DEADLINES,
    NO_PARKED,
    ScopeSnapshot,
    SessionSnapshot,
    StateCache,
)
from store.work import ScopeId, ScopeWork, SessionId

_PARKED = msgspec.msgpack.Decoder(tuple[str, str, bytes])
# The sessions of a scope the cache does not hold.
NO_SESSIONS: Mapping[str, Any] = {}


class StoreKeyError(Exception):
    """A key of a unit that `load.lua` could not read (it answers the error in its place)."""


class ScopeNames(NamedTuple):
    """A scope's key names: its hash, its view hash, and what its sessions' keys start
    with (`session:{p}:<agent>:<user>:`)."""

    scope: str
    view: str
    session_prefix: str


class KeyNames:
    """The keys of the scopes and sessions seen lately (pure functions, memoised per scope).

    A scope's three names are built at once from their shared tail, and a session's from
    its scope's prefix: a live gateway's read holds about one entry per session over tens
    of thousands of sessions, more than any memo keeps, so what a miss costs counts.
    tests/store/test_store_key_names.py checks them against store/keys.py.
    """

    def __init__(self, partition: int) -> None:
        self.partition = partition
        self._tag = ":" + hash_tag(partition) + ":"
        # A small memo: names cost a fraction of a microsecond to build, and a memo entry
        # a few hundred bytes (three memos of 16,384 per partition held megabytes).
        self.scope_names = functools.lru_cache(maxsize=1024)(self._scope_names)

    def scope(self, agent_id: str, user_id: str) -> str:
        return self.scope_names(agent_id, user_id).scope

    def view(self, agent_id: str, user_id: str) -> str:
        return self.scope_names(agent_id, user_id).view

    def session_prefix(self, agent_id: str, user_id: str) -> str:
        return self.scope_names(agent_id, user_id).session_prefix

    def session(self, agent_id: str, user_id: str, session_id: str) -> keys.SessionNames:
        return keys.SessionNames(
            self.partition,
            agent_id,
            user_id,
            session_id,
            self.session_prefix(agent_id, user_id) + keys.ident(session_id),
            keys.applied_field(session_id),
        )

    def _scope_names(self, agent_id: str, user_id: str) -> ScopeNames:
        tail = self._tag + keys.ident(agent_id) + ":" + keys.ident(user_id)
        return ScopeNames("scope" + tail, "view" + tail, "session" + tail + ":")


def ms_of(instant: datetime) -> int:
    return int(instant.timestamp() * 1000)


def deadline_members(
    core: CorePort[ScopeT, Any], scope_id: ScopeId, state: ScopeT
) -> dict[str, int]:
    """The scope's members of the deadline index: member -> deadline ms."""
    members = {
        keys.record_member(*scope_id, record_id): ms_of(at)
        for record_id, at in core.deadlines(state)
    }
    return members or NO_DEADLINES


class StateLoader(Generic[ScopeT, SessionT]):
    """The units' state: from what this processor committed last, the rest from Redis."""

    def __init__(
        self, redis: AnyRedis, partition: int, core: CorePort[ScopeT, SessionT], config: StoreConfig
    ) -> None:
        self.redis = redis
        self.partition = partition
        self.core = core
        self.config = config
        self.clear()

    def clear(self) -> None:
        """Forget everything (a new owner token: what was remembered may be stale)."""
        self.cache: StateCache[ScopeT, SessionT] = StateCache(
            self.config.cache_size, self.config.cache_bytes
        )

    def remember(
        self,
        scope_id: ScopeId,
        scope: ScopeSnapshot[ScopeT] | None,
        sessions: Mapping[str, SessionSnapshot[SessionT]],
    ) -> None:
        self.cache.remember(scope_id, scope, sessions)

    def advance(
        self,
        scope_id: ScopeId,
        version: str,
        moves: Iterable[tuple[SessionSnapshot[SessionT], int, bytes | None, SessionT | None, int]],
    ) -> None:
        """Move a plain unit's sessions on in place (`StateCache.advance`)."""
        self.cache.advance(scope_id, version, moves)

    def forget(self, scope_id: ScopeId) -> None:
        """Forget the scope and all its sessions (after a failed commit, a gap skip, for
        a sweep: what Redis holds is read again)."""
        self.cache.forget(scope_id)

    async def load(
        self,
        todo: Sequence[ScopeId],
        work: Mapping[ScopeId, ScopeWork],
        broken: dict[ScopeId, str],
    ) -> tuple[
        dict[ScopeId, ScopeSnapshot[ScopeT]],
        dict[ScopeId, dict[str, SessionSnapshot[SessionT]]],
        set[ScopeId],
    ]:
        """The state of `todo`'s scopes and of their sessions (by scope, then session),
        and the scopes any of it was read from Redis for (the rest came from the cache
        alone); unreadable scopes go to `broken`."""
        scopes: dict[ScopeId, ScopeSnapshot[ScopeT]] = {}
        sessions: dict[ScopeId, dict[str, SessionSnapshot[SessionT]]] = {}
        names: list[str] = []
        kinds: list[str] = []
        # Scope ids (2 parts) and session ids (3 parts), in the order of `names`.
        wanted: list[ScopeId | SessionId] = []
        self._from_cache(todo, work, broken, (scopes, sessions), (names, kinds, wanted))
        if not names:
            return scopes, sessions, set()
        replies = iter(await LOAD.run(self.redis, names, kinds))
        loaded: set[ScopeId] = set()
        for ident in wanted:
            scope_id = (ident[0], ident[1])
            loaded.add(scope_id)
            reply = [next(replies)] if len(ident) == 2 else [next(replies), next(replies)]
            try:
                if len(ident) == 2:
                    scopes[scope_id] = self._loaded_scope(scope_id, reply[0])
                else:
                    sessions[scope_id][ident[-1]] = _loaded_session(*reply)
            except Exception as error:  # noqa: BLE001  (unreadable state isolates its scope)
                broken.setdefault(scope_id, f"loading failed: {error_text(error)}")
        return scopes, sessions, loaded

    def _from_cache(
        self,
        todo: Sequence[ScopeId],
        work: Mapping[ScopeId, ScopeWork],
        broken: dict[ScopeId, str],
        found: tuple[
            dict[ScopeId, ScopeSnapshot[ScopeT]],
            dict[ScopeId, dict[str, SessionSnapshot[SessionT]]],
        ],
        reads: tuple[list[str], list[str], list[ScopeId | SessionId]],
    ) -> None:
        """Fill `found` (scopes, sessions by scope) with what the cache holds of `todo`,
        and `reads` (key names, their kinds, their ids) with what `load.lua` must read."""
        p = self.partition
        scopes, sessions = found
        names, kinds, wanted = reads
        for scope_id in todo:
            if scope_id in broken:
                continue
            entry = self.cache.get(scope_id)
            cached_scope = None if entry is None else entry.scope
            if cached_scope is None:
                names.append(keys.scope_key(p, *scope_id))
                kinds.append("scope")
                wanted.append(scope_id)
            else:
                scopes[scope_id] = cached_scope
            scope_work = work[scope_id]
            # (A set of both only when there are gaps to skip, which is rare.)
            wanted_ids = scope_work.sessions() if scope_work.skip_gap else scope_work.arrivals
            held = NO_SESSIONS if entry is None else entry.sessions
            if entry is not None and all(map(held.__contains__, wanted_ids)):
                # Every session remembered, as nearly always at a live gateway's shape: the
                # cache's own mapping, which planning reads and never writes (the commit's
                # outcome updates it afterwards, and the next round looks it up again).
                sessions[scope_id] = entry.sessions
                continue
            some = sessions[scope_id] = {}
            for session_id in wanted_ids:
                cached_session = held.get(session_id)
                if cached_session is not None:
                    some[session_id] = cached_session
                    continue
                names += (
                    keys.session_key(p, *scope_id, session_id),
                    keys.parked_key(p, *scope_id, session_id),
                )
                kinds += ("session", "parked")
                wanted.append((*scope_id, session_id))

    def _loaded_scope(self, scope_id: ScopeId, reply: Any) -> ScopeSnapshot[ScopeT]:  # noqa: ANN401  (a Lua reply)
        raw_version, raw_scope = _reply(reply)
        state = self.core.decode_scope(raw_scope, *scope_id)
        return ScopeSnapshot(
            _version(raw_version),
            state,
            deadline_members(self.core, scope_id, state),
            len(raw_scope or b""),
        )


def gap_stale(session: SessionSnapshot[Any], seen_by: int) -> bool:
    """Whether the session's gap was observed at or before `seen_by` (Redis ms)."""
    if not session.parked:
        return False
    seen = session.gap_seen_ms
    if seen is None:
        # Parked before observation times were stored: its oldest parked entry's id time.
        seen = min(entry_ms(entry.entry_id) for entry in session.parked.values())
    return seen <= seen_by


def _loaded_session(reply: Any, parked: Any) -> SessionSnapshot[Any]:  # noqa: ANN401  (Lua replies)
    raw_next, raw_version, raw_core, raw_skipped, raw_seen = _reply(reply)
    return SessionSnapshot(
        version=_version(raw_version),
        next_seq=int(raw_next or 1),
        skipped=parse_skipped(raw_skipped),
        parked=_parked(_reply(parked)),
        raw_core=raw_core,
        gap_seen_ms=int(raw_seen) if raw_seen else None,
        core_bytes=len(raw_core or b""),
    )


def _reply(reply: Any) -> Any:  # noqa: ANN401  (a Lua reply)
    if isinstance(reply, bytes):
        raise StoreKeyError(reply.decode("utf-8", "replace"))
    return reply


def _version(raw: bytes | None) -> str:
    """A stored version token ('' for a key never written; older stores wrote counts)."""
    return raw.decode() if raw else ""


def _parked(reply: list[bytes]) -> dict[int, ParkedEntry]:
    parked: dict[int, ParkedEntry] = {}
    for index in range(0, len(reply), 2):
        stream, entry_id, data = _PARKED.decode(reply[index + 1])
        parked[int(reply[index])] = ParkedEntry(stream, entry_id, data)
    return parked or NO_PARKED
