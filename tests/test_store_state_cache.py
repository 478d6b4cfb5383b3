"""The processor's state cache is bounded and can be switched off (store/state_cache.py)."""

from __future__ import annotations

from store.config import StoreConfig
from store.state_cache import LruCache
from worker.app import store_config
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


def test_the_state_cache_is_off_unless_configured_r15() -> None:
    """R15 under Redis write loss: the cache trusts versions to only grow, which an
    everysec power cut or a failover breaks, so neither the store nor the worker turns
    it on by default (docs/reliability.md, the chaos harness's everysec run)."""
    assert StoreConfig().cache_size == 0
    assert store_config(Settings.from_env({})).cache_size == 0
    configured = Settings.from_env({"ACCORD_STATE_CACHE_SIZE": "500"})
    assert store_config(configured).cache_size == 500
