"""The processor's state cache is bounded by entries and bytes and can be switched off
(store/state_cache.py); however small, it never changes what is stored (R15)."""

from __future__ import annotations

import json
import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest
import redis.asyncio
from accord_harness.documents import envelope, iso
from accord_harness.reading import read_new
from accord_harness.store_harness import call, chat

from contracts.common import TodoStatus
from contracts.streams import DATA_FIELD, GROUP
from core.lifecycle.state import SessionState, TrackedTodo, encode_session, record_id_for
from store import keys
from store.config import StoreConfig
from store.gate import ParkedEntry
from store.intake import ensure_groups
from store.processor import PartitionProcessor
from store.state_cache import (
    NO_DEADLINES,
    NO_PARKED,
    ScopeSnapshot,
    SessionSnapshot,
    StateCache,
    session_weight,
)
from worker.engine import Engine
from worker.settings import Settings


def _session(core_bytes: int = 100) -> SessionSnapshot[Any]:
    return SessionSnapshot("v", 2, (), NO_PARKED, b"x" * core_bytes, core_bytes=core_bytes)


def _scope(state_bytes: int = 0) -> ScopeSnapshot[Any]:
    return ScopeSnapshot("v", object(), NO_DEADLINES, state_bytes)


def test_the_least_recently_used_scope_is_forgotten_first_with_its_sessions() -> None:
    """Scopes are remembered and forgotten whole: past the bound, the scope used least
    recently goes, and every session of it with it."""
    cache: StateCache[Any, Any] = StateCache(size=3)
    cache.remember(("a", "u1"), _scope(), {"s1": _session(), "s2": _session()})
    cache.remember(("a", "u2"), _scope(), {"s1": _session()})
    assert cache.get(("a", "u1")) is not None  # u1 is now the most recent
    cache.remember(("a", "u3"), None, {"s1": _session()})  # 4 sessions > 3
    assert cache.get(("a", "u2")) is None
    entry = cache.get(("a", "u1"))
    assert entry is not None
    assert sorted(entry.sessions) == ["s1", "s2"]
    assert (len(cache), cache.sessions) == (2, 3)


def test_size_zero_remembers_nothing_and_forget_drops_a_scope_whole() -> None:
    off: StateCache[Any, Any] = StateCache(0)
    off.remember(("a", "u"), _scope(), {"s": _session()})
    assert off.get(("a", "u")) is None
    cache: StateCache[Any, Any] = StateCache(5)
    cache.remember(("a", "u"), _scope(), {"s": _session()})
    cache.forget(("a", "u"))
    cache.forget(("a", "missing"))
    assert cache.get(("a", "u")) is None
    assert (cache.bytes, cache.sessions) == (0, 0)


def test_a_byte_budget_forgets_the_least_recently_used_until_within_it() -> None:
    """Past `max_bytes` the least recently used scopes go, as many as it takes; the held
    bytes follow every remember, replacement and forget, and always equal the weights of
    the snapshots held."""
    one = session_weight(_session())
    cache: StateCache[Any, Any] = StateCache(100, max_bytes=3 * one)
    cache.remember(("a", "u1"), None, {"s1": _session()})
    cache.remember(("a", "u2"), None, {"s1": _session()})
    assert cache.get(("a", "u1")) is not None  # u2 is now the least recent
    cache.remember(("a", "u3"), None, {"s1": _session(), "s2": _session()})
    assert cache.get(("a", "u2")) is None
    assert cache.get(("a", "u1")) is not None
    assert cache.bytes == 3 * one
    # A replacement counts its own weight only.
    cache.remember(("a", "u1"), None, {"s1": _session(10)})
    assert cache.bytes == 2 * one + session_weight(_session(10))
    cache.forget(("a", "u3"))
    assert (len(cache), cache.sessions, cache.bytes) == (1, 1, session_weight(_session(10)))


def test_a_scope_heavier_than_the_budget_is_not_kept_nor_its_older_snapshots() -> None:
    """A scope over the whole budget is not cached, and what it held before goes too: a
    cache never answers with an older snapshot than the last one remembered."""
    budget = session_weight(_session()) * 2
    cache: StateCache[Any, Any] = StateCache(100, max_bytes=budget)
    cache.remember(("a", "u1"), None, {"s1": _session()})
    cache.remember(("a", "u2"), None, {"s1": _session()})
    cache.remember(("a", "u1"), None, {"s1": _session(), "s2": _session(budget)})
    assert cache.get(("a", "u1")) is None
    assert cache.get(("a", "u2")) is not None
    assert (cache.sessions, cache.bytes) == (1, session_weight(_session()))


def test_a_session_snapshot_weighs_about_its_decoded_size() -> None:
    """The budget counts a session by 3 x its stored core state plus its parked entries:
    within a factor of two of what the decoded state and the parked bytes really take."""
    for items, length in ((3, 30), (50, 60), (500, 100)):
        state = SessionState(
            session_id="s" * 36,
            todos=tuple(
                TrackedTodo(f"{n:04d}" + "x" * length, TodoStatus.PENDING, n) for n in range(items)
            ),
        )
        raw = encode_session(state)
        tracemalloc.start()
        decoded = Engine().decode_session(raw, "s")
        parked = {n: ParkedEntry("chat-turn:{0}", f"{n}-0", bytes(1000)) for n in range(5)}
        taken, _ = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        snapshot = SessionSnapshot("v", 1, (), parked, None, decoded, core_bytes=len(raw))
        assert taken / 2 <= session_weight(snapshot) <= taken * 2, (items, taken)


