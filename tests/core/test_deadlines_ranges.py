# ruff: noqa: RUF001 - Chinese terms are written with their full-width punctuation
"""Deadline families found on the independent corpus (R9, DESIGN section 4, docs/deadlines.md).

benchmarks/deadline_corpus.py reads time expressions from public parsers' test suites;
the families it found missing are tabled here by hand, in local time, said on Friday
2026-11-27 10:00 in New York or Shanghai unless a row says otherwise: ranges of days,
months and clock times (their end), the Nth weekday of a month, a day moved by days,
compact lengths and clocks, more holidays. Then the properties: a range's deadline is
strictly after `ts` and never before its start; the Nth weekday is that weekday of that
month; a day moved by N days is the day N days later, across daylight saving.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.deadlines.resolve import find_deadline_phrase, resolve_deadline
from tests.support.deadline_cases_en import c as en
from tests.support.deadline_cases_zh import c as zh
from tests.support.deadline_kit import (
    REFERENCE_TIMES,
    Case,
    case_id,
    check_resolves,
    check_written_in_zone,
)

# Rows alike in shape are the table's form (CONTRIBUTING.md, "Repeated shapes").
ENGLISH: tuple[Case, ...] = (
    # Ranges of days and months: the end of the last, counted from the start.
    en("from Monday to Friday", "2026-12-05T00:00:00-05:00"),
    en("from Friday to Monday", "2026-12-01T00:00:00-05:00"),  # today's Friday starts it
    en("Monday - Wednesday", "2026-12-03T00:00:00-05:00"),
    en("from May to December", "2028-01-01T00:00:00-05:00"),
    en("from December to May", "2027-06-01T00:00:00-04:00"),
    en(
        "from Saturday to Monday",
        "2027-03-16T00:00:00-04:00",  # across the spring-forward Sunday
        said="2027-03-12T10:00:00-05:00",
    ),
    # Ranges of clock times: the second time; am/pm said once holds for both.
    en("from 3:30 to 6pm", "2026-11-27T18:00:00-05:00"),
    en("between 3:30pm and 6 pm", "2026-11-27T18:00:00-05:00"),
    en("3:30-4:30pm", "2026-11-27T16:30:00-05:00"),
    en("1pm-2pm tomorrow", "2026-11-28T14:00:00-05:00"),
    en("from 10 to 11 at night", "2026-11-27T23:00:00-05:00"),
    en("tomorrow 09:30 - 10:45", "2026-11-28T10:45:00-05:00"),
    en("from 11am to 1am", "2026-11-28T01:00:00-05:00"),  # past midnight, no day named
    en("tomorrow 11pm to 1am", None),  # a day named: an end before the start is refused
    en("from 3 to 5", None),  # 12-hour clocks without am/pm
    en(
        "from 1am to 3am",
        "2027-03-14T03:00:00-04:00",  # 03:00 exists on the spring-forward night
        said="2027-03-13T10:00:00-05:00",
    ),
    # The Nth (or last) weekday of a month, the last day of a month.
    en("by the last Friday of December", "2026-12-26T00:00:00-05:00"),
    en("by the first Monday of next month", "2026-12-08T00:00:00-05:00"),
    en("by the last day of February", "2027-03-01T00:00:00-05:00"),
    en("by the last Friday of this month", "2026-11-28T00:00:00-05:00"),  # today
    en("by the first Monday of November", "2027-11-02T00:00:00-04:00"),  # this year's over
    en("by the fifth Monday of next month", None),  # December 2026 has four
    # A day moved by days.
    en("2 days after next Friday", "2026-12-07T00:00:00-05:00"),
    en("a week after tomorrow", "2026-12-06T00:00:00-05:00"),
    # Lengths: shorthand, quarters of an hour (elapsed time across a DST change too).
    en("in 1d 2hr 5min", "2026-11-28T12:05:00-05:00"),
    en("in 1d 2hr 5min", "2027-03-14T13:05:00-04:00", said="2027-03-13T10:00:00-05:00"),
    en("in 2hour", "2026-11-27T12:00:00-05:00"),
    en("in a quarter of an hour", "2026-11-27T10:15:00-05:00"),
    en("in three-quarters of an hour", "2026-11-27T10:45:00-05:00"),
    # Clocks.
    en("at 3 AM", "2026-11-28T03:00:00-05:00"),
    en("at 8 in the evening", "2026-11-27T20:00:00-05:00"),
    en("by 20 minutes past 3pm", "2026-11-27T15:20:00-05:00"),
    en("by a quarter to noon", "2026-11-27T11:45:00-05:00"),
    en("by ten to midnight", "2026-11-27T23:50:00-05:00"),
    en("by 330 p.m.", "2026-11-27T15:30:00-05:00"),
    en("at 730 in the evening", "2026-11-27T19:30:00-05:00"),
    en("by 13h30", "2026-11-27T13:30:00-05:00"),
    # Months and dates.
    en("by next March", "2027-04-01T00:00:00-04:00"),
    en("by next November", "2027-12-01T00:00:00-05:00"),  # never this month
    en("in June of 2027", "2027-07-01T00:00:00-04:00"),
    en("by Sep 2027", "2027-10-01T00:00:00-04:00"),
    en("by march the 15th", "2027-03-16T00:00:00-04:00"),
    en("by 2027/Aug/10", "2027-08-11T00:00:00-04:00"),
    en("by the following week", "2026-12-07T00:00:00-05:00"),
    # Holidays.
    en("by xmas", "2026-12-26T00:00:00-05:00"),
    en("by thanksgiving", "2027-11-26T00:00:00-05:00"),  # 2026's was yesterday
    en("before Mother's Day", "2027-05-09T00:00:00-04:00"),
)

CHINESE: tuple[Case, ...] = (
    # Ranges of days and months.
    zh("周一至周三", "2026-12-03T00:00:00+08:00"),
    zh("星期六-星期一", "2026-12-01T00:00:00+08:00"),
    zh("今天到下周五", "2026-12-05T00:00:00+08:00"),
    zh("12月1号到1月1号", "2027-01-02T00:00:00+08:00"),
    zh("十二月至一月", "2027-02-01T00:00:00+08:00"),
    zh("6月12号到7月3号", "2027-07-04T00:00:00+08:00"),
    zh("7月3号到6月12号", "2028-06-13T00:00:00+08:00"),  # the end follows its start
    zh("2028年9月3号到2027年10月24号", None),  # an end before its start
    # Ranges of clock times.
    zh("晚上11点~凌晨2点", "2026-11-28T02:00:00+08:00"),
    zh("晚上10点到6点", None),  # a bare end before the start: often quiet hours
    zh("1点pm到3点", "2026-11-27T15:00:00+08:00"),
    zh("3点-5点PM", "2026-11-27T17:00:00+08:00"),
    zh("3:15pm前", "2026-11-27T15:15:00+08:00"),
    # The Nth (or last) weekday of a month.
    zh("这个月的最后一个星期五前", "2026-11-28T00:00:00+08:00"),
    zh("下个月的第一个周一前", "2026-12-08T00:00:00+08:00"),
    zh("十月的第一个星期一前", "2027-10-05T00:00:00+08:00"),
    # Holidays.
    zh("母亲节前", "2027-05-09T00:00:00+08:00"),  # 节前: its start
    zh("教师节", "2027-09-11T00:00:00+08:00"),
    zh("情人节晚上", "2027-02-15T00:00:00+08:00"),
    zh("农历新年", "2027-02-07T00:00:00+08:00"),
    # Periods and years.
    zh("月尾前", "2026-12-01T00:00:00+08:00"),
    zh("今年年尾前", "2027-01-01T00:00:00+08:00"),
    zh("2028年前", "2029-01-01T00:00:00+08:00"),
    zh("二零二八年，九月三号前", "2028-09-04T00:00:00+08:00"),  # a year before a comma
    zh("2028年,9月3号前", "2028-09-04T00:00:00+08:00"),
    zh("2025年前", None),  # over
    # Lengths from now, dates, clocks.
    zh("一刻钟后", "2026-11-27T10:15:00+08:00"),
    zh("一个半小时后", "2026-11-27T11:30:00+08:00"),
    zh("5分钟过后", "2026-11-27T10:05:00+08:00"),
    zh("2027.9.6前", "2027-09-07T00:00:00+08:00"),
    zh("4月26日20时1刻前", "2027-04-26T20:15:00+08:00"),
)


@pytest.mark.parametrize("case", ENGLISH + CHINESE, ids=case_id)
def test_each_corpus_family_resolves_to_its_documented_instant(case: Case) -> None:
    """R9: each family resolves by the convention docs/deadlines.md gives it, or to None."""
    check_resolves(case)


@pytest.mark.parametrize("case", ENGLISH + CHINESE, ids=case_id)
def test_corpus_family_case_is_written_in_its_zone(case: Case) -> None:
    """Guards the tables: written offsets are the zone's real ones."""
    check_written_in_zone(case)


