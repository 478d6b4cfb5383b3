# ruff: noqa: T201  (a benchmark prints its figures)
"""Recognizer benchmark: turns per second on one core, against targets and a baseline.

    uv run --frozen python benchmarks/bench_recognizer.py

Targets (DESIGN section 5): >= 250k ordinary turns/s (no agreement phrase) and
>= 20k full proposals/s (recognize + deadline phrase + resolution, i.e. `interpret`).
Baseline, measured in the same run: msgspec-decoding one chat turn, work the worker
does for every input anyway. One process, one thread: one core. Times are this
process's CPU time (`time.process_time`), best of five passes, so neighbours on a
shared machine slow the wall clock but not the figures.

Turns come from the labelled corpus (tests/corpus/): ordinary chat is every negative
user turn without "agree" or "约定" (the fast path); near-misses are the negatives that
hold one of them (the full check runs and finds nothing); proposals are the positive
proposals, and the same terms with a deadline added so resolution runs too.
"""

from __future__ import annotations

import json
import platform
import time
import timeit
import unicodedata
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import msgspec

from contracts.common import Role
from contracts.inputs import ChatTurn
from core.intents import Proposal
from core.interpret import interpret
from core.recognition.recognizer import recognize

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "corpus"
TS = datetime(2026, 11, 27, 2, 0, tzinfo=UTC)
ORDINARY_TARGET = 250_000
PROPOSAL_TARGET = 20_000
_decoder = msgspec.json.Decoder(ChatTurn)


def _rows(name: str) -> list[dict[str, str]]:
    with (CORPUS / name).open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def _has_keyword(text: str) -> bool:
    folded = unicodedata.normalize("NFKC", text).lower()
    return "agree" in folded or "约定" in folded


def _turn(text: str, seq: int) -> ChatTurn:
    return ChatTurn(
        agent_id="agent-1",
        user_id="user-1",
        session_id="session-1",
        seq=seq,
        ts=TS,
        role=Role.USER,
        text=text,
        message_id=f"m-{seq}",
        timezone="Asia/Shanghai",
    )


def _per_second(run_once: Callable[[], object], items: int, repeat: int = 5) -> float:
    """Items per CPU second over the best of `repeat` passes."""
    number = max(1, 100_000 // max(items, 1))
    best = min(timeit.repeat(run_once, number=number, repeat=repeat, timer=time.process_time))
    return items * number / best


def _texts(texts: list[str]) -> Callable[[], None]:
    def run() -> None:
        for text in texts:
            recognize(text, Role.USER)

    return run


def _interpret(turns: list[ChatTurn]) -> Callable[[], None]:
    def run() -> None:
        for turn in turns:
            interpret(turn, "UTC")

    return run


def _decode(encoded: bytes, count: int) -> Callable[[], None]:
    def run() -> None:
        for _ in range(count):
            _decoder.decode(encoded)

    return run


def proposal_turns() -> list[ChatTurn]:
    """The corpus proposals, then each again with a deadline added (half the turns)."""
    positives = _rows("recognizer_positive.jsonl")
    proposals = [row["text"] for row in positives if row["intent"] == "proposal"]
    with_deadline = [
        text.rstrip("。.!\uff01 ") + ("\uff0c周五前完成。" if "约定" in text else " by Friday 5pm.")
        for text in proposals
    ]
    return [_turn(text, seq) for seq, text in enumerate(proposals + with_deadline, 1)]


def main() -> None:
    negatives = [row["text"] for row in _rows("recognizer_negative.jsonl") if row["role"] == "user"]
    ordinary = [text for text in negatives if not _has_keyword(text)]
    near_misses = [text for text in negatives if _has_keyword(text)]
    turns = proposal_turns()
    resolved = sum(
        isinstance(intent := interpret(turn, "UTC"), Proposal) and intent.deadline_at is not None
        for turn in turns
    )
    baseline = _per_second(_decode(msgspec.json.encode(turns[0]), 1000), 1000)
    workloads: list[tuple[str, int, Callable[[], None], int | None]] = [
        ("ordinary turns (no agreement phrase)", len(ordinary), _texts(ordinary), ORDINARY_TARGET),
        ("near-misses (keyword, no intent)", len(near_misses), _texts(near_misses), None),
        (
            "proposals: recognize (finds the deadline phrase)",
            len(turns),
            _texts([turn.text for turn in turns]),
            None,
        ),
        (
            "full proposals: interpret (+ resolves it)",
            len(turns),
            _interpret(turns),
            PROPOSAL_TARGET,
        ),
    ]
    print(f"python {platform.python_version()} on {platform.machine()}, one process, CPU time")
    print(f"proposal turns whose deadline resolved: {resolved} of {len(turns)}")
    print(f"{'workload':52} {'turns':>6} {'turns/s':>10} {'vs target':>10} {'vs baseline':>12}")
    name = "baseline: msgspec-decode one chat turn"
    print(f"{name:52} {1000:>6} {baseline:>10,.0f} {'-':>10} {1:>11.2f}x")
    for name, count, run, target in workloads:
        measured = _per_second(run, count)
        versus_target = f"{measured / target:.2f}x" if target else "-"
        print(
            f"{name:52} {count:>6} {measured:>10,.0f} {versus_target:>10}"
            f" {measured / baseline:>11.2f}x"
        )


if __name__ == "__main__":
    main()
