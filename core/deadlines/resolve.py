"""Deadline resolution (R9, DESIGN section 4): find the wording, resolve the instant.

A deadline is an exclusive UTC instant, the first instant at which the agreement is
past due, resolved from the turn's `ts` in the user's zone with `zoneinfo`, so local
days stay days across daylight-saving changes. The grammar lives in
`deadline_english` and `deadline_chinese`, finding the wording in terms in
`deadline_finder`; this module is the calendar and the public entry points.

Precision first: wording outside the grammar, two deadlines in one set of terms, a
recurring schedule ("every Friday", 每周五) or a start rather than an end ("from
Friday", 明天起) gives no deadline, never a guess. A deadline is always strictly after
`ts`; a phrase naming a period already over ("today before 4pm" at 5pm) gives None.
"""

from __future__ import annotations

import calendar
from datetime import UTC, date, datetime, timedelta
from typing import Final
from zoneinfo import ZoneInfo

from core.deadlines import chinese as deadline_chinese
from core.deadlines import english as deadline_english
from core.deadlines import holidays
from core.deadlines.finder import CJK, find_deadline_phrase
from core.deadlines.grammar import (
    CalendarDate,
    CheckedDate,
    Day,
    DeadlineSpec,
    Duration,
    Edge,
    Holiday,
    MonthDay,
    NamedMonth,
    NamedYear,
    NthWeekday,
    Period,
    RelativeDay,
    RelativePeriod,
    Shifted,
    Unit,
    Weekday,
)


def parse_deadline(phrase: str) -> DeadlineSpec | None:
    """The calendar-free reading of a phrase, or None when it is outside the grammar."""
    if CJK.search(phrase):
        return deadline_chinese.read(phrase)[0]
    return deadline_english.read(phrase)[0]


def resolve_deadline(phrase: str, ts: datetime, zone: ZoneInfo) -> datetime | None:
    """The exclusive UTC instant `phrase` names, said at `ts` in `zone`, or None.

    `ts` must be timezone-aware (a naive one is taken as UTC). The result is always
    strictly after `ts`.
    """
    spec = parse_deadline(phrase)
    return None if spec is None else resolve_spec(spec, ts, zone)


def resolve_spec(spec: DeadlineSpec, ts: datetime, zone: ZoneInfo) -> datetime | None:
    """`resolve_deadline` for a phrase already parsed (a proposal's evidence needs both)."""
    if ts.tzinfo is None:
        ts = ts.replace(tzinfo=UTC)
    try:
        instant = evaluate(spec, ts, zone)
    except (OverflowError, ValueError):
        return None  # past the calendar's end (year 9999): no deadline, never a crash
    return instant if instant is not None and instant > ts else None


def evaluate(spec: DeadlineSpec, ts: datetime, zone: ZoneInfo) -> datetime | None:  # noqa: PLR0911  # one exit per kind of spec
    """The UTC instant of `spec` said at aware `ts` in `zone` (not yet checked against ts)."""
    today = ts.astimezone(zone).date()
    if spec.within is not None:
        return _within(spec.within, ts, today, zone)
    if spec.since is not None:
        return _range_end(spec, spec.since, today, zone)
    if spec.period is not None:
        bounds = _period_bounds(spec.period, today)
        if bounds is None:
            return None
        return _day_start(bounds[1] if spec.edge is Edge.END else bounds[0], zone)
    if spec.either_half and spec.time is not None:
        return _either_half(spec, spec.time, ts, today, zone)
    seconds = timedelta(seconds=spec.seconds)  # "by 7:56:30pm"; zero for nearly every clock
    if spec.day is None:
        if spec.time is None:
            return None
        # A bare clock time is its next occurrence: already past today means tomorrow.
        instant = _at(today, spec.time, zone) + seconds
        return instant if instant > ts else _at(today + _ONE_DAY, spec.time, zone) + seconds
    day = _day(spec.day, today)
    if day is None:
        return None
    if spec.time is not None:
        return _at(day, spec.time, zone) + seconds
    return _day_start(day + timedelta(days=1) if spec.edge is Edge.END else day, zone)