@pytest.mark.parametrize(
    ("terms", "phrase"),
    [
        ("call me from Monday to Friday", "from Monday to Friday"),
        ("send the slides between 3:30pm and 6 pm", "between 3:30pm and 6 pm"),
        ("pay it by the last Friday of December", "by the last Friday of December"),
        ("我们约定周一至周三每晚复盘前先发我提纲", None),  # 每: a rule
        ("6月12号到7月3号完成迁移", "6月12号到7月3号"),
        ("情人节晚上把礼物寄到", "情人节晚上"),
        # Neither loose nor wrong: counts, starts and two readings.
        ("invite from 2 to 3 people by Friday", "by Friday"),
        ("read chapters 9-10 by Friday", "by Friday"),
        ("score 3-4 by Friday", "by Friday"),
        ("send it by Friday to Monday's team", "by Friday"),
        ("walk 5 to 10 minutes by Friday", "by Friday"),
        ("from Friday on, reply in English", None),  # a start
        ("send it by Friday after next", None),  # two readings
        ("send the 2027/13/10 file by Friday", None),  # a date run into a slash
        ("国庆到元旦期间值班", None),  # a period
        ("周五到公司把合同签了", "周五"),  # 到 before a verb is no range
        ("晚上10点到6点不要打扰我", None),
        ("元旦晚会的节目周五前发", "周五前"),
    ],
)
def test_corpus_family_wording_is_found_inside_terms(terms: str, phrase: str | None) -> None:
    """R9: the new families are found inside terms, and nothing looser is."""
    assert find_deadline_phrase(terms) == phrase


