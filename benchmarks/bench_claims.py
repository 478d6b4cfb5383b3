# ruff: noqa: T201  (a script directory, not a package; a benchmark prints)
"""What reading assistant turns for claims (R18) costs, against the user-turn recognizer.

Every assistant turn now goes through `claims_in`; ordinary assistant chat must stay
far cheaper than the DESIGN's 250k ordinary turns/s per core. Turns are the corpus's
real-chat negatives (tests/corpus/recognizer_negative.jsonl) said by the assistant;
the baseline, in the same run, is the recognizer on the same texts as user turns.

    uv run --frozen python benchmarks/bench_claims.py

CPU time of this process, best of five passes (the machine is shared).
"""

from __future__ import annotations

import json
import time
import timeit
from collections.abc import Callable
from pathlib import Path

from contracts.common import Role
from core.lifecycle.claims import claims_in
from core.recognition.recognizer import recognize

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "corpus"


def _per_second(run_once: Callable[[], object], items: int) -> float:
    number = max(1, 50_000 // max(items, 1))
    best = min(timeit.repeat(run_once, number=number, repeat=5, timer=time.process_time))
    return items * number / best


def main() -> None:
    lines = (CORPUS / "recognizer_negative.jsonl").read_text("utf-8").splitlines()
    texts = [json.loads(line)["text"] for line in lines if line.strip()]
    plain = [t for t in texts if not any(w in t.lower() for w in ("agree", "约定"))]

    def recognizer(group: list[str]) -> Callable[[], None]:
        return lambda: [recognize(t, Role.USER) for t in group]

    def claims(group: list[str]) -> Callable[[], None]:
        return lambda: [claims_in(t) for t in group]

    for name, group in (("ordinary (no agree/约定)", plain), ("all negatives", texts)):
        base = _per_second(recognizer(group), len(group))
        ours = _per_second(claims(group), len(group))
        print(
            f"{name}: {len(group)} turns; recognizer {base:,.0f}/s; "
            f"claims_in {ours:,.0f}/s ({ours / base:.2f}x the recognizer)"
        )


if __name__ == "__main__":
    main()