def test_the_shared_empty_mappings_refuse_every_write() -> None:
    """Snapshots without parked entries or deadlines share one empty mapping each
    (store/state_cache.py): a write to it would reach every such snapshot, so it raises."""
    for shared in (NO_PARKED, NO_DEADLINES):
        writes: tuple[Callable[[dict[Any, Any]], object], ...] = (
            lambda m: m.__setitem__(1, 2),
            lambda m: m.update({1: 2}),
            lambda m: m.setdefault(1, 2),
            lambda m: m.pop(1),
            lambda m: m.popitem(),
            lambda m: m.clear(),
            lambda m: m.__ior__({1: 2}),
        )
        for write in writes:
            with pytest.raises(TypeError, match="read-only"):
                write(shared)
        assert shared == {}


def test_the_state_cache_is_on_by_default_and_can_be_turned_off_r15() -> None:
    """R15: the cache is safe under Redis write loss (its decisions are version-checked,
    tests/store/test_store_gate.py), so store and worker keep one by default; 0 turns it off."""
    assert StoreConfig().cache_size == 16_384
    assert Settings.from_env({}).store.cache_size == 16_384
    configured = Settings.from_env({"ACCORD_STATE_CACHE_SIZE": "0"})
    assert configured.store.cache_size == 0


def test_the_byte_budget_is_24_mib_by_default_and_set_in_mib() -> None:
    assert Settings.from_env({}).store.cache_bytes == StoreConfig().cache_bytes == 24 * 2**20
    assert Settings.from_env({"ACCORD_STATE_CACHE_MB": "3"}).store.cache_bytes == 3 * 2**20
    assert Settings.from_env({"ACCORD_STATE_CACHE_MB": "0"}).store.cache_bytes == 0
    with pytest.raises(ValueError, match="ACCORD_STATE_CACHE_MB"):
        Settings.from_env({"ACCORD_STATE_CACHE_MB": "-1"})


# ------------------------------------------------------------------ through Redis

SCOPES = [(f"agent-{n % 2}", f"user-{n}") for n in range(6)]
SESSIONS = ("s1", "s2")
NOTES = "Organize reading notes"


def _todos(scope: tuple[str, str], session: str, seq: int, status: str) -> dict[str, Any]:
    document = envelope("tool_result", scope, session, seq, iso(seq))
    items = [{"content": f"{NOTES} {n}" if n else NOTES, "status": "pending"} for n in range(8)]
    items[0]["status"] = status
    document.update(call_id=f"c-{session}-{seq}", name="todo_write", ok=True, todos=items)
    return document


def _round(seq: int) -> list[dict[str, Any]]:
    """Input `seq` of every session: a todo list, a bound proposal, both acceptances, the
    bound item completed, then chatter."""
    documents = []
    for scope in SCOPES:
        for session in SESSIONS:
            record_id = record_id_for(*scope, session, 2)
            documents.append(
                {
                    1: _todos(scope, session, 1, "pending"),
                    2: chat(scope, session, 2, f'Let\'s agree: mark todo "{NOTES}" as completed.'),
                    3: call(scope, session, 3, "soul_agreement_accept",
                            {"record_id": record_id, "expected_revision": 1}),
                    4: chat(scope, session, 4, "I accept this agreement."),
                    5: _todos(scope, session, 5, "completed"),
                }.get(seq, chat(scope, session, seq, "thanks")),
            )  # fmt: skip
    return documents


async def _run(client: redis.asyncio.Redis, config: StoreConfig) -> tuple[list[Any], Any]:
    """The workload in rounds, one batch each (so sessions come back to the cache), with
    the same entry ids every run; what is stored, and the processor's state loader."""
    await client.flushall()
    await ensure_groups(client, [0], GROUP)
    processor = PartitionProcessor(client, 0, Engine(), config)
    entry = 1_798_761_600_000
    for seq in range(1, 8):
        for document in _round(seq):
            entry += 1
            stream = {"chat_turn": "chat-turn:{0}", "tool_call": "tool-call:{0}"}.get(
                document["type"], "tool-result:{0}"
            )
            await client.xadd(stream, {DATA_FIELD: json.dumps(document)}, id=f"{entry}-0")
        while entries := await read_new(client, 0, GROUP, "c", count=1000):
            await processor.process(entries)
    stored: list[Any] = []
    for scope in SCOPES:
        stored.append(await client.hget(keys.scope_key(0, *scope), "s"))
        for session in SESSIONS:
            stored.append(await client.hget(keys.session_key(0, *scope, session), "c"))
            stored.append(await client.get(keys.record_key(0, record_id_for(*scope, session, 2))))
    raw_events: Any = await client.xrange(keys.events_stream(0))
    stored += [fields for _, fields in raw_events]
    return stored, processor.state


@pytest.mark.redis
@pytest.mark.asyncio
async def test_a_cache_bounded_by_bytes_stores_exactly_what_no_cache_does_r15(
    client: redis.asyncio.Redis,
) -> None:
    """R15: 12 sessions of 6 scopes through proposals, acceptances and a verified
    delivery, one batch per round: with a byte budget that holds only a few snapshots the
    cache keeps within it (evicting by size, not count) and every stored state, record
    and event is byte for byte what a worker without a cache, and one with the default
    cache, stores."""
    without, _ = await _run(client, StoreConfig(cache_size=0))
    default, _ = await _run(client, StoreConfig())
    budget = 4096
    small, state = await _run(client, StoreConfig(cache_bytes=budget))
    assert len(without) > 40
    assert without.count(None) == 0
    assert small == without
    assert default == without
    assert 0 < state.cache.bytes <= budget
    assert 0 < state.cache.sessions < len(SCOPES) * len(SESSIONS)
