# ruff: noqa: T201  (a benchmark prints its figures)
"""The state cache's put and get per session snapshot, bounded by count alone and by
count and bytes, in one run (store/state_cache.py).

    uv run --frozen python benchmarks/cache_put.py [OLD_STATE_CACHE_PY]

A warm cache of 4,096 sessions is refilled and read in LRU order. Given the path of
another tree's `store/state_cache.py` (`git show REV:store/state_cache.py > old.py`), its
`LruCache` is timed in the same run as the baseline. Best of seven repeats, so on a
loaded machine compare the ratios, not the microseconds.
"""

from __future__ import annotations

import importlib.util
import sys
import timeit
from typing import Any

from store.state_cache import LruCache, SessionSnapshot, session_weight

SESSIONS = 4096
SNAPSHOT = SessionSnapshot("v", 3, (), {}, None, object(), core_bytes=200)
KEYS = [("agent", "user", f"session-{n}") for n in range(SESSIONS)]


def per_call_us(cache: Any) -> tuple[float, float]:  # noqa: ANN401  (any tree's LruCache)
    """(put, get) in microseconds per call on a warm, full cache."""
    for key in KEYS:
        cache.put(key, SNAPSHOT)

    def put() -> None:
        for key in KEYS:
            cache.put(key, SNAPSHOT)

    def get() -> None:
        for key in KEYS:
            cache.get(key)

    runs = 20 * SESSIONS
    return (
        min(timeit.repeat(put, number=20, repeat=7)) / runs * 1e6,
        min(timeit.repeat(get, number=20, repeat=7)) / runs * 1e6,
    )


def main(old_path: str | None) -> None:
    caches: list[tuple[str, Any]] = []
    if old_path is not None:
        spec = importlib.util.spec_from_file_location("old_state_cache", old_path)
        assert spec is not None
        assert spec.loader is not None
        old = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(old)
        caches.append(("baseline (given file), count only", old.LruCache(SESSIONS)))
    caches.append(("count only", LruCache(SESSIONS)))
    caches.append(("count and bytes", LruCache(SESSIONS, 8 * 2**20, session_weight)))
    base: tuple[float, float] | None = None
    for name, cache in caches:
        put, get = per_call_us(cache)
        base = base or (put, get)
        print(
            f"{name}: put {put:.2f} us ({put / base[0]:.2f} x), get {get:.2f} us"
            f" ({get / base[1]:.2f} x)"
        )


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
