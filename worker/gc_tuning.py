"""The worker process's garbage-collector settings (it was a third of its CPU).

Every entry allocates a few hundred container objects (decoded events, core states,
plans), and the state cache keeps thousands of states alive. With CPython's default
threshold (700 allocations between young collections) the collector ran every few
entries and its older generations kept walking the cache: with it on as shipped, the
worker spent about 41 us of CPU per entry on the bench workload, with `gc.disable()` 27.
Reference counting frees almost everything at once anyway (the core's states are
immutable trees without cycles), so collections can be much rarer: memory held by
cyclic garbage grows by at most one threshold's worth of objects.

`gc.freeze()` moves what exists once the worker is built (modules, compiled patterns,
tables) to the permanent generation, so no collection walks it again.

The types built per entry and kept by the cache in the greatest numbers (the decoded
inputs, the gate's arrivals, the core's steps and states) are msgspec Structs with
`gc=False`: immutable trees, in no cycle, so never tracked. Tracked, they set off about
half of the worker's collections on a backlog (docs/performance.md, "The per-entry
path, trimmed"); tests/core/test_untracked_values.py keeps them untracked.
"""

from __future__ import annotations

import gc


def tune(threshold: int) -> None:
    """Young collections every `threshold` net allocations (0: leave CPython's defaults)."""
    if threshold <= 0:
        return
    _, middle, old = gc.get_threshold()
    gc.set_threshold(threshold, middle, old)
    gc.collect()
    gc.freeze()
