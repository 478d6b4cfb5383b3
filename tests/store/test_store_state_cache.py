"""The processor's state cache is bounded by entries and bytes and can be switched off
(store/state_cache.py); however small, it never changes what is stored (R15)."""

from __future__ import annotations

import json
import tracemalloc
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
from store.state_cache import LruCache, SessionSnapshot, session_weight
from worker.engine import Engine
from worker.settings import Settings


def test_the_least_recently_used_entry_is_forgotten_first() -> None:
    cache: LruCache[str, int] = LruCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # "a" is now the most recent
    cache.put("c", 3)
    assert (cache.get("a"), cache.get("b"), cache.get("c")) == (1, None, 3)
    assert len(cache) == 2


def test_size_zero_remembers_nothing_and_drop_forgets() -> None:
    off: LruCache[str, int] = LruCache(0)
    off.put("a", 1)
    assert off.get("a") is None
    cache: LruCache[str, int] = LruCache(5)
    cache.put("a", 1)
    cache.drop("a")
    cache.drop("missing")
    assert cache.get("a") is None


def test_a_byte_budget_forgets_the_least_recently_used_until_within_it() -> None:
    """Weighed entries: past `max_bytes` the least recently used go first, as many as it
    takes, and the held bytes follow every put, replacement and drop."""
    cache: LruCache[str, str] = LruCache(100, max_bytes=10, weigh=len)
    cache.put("a", "aaaa")
    cache.put("b", "bbbb")
    assert cache.get("a") == "aaaa"  # "b" is now the least recent
    cache.put("c", "cc")
    assert (len(cache), cache.bytes) == (3, 10)
    cache.put("d", "dddddddd")
    assert (cache.get("a"), cache.get("b"), cache.get("c")) == (None, None, "cc")
    assert cache.bytes == 10
    cache.put("c", "c")  # a replacement counts its own weight only
    assert cache.bytes == 9
    cache.drop("d")
    assert (len(cache), cache.bytes) == (1, 1)


def test_a_value_heavier_than_the_budget_is_not_kept_nor_its_older_value() -> None:
    """A value over the whole budget is not cached, and the value it replaces is gone
    too: a cache never answers with an older snapshot than the last one put."""
    cache: LruCache[str, str] = LruCache(100, max_bytes=4, weigh=len)
    cache.put("a", "aa")
    cache.put("b", "bb")
    cache.put("a", "aaaaa")
    assert (cache.get("a"), cache.get("b"), cache.bytes) == (None, "bb", 2)


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
    for cache in (state.scopes, state.sessions):
        assert 0 < cache.bytes <= budget // 2
    assert 0 < len(state.sessions) < len(SCOPES) * len(SESSIONS)
