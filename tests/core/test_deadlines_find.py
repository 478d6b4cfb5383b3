"""Finding the deadline wording inside proposal terms (R9; precision first).

`find_deadline_phrase` sees the terms the recognizer extracted. It returns the one
span the grammar reads as a deadline, or None: no wording, two deadlines, wording
outside the grammar, a start ("from Friday", 明天起), a past date (三天前), or a
recurring schedule / standing rule, where a time is a condition, not an end.
"""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.deadlines import chinese_lexicon, english_lexicon
from core.deadlines.resolve import find_deadline_phrase, resolve_deadline
from tests.support.deadline_cases_all import phrases
from tests.support.native_probe import corpus_texts, deadline_examples

FOUND: tuple[tuple[str, str], ...] = (
    ("send me the report by Friday", "by Friday"),
    ("I finish the chapter draft by the end of the week", "by the end of the week"),
    ("we review the budget together before the end of the month", "before the end of the month"),
    ('mark todo "Organize reading notes" as completed by tomorrow 5pm', "by tomorrow 5pm"),
    ('by Friday, mark todo "Submit expense report" as completed', "by Friday"),
    ("you reply in English until December 1", "until December 1"),
    ("send the slides no later than 3pm tomorrow", "no later than 3pm tomorrow"),
    ("answer within 24 hours", "within 24 hours"),
    ("finish the review within three days", "within three days"),
    ("Send The Deck By Next Friday", "By Next Friday"),
    ("send the draft by Friday at the latest", "by Friday"),
    ("share the notes tomorrow before 5pm please", "tomorrow before 5pm"),
    ("deliver on or before 2026-12-01", "on or before 2026-12-01"),
    ("you call me at 8 tonight", "at 8 tonight"),
    ("the review is due Dec 1st", "Dec 1st"),
    ("finish the essay before next week", "before next week"),
    ("I'll have it done by EOD", "by EOD"),
    ("我们周五前发报告", "周五前"),
    ("月底前我们一起复盘预算", "月底前"),
    ("把待办「整理读书笔记」在明天下午5点前标记为完成", "在明天下午5点前"),
    ("三天内给我答复", "三天内"),
    ("下月15号下午6点前交报告", "下月15号下午6点前"),
    ("截止到12月1日提交初稿", "截止到12月1日"),
    ("三天前说的报告周五前发给我", "周五前"),  # 三天前 is a past date, not a deadline
    ("你在两周内读完这本书", "在两周内"),
    ("这周末前整理好房间", "这周末前"),
    ("明天 18:00 前把 PR 合并", "明天 18:00 前"),  # one span, not also the English "18:00"
    ("周五之前把 PR 合并", "周五之前"),
    ("mark todo 'Call mom' as completed tonight", "tonight"),
    ("you flag any claim you are unsure about by Friday 5pm", "by Friday 5pm"),
    ("call me Tuesday at 3:30pm", "Tuesday at 3:30pm"),
    ("send it by five pm", "by five pm"),
    ("each of us sends a draft by Friday", "by Friday"),  # "each of us" is no schedule
    ("call me at seven tonight", "at seven tonight"),
    ("the review is due December first", "December first"),
    ("send it by 5pm, on Slack", "by 5pm"),
    ("明天中午前回复", "明天中午前"),
    ("下午三点前把文件发我", "下午三点前"),
    ("请证明周五前能完成", "周五前"),  # 证明 ends in 明 but is "prove"
    ("send it by email by Friday", "by Friday"),
    ("after the review, by Monday, send the summary", "by Monday"),
)

