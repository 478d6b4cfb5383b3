# ruff: noqa: RUF001 - Chinese terms are written with their full-width punctuation
"""Deadline families of real messages (R9, DESIGN section 4, docs/deadlines.md).

Finding: a periodic word inside a noun phrase ("the weekly report") is not a standing
rule, and a quoted name is data, not grammar. Resolving: each family added to the
grammar has a table in English and in Chinese, written by hand in local time (see
tests/core/test_deadline_tables.py for the calendar notes; 2026-11-27 is a Friday).
"""

from __future__ import annotations

import pytest

from core.deadlines.resolve import find_deadline_phrase
from tests.support.deadline_cases_en import c as en
from tests.support.deadline_cases_zh import c as zh
from tests.support.deadline_kit import Case, case_id, check_resolves, check_written_in_zone

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
    # Never a wrong deadline: a year or an end the run does not hold gives none.
    ("去年年底的报告周五前交", "去年年底 names a past year the run does not hold"),
    ("前年年底前交", "前年 is a past year: 年年底 alone would read as this year's end"),
    ("5点到7点给我打电话", "a range of 12-hour clocks without a part of the day"),
    ("晚上10点到6点不要打扰我", "a range ending before it starts on the same day"),
    ("3天后开始执行", "N后 before 开始 is a start, not an end"),
    ("5 days from now on, reply in French", "from now on sets a standing rule"),
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


# --- resolving the families added to the grammar ---------------------------------------

