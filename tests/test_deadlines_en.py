"""English deadline phrases: reference time, zone and expected instant (R9, DESIGN section 4).

Expected instants are worked out by hand from DESIGN section 4 and written in the
user's local time with its UTC offset, so a reader can check them against a
calendar. `None` means no deadline: outside the grammar, ambiguous, or already over.

Calendar notes: 2026-11-27 is a Friday; US daylight saving starts 2026-03-08 02:00
and ends 2026-11-01 02:00; Europe/Berlin jumps on 2026-03-29 and 2026-10-25;
America/Santiago's day 2026-09-06 starts at 01:00 (midnight is skipped);
America/Havana's 2026-03-08 likewise; 2028 is a leap year.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import NamedTuple
from zoneinfo import ZoneInfo

import pytest
from deadline_kit import case_id, check_resolves, check_written_in_zone

from worker.core.deadlines import resolve_deadline

NY = "America/New_York"
FRI = "2026-11-27T10:00:00-05:00"  # Friday morning in New York


class Case(NamedTuple):
    phrase: str
    expected: str | None
    said: str = FRI
    zone: str = NY


CASES: tuple[Case, ...] = (
    # Clock times with any marker, or bare: that instant, next occurrence if bare.
    Case("by 5pm", "2026-11-27T17:00:00-05:00"),
    Case("before 5pm", "2026-11-27T17:00:00-05:00"),
    Case("by 5 pm", "2026-11-27T17:00:00-05:00"),
    Case("by 5:30pm", "2026-11-27T17:30:00-05:00"),
    Case("by 5.30pm", "2026-11-27T17:30:00-05:00"),
    Case("by 5 p.m.", "2026-11-27T17:00:00-05:00"),
    Case("before 14:30", "2026-11-27T14:30:00-05:00"),
    Case("by 09:00", "2026-11-28T09:00:00-05:00"),
    Case("by 9am", "2026-11-28T09:00:00-05:00"),
    Case("until 11am", "2026-11-27T11:00:00-05:00"),
    Case("by noon", "2026-11-27T12:00:00-05:00"),
    Case("by midday", "2026-11-27T12:00:00-05:00"),
    Case("by 12 noon", "2026-11-27T12:00:00-05:00"),
    Case("by midnight", "2026-11-28T00:00:00-05:00"),
    Case("by 24:00", "2026-11-28T00:00:00-05:00"),
    Case("by 00:00", "2026-11-28T00:00:00-05:00"),
    Case("before 0:00", "2026-11-28T00:00:00-05:00"),
    Case("by 12am", "2026-11-28T00:00:00-05:00"),
    Case("by 12pm", "2026-11-27T12:00:00-05:00"),
    Case("at 5pm", "2026-11-27T17:00:00-05:00"),
    Case("5pm", "2026-11-27T17:00:00-05:00"),
    Case("no later than 3pm", "2026-11-27T15:00:00-05:00"),
    Case("By 5PM", "2026-11-27T17:00:00-05:00"),
    Case("by 5:30", None),  # morning or evening: a guess
    Case("at 3", None),
    Case("by 25:00", None),
    Case("by 13pm", None),
    Case("by 5:75pm", None),
    Case("by 24:30", None),
    # Days: the end of the day ("tonight" is the end of today).
    Case("today", "2026-11-28T00:00:00-05:00"),
    Case("by today", "2026-11-28T00:00:00-05:00"),
    Case("by tonight", "2026-11-28T00:00:00-05:00"),
    Case("tonight", "2026-11-28T00:00:00-05:00"),
    Case("by tomorrow", "2026-11-29T00:00:00-05:00"),
    Case("until tomorrow", "2026-11-29T00:00:00-05:00"),
    Case("before tomorrow", "2026-11-28T00:00:00-05:00"),
    Case("by the day after tomorrow", "2026-11-30T00:00:00-05:00"),
    Case("the day after tomorrow", "2026-11-30T00:00:00-05:00"),
    Case("by end of day", "2026-11-28T00:00:00-05:00"),
    Case("by EOD", "2026-11-28T00:00:00-05:00"),
    Case("by the end of the day", "2026-11-28T00:00:00-05:00"),
    Case("by the end of tomorrow", "2026-11-29T00:00:00-05:00"),
    Case("by EOD tomorrow", "2026-11-29T00:00:00-05:00"),
    Case("by end of day Monday", "2026-12-01T00:00:00-05:00"),
    Case("by EOD EOD", None),
    Case("by EOD next week", None),
    Case("by EOD at 5pm", None),
    Case("before the end of tomorrow", "2026-11-29T00:00:00-05:00"),
    Case("before today", None),
    Case("before tonight", None),  # when the evening starts is a guess
    # A part of the day without a clock: when that part is over (docs/deadlines.md).
    Case("tomorrow morning", "2026-11-28T12:00:00-05:00"),
    Case("this afternoon", "2026-11-27T18:00:00-05:00"),
    Case("by tomorrow night", "2026-11-29T00:00:00-05:00"),
    Case("by tomorrow evening", "2026-11-29T00:00:00-05:00"),
    Case("this evening", "2026-11-28T00:00:00-05:00"),
    # Combinations of a day and a clock time.
    Case("tomorrow before 5pm", "2026-11-28T17:00:00-05:00"),
    Case("by 5pm tomorrow", "2026-11-28T17:00:00-05:00"),
    Case("by tomorrow 5pm", "2026-11-28T17:00:00-05:00"),
    Case("tomorrow at 5pm", "2026-11-28T17:00:00-05:00"),
    Case("tomorrow by 5pm", "2026-11-28T17:00:00-05:00"),
    Case("today before 4pm", None, said="2026-11-27T17:00:00-05:00"),
    Case("today before 4pm", "2026-11-27T16:00:00-05:00"),
    Case("by 8pm tonight", "2026-11-27T20:00:00-05:00"),
    Case("at 8 tonight", "2026-11-27T20:00:00-05:00"),
    Case("by 8 tonight", "2026-11-27T20:00:00-05:00"),
    Case("tonight at 11", "2026-11-27T23:00:00-05:00"),
    Case("at 12 tonight", "2026-11-28T00:00:00-05:00"),
    Case("tomorrow at 9 in the morning", "2026-11-28T09:00:00-05:00"),
    Case("by 3 in the afternoon", "2026-11-27T15:00:00-05:00"),
    Case("by 8 in the morning tomorrow", "2026-11-28T08:00:00-05:00"),
    Case("by 7 o'clock tonight", "2026-11-27T19:00:00-05:00"),
    Case("by noon tomorrow", "2026-11-28T12:00:00-05:00"),
    Case("by midnight tomorrow", "2026-11-29T00:00:00-05:00"),
    Case("by 24:00 tomorrow", "2026-11-29T00:00:00-05:00"),
    Case("by 5pm on Friday", "2026-11-27T17:00:00-05:00"),
    Case("by Friday at 5pm", None, said="2026-11-27T18:00:00-05:00"),
    Case("by Friday 5pm", "2026-11-27T17:00:00-05:00", said="2026-11-23T09:00:00-05:00"),
    Case("before 5pm on Monday", "2026-11-30T17:00:00-05:00"),
    Case("next Friday at noon", "2026-12-04T12:00:00-05:00"),
    Case("tomorrow morning at 8am", "2026-11-28T08:00:00-05:00"),
    Case("by 10:00 tonight", "2026-11-27T22:00:00-05:00"),
    Case("Tuesday at 3:30pm", "2026-12-01T15:30:00-05:00"),
    # Clock hours and days of the month in words.
    Case("by five pm", "2026-11-27T17:00:00-05:00"),
    Case("by eleven a.m.", "2026-11-27T11:00:00-05:00"),
    Case("at seven tonight", "2026-11-27T19:00:00-05:00"),
    Case("by seven o'clock tonight", "2026-11-27T19:00:00-05:00"),
    Case("by twelve pm tomorrow", "2026-11-28T12:00:00-05:00"),
    Case("by thirteen pm", None),
    Case("by ten thirty pm", None),
    Case("by December first", "2026-12-02T00:00:00-05:00"),
    Case("by the first of December", "2026-12-02T00:00:00-05:00"),
    Case("by the twenty-first of December", "2026-12-22T00:00:00-05:00"),
    Case("by December thirty-first", "2027-01-01T00:00:00-05:00"),
    Case("before January second, 2027", "2027-01-02T00:00:00-05:00"),
    Case("by the thirtieth of February", None),
    # A weekday said with its date must agree with it (2026-12-04 is a Friday).
    Case("by Friday, December 4", "2026-12-05T00:00:00-05:00"),
    Case("by Friday December 4th at 5pm", "2026-12-04T17:00:00-05:00"),
    Case("by Saturday, December 4", None),
    Case("by next Friday, December 4", None),
    Case("by December thirty-second", None),
    Case("at 5.30pm", "2026-11-27T17:30:00-05:00"),
    Case("tonight at 5am", None),
    Case("tomorrow at 3", None),
    Case("by 5pm next week", None),
    Case("by the end of Friday at 5pm", None),
    # Weekdays: bare = next occurrence, today included; this/next = calendar week (Monday first).
    Case("by Friday", "2026-11-28T00:00:00-05:00"),
    Case("Friday", "2026-11-28T00:00:00-05:00"),
    Case("on Friday", "2026-11-28T00:00:00-05:00"),
    Case("before Friday", None),  # its start is already over
    Case("by next Friday", "2026-12-05T00:00:00-05:00"),
    Case("next Friday", "2026-12-05T00:00:00-05:00"),
    Case("this Friday", "2026-11-28T00:00:00-05:00"),
    Case("by Monday", "2026-12-01T00:00:00-05:00"),
    Case("before Monday", "2026-11-30T00:00:00-05:00"),
    Case("next Monday", "2026-12-01T00:00:00-05:00"),
    Case("this Monday", None),
    Case("by Sunday", "2026-11-30T00:00:00-05:00"),
    Case("this Sunday", "2026-11-30T00:00:00-05:00"),
    Case("next Sunday", "2026-12-07T00:00:00-05:00"),
    Case("on Wednesday", "2026-12-03T00:00:00-05:00"),
    Case("by Thursday", "2026-12-04T00:00:00-05:00"),
    Case("by Friday next week", "2026-12-05T00:00:00-05:00"),
    Case("by Tuesday of next week", "2026-12-02T00:00:00-05:00"),
    Case("by Saturday this week", "2026-11-29T00:00:00-05:00"),
    Case("next Friday", "2026-12-05T00:00:00-05:00", said="2026-11-29T10:00:00-05:00"),
    Case("by Friday", "2026-12-05T00:00:00-05:00", said="2026-11-28T10:00:00-05:00"),
    Case("by the end of Friday", "2026-11-28T00:00:00-05:00"),
    Case("this next Friday", None),
    Case("next Friday next week", None),
    Case("by Fridays", None),
    # Periods: by = end, before = start, end of = end.
    Case("by the end of the week", "2026-11-30T00:00:00-05:00"),
    Case("by end of week", "2026-11-30T00:00:00-05:00"),
    Case("by the end of this week", "2026-11-30T00:00:00-05:00"),
    Case("by the end of next week", "2026-12-07T00:00:00-05:00"),
    Case("by next week", "2026-12-07T00:00:00-05:00"),
    Case("before next week", "2026-11-30T00:00:00-05:00"),
    Case("this week", "2026-11-30T00:00:00-05:00"),
    Case("by the end of the month", "2026-12-01T00:00:00-05:00"),
    Case("by month-end", "2026-12-01T00:00:00-05:00"),
    Case("by month end", "2026-12-01T00:00:00-05:00"),
    Case("by the end of next month", "2027-01-01T00:00:00-05:00"),
    Case("before next month", "2026-12-01T00:00:00-05:00"),
    Case("by next month", "2027-01-01T00:00:00-05:00"),
    Case("by the end of the year", "2027-01-01T00:00:00-05:00"),
    Case("by year-end", "2027-01-01T00:00:00-05:00"),
    Case("by next year", "2028-01-01T00:00:00-05:00"),
    Case("before next year", "2027-01-01T00:00:00-05:00"),
    Case("by December", "2027-01-01T00:00:00-05:00"),
    Case("before December", "2026-12-01T00:00:00-05:00"),
    Case("by the end of December", "2027-01-01T00:00:00-05:00"),
    Case("by March", "2027-04-01T00:00:00-04:00"),  # April in New York is on EDT
    Case("before March 2027", "2027-03-01T00:00:00-05:00"),
    Case("by the end of 2026", "2027-01-01T00:00:00-05:00"),
    Case("by 2027", "2028-01-01T00:00:00-05:00"),
    Case("before 2027", "2027-01-01T00:00:00-05:00"),
    Case("before 2026", None),
    Case("by November", "2026-12-01T00:00:00-05:00"),
    Case("before November", None),
    Case("December", None),  # a month alone is not deadline wording
    Case("end of the month", "2027-01-01T00:00:00-05:00", said="2026-12-31T23:00:00-05:00"),
    Case("by the end of the year", "2027-01-01T00:00:00-05:00", said="2026-12-31T23:59:00-05:00"),
    Case("before the end of the month", "2026-12-01T00:00:00-05:00"),
    # Within N units: minutes and hours from ts, longer units to the end of that local day.
    Case("within 3 days", "2026-12-01T00:00:00-05:00"),
    Case("within three days", "2026-12-01T00:00:00-05:00"),
    Case("within a day", "2026-11-29T00:00:00-05:00"),
    Case("within 24 hours", "2026-11-28T10:00:00-05:00"),
    Case("within 90 minutes", "2026-11-27T11:30:00-05:00"),
    Case("within half an hour", "2026-11-27T10:30:00-05:00"),
    Case("within an hour", "2026-11-27T11:00:00-05:00"),
    Case("within twenty-four hours", "2026-11-28T10:00:00-05:00"),
    Case("within twenty four hours", "2026-11-28T10:00:00-05:00"),
    Case("within 2 weeks", "2026-12-12T00:00:00-05:00"),
    Case("within two weeks", "2026-12-12T00:00:00-05:00"),
    Case("within the next 3 days", "2026-12-01T00:00:00-05:00"),
    Case("within a month", "2026-12-28T00:00:00-05:00"),
    Case("within twelve months", "2027-11-28T00:00:00-05:00"),
    Case("within 1 month", "2027-03-01T00:00:00-05:00", said="2027-01-31T10:00:00-05:00"),
    Case("within a month", "2028-03-01T00:00:00-05:00", said="2028-01-31T10:00:00-05:00"),
    Case("within 1 year", "2029-03-01T00:00:00-05:00", said="2028-02-29T10:00:00-05:00"),
    Case("within a week", "2027-01-05T00:00:00-05:00", said="2026-12-28T10:00:00-05:00"),
    Case("within today", "2026-11-28T00:00:00-05:00"),
    Case("within this week", "2026-11-30T00:00:00-05:00"),
    Case("within 3 business days", None),
    Case("within 0 days", None),
    Case("within half a day", None),
    Case("within 3 days at 5pm", None),
    # Absolute dates, with and without a year (next occurrence, today included).
    Case("by December 1", "2026-12-02T00:00:00-05:00"),
    Case("by Dec 1st", "2026-12-02T00:00:00-05:00"),
    Case("by Dec. 1", "2026-12-02T00:00:00-05:00"),
    Case("before December 1", "2026-12-01T00:00:00-05:00"),
    Case("on or before December 1", "2026-12-02T00:00:00-05:00"),
    Case("by 1 December", "2026-12-02T00:00:00-05:00"),
    Case("by the 1st of December", "2026-12-02T00:00:00-05:00"),
    Case("by December 1, 2026", "2026-12-02T00:00:00-05:00"),
    Case("by Dec 1 2027", "2027-12-02T00:00:00-05:00"),
    Case("by 2026-12-01", "2026-12-02T00:00:00-05:00"),
    Case("before 2026-12-01", "2026-12-01T00:00:00-05:00"),
    Case("by 2026/12/01", "2026-12-02T00:00:00-05:00"),
    Case("by 2026-12-01 18:00", "2026-12-01T18:00:00-05:00"),
    Case("by December 1 at 5pm", "2026-12-01T17:00:00-05:00"),
    Case("by Sept 3", "2027-09-04T00:00:00-04:00"),
    Case("by November 27", "2026-11-28T00:00:00-05:00"),
    Case("before November 27", None),
    Case("by November 26", "2027-11-27T00:00:00-05:00"),
    Case("by January 5", "2027-01-06T00:00:00-05:00", said="2026-12-20T10:00:00-05:00"),
    Case("by Feb 29", None),  # neither 2026 nor 2027 has one
    Case("by Feb 29", "2028-03-01T00:00:00-05:00", said="2027-06-01T10:00:00-04:00"),
    Case("by February 29, 2028", "2028-03-01T00:00:00-05:00"),
    Case("by February 30", None),
    Case("by 2026-02-29", None),
    Case("by 2026-13-01", None),
    Case("by December 1, 2025", None),
    Case("by Dec 31", "2027-01-01T00:00:00-05:00", said="2026-12-31T10:00:00-05:00"),
    Case("by Jan 1", "2027-01-02T00:00:00-05:00", said="2026-12-31T10:00:00-05:00"),
    Case("by 12/1", None),  # month/day order differs by country
    # Daylight saving: local days stay days, skipped wall times move past the jump.
    Case("by tomorrow", "2026-03-09T00:00:00-04:00", said="2026-03-07T10:00:00-05:00"),
    Case("within 24 hours", "2026-03-08T11:00:00-04:00", said="2026-03-07T10:00:00-05:00"),
    Case("within 1 day", "2026-03-09T00:00:00-04:00", said="2026-03-07T10:00:00-05:00"),
    Case("by 2:30am tomorrow", "2026-03-08T03:00:00-04:00", said="2026-03-07T10:00:00-05:00"),
    Case("by 1:30am tomorrow", "2026-11-01T01:30:00-04:00", said="2026-10-31T10:00:00-04:00"),
    Case("by Sunday", "2026-11-02T00:00:00-05:00", said="2026-10-31T10:00:00-04:00"),
    Case("by 9am", "2026-03-08T09:00:00-04:00", said="2026-03-08T01:30:00-05:00"),
    Case("by next week", "2026-03-16T00:00:00-04:00", said="2026-03-04T10:00:00-05:00"),
    Case(
        "by midnight",
        "2026-03-29T00:00:00+01:00",
        said="2026-03-28T22:00:00+01:00",
        zone="Europe/Berlin",
    ),
    Case(
        "by tomorrow 2:30am",
        "2026-03-29T03:00:00+02:00",
        said="2026-03-28T22:00:00+01:00",
        zone="Europe/Berlin",
    ),
    Case(
        "by the end of the week",
        "2026-03-30T00:00:00+02:00",
        said="2026-03-27T10:00:00+01:00",
        zone="Europe/Berlin",
    ),
    Case(
        "within 2 days",
        "2026-10-27T00:00:00+01:00",
        said="2026-10-24T23:30:00+02:00",
        zone="Europe/Berlin",
    ),
    Case(
        "before tomorrow",
        "2026-09-06T01:00:00-03:00",
        said="2026-09-05T10:00:00-04:00",
        zone="America/Santiago",
    ),
    Case(
        "by today",
        "2026-09-06T01:00:00-03:00",
        said="2026-09-05T10:00:00-04:00",
        zone="America/Santiago",
    ),
    Case(
        "by Sunday",
        "2026-09-07T00:00:00-03:00",
        said="2026-09-05T10:00:00-04:00",
        zone="America/Santiago",
    ),
    Case(
        "by today",
        "2026-03-08T01:00:00-04:00",
        said="2026-03-07T12:00:00-05:00",
        zone="America/Havana",
    ),
    Case(
        "by 5pm tomorrow",
        "2026-10-04T17:00:00+11:00",
        said="2026-10-03T10:00:00+10:00",
        zone="Australia/Sydney",
    ),
    # The zone decides the day: one instant, two calendars.
    Case("by Friday", "2026-11-28T00:00:00+00:00", said="2026-11-27T23:30:00+00:00", zone="UTC"),
    Case(
        "by Friday",
        "2026-12-05T00:00:00+09:00",
        said="2026-11-28T08:30:00+09:00",
        zone="Asia/Tokyo",
    ),
    Case(
        "by tomorrow",
        "2026-11-29T00:00:00+05:30",
        said="2026-11-27T20:30:00+05:30",
        zone="Asia/Kolkata",
    ),
    # Year rollover.
    Case("by next week", "2027-01-11T00:00:00-05:00", said="2026-12-30T10:00:00-05:00"),
    Case("next month", "2027-02-01T00:00:00-05:00", said="2026-12-15T10:00:00-05:00"),
    Case("by tomorrow", "2027-01-02T00:00:00-05:00", said="2026-12-31T10:00:00-05:00"),
    Case("this week", "2027-01-04T00:00:00-05:00", said="2026-12-31T10:00:00-05:00"),
    Case("next Monday", "2027-01-05T00:00:00-05:00", said="2026-12-31T10:00:00-05:00"),
    Case("by next year", "2028-01-01T00:00:00-05:00", said="2026-12-31T23:59:00-05:00"),
    # Midnight edges.
    Case("by tomorrow", "2026-11-29T00:00:00-05:00", said="2026-11-27T23:59:59-05:00"),
    Case("by today", "2026-11-28T00:00:00-05:00", said="2026-11-27T00:00:00-05:00"),
    Case("before midnight", "2026-11-28T00:00:00-05:00", said="2026-11-27T23:59:00-05:00"),
    Case("by 00:00", "2026-11-28T00:00:00-05:00", said="2026-11-27T00:00:00-05:00"),
    Case("before tomorrow", "2026-11-28T00:00:00-05:00", said="2026-11-27T23:59:59-05:00"),
    Case("by 11:59pm", "2026-11-27T23:59:00-05:00", said="2026-11-27T23:58:00-05:00"),
    Case("by 11:59pm", "2026-11-28T23:59:00-05:00", said="2026-11-27T23:59:00-05:00"),
    # Outside the grammar or ambiguous: no deadline, never a guess.
    Case("next time", None),
    Case("soon", None),
    Case("later this week", None),
    Case("in 3 days", "2026-12-01T00:00:00-05:00"),  # like "within 3 days"
    Case("3 days ago", None),
    Case("after Friday", None),
    Case("last Friday", None),
    Case("every Friday", None),
    Case("by the weekend", None),
    Case("whenever you can", None),
    Case("", None),
    Case("by tomorrow or Monday", None),
    Case("by Friday by Monday", None),
    Case("by", None),
    Case("within", None),
    Case("the end of", None),
    Case("by the end of the meeting", None),
    Case("at night", None),
    Case("by 3", None),
)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_phrase_resolves_to_the_conventions_instant(case: Case) -> None:
    """R9: the phrase resolves to the exclusive instant DESIGN section 4 gives, or None."""
    check_resolves(case)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_case_is_written_in_its_zone(case: Case) -> None:
    """Guards the table: written offsets are the zone's real offsets; deadlines follow ts."""
    check_written_in_zone(case)


