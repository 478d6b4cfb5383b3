"""Properties of deadline resolution over any reference time and zone (R9).

- A resolved deadline is strictly after the reference time; a period already over
  gives None, never a deadline in the past.
- Shifting the reference by whole local days shifts a day-granular deadline by the
  same number of days (by whole weeks for weekday phrases), across daylight saving.
- Phrases that always name a future moment always resolve.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from hypothesis import given, settings
from hypothesis import strategies as st

from core.deadlines.resolve import find_deadline_phrase, resolve_deadline
from tests.support.deadline_cases_all import phrases
from tests.support.deadline_kit import REFERENCE_TIMES

ZONES = tuple(
    ZoneInfo(name)
    for name in (
        "UTC",
        "Asia/Shanghai",
        "America/New_York",
        "Europe/Berlin",
        "America/Santiago",  # midnight skipped in spring
        "America/Havana",  # idem
        "Australia/Sydney",
        "Australia/Lord_Howe",  # half-hour daylight saving
        "Pacific/Chatham",  # +12:45 / +13:45
        "Pacific/Kiritimati",  # +14
        "America/St_Johns",  # -03:30
        "Asia/Kolkata",
    )
)

# Phrases whose deadline moves with the reference day by day.
DAILY = (
    # English families of issue 39 (tests/core/test_deadlines_english_families.py).
    *("in a fortnight", "within 3day", "2 days hence", "within 2 weeks from today"),
    *("in less than 3 days", "a week from tomorrow", "3 days from tomorrow"),
    "today",
    "by tonight",
    "by tomorrow",
    "the day after tomorrow",
    "by EOD",
    "within 3 days",
    "within a day",
    "within two weeks",
    "by tomorrow 5pm",
    "tomorrow before noon",
    "by midnight tomorrow",
    "今天之内",
    "今晚",
    "明天前",
    "后天之前",
    "大后天前",
    "三天内",
    "两周内",
    "10天以内",
    "3天后",
    "再过两天",
    "5 days from now",
    "明天下午5点前",
    "明晚8点前",
    "后天中午12点前",
    "within the next day",
    "five-thirty tomorrow evening",
    # Chinese families of issue 39 (tests/core/test_deadlines_zh_families.py).
    "6 天内",
    "未来的三天",
    "再过 3 天",
)
# Phrases whose deadline moves with the reference week by week.
WEEKLY = (
    *("next week from Wednesday to Friday", "two weeks from next Tuesday"),
    *("next monday morning 6-8", "by the end of next calendar week"),
    "next Friday",
    "by next Monday",
    "before next Sunday",
    "by Friday next week",
    "next Wednesday at 5pm",
    "by the end of next week",
    "before next week",
    "下周五前",
    "下周一之前",
    "下个星期三下午3点前",
    "下周内",
    "下周末前",
)
# Phrases that always name a moment after any reference time.
ALWAYS = (
    *DAILY,
    *WEEKLY,
    *("by 1800 hours", "by twelve o'clock midnight", "by 7 p. m.", "by 7:56:30pm"),
    *("by one o'clock pm", "in advance of 2pm", "by 28-nov", "by jan-1", "by 22april"),
    *("by next 6th of april", "by Sept", "by the month of August", "by the coming quarter"),
    *("by this calendar year", "by this upcoming friday", "in less than an hour"),
    *("within 15 seconds", "within 2 days 1 hour 5 minutes 30 seconds", "3 days from tuesday"),
    *("two months after next friday", "between august and october", "from sep to nov"),
    *("between now and eight o'clock", "November 19 to 20", "by Martin Luther King Day"),
    *("by juneteenth", "by next new year day", "by Labor Day", "by Memorial Day"),
    *("the twenty third day of september", "by the 3rd month next year"),
    "by 5pm",
    "by noon",
    "by midnight",
    "by 24:00",
    "by 00:00",
    "by Friday",
    "by Sunday",
    "by the end of the week",
    "by the end of the month",
    "by the end of the year",
    "by next month",
    "by next year",
    "before next month",
    "before next year",
    "within 90 minutes",
    "within half an hour",
    "2小时后",
    "再过8小时",
    "半小时后",
    "2 hours from now",
    "in December",
    "明年九月前",
    "明年3月份之前",
    "within a month",
    "within 1 year",
    "by December 25",
    "by Feb 28",
    "周五前",
    "周日之前",
    "月底前",
    "年底前",
    "下个月底前",
    "明年年底前",
    "下午3点前",
    "晚上8点前",
    "24点前",
    "半小时内",
    "24小时内",
    "一个月之内",
    "12月25日前",
    "on Christmas",
    "by Independence Day",
    "end of April",
    "by 8:45a",
    "within the next day and 5 hours",
    "within 2 hours and 30 minutes",
    "by the 5th of next month",
    "元旦",
    "劳动节",
    "儿童节",
    "妇女节",
    "明年九月",
    "明年3月份",
    "3月份",
    "次年年末",
    "后年年底前",
    "十二月月底",
    "从现在到八点",
    "从现在起到十二点",
    "十三分半以内",
    "未来3小时",
    "未来7天",
    "到周日为止",
    "下午5点-7点",
    "今晚10点到明早6点",
    # Chinese families of issue 39 (tests/core/test_deadlines_zh_families.py).
    "5 小时内",
    "2 分鐘後",
    "13 個星期後",
    "半年内",
    "一年半内",
    "8天20小时内",
    "1.5小时内",
    "一个钟之内",
    "从下午3点到5点",
    "凌晨四到六点",
    "下午5点到凌晨3点",
    "晚上10点到次日凌晨2点",
    "周五或之前",
    "16时40分50秒前",
    "3/20前",
    "明年1月5号",
    "双十一",
    "植树节",
)
# Phrases that may already be over, or name a skipped date, and then give None.
SOMETIMES = (
    *("by 19.02.2028", "by 09/18/27", "by this December", "this week from Tue to Thur"),
    *("this evening from 7 to 7:30", "by twenty after twelve today", "by Christmas 2027"),
    *("by mother's day 2027", "on or earlier than 3pm 5/15/2027"),
    "today before 4pm",
    "before Friday",
    "this Monday",
    "before today",
    "by 2030-06-01",
    "before December 1",
    "by Feb 29",
    "by November",
    "before 2031",
    "今天下午4点前",
    "本周一前",
    "本月20号前",
    "31号前",
    "2月29日前",
    "2030年6月1日前",
    "11月底前",
    "春节",  # lunar: none outside the table's years
    "春节前",
    "today at 3",
    "今天三点",
    "今天十一点半",
    "10, tonight",
    "quarter to eight tonight",
    "23/12 before 5pm",
    "Feb 1st no later than 6pm",
    "before the twenty-sixth day of the month",
    # Chinese families of issue 39: over, a day the month lacks, outside the lunar table.
    "29日前",
    "一月二十三前",
    "2027年 十二月前",
    "今年3月20日前",
    "12月4号,星期五前",
    "大年三十",
    "腊八前",
    "中元节前",
    "光棍节前",
    "2028年春节前",
)

reference_times = REFERENCE_TIMES
zones = st.sampled_from(ZONES)


def _shift(ts: datetime, zone: ZoneInfo, days: int) -> datetime:
    """`ts` moved by whole days on the local wall clock of `zone`."""
    return (ts.astimezone(zone) + timedelta(days=days)).astimezone(UTC)


def _local_day(instant: datetime, zone: ZoneInfo) -> date:
    return instant.astimezone(zone).date()


@settings(max_examples=400)
@given(st.sampled_from(ALWAYS + SOMETIMES), reference_times, zones)
def test_a_resolved_deadline_is_strictly_after_the_reference(
    phrase: str, ts: datetime, zone: ZoneInfo
) -> None:
    """R9: whatever the phrase, time and zone, a deadline is never at or before ts."""
    deadline = resolve_deadline(phrase, ts, zone)
    assert deadline is None or deadline > ts
    if deadline is not None:
        assert deadline.tzinfo is UTC


TABLE_PHRASES = tuple(phrases())


@settings(max_examples=500)
@given(st.sampled_from(TABLE_PHRASES), reference_times, zones)
def test_every_table_phrase_at_any_time_gives_a_later_deadline_or_none(
    phrase: str, ts: datetime, zone: ZoneInfo
) -> None:
    """R9: the same holds for every phrase of the case tables, said at any time."""
    deadline = resolve_deadline(phrase, ts, zone)
    assert deadline is None or deadline > ts


@settings(max_examples=300)
@given(st.sampled_from(ALWAYS), reference_times, zones)
def test_a_phrase_naming_a_future_moment_always_resolves(
    phrase: str, ts: datetime, zone: ZoneInfo
) -> None:
    """R9: "by tomorrow", "下周五前", "by 5pm" (next occurrence) … always give a deadline."""
    assert resolve_deadline(phrase, ts, zone) is not None


def _said_days_apart(
    phrase: str, ts: datetime, zone: ZoneInfo, days: int
) -> tuple[datetime, datetime]:
    """The deadlines `phrase` gives said at `ts` and `days` local days later (both exist)."""
    first = resolve_deadline(phrase, ts, zone)
    shifted = resolve_deadline(phrase, _shift(ts, zone, days), zone)
    assert first is not None
    assert shifted is not None
    return first, shifted


@settings(max_examples=300)
@given(st.sampled_from(DAILY), reference_times, zones, st.integers(-400, 400))
def test_shifting_the_reference_by_days_shifts_daily_deadlines_alike(
    phrase: str, ts: datetime, zone: ZoneInfo, days: int
) -> None:
    """R9: said k local days later, a day-granular deadline falls k local days later."""
    first, shifted = _said_days_apart(phrase, ts, zone, days)
    assert _local_day(shifted, zone) == _local_day(first, zone) + timedelta(days=days)


@settings(max_examples=300)
@given(st.sampled_from(WEEKLY), reference_times, zones, st.integers(-60, 60))
def test_shifting_the_reference_by_weeks_shifts_weekday_deadlines_alike(
    phrase: str, ts: datetime, zone: ZoneInfo, weeks: int
) -> None:
    """R9: "next Friday" said k weeks later is k weeks later (weeks start Monday)."""
    first, shifted = _said_days_apart(phrase, ts, zone, 7 * weeks)
    assert _local_day(shifted, zone) == _local_day(first, zone) + timedelta(weeks=weeks)


@settings(max_examples=300)
@given(
    st.integers(1, 12),
    st.sampled_from(("从现在到{}点", "从现在起到{}点", "between now and {} o'clock")),
    reference_times,
    zones,
)
def test_a_clock_from_now_is_its_next_occurrence(
    hour: int, template: str, ts: datetime, zone: ZoneInfo
) -> None:
    """R9: 从现在到八点 ends the next time the clock shows 8, within half a day (plus a
    daylight-saving jump), never before ts."""
    deadline = resolve_deadline(template.format(hour), ts, zone)
    assert deadline is not None
    assert ts < deadline <= ts + timedelta(hours=13)


@settings(max_examples=300)
@given(st.integers(1, 11), st.sampled_from(("今天{}点", "today at {}")), reference_times, zones)
def test_todays_twelve_hour_clock_is_today_or_none(
    hour: int, template: str, ts: datetime, zone: ZoneInfo
) -> None:
    """R9: 今天三点 / "today at 3" is 03:00 or 15:00 of the local day it is said on, the
    one still to come; none when both are, or neither."""
    deadline = resolve_deadline(template.format(hour), ts, zone)
    local = ts.astimezone(zone)
    to_come = [h for h in (hour, hour + 12) if (h, 0) > (local.hour, local.minute)]
    if deadline is None:
        assert len(to_come) != 1
        return
    assert deadline > ts
    assert _local_day(deadline, zone) == local.date()


@settings(max_examples=200)
@given(reference_times, zones)
def test_an_absolute_deadline_does_not_depend_on_when_it_was_said(
    ts: datetime, zone: ZoneInfo
) -> None:
    """R9: a dated deadline is the same instant whenever it is said, until it is over."""
    phrase = "by 2050-06-01 18:00"
    deadline = resolve_deadline(phrase, ts, zone)
    instant = datetime(2050, 6, 1, 18, 0, tzinfo=zone).astimezone(UTC)
    assert deadline == (instant if ts < instant else None)


@settings(max_examples=200)
@given(st.sampled_from(ALWAYS), reference_times, zones)
def test_case_and_surrounding_words_do_not_change_the_deadline(
    phrase: str, ts: datetime, zone: ZoneInfo
) -> None:
    """R9: the phrase found inside terms, in any letter case, resolves like the phrase."""
    terms = f"you send the report {phrase.upper()} please"
    found = find_deadline_phrase(terms)
    assert found is not None
    assert resolve_deadline(found, ts, zone) == resolve_deadline(phrase, ts, zone)


@settings(max_examples=300)
@given(st.text(max_size=80), reference_times, zones)
def test_any_text_is_read_without_error(text: str, ts: datetime, zone: ZoneInfo) -> None:
    """Robustness: no input makes finding or resolving raise (the worker never stops)."""
    found = find_deadline_phrase(text)
    assert found is None or found in text
    resolve_deadline(text, ts, zone)


@settings(max_examples=400)
@given(
    st.lists(
        st.sampled_from(
            (
                # English families of issue 39: range words, new units and markers.
                *("from", "between", "and", "to", "till", "coming", "fortnight", "hence"),
                *("seconds", "now", "ahead", "christmas", "2027", "nov", "19", "-", "20"),
                *("1800", "hours", "o'clock", "p.", "m.", "evening", "7:56:30pm", "19.02.2028"),
                "by",
                "before",
                "within",
                "until",
                "the",
                "end",
                "of",
                "next",
                "this",
                "at",
                "on",
                "friday",
                "tomorrow",
                "tonight",
                "december",
                "1st",
                "2026",
                "9999",
                "5pm",
                "17:00",
                "3",
                "days",
                "weeks",
                "noon",
                "week",
                "month",
                "year",
                "明天",
                "下周",
                "五",
                "前",
                "内",
                "下午",
                "3点",
                "12月",
                "1日",
                "号",
                "月底",
                "年底",
                "三天",
                "9999年",
                "或之前",
                "次日",
                "从",
                "半年",
                "1.5小时",
                "\uff08周五\uff09",
                "当天",
                "双十一",
                "29日",
                "凌晨四到六点",
            )
        ),
        min_size=1,
        max_size=6,
    ).map(" ".join),
    st.datetimes(
        min_value=datetime(1, 1, 2),  # noqa: DTZ001  # hypothesis bounds are naive by contract
        max_value=datetime(9999, 12, 30),  # noqa: DTZ001
        timezones=st.just(UTC),
    ),
    zones,
)
def test_grammar_word_salad_at_any_time_is_read_without_error(
    phrase: str, ts: datetime, zone: ZoneInfo
) -> None:
    """Robustness: grammar words in any order, said in any year, give a deadline or None."""
    deadline = resolve_deadline(phrase, ts, zone)
    assert deadline is None or deadline > ts
    find_deadline_phrase(phrase)


@settings(max_examples=300)
@given(st.sampled_from(ALWAYS + SOMETIMES + TABLE_PHRASES), reference_times, zones)
def test_the_deadline_does_not_depend_on_how_ts_carries_its_zone(
    phrase: str, ts: datetime, zone: ZoneInfo
) -> None:
    """R9, DESIGN section 4: the same instant said in UTC, in the user's zone or with a
    fixed offset gives the same deadline (Python adds a timedelta to a datetime in a
    ZoneInfo zone as wall time: "in 5 days and 2 hours" across a DST change was an hour
    short when ts came in the user's zone)."""
    in_utc = resolve_deadline(phrase, ts, zone)
    local = ts.astimezone(zone)
    offset = local.utcoffset()
    assert offset is not None
    assert resolve_deadline(phrase, local, zone) == in_utc
    assert resolve_deadline(phrase, ts.astimezone(timezone(offset)), zone) == in_utc


def test_elapsed_lengths_across_a_dst_change_in_every_form_of_ts() -> None:
    """R9, DESIGN section 4: hours and minutes are elapsed time; said the evening before
    New York's clocks go forward or back, "within 30 hours" is 30 real hours later
    whichever way ts carries its zone."""
    zone = ZoneInfo("America/New_York")
    evenings = (datetime(2027, 3, 13, 23, 0, tzinfo=UTC), datetime(2027, 11, 6, 23, 0, tzinfo=UTC))
    for said in evenings:
        local = said.astimezone(zone)
        offset = local.utcoffset()
        assert offset is not None
        for phrase, hours in (("within 30 hours", 30), ("in 1 day and 5 hours", 29)):
            want = said + timedelta(hours=hours)
            for ts in (said, local, said.astimezone(timezone(offset))):
                assert resolve_deadline(phrase, ts, zone) == want, (phrase, ts)
