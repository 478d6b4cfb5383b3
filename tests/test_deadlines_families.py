# ruff: noqa: RUF001 - Chinese terms are written with their full-width punctuation
"""Deadline families of real messages (R9, DESIGN section 4, docs/deadlines.md).

Finding: a periodic word inside a noun phrase ("the weekly report") is not a standing
rule, and a quoted name is data, not grammar. Resolving: each family added to the
grammar has a table in English and in Chinese, written by hand in local time (see
tests/test_deadlines_en.py for the calendar notes; 2026-11-27 is a Friday).
"""

from __future__ import annotations

import pytest

from worker.core.deadlines import find_deadline_phrase

FOUND: tuple[tuple[str, str], ...] = (
    # Periodic words as part of an object name a thing, not a schedule.
    ("send me the weekly report by Friday", "by Friday"),
    ("keep the weekly notes within 3 days", "within 3 days"),
    ("send me our monthly summary before next Monday", "before next Monday"),
    ("share your daily log by tomorrow", "by tomorrow"),
    ("send me the new weekly report by Friday", "by Friday"),
    ("把每周的例会纪要在周五前发我", "在周五前"),
    ("我们每天的站会记录明天前发我", "明天前"),
    # A quoted name is data: its words are neither a deadline nor a rule.
    ('mark todo "Write weekly report" as completed by Friday', "by Friday"),
    ('mark todo "Plan the daily standup" as done by tomorrow', "by tomorrow"),
    ("把待办「每周复盘」标记为完成，周五前", "周五前"),
    ('mark todo "Call mom before Friday" as done by tomorrow', "by tomorrow"),
)

NOT_FOUND: tuple[tuple[str, str], ...] = (
    ("send me a weekly report by Friday", "a weekly report: one every week"),
    ("weekly, send me the report by Friday", "weekly modifies the agreement"),
    ("send me the report weekly until December", "weekly modifies the agreement"),
    ("每周五前都发我周报", "每周…都 is a rule"),
    ("每周的周报每周五前发我", "每周五前 is a rule"),
    ('mark todo "Call mom by Friday" as done', "the only time is inside the quoted name"),
    ("把待办「周五前交周报」标记为完成", "the only time is inside the quoted name"),
)


@pytest.mark.parametrize(("terms", "phrase"), FOUND)
def test_the_deadline_outside_noun_phrases_and_quoted_names_is_found(
    terms: str, phrase: str
) -> None:
    """R9: "the weekly report" is a thing, and a quoted todo name is data."""
    assert find_deadline_phrase(terms) == phrase


@pytest.mark.parametrize(("terms", "why"), NOT_FOUND)
def test_schedules_and_times_inside_quoted_names_give_no_deadline(terms: str, why: str) -> None:
    """R9, precision first: a periodic word modifying the agreement is a rule; a time
    inside a quoted name is not the agreement's end."""
    assert find_deadline_phrase(terms) is None, why