NOT_FOUND: tuple[tuple[str, str], ...] = (
    ("next time we discuss a plan, start with the conclusion", "no time wording"),
    ("you answer in Chinese", "no time wording"),
    ("by the way, use metric units", "a marker without a time"),
    ("we split the bill by 3 people", "a marker and a number that is not a time"),
    ("every Friday send a summary by 5pm", "a recurring schedule"),
    ("send a summary each morning before 9am", "a recurring schedule"),
    ("you never schedule anything before 9am for me", "a standing rule"),
    ("I go to bed before 11pm on weeknights", "a standing rule"),
    ("always reply by 5pm", "a standing rule"),
    ("each of us replies by 5pm from now on", "a standing rule"),
    ("from tomorrow on, answer in English", "a start, not an end"),
    ("starting Monday, use the new template", "a start, not an end"),
    ("after 5pm don't send me work messages", "a start, not an end"),
    ("review before Friday's meeting", "a day named as an attribute, tied to an event"),
    ("send the notes 2 hours ago", "a past time"),
    ("from next Monday onwards, answer in English", "a start, not an end"),
    ("send it by Friday or by Monday", "two deadlines"),
    ("draft by Friday, final by Monday", "two deadlines"),
    ("send it tomorrow at 3", "a time that could be 3am or 3pm"),
    ("send it by 5:30", "a time that could be 5:30am or 5:30pm"),
    ("meet at 3", "a bare hour"),
    ("review it last Friday's way", "a past day"),
    ("finish it within 3 business days", "business days are outside the grammar"),
    ("finish by the end of the meeting", "an end tied to an event"),
    ("sometime around Friday", "an approximate day"),
    ("周末不给我发工作提醒", "a bare 周末 is 'at weekends'"),
    ("每周五前交周报", "a recurring schedule"),
    ("从明天开始早睡", "a start, not an end"),
    ("明天起用中文回答", "a start, not an end"),
    ("周五以后再说", "a start, not an end"),
    ("下下下周五前交", "three weeks on is outside the grammar"),
    ("周五前后给我消息", "an approximate day"),
    ("3点前交", "3:00 or 15:00"),
    ("周五或者周一前交", "two deadlines"),
    ("上周五说的事", "a past day"),
    ("你从不在早上8点前打扰我", "a standing rule"),
    ("三天前说过的话", "a past date"),
    ("我周五前交初稿 and you review it on Monday", "two deadlines in mixed text"),
    ("明天的会议你来主持", "明天的 names a day, it does not end the agreement"),
    ("快一点回答", "一点 is 'a little', not one o'clock"),
    ("send it before the meeting on Friday", "a deadline tied to an event on that day"),
    ("周五下班前发给我", "before leaving work on Friday, not the end of Friday"),
    ("明天开会之前把材料准备好", "before tomorrow's meeting"),
    ("明天下午5点前到明天下午5点前到", "two deadlines, the second right after the first"),
    ("周五前，下周一前", "two deadlines"),  # noqa: RUF001 - Chinese punctuation
    ("by 5 PM EST", "a zone other than the user's"),
    ("by 5pm Beijing time", "a zone other than the user's"),
    ("北京时间下午5点前", "a zone other than the user's"),
    ("first thing tomorrow", "tomorrow morning, not the end of tomorrow"),
    ("明后天给我答复", "tomorrow or the day after"),
    ("今明两天内给我答复", "within today and tomorrow, not two days from now"),
    ("send it by ten thirty", "a 12-hour clock in words without am/pm is a guess"),
    ("finish it by early next week", "part of a period"),
    ("by the middle of next month", "part of a period"),
    ("during the week of December 7", "another period"),
    ("下个月初交报告", "early next month, not its end"),
    ("下周中给我答复", "the middle of next week"),
    ("12月中旬之前", "mid-December"),
)


@pytest.mark.parametrize(("terms", "phrase"), FOUND)
def test_the_one_deadline_wording_is_found(terms: str, phrase: str) -> None:
    """R9: terms with one deadline in the grammar yield exactly that span."""
    assert find_deadline_phrase(terms) == phrase


@pytest.mark.parametrize(("terms", "why"), NOT_FOUND)
def test_no_deadline_wording_is_found_when_unsure(terms: str, why: str) -> None:
    """R9, precision first: no deadline rather than a guess."""
    assert find_deadline_phrase(terms) is None, why


def _resolving_cases() -> list[str]:
    return phrases(lambda case: bool(case.expected))