# Rows as the main tables write them: Friday morning in New York, and in Shanghai.
ENGLISH: tuple[Case, ...] = (
    # "in N minutes / hours / days": like "within" (ts + N; day-sized: end of that day).
    en("in 2 hours", "2026-11-27T12:00:00-05:00"),
    en("in 90 minutes", "2026-11-27T11:30:00-05:00"),
    en("in an hour and a half", "2026-11-27T11:30:00-05:00"),
    en("in one and a half hours", "2026-11-27T11:30:00-05:00"),
    en("within 1.5 hours", "2026-11-27T11:30:00-05:00"),
    en("in half an hour", "2026-11-27T10:30:00-05:00"),
    en("in 3 days", "2026-12-01T00:00:00-05:00"),
    en("in a day and a half", None),  # half a day is not a length anyone agrees on
    # Chat shorthand for minutes and hours right after the number.
    en("within 2h", "2026-11-27T12:00:00-05:00"),
    en("in 30min", "2026-11-27T10:30:00-05:00"),
    en("in 2 hrs", "2026-11-27T12:00:00-05:00"),
    en("within 2hrs", "2026-11-27T12:00:00-05:00"),
    # "next week Friday": the weekday of that week, as "Friday next week".
    en("by next week Wednesday", "2026-12-03T00:00:00-05:00"),
    en("next week Friday", "2026-12-05T00:00:00-05:00"),
    en("this week Friday", "2026-11-28T00:00:00-05:00"),
    # "N from now": as "in N" (DESIGN section 4).
    en("2 hours from now", "2026-11-27T12:00:00-05:00"),
    en("half an hour from now", "2026-11-27T10:30:00-05:00"),
    en("5 days from now", "2026-12-03T00:00:00-05:00"),
    en("three weeks from now", "2026-12-19T00:00:00-05:00"),
    en("in 5 days from now", "2026-12-03T00:00:00-05:00"),
    # Spans: "the next N units" is "within N units".
    en("the next 10 days", "2026-12-08T00:00:00-05:00"),
    en("over the next two weeks", "2026-12-12T00:00:00-05:00"),
    en("for the next 48 hours", "2026-11-29T10:00:00-05:00"),
    en("during the coming 3 days", "2026-12-01T00:00:00-05:00"),
    # End-of-period shorthands and quarters (calendar quarters: Jan, Apr, Jul, Oct).
    en("by EOW", "2026-11-30T00:00:00-05:00"),
    en("by EOM", "2026-12-01T00:00:00-05:00"),
    en("by EOY", "2027-01-01T00:00:00-05:00"),
    en("by EOQ", "2027-01-01T00:00:00-05:00"),
    en("by the end of June", "2027-07-01T00:00:00-04:00"),
    en("this quarter", "2027-01-01T00:00:00-05:00"),
    en("by the end of the quarter", "2027-01-01T00:00:00-05:00"),
    en("by next quarter", "2027-04-01T00:00:00-04:00"),
    en("before next quarter", "2027-01-01T00:00:00-05:00"),
    en("by quarter-end", "2027-01-01T00:00:00-05:00"),
    en("by the end of the quarter", "2026-04-01T00:00:00-04:00", said="2026-02-10T09:00:00-05:00"),
    # Parts of the day without a clock: morning ends at noon, afternoon at 18:00, evening
    # and night at midnight; "before" one of them is a guess.
    en("by Thursday evening", "2026-12-04T00:00:00-05:00"),
    en("Thursday evening", "2026-12-04T00:00:00-05:00"),
    en("by tomorrow morning", "2026-11-28T12:00:00-05:00"),
    en("by Friday afternoon", "2026-11-27T18:00:00-05:00"),
    en("by next Monday morning", "2026-11-30T12:00:00-05:00"),
    en("this morning", "2026-11-27T12:00:00-05:00"),
    en("this morning", None, said="2026-11-27T13:00:00-05:00"),
    en("before tomorrow morning", None),
    en("before Thursday afternoon", None),
    # Days of the month.
    en("by the 3rd of next month", "2026-12-04T00:00:00-05:00"),
    en("by the 30th of this month", "2026-12-01T00:00:00-05:00"),
    en("by the third of next month", "2026-12-04T00:00:00-05:00"),
    en("by the 15th", "2026-12-16T00:00:00-05:00"),
    en("by the 28th", "2026-11-29T00:00:00-05:00"),
    en("by the 31st of next month", "2027-01-01T00:00:00-05:00"),
    en("by the 31st of this month", None),  # November has 30 days
    en("no later than noon on the 1st", "2026-12-01T12:00:00-05:00"),
    # Holidays (need a marker): EN "by" the end of the day, "before" its start.
    en("by Christmas", "2026-12-26T00:00:00-05:00"),
    en("before Christmas", "2026-12-25T00:00:00-05:00"),
    en("before Christmas Eve", "2026-12-24T00:00:00-05:00"),
    en("by New Year's Eve", "2027-01-01T00:00:00-05:00"),
    en("by Valentine's Day", "2027-02-15T00:00:00-05:00"),
    en("by Halloween", "2027-11-01T00:00:00-04:00"),
    en("before Chinese New Year", "2027-02-06T00:00:00-05:00"),  # lunar table
    en("by the Mid-Autumn Festival", "2027-09-16T00:00:00-04:00"),
    en("before Christmas", None, said="2026-12-25T09:00:00-05:00"),  # already begun
    en("before Chinese New Year", None, said="2041-03-01T09:00:00-05:00"),  # past the table
    # A month named alone: "in" + a month is its end (DESIGN section 4).
    en("in December", "2027-01-01T00:00:00-05:00"),
    en("in May 2027", "2027-06-01T00:00:00-04:00"),
    en("in March 2026", None),  # over
    # Ordinals in words.
    en("by the fifth of May", "2027-05-06T00:00:00-04:00"),
    en("by May fifth", "2027-05-06T00:00:00-04:00"),
    en("by the twenty-first of December", "2026-12-22T00:00:00-05:00"),
    # A holiday named as the day: "on" it is its end, as "by"; Independence Day is the
    # United States' (4 July).
    en("on Christmas", "2026-12-26T00:00:00-05:00"),
    en("on Christmas Day", "2026-12-26T00:00:00-05:00"),
    en("by Independence Day", "2027-07-05T00:00:00-04:00"),
    en("before Independence Day", "2027-07-04T00:00:00-04:00"),
    en("on Independence Day", "2027-07-05T00:00:00-04:00"),
    # "end of" a month needs no marker.
    en("end of April", "2027-05-01T00:00:00-04:00"),
    en("the end of April", "2027-05-01T00:00:00-04:00"),
    # Clock times in words and chat forms.
    en("quarter to eight tonight", "2026-11-27T19:45:00-05:00"),
    en("by quarter to eight pm", "2026-11-27T19:45:00-05:00"),
    en("half past 7 pm", "2026-11-27T19:30:00-05:00"),
    en("ten to five pm", "2026-11-27T16:50:00-05:00"),
    en("by a quarter past nine tomorrow morning", "2026-11-28T09:15:00-05:00"),
    en("quarter to one tonight", None),  # 00:45 or 12:45: either side of midnight
    en("by quarter to eight", None),  # no am/pm, no part of the day
    en("by seven forty-five pm", "2026-11-27T19:45:00-05:00"),
    en("five-thirty tomorrow evening", "2026-11-28T17:30:00-05:00"),
    en("at five thirty tomorrow evening", "2026-11-28T17:30:00-05:00"),
    en("by 8:45a", "2026-11-28T08:45:00-05:00"),  # already past today
    en("by 8:45p", "2026-11-27T20:45:00-05:00"),
    en("10, tonight", "2026-11-27T22:00:00-05:00"),
    en("by 10, tonight", "2026-11-27T22:00:00-05:00"),
    # Numeric dates: only where one number cannot be a month.
    en("23/12 before 5pm", "2026-12-23T17:00:00-05:00"),
    en("by 12/23", "2026-12-24T00:00:00-05:00"),
    en("by 23/12/2027", "2027-12-24T00:00:00-05:00"),
    en("by 12/1", None),  # 1 December or 12 January
    en("by 31/11", None),  # November has 30 days
    # A marker inside the run before its clock.
    en("Feb 1st no later than 6pm", "2027-02-01T18:00:00-05:00"),
    en("Feb 1st no later than 18:00", "2027-02-01T18:00:00-05:00"),
    en("Feb 1st no later than 6:00", None),  # 06:00 or 18:00
    en("tomorrow until 5pm", "2026-11-28T17:00:00-05:00"),
    # "the Nth day of the month": its next occurrence.
    en("before the twenty-sixth day of the month", "2026-12-26T00:00:00-05:00"),
    en("by the 28th day of the month", "2026-11-29T00:00:00-05:00"),
    en("by the 5th of next month", "2026-12-06T00:00:00-05:00"),
    # Lengths added up: elapsed time, a day counting 24 hours.
    en("within the next day and 5 hours", "2026-11-28T15:00:00-05:00"),
    en("within 1 day and 5 hours", "2026-11-28T15:00:00-05:00"),
    en("within 2 hours and 30 minutes", "2026-11-27T12:30:00-05:00"),
    en("in 2 hours 30 minutes", "2026-11-27T12:30:00-05:00"),
    en("within the next day", "2026-11-29T00:00:00-05:00"),
    en("within 2 weeks and 3 days", None),  # a week is a calendar length
    en("within 1 day and 5 hours", "2026-11-02T04:30:00-05:00", said="2026-11-01T00:30:00-04:00"),
    en(
        "within the next day and 5 hours",
        "2026-03-08T18:00:00-04:00",
        said="2026-03-07T12:00:00-05:00",
    ),
    en("next 3 weeks", "2026-12-19T00:00:00-05:00"),
    # Today with a 12-hour clock: the one reading still to come, none if both are.
    en("today at 3", "2026-11-27T15:00:00-05:00"),
    en("today at 11", None),
    en("today at 3", None, said="2026-11-27T16:00:00-05:00"),
    en(
        "today at 12",
        "2026-09-06T01:00:00-03:00",
        said="2026-09-05T13:00:00-04:00",
        zone="America/Santiago",
    ),
    en("at 3", None),
    # A relative week or year that places a weekday or a holiday.
    en("Tuesday, next week", "2026-12-02T00:00:00-05:00"),
    en("next week, Tuesday", "2026-12-02T00:00:00-05:00"),
    en("by Christmas next year", "2027-12-26T00:00:00-05:00"),
    en("by Christmas this year", "2026-12-26T00:00:00-05:00"),
    en("by Christmas this year", None, said="2026-12-27T10:00:00-05:00"),  # over
    # Weekday abbreviations after "on", a marker or this/next.
    en("on Tue", "2026-12-02T00:00:00-05:00"),
    en("by Fri.", "2026-11-28T00:00:00-05:00"),
    en("by next Wed", "2026-12-03T00:00:00-05:00"),
    en("by Thurs 5pm", "2026-12-03T17:00:00-05:00"),
    en("on Sun at noon", "2026-11-29T12:00:00-05:00"),
)

