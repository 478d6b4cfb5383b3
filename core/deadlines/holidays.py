"""Holidays a deadline may name, fixed-date and lunar, as a date table (R9).

Lunar festivals (春节, 中秋节 …) come from a table of Gregorian dates, not from
astronomy: it covers the festivals of the lunar years 2024 to 2040 (generated once
with the `lunardate` package and checked against published calendars). Outside that
range a lunar holiday gives no deadline, never a guess. Fixed-date holidays (Christmas,
国庆节 …) have no range. Pure: the reference day is passed in.
"""

from __future__ import annotations

import calendar
from datetime import date
from typing import Final

# name -> (month, day), every year.
FIXED: Final[dict[str, tuple[int, int]]] = {
    "new_year": (1, 1),
    "valentine": (2, 14),
    "women": (3, 8),
    "labour": (5, 1),
    "children": (6, 1),
    "independence": (7, 4),  # the United States' (the English grammar's only one)
    "national": (10, 1),
    "halloween": (10, 31),
    "christmas_eve": (12, 24),
    "christmas": (12, 25),
    "new_year_eve": (12, 31),
    "april_fools": (4, 1),
    "army": (8, 1),  # 建军节
    "teachers": (9, 10),  # 教师节
    # The United States' federal holidays on a fixed date, and two English ones.
    "juneteenth": (6, 19),
    "veterans": (11, 11),
    "boxing": (12, 26),
    "st_patrick": (3, 17),
    "arbor": (3, 12),  # 植树节
    "youth": (5, 4),  # 青年节
    "party": (7, 1),  # 建党节
    "singles": (11, 11),  # 光棍节, 双十一
    "double_twelve": (12, 12),  # 双十二
}

# Movable feasts fixed by a weekday of a month: (month, nth, weekday, Monday=0).
NTH_WEEKDAY: Final[dict[str, tuple[int, int, int]]] = {
    "mother": (5, 2, 6),  # 母亲节, Mother's Day: the second Sunday of May
    "father": (6, 3, 6),  # 父亲节, Father's Day: the third Sunday of June
    "thanksgiving": (11, 4, 3),  # the United States': the fourth Thursday of November
    # The United States' federal Monday holidays (-1: the last Monday of the month).
    "mlk": (1, 3, 0),  # Martin Luther King Jr. Day: the third Monday of January
    "presidents": (2, 3, 0),  # Washington's Birthday: the third Monday of February
    "memorial": (5, -1, 0),  # the last Monday of May
    "labor": (9, 1, 0),  # the first Monday of September
    "columbus": (10, 2, 0),  # Columbus Day / Indigenous Peoples' Day: the second Monday
}

# Feasts fixed by (Western) Easter: days after Easter Sunday.
EASTER: Final[dict[str, int]] = {"easter": 0, "good_friday": -2, "easter_monday": 1}

FIRST_YEAR: Final = 2024
LAST_YEAR: Final = 2040
# name -> its date in each year FIRST_YEAR..LAST_YEAR ("MM-DD"; the lunar new year's eve
# of year Y is the day before the spring festival of Y + 1, so it can fall in January).
_LUNAR_TABLE: Final[dict[str, tuple[str, ...]]] = {
    "spring": (
        *("02-10", "01-29", "02-17", "02-06", "01-26", "02-13", "02-03", "01-23", "02-11"),
        *("01-31", "02-19", "02-08", "01-28", "02-15", "02-04", "01-24", "02-12"),
    ),
    "lantern": (
        *("02-24", "02-12", "03-03", "02-20", "02-09", "02-27", "02-17", "02-06", "02-25"),
        *("02-14", "03-05", "02-22", "02-11", "03-01", "02-18", "02-07", "02-26"),
    ),
    "dragon_boat": (
        *("06-10", "05-31", "06-19", "06-09", "05-28", "06-16", "06-05", "06-24", "06-12"),
        *("06-01", "06-20", "06-10", "05-30", "06-18", "06-07", "05-27", "06-14"),
    ),
    "qixi": (
        *("08-10", "08-29", "08-19", "08-08", "08-26", "08-16", "08-05", "08-24", "08-12"),
        *("08-01", "08-20", "08-10", "08-28", "08-17", "08-07", "08-26", "08-14"),
    ),
    "mid_autumn": (
        *("09-17", "10-06", "09-25", "09-15", "10-03", "09-22", "09-12", "10-01", "09-19"),
        *("09-08", "09-27", "09-16", "10-04", "09-24", "09-13", "10-02", "09-20"),
    ),
    "double_ninth": (
        *("10-11", "10-29", "10-18", "10-08", "10-26", "10-16", "10-05", "10-24", "10-12"),
        *("10-01", "10-20", "10-09", "10-27", "10-17", "10-07", "10-26", "10-14"),
    ),
    "zhongyuan": (  # 中元节, the fifteenth of the seventh month
        *("08-18", "09-06", "08-27", "08-16", "09-03", "08-24", "08-13", "09-01", "08-20"),
        *("08-09", "08-28", "08-18", "09-05", "08-25", "08-15", "09-03", "08-22"),
    ),
    # 腊八, the eighth of the twelfth month: that of the lunar year before, which falls
    # in January of every Gregorian year of the table.
    "laba": (
        *("01-18", "01-07", "01-26", "01-15", "01-04", "01-22", "01-11", "01-01", "01-20"),
        *("01-08", "01-27", "01-16", "01-05", "01-23", "01-12", "01-02", "01-21"),
    ),
}