def _range_end(
    spec: DeadlineSpec, since: Day | Period, today: date, zone: ZoneInfo
) -> datetime | None:
    """The end of a range (`DeadlineSpec.since`): a next occurrence counts from its start."""
    if isinstance(since, RelativePeriod | NamedMonth | NamedYear):
        bounds = _period_bounds(since, today)
        start = None if bounds is None else max(bounds[0], today)
    else:
        start = _day(since, today)
    if start is None:
        return None
    began = _began(since, today)
    if began is not None:
        # 3月1日至15日 said on 10 March: under way, it ends this month, not next year
        # (within its start's year, or month for days of the month: 7月3号到6月12号
        # said in November still starts next July).
        ended = _range_from(spec, began, today, zone)
        if ended is not None and ended > _day_start(today, zone):
            last = (ended - _ONE_DAY).astimezone(zone).date()
            monthly = isinstance(since, MonthDay)
            if last.year == began.year and (not monthly or last.month == began.month):
                return ended
    return _range_from(spec, start, today, zone)


def _began(since: Day | Period, today: date) -> date | None:
    """This year's (a date) or this month's (a day of the month) occurrence of a range's
    start said as a next occurrence, when it is already past; else None."""
    if isinstance(since, CalendarDate) and since.year is None and since.year_offset is None:
        day = _date(today.year, since.month, since.day)
    elif isinstance(since, MonthDay) and since.month_offset is None:
        day = _date(today.year, today.month, since.day)
    else:
        return None
    return day if day is not None and day < today else None


def _range_from(  # one exit per refusal
    spec: DeadlineSpec, start: date, today: date, zone: ZoneInfo
) -> datetime | None:
    """The end of a range whose start is the local day `start`."""
    base = start if _floating(spec.period or spec.day) else today
    if spec.period is not None:
        bounds = _period_bounds(spec.period, base)
        if bounds is None or bounds[1] <= start:
            return None
        return _day_start(bounds[1], zone)
    if spec.day is None:
        return None
    day = _day(spec.day, base)
    if day is None or day < start:
        return None
    if spec.time is not None:
        return _at(day, spec.time, zone)
    return _day_start(day + timedelta(days=1), zone)


def _floating(end: Day | Period | None) -> bool:  # noqa: PLR0911  # one exit per kind of end
    """Whether `end` is said as a next occurrence (a bare weekday, a date without a year)."""
    if isinstance(end, Weekday):
        return end.week is None
    if isinstance(end, NthWeekday):
        return end.year is None and end.month_offset is None
    if isinstance(end, CalendarDate):
        return end.year is None and end.year_offset is None
    if isinstance(end, MonthDay):
        return end.month_offset is None
    if isinstance(end, NamedMonth):
        return end.year is None and end.offset is None
    if isinstance(end, Holiday):
        return end.year_offset is None
    if isinstance(end, CheckedDate):
        return _floating(end.date)
    return False


def _either_half(
    spec: DeadlineSpec, time: tuple[int, int], ts: datetime, today: date, zone: ZoneInfo
) -> datetime | None:
    """A 12-hour clock without am/pm (`DeadlineSpec.either_half`), by its two readings.

    With a day named (今天三点), the reading of that day still to come, when only one
    is: said at 10:00, 三点 is 15:00; said at 02:00, either could be meant, so none. Said
    from now (从现在到八点), the next time the clock shows it.
    """
    hour, minute = time
    later = (24 if hour == 12 else hour + 12, minute)  # 12 o'clock: noon, or midnight (24:00)
    if hour == 12 and minute:
        # "twenty after twelve": 00:20 or 12:20 of the same day (24:20 is no time).
        time, later = (0, minute), (12, minute)
    if spec.day is None:
        readings = [_at(today, time, zone), _at(today, later, zone)]
        readings.append(_at(today + timedelta(days=1), time, zone))
        return next((instant for instant in readings if instant > ts), None)
    day = _day(spec.day, today)
    if day is None:
        return None
    ahead = [instant for instant in (_at(day, time, zone), _at(day, later, zone)) if instant > ts]
    return ahead[0] if len(ahead) == 1 else None


