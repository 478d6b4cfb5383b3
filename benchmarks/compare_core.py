# ruff: noqa: T201  (a benchmark prints its figures)
"""The worker's core (`Engine.apply`) over the bench workload, for one source tree.

    uv run --frozen python benchmarks/compare_core.py /path/to/old/tree
    uv run --frozen python benchmarks/compare_core.py .
    valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        .venv/bin/python benchmarks/compare_core.py <tree> --passes 2 --flow-every 1

Recognizer, deadlines and the lifecycle reducer with its step, on state kept in
memory: what the store's `CorePort.apply` costs per input. Two workloads: the bench's
own mix (about 4% of entries in agreement flows) and one where every session runs a
flow. The inputs come from this checkout's harness, so both trees see the same ones.
Run old and new alternately and compare the ratio; the absolute figure depends on the
machine's load (CPU time, best of five passes). On a loaded machine count
instructions instead: `--passes N` only runs the core N times after one warm-up pass
(no timing); subtract a `--passes 0` run to leave the setup out.
"""

from __future__ import annotations

import argparse
import inspect
import sys
import time
import timeit
from functools import partial
from pathlib import Path
from typing import Any


def _apply_all(engine: Any, inputs: list[tuple[Any, tuple[Any, ...]]]) -> None:  # noqa: ANN401
    """Every input in order, each scope and session kept in memory as by a perfect cache."""
    scopes: dict[tuple[str, str], Any] = {}
    sessions: dict[str, Any] = {}
    for event, origin in inputs:
        key = (event.agent_id, event.user_id)
        scope = scopes.get(key) or engine.decode_scope(None, *key)
        session = sessions.get(event.session_id) or engine.decode_session(None, event.session_id)
        step = engine.apply(scope, session, event, *origin)
        scopes[key], sessions[event.session_id] = step.scope, step.session


def main(tree: str, passes: int | None, flow_every: int) -> None:
    sys.path.insert(0, str(Path(tree).resolve()))
    # The core, the contracts and the worker from the tree given; the workload from
    # this checkout's harness (the same inputs for both trees).
    from accord_harness.bench.workload import build, entries  # noqa: PLC0415

    from contracts.codec import decode_event  # noqa: PLC0415
    from contracts.common import Provenance  # noqa: PLC0415
    from worker.engine import Engine  # noqa: PLC0415

    engine = Engine()
    workloads = (("bench mix", 5), ("all flows", 1)) if passes is None else (("", flow_every),)
    for name, every in workloads:
        sessions = 200 if passes is None else 100
        workload = build(sessions=sessions, blocks=8, partitions=1, flow_every=every)
        events = [decode_event(document) for _, document in entries(workload)]
        # Where an input came from: a provenance for trees whose `apply` takes one, its
        # stream and entry id for those that build it only when needed.
        takes_origin = "entry_id" in inspect.signature(engine.apply).parameters
        inputs = [
            (
                e,
                ("chat-turn:{0}", "1-0")
                if takes_origin
                else (Provenance(session_id=e.session_id, seq=e.seq),),
            )
            for e in events
        ]
        run = partial(_apply_all, engine, inputs)
        if passes is not None:
            for _ in range(passes + 1):
                run()
            return
        best = min(timeit.repeat(run, number=1, repeat=5, timer=time.process_time))
        print(f"{tree}: {name}, {len(inputs)} inputs, {len(inputs) / best:,.0f} applied/s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", nargs="?", default=".")
    parser.add_argument("--passes", type=int, default=None, help="untimed passes, for callgrind")
    parser.add_argument("--flow-every", type=int, default=5, help="with --passes: the workload")
    args = parser.parse_args()
    main(args.tree, args.passes, args.flow_every)