CHINESE: tuple[Case, ...] = (
    # Chinese numerals with 半: N and a half hours.
    zh("一个半小时内", "2026-11-27T11:30:00+08:00"),
    zh("两个半小时之内", "2026-11-27T12:30:00+08:00"),
    zh("1个半小时内", "2026-11-27T11:30:00+08:00"),
    zh("半小时内", "2026-11-27T10:30:00+08:00"),
    zh("一个半钟头以内", "2026-11-27T11:30:00+08:00"),
    zh("一天半内", None),  # half a day is not a length anyone agrees on
    # Spans: 未来 / 接下来 N units, read as "within".
    zh("未来三天", "2026-12-01T00:00:00+08:00"),
    zh("未来三天内", "2026-12-01T00:00:00+08:00"),
    zh("接下来72小时", "2026-11-30T10:00:00+08:00"),
    zh("接下来的两周", "2026-12-12T00:00:00+08:00"),
    zh("未来两个月内", "2027-01-28T00:00:00+08:00"),
    # N units from now (N后, N以后, 再过N): as "within" (DESIGN section 4, "in N ...").
    zh("2小时后", "2026-11-27T12:00:00+08:00"),
    zh("半小时后", "2026-11-27T10:30:00+08:00"),
    zh("再过8小时", "2026-11-27T18:00:00+08:00"),
    zh("再过30分钟以后", "2026-11-27T10:30:00+08:00"),
    zh("3天后", "2026-12-01T00:00:00+08:00"),
    zh("三天以后", "2026-12-01T00:00:00+08:00"),
    zh("再过两天", "2026-11-30T00:00:00+08:00"),
    zh("两周后", "2026-12-12T00:00:00+08:00"),
    zh("两个月之后", "2027-01-28T00:00:00+08:00"),
    zh("半天后", None),  # half a day is not a length anyone agrees on
    # A month named alone, with a year or not: 前 / 之前 is the end of that month.
    zh("明年九月前", "2027-10-01T00:00:00+08:00"),
    zh("明年3月份前", "2027-04-01T00:00:00+08:00"),
    zh("明年6月之前", "2027-07-01T00:00:00+08:00"),
    zh("后年三月前", "2028-04-01T00:00:00+08:00"),
    zh("2027年6月前", "2027-07-01T00:00:00+08:00"),
    zh("12月份之前", "2027-01-01T00:00:00+08:00"),
    zh("十二月月底前", "2027-01-01T00:00:00+08:00"),
    zh("今年3月前", None),  # over
    # Quarters.
    zh("本季度末前", "2027-01-01T00:00:00+08:00"),
    zh("季度末前", "2027-01-01T00:00:00+08:00"),
    zh("这个季度内", "2027-01-01T00:00:00+08:00"),
    zh("下季度前", "2027-04-01T00:00:00+08:00"),
    zh("季度底前", "2026-04-01T00:00:00+08:00", said="2026-02-10T09:00:00+08:00"),
    # Parts of the day without a clock.
    zh("后天下午前", "2026-11-29T18:00:00+08:00"),
    zh("后天下午", "2026-11-29T18:00:00+08:00"),
    zh("周五早上前", "2026-11-27T12:00:00+08:00"),
    zh("下周一上午之前", "2026-11-30T12:00:00+08:00"),
    zh("明晚前", "2026-11-29T00:00:00+08:00"),
    zh("明天傍晚前", None),  # when dusk is over is a guess
    zh("明天凌晨前", None),
    # Days of the month.
    zh("下个月5号", "2026-12-06T00:00:00+08:00"),
    zh("下个月5号前", "2026-12-06T00:00:00+08:00"),
    zh("8号", "2026-12-09T00:00:00+08:00"),
    zh("28号", "2026-11-29T00:00:00+08:00"),
    zh("31号", None),  # November has no 31st
    # Holidays: 节前 is before the holiday begins; lunar ones from the table (2024-2040).
    zh("国庆节前", "2027-10-01T00:00:00+08:00"),
    zh("国庆前", "2027-10-01T00:00:00+08:00"),
    zh("元旦之前", "2027-01-01T00:00:00+08:00"),
    zh("平安夜前", "2026-12-24T00:00:00+08:00"),
    zh("圣诞节前", "2026-12-25T00:00:00+08:00"),
    zh("五一前", "2027-05-01T00:00:00+08:00"),
    zh("中秋节之前", "2027-09-15T00:00:00+08:00"),
    zh("中秋节之前", "2026-09-25T00:00:00+08:00", said="2026-09-01T09:00:00+08:00"),
    zh("春节前", "2027-02-06T00:00:00+08:00"),
    zh("除夕前", "2027-02-05T00:00:00+08:00"),
    zh("到春节为止", "2027-02-06T00:00:00+08:00"),
    zh("端午节前", "2027-06-09T00:00:00+08:00"),
    zh("元宵节前", "2027-02-20T00:00:00+08:00"),
    zh("七夕前", "2027-08-08T00:00:00+08:00"),
    zh("重阳节前", "2027-10-08T00:00:00+08:00"),
    zh("春节前", "2040-02-12T00:00:00+08:00", said="2039-12-01T09:00:00+08:00"),
    zh("春节前", None, said="2040-03-01T09:00:00+08:00"),  # 2041 is past the table
    zh("春节前", None, said="2023-06-01T09:00:00+08:00"),  # 2023 is before the table
    zh("国庆节前", None, said="2026-10-01T09:00:00+08:00"),  # already begun
    # Traditional characters.
    zh("下週五前", "2026-12-05T00:00:00+08:00"),
    zh("後天前", "2026-11-30T00:00:00+08:00"),
    zh("兩個鐘頭內", "2026-11-27T12:00:00+08:00"),
    zh("這週五前", "2026-11-28T00:00:00+08:00"),
    zh("明天下午3點前", "2026-11-28T15:00:00+08:00"),
    # A holiday named alone as the day: the end of that day (前 is its start, above).
    zh("元旦", "2027-01-02T00:00:00+08:00"),
    zh("劳动节", "2027-05-02T00:00:00+08:00"),
    zh("儿童节", "2027-06-02T00:00:00+08:00"),
    zh("妇女节", "2027-03-09T00:00:00+08:00"),
    zh("春节", "2027-02-07T00:00:00+08:00"),  # lunar table: 2027-02-06
    zh("在春节", "2027-02-07T00:00:00+08:00"),
    zh("春节", None, said="2040-03-01T09:00:00+08:00"),  # 2041 is past the table
    zh("国庆", None),  # also a given name: needs 前 or a lead
    zh("五一", None),  # also a number
    # Months and year ends said with their year, from now.
    zh("明年九月", "2027-10-01T00:00:00+08:00"),
    zh("明年3月份", "2027-04-01T00:00:00+08:00"),
    zh("3月份", "2027-04-01T00:00:00+08:00"),
    zh("次年3月前", "2027-04-01T00:00:00+08:00"),
    zh("次年年末", "2028-01-01T00:00:00+08:00"),
    zh("次年年末前", "2028-01-01T00:00:00+08:00"),
    zh("来年年底", "2028-01-01T00:00:00+08:00"),
    zh("后年年底前", "2029-01-01T00:00:00+08:00"),
    zh("十二月月底", "2027-01-01T00:00:00+08:00"),
    # Spans from now: 从现在到 a clock is its next occurrence, 分半 half a minute.
    zh("从现在到八点", "2026-11-27T20:00:00+08:00"),
    zh("从现在到八点", "2026-11-28T08:00:00+08:00", said="2026-11-27T21:00:00+08:00"),
    zh("从现在起到十二点", "2026-11-28T00:00:00+08:00", said="2026-11-27T13:00:00+08:00"),
    zh("从现在到下午三点", "2026-11-27T15:00:00+08:00"),
    zh("十三分半以内", "2026-11-27T10:13:30+08:00"),
    zh("三分半钟内", "2026-11-27T10:03:30+08:00"),
    zh("十三分半", None),  # a length needs 内 or 未来
    zh("未来3小时", "2026-11-27T13:00:00+08:00"),
    zh("未来7天", "2026-12-05T00:00:00+08:00"),
    # Today with a 12-hour clock: the one reading still to come, none if both are.
    zh("今天三点", "2026-11-27T15:00:00+08:00"),
    zh("今天三点前", "2026-11-27T15:00:00+08:00"),
    zh("今天十一点半", None),  # 11:30 and 23:30 are both to come
    zh("今天十一点半", "2026-11-27T23:30:00+08:00", said="2026-11-27T12:00:00+08:00"),
    zh("今天三点", None, said="2026-11-27T02:00:00+08:00"),
    zh("三点", None),  # no day, no part of the day: a guess
    zh("明天三点", None),  # both readings to come
    zh("到周日为止", "2026-11-30T00:00:00+08:00"),
    # Ranges of clock times end at their second time, on the first's day and part of it.
    zh("下午5点-7点", "2026-11-27T19:00:00+08:00"),
    zh("下午5点到7点", "2026-11-27T19:00:00+08:00"),
    zh("上午9点~11点", "2026-11-27T11:00:00+08:00"),
    zh("明天下午3点到5点前", "2026-11-28T17:00:00+08:00"),
    zh("下午3点到晚上7点", "2026-11-27T19:00:00+08:00"),
    zh("今晚10点到明早6点", "2026-11-28T06:00:00+08:00"),
    zh("5点到7点", None),
    zh("晚上10点到6点", None),
    zh("下午5点-7点", "2026-11-28T19:00:00+08:00", said="2026-11-27T20:00:00+08:00"),
    # A holiday in a relative year: that year's occurrence (lunar ones from the table).
    zh("明年春节前", "2027-02-06T00:00:00+08:00"),
    zh("明年春节前", "2027-02-06T00:00:00+08:00", said="2026-01-10T09:00:00+08:00"),
    zh("明年春节", "2027-02-07T00:00:00+08:00"),
    zh("明年中秋节之前", "2027-09-15T00:00:00+08:00"),
    zh("今年春节前", None),  # over
    zh("明年元旦", "2027-01-02T00:00:00+08:00"),
    zh("下周 周五前", "2026-12-05T00:00:00+08:00"),
    zh("本周周五前", "2026-11-28T00:00:00+08:00"),
)