def _dates(days: tuple[str, ...]) -> tuple[date, ...]:
    return tuple(
        date(FIRST_YEAR + index, int(day[:2]), int(day[3:])) for index, day in enumerate(days)
    )


LUNAR: Final[dict[str, tuple[date, ...]]] = {
    name: _dates(days) for name, days in _LUNAR_TABLE.items()
}
# 除夕: the last day of the lunar year, the day before the next spring festival.
LUNAR["lunar_new_year_eve"] = tuple(
    date.fromordinal(day.toordinal() - 1) for day in LUNAR["spring"]
)


def next_holiday(name: str, today: date, year_offset: int | None = None) -> date | None:
    """The holiday's next occurrence, today included, or None outside the table.

    With `year_offset`, its occurrence in the year `today.year + year_offset` instead
    (the caller refuses one already over).
    """
    if year_offset is not None:
        return _in_year(name, today.year + year_offset)
    if name in FIXED or name in NTH_WEEKDAY or name in EASTER:
        for year in (today.year, today.year + 1):
            candidate = _in_year(name, year)
            if candidate is not None and candidate >= today:
                return candidate
        return None
    if today.year < FIRST_YEAR:
        return None  # this year's occurrence is outside the table
    return next((day for day in LUNAR.get(name, ()) if day >= today), None)


def in_year(name: str, year: int) -> date | None:
    """The holiday's occurrence in a (Gregorian) year ("Christmas 2027", 2027年春节), or
    None outside the table."""
    return _in_year(name, year) if 1 <= year <= 9999 else None


def _in_year(name: str, year: int) -> date | None:
    fixed = FIXED.get(name)
    if fixed is not None:
        return date(year, *fixed) if 1 <= year <= 9999 else None
    nth = NTH_WEEKDAY.get(name)
    if nth is not None:
        return nth_weekday(year, *nth) if 1 <= year <= 9999 else None
    after_easter = EASTER.get(name)
    if after_easter is not None:
        return (
            date.fromordinal(easter(year).toordinal() + after_easter) if 2 <= year <= 9999 else None
        )
    return next((day for day in LUNAR.get(name, ()) if day.year == year), None)


def easter(year: int) -> date:
    """Western Easter Sunday of a Gregorian year (the anonymous Gregorian computus)."""
    golden = year % 19
    century, of_century = divmod(year, 100)
    leap_centuries, leap_rest = divmod(century, 4)
    correction = (century + 8) // 25
    moon = (century - correction + 1) // 3
    epact = (19 * golden + century - leap_centuries - moon + 15) % 30
    quarters, rest = divmod(of_century, 4)
    weekday = (32 + 2 * leap_rest + 2 * quarters - epact - rest) % 7
    shift = (golden + 11 * epact + 22 * weekday) // 451
    month, day = divmod(epact + weekday - 7 * shift + 114, 31)
    return date(year, month, day + 1)


def nth_weekday(year: int, month: int, nth: int, weekday: int | None) -> date | None:
    """The `nth` (1..5, -1 the last) `weekday` (Monday=0; None: any day) of a month, or None."""
    days = calendar.monthrange(year, month)[1]
    if weekday is None:
        day = days if nth == -1 else nth
        return date(year, month, day) if 1 <= day <= days else None
    if nth == -1:
        last = date(year, month, days)
        return date.fromordinal(last.toordinal() - (last.weekday() - weekday) % 7)
    first = date(year, month, 1)
    day = 1 + (weekday - first.weekday()) % 7 + 7 * (nth - 1)
    return date(year, month, day) if day <= days else None