def _within(duration: Duration, ts: datetime, today: date, zone: ZoneInfo) -> datetime | None:
    amount, unit = duration.amount, duration.unit
    # Elapsed time from the instant: added in UTC, since Python adds a timedelta to a
    # datetime in a ZoneInfo zone as wall time (an hour off across a DST change).
    instant = ts.astimezone(UTC)
    if unit is Unit.SECOND:
        return instant + timedelta(seconds=amount)
    if unit is Unit.MINUTE:
        return instant + timedelta(minutes=amount)
    if unit is Unit.HOUR:
        return instant + timedelta(hours=amount)
    # Day-sized lengths run to the end of the local day on which ts + N falls.
    if unit is Unit.DAY:
        last = today + timedelta(days=amount)
    elif unit is Unit.WEEK:
        last = today + timedelta(weeks=amount)
    else:
        months = amount if unit is Unit.MONTH else 12 * amount
        last = _add_months(today, months)
    return _day_start(last + timedelta(days=1), zone)


def _day(day: Day, today: date) -> date | None:  # noqa: PLR0911  # one exit per kind of day
    if isinstance(day, RelativeDay):
        return today + timedelta(days=day.days)
    if isinstance(day, Weekday):
        if day.week is None:  # next occurrence, today included
            return today + timedelta(days=(day.weekday - today.weekday()) % 7)
        monday = today - timedelta(days=today.weekday())
        return monday + timedelta(days=7 * day.week + day.weekday)
    if isinstance(day, CalendarDate):
        return _calendar_date(day, today)
    if isinstance(day, Holiday):
        return _holiday(day, today)
    if isinstance(day, CheckedDate):
        date_ = _day(day.date, today)
        return date_ if date_ is not None and date_.weekday() == day.weekday else None
    if isinstance(day, NthWeekday):
        return _nth_weekday(day, today)
    if isinstance(day, Shifted):
        moved = _day(day.day, today)
        if moved is not None and day.months:
            moved = _add_months(moved, day.months)
        return None if moved is None else moved + timedelta(days=day.days)
    return _month_day(day, today)


def _holiday(day: Holiday, today: date) -> date | None:
    """ "Christmas 2027": that year's; "next Christmas": the next one after today."""
    if day.year is not None:
        return holidays.in_year(day.name, day.year) if 1 <= day.year <= 9998 else None
    after = today + _ONE_DAY if day.after else today
    return holidays.next_holiday(day.name, after, day.year_offset)


def _nth_weekday(day: NthWeekday, today: date) -> date | None:
    """ "The last Friday of March": this year's if still to come (today included), else next."""
    if day.month_offset is not None:
        first = _add_months(today.replace(day=1), day.month_offset)
        return holidays.nth_weekday(first.year, first.month, day.nth, day.weekday)
    years = (day.year,) if day.year is not None else (today.year, today.year + 1)
    for year in years:
        if not 1 <= year <= 9998:
            return None
        found = holidays.nth_weekday(year, day.month, day.nth, day.weekday)
        if found is not None and (day.year is not None or found >= today):
            return found
    return None


def _calendar_date(day: CalendarDate, today: date) -> date | None:
    if day.year is not None:
        return _date(day.year, day.month, day.day)
    if day.year_offset is not None:  # 明年1月5日: that year's, even if over (then none)
        return _date(today.year + day.year_offset, day.month, day.day)
    # Its next occurrence, today included: this year's, else next year's. A date
    # neither year has (29 February) is no deadline.
    for year in (today.year, today.year + 1):
        candidate = _date(year, day.month, day.day)
        if candidate is not None and (candidate > today or (candidate == today and not day.after)):
            return candidate
    return None


def _month_day(day: MonthDay, today: date) -> date | None:
    first = today.replace(day=1)
    if day.month_offset is not None:
        month = _add_months(first, day.month_offset)
        return _date(month.year, month.month, day.day)
    if day.day >= today.day:
        return _date(today.year, today.month, day.day)
    month = _add_months(first, 1)
    return _date(month.year, month.month, day.day)


