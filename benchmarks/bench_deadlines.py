# ruff: noqa: T201  (a script directory, not a package; a benchmark prints)
"""Deadline benchmark: microseconds per phrase, and ratios to a baseline from the same run.

    uv run --frozen python benchmarks/bench_deadlines.py

Baseline: msgspec-decoding one chat turn (work the worker does for every input
anyway). The target is "a few tens of microseconds per phrase" for resolution;
DESIGN section 5 for >= 20k proposals/s with deadline resolution (50 us each, all in).
"""

from __future__ import annotations

import platform
import time
import timeit
from collections.abc import Callable
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import msgspec

from contracts.inputs import ChatTurn
from core.deadlines import chinese as deadline_chinese
from core.deadlines import english as deadline_english
from core.deadlines.resolve import find_deadline_phrase, resolve_deadline

TS = datetime(2026, 11, 27, 2, 0, tzinfo=UTC)
ZONE = ZoneInfo("Asia/Shanghai")

EN_PHRASES = (
    "by Friday",
    "tomorrow before 5pm",
    "by the end of the month",
    "within 3 days",
    "next Friday at noon",
    "by December 1",
    "before next week",
    "by 8 tonight",
    "within half an hour",
    "on or before 2026-12-01",
)
ZH_PHRASES = (
    "周五前",
    "明天下午5点前",
    "月底前",
    "三天内",
    "下周五",
    "12月1日之前",
    "下月15号下午6点前",
    "两周内",
    "今晚8点前",
    "截止到周五",
)
PLAIN_TERMS = (
    "next time we discuss a plan, start with the conclusion and then explain the reasons",
    "you answer in Chinese unless I write in English",
    'mark todo "Organize reading notes" as completed',
    "以后讨论方案时先说结论，再讲理由",  # noqa: RUF001 - Chinese punctuation
    "把待办「整理读书笔记」标记为完成",
)
DEADLINE_TERMS = (
    "send me the draft by Friday 5pm and keep it short",
    "we review the budget together before the end of the month",
    "finish the review within three days",
    "周报由我周五前发给你，你帮我检查错别字",  # noqa: RUF001 - Chinese punctuation
    "下月15号下午6点前交报告",
)
TURN = msgspec.json.encode(
    {
        "type": "chat_turn",
        "agent_id": "agent-1",
        "user_id": "user-1",
        "session_id": "session-1",
        "seq": 7,
        "ts": "2026-11-27T02:00:00Z",
        "role": "user",
        "text": "Let's agree: send me the draft by Friday 5pm.",
        "message_id": "m-7",
        "timezone": "Asia/Shanghai",
    }
)
_decoder = msgspec.json.Decoder(ChatTurn)


def _per_call_us(work: Callable[[], object], calls_per_run: int) -> float:
    """Best of 5 runs, in us per call, timed in process CPU time: on a shared machine
    wall time mostly measures the other processes."""
    timer = timeit.Timer(work, timer=time.process_time)
    loops, _ = timer.autorange()
    best = min(timer.repeat(repeat=5, number=loops))
    return best / loops / calls_per_run * 1e6


def _each(function: Callable[[str], object], inputs: tuple[str, ...]) -> Callable[[], None]:
    def run() -> None:
        for item in inputs:
            function(item)

    return run


def _resolve_all(phrases: tuple[str, ...]) -> Callable[[], None]:
    def run() -> None:
        for phrase in phrases:
            resolve_deadline(phrase, TS, ZONE)

    return run


def _cold(work: Callable[[], None]) -> Callable[[], None]:
    """`work` with the phrase caches emptied first: every phrase is lexed and parsed."""

    def run() -> None:
        deadline_english.read.cache_clear()
        deadline_chinese.read.cache_clear()
        work()

    return run


def _find_and_resolve(terms: tuple[str, ...]) -> Callable[[], None]:
    def run() -> None:
        for text in terms:
            phrase = find_deadline_phrase(text)
            if phrase is not None:
                resolve_deadline(phrase, TS, ZONE)

    return run


def main() -> None:
    # The benchmark is only meaningful if the phrases actually resolve.
    unresolved = [p for p in EN_PHRASES + ZH_PHRASES if resolve_deadline(p, TS, ZONE) is None]
    assert not unresolved, unresolved
    assert all(find_deadline_phrase(t) is None for t in PLAIN_TERMS)
    assert all(find_deadline_phrase(t) is not None for t in DEADLINE_TERMS)

    baseline = _per_call_us(lambda: _decoder.decode(TURN), 1)
    # "cold": the phrase cache is emptied before each pass, so every phrase is lexed
    # and parsed; "warm": phrases seen before (find then resolve, recurring phrases).
    rows = (
        (
            "find, terms without deadline wording",
            _each(find_deadline_phrase, PLAIN_TERMS),
            PLAIN_TERMS,
        ),
        (
            "find, terms with a deadline (cold)",
            _cold(_each(find_deadline_phrase, DEADLINE_TERMS)),
            DEADLINE_TERMS,
        ),
        ("resolve, English phrase (cold)", _cold(_resolve_all(EN_PHRASES)), EN_PHRASES),
        ("resolve, Chinese phrase (cold)", _cold(_resolve_all(ZH_PHRASES)), ZH_PHRASES),
        ("resolve, English phrase (warm)", _resolve_all(EN_PHRASES), EN_PHRASES),
        ("resolve, Chinese phrase (warm)", _resolve_all(ZH_PHRASES), ZH_PHRASES),
        (
            "find + resolve, terms with a deadline (cold)",
            _cold(_find_and_resolve(DEADLINE_TERMS)),
            DEADLINE_TERMS,
        ),
    )
    print(f"deadlines benchmark, Python {platform.python_version()} on {platform.machine()}")
    print(f"{'baseline: msgspec decode of one chat turn':48s} {baseline:8.2f} us    1.0x")
    for name, work, inputs in rows:
        us = _per_call_us(work, len(inputs))
        print(f"{name:48s} {us:8.2f} us {us / baseline:6.1f}x")


if __name__ == "__main__":
    main()