@pytest.mark.parametrize("case", ENGLISH + CHINESE, ids=case_id)
def test_each_new_family_resolves_to_its_documented_instant(case: Case) -> None:
    """R9: each family resolves by the convention docs/deadlines.md gives it, or to None."""
    check_resolves(case)


@pytest.mark.parametrize("case", ENGLISH + CHINESE, ids=case_id)
def test_family_case_is_written_in_its_zone(case: Case) -> None:
    """Guards the tables: written offsets are the zone's real ones."""
    check_written_in_zone(case)


@pytest.mark.parametrize(
    "phrase", sorted({case.phrase for case in ENGLISH + CHINESE if case.expected})
)
def test_a_family_phrase_is_found_whole_in_terms(phrase: str) -> None:
    """Find and resolve share one grammar: a resolving phrase is found as itself (R9)."""
    assert find_deadline_phrase(phrase) == phrase


@pytest.mark.parametrize(
    ("terms", "phrase"),
    [
        ("send me the report in 2 hours", "in 2 hours"),
        ("call me 2 hours from now", "2 hours from now"),
        ("reply within 2h", "within 2h"),
        ("send the draft by next week Wednesday", "by next week Wednesday"),
        ("reply within the next 10 days", "within the next 10 days"),
        ("finish the slides by Thursday evening", "by Thursday evening"),
        ("pay the rent by the 3rd of next month", "by the 3rd of next month"),
        ("一个半小时内回复我", "一个半小时内"),
        ("未来三天不要给我发提醒", "未来三天"),
        ("8号交报告", "8号"),
        ("下週五前交報告", "下週五前"),
        ("国庆节前把报告发我", "国庆节前"),
        ("2小时后提醒我喝水", "2小时后"),
        ("再过8小时把结果发我", "再过8小时"),
        ("3天后交报告", "3天后"),
        ("明年九月前交报告", "明年九月前"),
        ("send me the plan in December", "in December"),
        ("我三月去北京，周五前交报告", "周五前"),  # a bare month is no deadline wording
        ("send the cards before Christmas Eve", "before Christmas Eve"),
        ("元旦交年终总结", "元旦"),
        ("我们春节前把钱还清", "春节前"),
        ("明年九月完成迁移", "明年九月"),
        ("次年年末前交报告", "次年年末前"),
        ("从现在到八点不要打扰我", "从现在到八点"),
        ("十三分半以内回复我", "十三分半以内"),
        ("下午5点-7点给我打电话", "下午5点-7点"),
        ("下午5点到7点之间给我打电话", "下午5点到7点"),
        ("周五到公司把合同签了", "周五"),
        ("明年春节前把钱还清", "明年春节前"),
        ("本周周五前交周报", "本周周五前"),
        ("明年春节期间不要找我", None),  # a period of the holiday, not its day
        ("call me on Tuesday, next week", "Tuesday, next week"),
        ("send it on Tue", "on Tue"),
        ("we sat down and agreed: by Friday", "by Friday"),  # "sat" alone is no day
        ("send it Tue", None),  # an abbreviation alone names no day
        ("send the gifts on Christmas", "on Christmas"),
        ("finish the audit end of April", "end of April"),
        ("call me at quarter to eight tonight", "quarter to eight tonight"),
        ("send the invoice 23/12 before 5pm", "23/12 before 5pm"),
        ("pay it Feb 1st no later than 6pm", "Feb 1st no later than 6pm"),
        ("reply within the next day and 5 hours", "within the next day and 5 hours"),
        ("send 10, tonight", "tonight"),  # "send 10": a count, not 22:00
        ("read chapters 9 and 10, tonight", "tonight"),
        ("support us 24/7 by Friday", "by Friday"),
        ("send me 3/4 of the budget by Friday", "by Friday"),
        ("send the invoice by 23/12", "by 23/12"),
        ("keep the score at 23/12", None),  # a numeric date needs a marker or a clock
    ],
)
def test_family_wording_is_found_inside_terms(terms: str, phrase: str | None) -> None:
    """R9: the new families are found inside proposal terms."""
    assert find_deadline_phrase(terms) == phrase


@pytest.mark.parametrize(
    ("terms", "why"),
    [
        ("8号楼的会议室周五前订好", "8号楼 is building 8; only 周五前 is a deadline"),
        ("3号线周五前恢复", "3号线 is metro line 3"),
        ("send the quarterly report by Friday", "quarterly as an attribute"),
        ("buy Christmas gifts by Friday", "a holiday without a marker names no time"),
        ("春节的红包周五前发", "a holiday as an attribute"),
        ("元旦晚会的节目周五前发", "元旦晚会 is an event"),
        ("春节期间的值班表周五前发", "春节期间 is a period"),
        ("buy Christmas gifts by Friday", "a holiday without a marker"),
        ("send 12/1 of the files by Friday", "12/1 is no date, never a wrong one"),
    ],
)
def test_numbers_that_look_like_days_are_not_deadlines(terms: str, why: str) -> None:
    """R9: 号 after a number names a building or a line when a noun follows it; a holiday
    before a noun names an event or a period; 12/1 may be a fraction."""
    assert find_deadline_phrase(terms) in {"周五前", "by Friday"}, why