def test_table_has_at_least_150_cases_with_both_outcomes() -> None:
    """Issue 4: at least 150 cases per language, including negatives that give no deadline."""
    assert len(CASES) >= 150
    assert sum(case.expected is None for case in CASES) >= 25


def test_naive_reference_time_is_taken_as_utc() -> None:
    """A naive ts (the contracts never produce one) is read as UTC rather than refused."""
    naive = datetime(2026, 11, 27, 10, 0)  # noqa: DTZ001  # the point of the test
    got = resolve_deadline("within 1 hour", naive, ZoneInfo("UTC"))
    assert got == datetime(2026, 11, 27, 11, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("phrase", "said"),
    [
        ("by December 31, 9999", "2026-11-27T10:00:00+00:00"),
        ("by tomorrow", "9999-12-31T12:00:00+00:00"),
        ("by December 9999", "2026-11-27T10:00:00+00:00"),
        ("by the end of 9999", "2026-11-27T10:00:00+00:00"),
    ],
)
def test_a_deadline_past_the_calendar_end_is_none_not_a_crash(phrase: str, said: str) -> None:
    """Robustness: dates past year 9999 give no deadline instead of raising."""
    assert resolve_deadline(phrase, datetime.fromisoformat(said), ZoneInfo("UTC")) is None