# --- properties ------------------------------------------------------------------------

ZONES = tuple(
    ZoneInfo(name)
    for name in (
        "UTC",
        "Asia/Shanghai",
        "America/New_York",
        "Europe/Berlin",
        "America/Santiago",  # midnight skipped in spring
        "Australia/Lord_Howe",  # half-hour daylight saving
        "Pacific/Chatham",
    )
)
reference_times = REFERENCE_TIMES
zones = st.sampled_from(ZONES)
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
ZH_WEEKDAYS = "一二三四五六日"
MONTHS = (
    *("January", "February", "March", "April", "May", "June", "July"),
    *("August", "September", "October", "November", "December"),
)


def _day_before(instant: datetime, zone: ZoneInfo) -> date:
    """The local day a day-granular deadline ends."""
    return instant.astimezone(zone).date() - timedelta(days=1)


@settings(max_examples=300)
@given(st.integers(0, 6), st.integers(0, 6), st.sampled_from(("en", "zh")), reference_times, zones)
def test_a_range_of_weekdays_ends_after_ts_at_the_end_of_its_last_day(
    first: int, last: int, language: str, ts: datetime, zone: ZoneInfo
) -> None:
    """DESIGN section 4, ranges: the end of the last day, within two weeks of ts."""
    if language == "zh":
        phrase = f"周{ZH_WEEKDAYS[first]}至周{ZH_WEEKDAYS[last]}"
    else:
        phrase = f"from {WEEKDAYS[first]} to {WEEKDAYS[last]}"
    deadline = resolve_deadline(phrase, ts, zone)
    assert deadline is not None
    assert deadline > ts
    local = deadline.astimezone(zone)
    today = ts.astimezone(zone).date()
    assert _day_before(deadline, zone).weekday() == last
    assert today <= _day_before(deadline, zone) <= today + timedelta(days=13)
    assert (local.hour, local.minute) == (0, 0) or local.date() > _day_before(deadline, zone)