@pytest.mark.parametrize("phrase", _resolving_cases())
def test_a_phrase_that_resolves_is_found_whole(phrase: str) -> None:
    """Find and resolve share one grammar: a resolving phrase, as the whole terms, is
    found as itself (a leading "at" / "on" is left out, it changes nothing) (R9)."""
    assert find_deadline_phrase(phrase) in {
        phrase,
        phrase.removeprefix("at "),
        phrase.removeprefix("on "),
    }


@pytest.mark.parametrize(("terms", "phrase"), FOUND)
def test_every_found_phrase_resolves(terms: str, phrase: str) -> None:
    """What find returns, resolve reads: the two share one grammar (R9)."""
    del terms
    said = datetime(2026, 11, 23, 6, 0, tzinfo=UTC)  # a Monday, early: nothing is over yet
    assert resolve_deadline(phrase, said, ZoneInfo("Asia/Shanghai")) is not None


# The candidate scan walks a run token by token (`candidate_end`); the single
# CANDIDATE pattern of each lexicon is its specification.
_CANDIDATE_TEXTS = sorted(
    {
        *corpus_texts(),
        *phrases(),
        *(text for text, _ in FOUND),
        *deadline_examples(),
    }
)
_JOINS = ["", " ", ", ", " at ", " by ", " on ", "\uff0c", "之前", " and "]


def _candidate_ends(text: str) -> list[tuple[int, int, int, int]]:
    """At every position: (CANDIDATE end, candidate_end) for English, then for Chinese."""
    lower = english_lexicon.normalize(text)
    found = []
    for at in range(len(text)):
        english = english_lexicon.CANDIDATE.match(lower, at) if at < len(lower) else None
        chinese = chinese_lexicon.CANDIDATE.match(text, at)
        found.append(
            (
                english.end() if english is not None else -1,
                english_lexicon.candidate_end(lower, at) if at < len(lower) else -1,
                chinese.end() if chinese is not None else -1,
                chinese_lexicon.candidate_end(text, at),
            )
        )
    return found


def test_the_candidate_scan_ends_where_the_candidate_pattern_does() -> None:
    """R9: at every position of every corpus turn, table phrase and documented example,
    the token-by-token scan ends where the whole CANDIDATE pattern ends (or both miss)."""
    for text in _CANDIDATE_TEXTS:
        for english, english_scan, chinese, chinese_scan in _candidate_ends(text):
            assert english_scan == english, text
            assert chinese_scan == chinese, text


# `\d` in the patterns also matches the digits of other scripts, which no item lists
# among the characters it can start with (Arabic-Indic, full-width before folding).
_OTHER_DIGITS = [
    "在١٢月 明天前",
    "在１２月 明天前",
    "明天凌晨٣1点前截至周五晚上8点",
    "by ٣ days tomorrow",
    "٣ pm",
    "the ٣rd of next month",
]


@pytest.mark.parametrize("text", _OTHER_DIGITS)
def test_the_candidate_scan_reads_digits_of_other_scripts_as_the_pattern_does(text: str) -> None:
    """R9: a run holding a digit of another script ends where CANDIDATE ends."""
    for english, english_scan, chinese, chinese_scan in _candidate_ends(text):
        assert english_scan == english, text
        assert chinese_scan == chinese, text


def test_a_run_with_digits_of_another_script_still_hides_the_deadline_after_it() -> None:
    """R9: "在١٢月 明天前" is one run the grammar cannot read, so it names no deadline;
    the scan must not drop the unreadable part and return 明天前 alone."""
    assert find_deadline_phrase("在١٢月 明天前") is None
    assert find_deadline_phrase("在１２月 明天前") is None
    # The unreadable run ends at ٣1点前, so the one deadline is the run after it.
    assert find_deadline_phrase("明天凌晨٣1点前截至周五晚上8点") == "截至周五晚上8点"


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(_CANDIDATE_TEXTS), st.sampled_from(_JOINS)), max_size=4).map(
        lambda parts: "".join(text + join for text, join in parts)
    )
)
def test_the_candidate_scan_ends_where_the_pattern_does_on_spliced_text(text: str) -> None:
    """R9: the same on texts spliced from those pieces with separators and connectors."""
    for english, english_scan, chinese, chinese_scan in _candidate_ends(text):
        assert english_scan == english
        assert chinese_scan == chinese
