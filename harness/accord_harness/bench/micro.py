"""Recognizer and deadline micro-benchmarks, on this process's CPU time.

CPU time (`time.process_time`) rather than wall time: on a shared machine the wall
clock mostly measures the neighbours. Best of `passes`. The fuller versions, on the
labelled corpus, are benchmarks/bench_recognizer.py and benchmarks/bench_deadlines.py.
"""

# ruff: noqa: RUF001  (Chinese turns carry full-width punctuation on purpose)
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from accord_harness.bench.workload import ASSISTANT
from accord_harness.chaos.workload import EN, ZH
from contracts.common import Role
from contracts.inputs import ChatTurn
from core.deadlines.resolve import find_deadline_phrase, resolve_deadline
from core.interpret import interpret
from core.recognition.recognizer import recognize

TS = datetime(2027, 1, 4, 9, 30, tzinfo=UTC)
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")
ZH_DAYS = ("一", "二", "三", "四", "五")


def ordinary_texts() -> list[str]:
    return [*EN.user_noise, *ZH.user_noise, *ASSISTANT, *EN.assistant_noise, *ZH.assistant_noise]


def proposal_terms(count: int) -> list[str]:
    """Distinct proposals, half with a deadline (English and Chinese)."""
    out = []
    for i in range(count):
        if i % 4 == 0:
            out.append(f"Let's agree: send the report by {DAYS[i % 5]} {1 + i % 11}pm.")
        elif i % 4 == 1:
            out.append(f"我们约定：周{ZH_DAYS[i % 5]}{1 + i % 11}点前把第{i}章的笔记发给我。")
        elif i % 4 == 2:
            out.append(f"Let's agree: keep reviews of chapter {i} to three comments.")
        else:
            out.append(f"我们约定：第{i}章的回答先说结论，再解释原因。")
    return out


def _per_second(work: Callable[[], object], items: int, passes: int) -> float:
    best = float("inf")
    for _ in range(passes):
        started = time.process_time()
        work()
        best = min(best, time.process_time() - started)
    return items / best if best > 0 else float("inf")


def _turn(text: str, index: int) -> ChatTurn:
    return ChatTurn(
        agent_id="a", user_id="u", session_id="s", seq=index + 1, ts=TS, role=Role.USER,
        text=text, message_id=f"m{index}", timezone="Asia/Shanghai" if index % 2 else None,
    )  # fmt: skip


def recognizer(repeat: int = 2000, proposals: int = 400, passes: int = 3) -> dict[str, float]:
    """Ordinary turns/s (`recognize`) and full proposals/s (`interpret`: + deadline)."""
    texts = ordinary_texts() * (repeat // len(ordinary_texts()) + 1)
    turns = [_turn(t, i) for i, t in enumerate(proposal_terms(proposals))]

    def ordinary() -> None:
        for text in texts:
            recognize(text, "user")

    def full() -> None:
        for turn in turns:
            interpret(turn, "UTC")

    return {
        "ordinary_turns_per_s": _per_second(ordinary, len(texts), passes),
        "proposals_per_s": _per_second(full, len(turns), passes),
    }


def deadlines(count: int = 400, passes: int = 3) -> dict[str, float]:
    """Microseconds per `find_deadline_phrase` and per `resolve_deadline` call."""
    terms = [t for t in proposal_terms(count) if "by" in t or "前" in t]
    phrases: Sequence[str] = [p for p in map(find_deadline_phrase, terms) if p is not None]
    zone = ZoneInfo("Asia/Shanghai")

    def find() -> None:
        for text in terms:
            find_deadline_phrase(text)

    def resolve() -> None:
        for phrase in phrases:
            resolve_deadline(phrase, TS, zone)

    return {
        "find_us": 1e6 / _per_second(find, len(terms), passes),
        "resolve_us": 1e6 / _per_second(resolve, max(1, len(phrases)), passes),
        "phrases": len(phrases),
    }