@settings(max_examples=300)
@given(st.integers(0, 11), st.integers(0, 11), reference_times, zones)
def test_a_range_of_months_ends_at_the_end_of_its_last_month(
    first: int, last: int, ts: datetime, zone: ZoneInfo
) -> None:
    """A month range ends at the end of its last month, at most two years on."""
    deadline = resolve_deadline(f"from {MONTHS[first]} to {MONTHS[last]}", ts, zone)
    assert deadline is not None
    assert deadline > ts
    ended = _day_before(deadline, zone)
    assert ended.month == last + 1
    assert (ended + timedelta(days=1)).day == 1
    assert ended <= ts.astimezone(zone).date() + timedelta(days=2 * 366)


@settings(max_examples=300)
@given(st.integers(1, 11), st.integers(0, 59), st.integers(1, 4), reference_times, zones)
def test_a_clock_range_ends_after_ts_within_a_day(
    hour: int, minute: int, length: int, ts: datetime, zone: ZoneInfo
) -> None:
    """A clock range without a day ends at its second time's next occurrence."""
    end = (hour + length - 1) % 12 + 1
    phrase = f"from {hour}:{minute:02d} to {end}:{minute:02d}pm"
    deadline = resolve_deadline(phrase, ts, zone)
    if deadline is None:
        return  # "from 11:15 to 2:15pm": the end's half of the day before the start
    assert ts < deadline <= ts + timedelta(hours=27)
    assert deadline.astimezone(zone).minute in {minute, 0, (minute + 30) % 60}  # DST gaps


@settings(max_examples=300)
@given(
    st.sampled_from(("first", "second", "third", "fourth", "last")),
    st.integers(0, 6),
    st.integers(0, 11),
    reference_times,
    zones,
)
def test_the_nth_weekday_of_a_month_is_that_weekday_of_that_month(
    nth: str, weekday: int, month: int, ts: datetime, zone: ZoneInfo
) -> None:
    """ "by the last Friday of March": a Friday of March, the last one; after ts."""
    phrase = f"by the {nth} {WEEKDAYS[weekday]} of {MONTHS[month]}"
    deadline = resolve_deadline(phrase, ts, zone)
    assert deadline is not None
    assert deadline > ts
    day = _day_before(deadline, zone)
    assert (day.weekday(), day.month) == (weekday, month + 1)
    index = ("first", "second", "third", "fourth").index(nth) if nth != "last" else None
    if index is None:
        assert (day + timedelta(days=7)).month != day.month
    else:
        assert (day.day - 1) // 7 == index


@settings(max_examples=300)
@given(st.integers(1, 30), reference_times, zones)
def test_n_days_after_tomorrow_is_within_n_plus_one_days(
    days: int, ts: datetime, zone: ZoneInfo
) -> None:
    """A day moved by N days is counted on the local calendar, as "within": across DST."""
    moved = resolve_deadline(f"{days} days after tomorrow", ts, zone)
    assert moved is not None
    assert moved == resolve_deadline(f"within {days + 1} days", ts, zone)
