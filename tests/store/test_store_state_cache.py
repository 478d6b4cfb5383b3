"""The processor's state cache is bounded and can be switched off (store/state_cache.py)."""

from __future__ import annotations

from store.config import StoreConfig
from store.state_cache import LruCache
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


def test_the_state_cache_is_on_by_default_and_can_be_turned_off_r15() -> None:
    """R15: the cache is safe under Redis write loss (its decisions are version-checked,
    tests/store/test_store_gate.py), so store and worker keep one by default; 0 turns it off."""
    assert StoreConfig().cache_size == 4096
    assert Settings.from_env({}).store.cache_size == 4096
    configured = Settings.from_env({"ACCORD_STATE_CACHE_SIZE": "0"})
    assert configured.store.cache_size == 0
