"""Numbers in words, Chinese numerals, 12-hour clocks and the lexers of deadlines (R9).

Words and the values they read as, in tables alike in shape on purpose: one reading
a test (CONTRIBUTING.md, "Repeated shapes").
"""

from __future__ import annotations

import pytest

from core.deadlines import chinese_lexicon, english_lexicon
from core.deadlines.grammar import Clock, Hint, clock_time
from core.deadlines.numerals import en_number, en_ordinal, zh_number
from tests.support.deadline_cases_all import phrases


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("3", 3),
        ("a", 1),
        ("an", 1),
        ("one", 1),
        ("twelve", 12),
        ("nineteen", 19),
        ("twenty", 20),
        ("twenty-four", 24),
        ("twenty four", 24),
        ("ninety-nine", 99),
        ("zero", 0),
    ],
)
def test_english_number_words_are_read(text: str, value: int) -> None:
    """R9: "within three days", "twenty-four hours" use numbers in words."""
    assert en_number(text) == value


@pytest.mark.parametrize("text", ["", "dozen", "twenty-ten", "twenty-zero", "one-two", "٣"])
def test_english_non_numbers_are_refused(text: str) -> None:
    """R9: anything else is no number, so the phrase gets no deadline rather than a guess."""
    assert en_number(text) is None


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("三", 3),
        ("两", 2),
        ("二", 2),
        ("十", 10),
        ("十二", 12),
        ("二十", 20),
        ("二十五", 25),
        ("九十九", 99),
        ("15", 15),
        ("二〇二六", 2026),
        ("二零二六", 2026),
    ],
)
def test_chinese_numerals_are_read(text: str, value: int) -> None:
    """R9: 三天内, 两周内, 十二点, 二十五号, 二〇二六年."""
    assert zh_number(text) == value


@pytest.mark.parametrize(
    "text", ["", "两十", "十两", "十十", "二十十", "零十", "三四", "两〇二六", "百", "一二三"]
)
def test_malformed_chinese_numerals_are_refused(text: str) -> None:
    """R9: malformed numerals give no number, never a guess."""
    assert zh_number(text) is None


@pytest.mark.parametrize(
    ("clock", "hint", "expected"),
    [
        (Clock(5, 0, meridiem="p"), None, (17, 0)),
        (Clock(12, 0, meridiem="a"), None, (0, 0)),
        (Clock(12, 0, meridiem="p"), None, (12, 0)),
        (Clock(8, 0, meridiem="p"), Hint.EVENING, (20, 0)),
        (Clock(8, 0, meridiem="a"), Hint.EVENING, None),
        (Clock(8, 0, meridiem="p"), Hint.MORNING, None),
        (Clock(13, 0, meridiem="p"), None, None),
        (Clock(17, 0), None, (17, 0)),
        (Clock(17, 0), Hint.MORNING, None),
        (Clock(0, 0), None, (0, 0)),
        (Clock(24, 0, fixed=True), None, (24, 0)),
        (Clock(24, 30, fixed=True), None, None),
        (Clock(9, 30, fixed=True), None, (9, 30)),
        (Clock(9, 30), None, None),
        (Clock(9, 60, fixed=True), None, None),
        (Clock(3, 0), Hint.EARLY, (3, 0)),
        (Clock(8, 0), Hint.EARLY, None),
        (Clock(8, 0), Hint.MORNING, (8, 0)),
        (Clock(12, 0), Hint.MORNING, None),
        (Clock(12, 0), Hint.NOON, (12, 0)),
        (Clock(1, 0), Hint.NOON, (13, 0)),
        (Clock(5, 0), Hint.NOON, None),
        (Clock(3, 0), Hint.AFTERNOON, (15, 0)),
        (Clock(12, 0), Hint.AFTERNOON, (12, 0)),
        (Clock(8, 0), Hint.EVENING, (20, 0)),
        (Clock(12, 0), Hint.EVENING, (24, 0)),
        (Clock(12, 30), Hint.EVENING, None),
        (Clock(2, 0), Hint.EVENING, None),
    ],
)
def test_a_twelve_hour_clock_needs_am_pm_or_a_part_of_the_day(
    clock: Clock, hint: Hint | None, expected: tuple[int, int] | None
) -> None:
    """R9: "8" alone is morning or evening; 下午/tonight/pm decide, conflicts give None."""
    assert clock_time(clock, hint) == expected


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("first", 1),
        ("second", 2),
        ("twelfth", 12),
        ("twentieth", 20),
        ("twenty-first", 21),
        ("thirty first", 31),
        ("thirtieth", 30),
    ],
)
def test_english_ordinal_words_are_read(text: str, value: int) -> None:
    """R9: "December first", "the twenty-first of December"."""
    assert en_ordinal(text) == value


@pytest.mark.parametrize("text", ["", "1st", "twenty", "twenty-twentieth", "forty-first", "one"])
def test_english_non_ordinals_are_refused(text: str) -> None:
    """R9: anything else is no day of the month."""
    assert en_ordinal(text) is None


def _phrases() -> list[str]:
    return phrases(lambda case: bool(case.phrase))


@pytest.mark.parametrize("phrase", _phrases())
def test_first_character_dispatch_lexes_like_the_full_alternation(phrase: str) -> None:
    """The lexer's per-character shortcut picks the same token as trying every pattern
    in order, at every position of every table phrase (guards the first-character sets)."""
    for lexer, text in (
        (english_lexicon.LEXER, english_lexicon.normalize(phrase)),
        (chinese_lexicon.LEXER, phrase),
    ):
        for pos in range(len(text)):
            assert lexer.token(text, pos) == lexer.token(text, pos, dispatch=False)
