"""Worker CPU per entry by phase of the store's hot path, no profiler.

    uv run --frozen python benchmarks/worker_phases.py [SESSIONS] [BLOCKS]

The drain of `benchmarks/worker_cpu.py` (the worker as `accord worker` builds it, with
its garbage-collector setting, on the bench workload), with the process CPU time
(`time.process_time_ns`) of each synchronous phase summed and divided by the entries.
Only synchronous phases are timed: around an `await`, process CPU time would also count
whatever else ran meanwhile (the other partition's loop, the read-ahead, background
loops). Profilers overstate small Python calls several times; this does not.
Findings: docs/performance.md, "End to end at the production shape".
"""

# ruff: noqa: T201  (a script directory, not a package; it prints its report)
from __future__ import annotations

import asyncio
import functools
import logging
import sys
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import structlog
from worker_cpu import cpu_per_entry

from store.processor import PartitionProcessor
from worker.engine import Engine
from worker.merged_reader import MergedBuffer

SPENT: Counter[str] = Counter()


def timed(owner: Any, name: str, label: str) -> None:  # noqa: ANN401  (any class)
    original: Callable[..., Any] = getattr(owner, name)

    @functools.wraps(original)
    def wrapper(*args: Any, **kwargs: Any) -> Any:  # noqa: ANN401
        started = time.process_time_ns()
        try:
            return original(*args, **kwargs)
        finally:
            SPENT[label] += time.process_time_ns() - started

    setattr(owner, name, wrapper)


def main(sessions: int, blocks: int) -> None:
    timed(PartitionProcessor, "_unit", "units: gate, core, commit planning (_unit)")
    timed(Engine, "apply", "  of which the core (Engine.apply)")
    timed(Engine, "encode_session", "  of which encoding session state")
    timed(PartitionProcessor, "_admit", "admission: decode and checks (_admit)")
    timed(PartitionProcessor, "_remember", "remembering committed state (_remember)")
    timed(PartitionProcessor, "_plan", "the commit's plan dict (_plan)")
    timed(MergedBuffer, "add", "merged reader: add")
    timed(MergedBuffer, "take", "merged reader: cut and sort (take)")
    total, rate, cpu_us = asyncio.run(cpu_per_entry(sessions, blocks, "merged", None))
    print(f"{total} entries, {rate:,.0f}/s, {cpu_us:.1f} us of worker CPU per entry")
    for label, ns in sorted(SPENT.items(), key=lambda item: -item[1]):
        print(f"{label:48s} {ns / 1000 / total:6.2f} us per entry")


if __name__ == "__main__":
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    args = [int(a) for a in sys.argv[1:]]
    main(*(args or [1000, 10]))