def _period_bounds(period: Period, today: date) -> tuple[date, date] | None:  # noqa: PLR0911  # one exit per kind of period
    """[first day, first day after) of a period, as local dates."""
    if isinstance(period, RelativePeriod):
        if period.unit is Unit.WEEK:
            start = today - timedelta(days=today.weekday()) + timedelta(weeks=period.offset)
            return start, start + timedelta(weeks=1)
        if period.unit is Unit.MONTH:
            start = _add_months(today.replace(day=1), period.offset)
            return start, _add_months(start, 1)
        if period.unit is Unit.QUARTER:
            first = today.replace(day=1, month=today.month - (today.month - 1) % 3)
            start = _add_months(first, 3 * period.offset)
            return start, _add_months(start, 3)
        start = date(today.year + period.offset, 1, 1)
        return start, date(start.year + 1, 1, 1)
    if isinstance(period, NamedMonth):
        year = period.year if period.offset is None else today.year + period.offset
        if year is None:
            later = period.month > today.month or (period.month == today.month and not period.after)
            year = today.year if later else today.year + 1
        if not 1 <= year <= 9998:
            return None
        start = date(year, period.month, 1)
        return start, _add_months(start, 1)
    if isinstance(period, NamedYear) and 1 <= period.year <= 9998:
        return date(period.year, 1, 1), date(period.year + 1, 1, 1)
    return None


def _add_months(day: date, months: int) -> date:
    """`day` moved by whole months, clamped to the month's last day (31 Jan + 1 = 28/29 Feb)."""
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    return date(year, month + 1, min(day.day, calendar.monthrange(year, month + 1)[1]))


def _date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


_ONE_DAY: Final = timedelta(days=1)


def _day_start(day: date, zone: ZoneInfo) -> datetime:
    return _at(day, (0, 0), zone)


def _at(day: date, time: tuple[int, int], zone: ZoneInfo) -> datetime:
    """The UTC instant of a local wall time; hour 24 is the next day's start.

    A wall time skipped by a daylight-saving jump means the first instant after the
    jump (the clock never shows it, and at the jump it has passed). A repeated wall
    time means its first occurrence.
    """
    hour, minute = time
    if hour == 24:
        day, hour = day + _ONE_DAY, 0
    year, month, date_ = day.year, day.month, day.day
    # fold=0 reads a wall time with the offset before a transition, fold=1 after it;
    # they differ only next to a transition, and the later offset is larger in a gap.
    # (Datetimes are built here, not derived with `replace`: keyword arguments cost
    # datetime a microsecond each, and this runs for every deadline resolved.)
    before = zone.utcoffset(datetime(year, month, date_, hour, minute))  # noqa: DTZ001  # local wall time, placed by the zone
    after = zone.utcoffset(datetime(year, month, date_, hour, minute, fold=1))  # noqa: DTZ001  # the same, after a transition
    if before is None or after is None:  # pragma: no cover  # ZoneInfo always has offsets
        raise ValueError(zone.key)
    wall_as_utc = datetime(year, month, date_, hour, minute, 0, 0, UTC)
    instant = wall_as_utc - before
    if after <= before:
        return instant
    return _gap_end(wall_as_utc - after, instant, zone)


def _gap_end(low: datetime, high: datetime, zone: ZoneInfo) -> datetime:
    """The first instant in (low, high] using the offset of `high` (the jump's end)."""
    offset = high.astimezone(zone).utcoffset()
    low_s, high_s = int(low.timestamp()), int(high.timestamp())
    while high_s - low_s > 1:
        mid = (low_s + high_s) // 2
        if datetime.fromtimestamp(mid, zone).utcoffset() == offset:
            high_s = mid
        else:
            low_s = mid
    return datetime.fromtimestamp(high_s, UTC)


__all__ = ["find_deadline_phrase", "parse_deadline", "resolve_deadline", "resolve_spec"]
