"""Deadline resolution (R9, DESIGN section 4): find the wording, resolve the instant.

A deadline is an exclusive UTC instant, the first instant at which the agreement is
past due, resolved from the turn's `ts` in the user's zone with `zoneinfo`, so local
days stay days across daylight-saving changes. The grammar lives in
`deadline_english` and `deadline_chinese`; this module is the calendar.

Precision first: wording outside the grammar, two deadlines in one set of terms, a
recurring schedule ("every Friday", 每周五) or a start rather than an end ("from
Friday", 明天起) gives no deadline, never a guess. A deadline is always strictly after
`ts`; a phrase naming a period already over ("today before 4pm" at 5pm) gives None.
"""

from __future__ import annotations

import calendar
import re
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from worker.core import deadline_chinese, deadline_english
from worker.core.deadline_grammar import (
    CalendarDate,
    Day,
    DeadlineSpec,
    Duration,
    Edge,
    MonthDay,
    NamedMonth,
    NamedYear,
    Period,
    RelativeDay,
    RelativePeriod,
    Unit,
    Weekday,
)

_CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")
_LATIN = re.compile(r"[A-Za-z]")
# A recurring schedule or a standing rule ("never before 9am", 周末不发提醒) uses times
# as conditions, not as the moment the agreement is over.
_EN_STANDING = re.compile(
    r"\b(?:every|each)\s+(?:other\s+|single\s+)?(?:\d|day|week|month|year|morning|afternoon"
    r"|evening|night|time|hour|minute|weekday|weekend|monday|tuesday|wednesday|thursday"
    r"|friday|saturday|sunday|january|february|march|april|may|june|july|august|september"
    r"|october|november|december)"
    r"|\b(?:daily|weekly|monthly|yearly|annually|nightly|weekdays|weekends|weeknights|mondays"
    r"|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays|mornings|afternoons|evenings"
    r"|nights|never|always|usually|normally|generally|anymore|whenever|from\s+now\s+on)\b",
    re.IGNORECASE,
)
_ZH_STANDING = re.compile(
    r"每|天天|周周|总是|永远|从不|从来|一直|始终|平时|通常|经常|往后|今后|以后都|工作日"
)
# Words just before a time that make it a start or a past reference, not a deadline.
_EN_START_BEFORE = re.compile(
    r"\b(?:from|starting|start|starts|since|after|than|last|past|previous|as\s+of)"
    r"(?:\s+(?:on|at|the))?\s*$",
    re.IGNORECASE,
)
_EN_UNSURE_BEFORE = re.compile(
    r"\b(?:every|each|following|around|about|between)\s*$", re.IGNORECASE
)
_EN_AFTER = re.compile(
    r"^(?:['\u2019]s\b|\s+(?:onwards?|ago|or\s+later|or\s+after|and\s+after|later)\b)",
    re.IGNORECASE,
)
_ZH_START_BEFORE = re.compile(r"(?:从|自|打|由|上个?|去|前)\s*$")
_ZH_UNSURE_BEFORE = re.compile(r"(?:下|每|大约|大概)\s*$")
_ZH_START_AFTER = re.compile(r"^\s*(?:起|开始|以后|之后|后|以来|的)")
_ZH_UNSURE_AFTER = re.compile(r"^\s*(?:左右|前后|上下)")
_AHEAD = 24  # characters of context worth looking at on either side


def find_deadline_phrase(terms: str) -> str | None:
    """The one deadline wording inside proposal terms, or None.

    None when there is no wording, when there are two, when any time wording around
    is outside the grammar (it might be the real deadline), or when the terms set a
    recurring schedule or a standing rule. Mixed Chinese and English text is read
    with both grammars.
    """
    chinese = _CJK.search(terms) is not None
    spans: list[tuple[int, int]] = []
    if chinese and not _collect(terms, spans, chinese=True):
        return None
    if (not chinese or _LATIN.search(terms)) and not _collect(terms, spans, chinese=False):
        return None
    if len(spans) != 1:
        return None
    if _EN_STANDING.search(terms) or (chinese and _ZH_STANDING.search(terms)):
        return None
    start, end = spans[0]
    return terms[start:end]


def _collect(terms: str, spans: list[tuple[int, int]], *, chinese: bool) -> bool:
    """Append the deadline spans one grammar finds; False if it finds unreadable wording."""
    pattern = (deadline_chinese if chinese else deadline_english).CANDIDATE
    taken = tuple(spans)
    for match in pattern.finditer(terms):
        if any(match.start() < end and start < match.end() for start, end in taken):
            continue  # already read by the other grammar ("明天 18:00 前")
        verdict = _judge(terms, match, chinese=chinese)
        if verdict is False:
            return False
        if verdict:
            spans.append(match.span())
    return True


def _judge(terms: str, match: re.Match[str], *, chinese: bool) -> bool | None:  # noqa: PLR0911  # one exit per verdict
    """True: a deadline; False: time wording we cannot read (no deadline at all); None: ignore."""
    before = terms[max(0, match.start() - _AHEAD) : match.start()]
    after = terms[match.end() : match.end() + _AHEAD]
    spec, significant = (deadline_chinese if chinese else deadline_english).read(match.group())
    if not significant:
        return None
    if chinese:
        if _ZH_UNSURE_BEFORE.search(before) or _ZH_UNSURE_AFTER.match(after):
            return False
        if _ZH_START_BEFORE.search(before) or _ZH_START_AFTER.match(after):
            return None
    else:
        if _EN_UNSURE_BEFORE.search(before):
            return False
        if _EN_START_BEFORE.search(before):
            return None
        tail = _EN_AFTER.match(after)
        if tail is not None:
            # "Friday's meeting" only mentions a day; "before Friday's meeting" is a
            # deadline tied to an event we cannot place.
            marked = deadline_english.lex(deadline_english.normalize(match.group()))
            led = bool(marked) and marked[0].kind is deadline_english.Kind.MARKER  # type: ignore[index]
            return False if led and tail.group().startswith(("'", "\u2019")) else None
    return spec is not None


def parse_deadline(phrase: str) -> DeadlineSpec | None:
    """The calendar-free reading of a phrase, or None when it is outside the grammar."""
    if _CJK.search(phrase):
        return deadline_chinese.read(phrase)[0]
    return deadline_english.read(phrase)[0]


def resolve_deadline(phrase: str, ts: datetime, zone: ZoneInfo) -> datetime | None:
    """The exclusive UTC instant `phrase` names, said at `ts` in `zone`, or None.

    `ts` must be timezone-aware (a naive one is taken as UTC). The result is always
    strictly after `ts`.
    """
    spec = parse_deadline(phrase)
    if spec is None:
        return None
    if ts.tzinfo is None:
        ts = ts.replace(tzinfo=UTC)
    instant = evaluate(spec, ts, zone)
    return instant if instant is not None and instant > ts else None


def evaluate(spec: DeadlineSpec, ts: datetime, zone: ZoneInfo) -> datetime | None:  # noqa: PLR0911  # one exit per kind of spec
    """The UTC instant of `spec` said at aware `ts` in `zone` (not yet checked against ts)."""
    today = ts.astimezone(zone).date()
    if spec.within is not None:
        return _within(spec.within, ts, today, zone)
    if spec.period is not None:
        bounds = _period_bounds(spec.period, today)
        if bounds is None:
            return None
        return _day_start(bounds[1] if spec.edge is Edge.END else bounds[0], zone)
    if spec.day is None:
        if spec.time is None:
            return None
        # A bare clock time is its next occurrence: already past today means tomorrow.
        instant = _at(today, spec.time, zone)
        return instant if instant > ts else _at(today + timedelta(days=1), spec.time, zone)
    day = _day(spec.day, today)
    if day is None:
        return None
    if spec.time is not None:
        return _at(day, spec.time, zone)
    return _day_start(day + timedelta(days=1) if spec.edge is Edge.END else day, zone)


def _within(duration: Duration, ts: datetime, today: date, zone: ZoneInfo) -> datetime | None:
    amount, unit = duration.amount, duration.unit
    if unit is Unit.MINUTE:
        return (ts + timedelta(minutes=amount)).astimezone(UTC)
    if unit is Unit.HOUR:
        return (ts + timedelta(hours=amount)).astimezone(UTC)
    # Day-sized lengths run to the end of the local day on which ts + N falls.
    if unit is Unit.DAY:
        last = today + timedelta(days=amount)
    elif unit is Unit.WEEK:
        last = today + timedelta(weeks=amount)
    else:
        months = amount if unit is Unit.MONTH else 12 * amount
        last = _add_months(today, months)
    return _day_start(last + timedelta(days=1), zone)


def _day(day: Day, today: date) -> date | None:
    if isinstance(day, RelativeDay):
        return today + timedelta(days=day.days)
    if isinstance(day, Weekday):
        if day.week is None:  # next occurrence, today included
            return today + timedelta(days=(day.weekday - today.weekday()) % 7)
        monday = today - timedelta(days=today.weekday())
        return monday + timedelta(days=7 * day.week + day.weekday)
    if isinstance(day, CalendarDate):
        return _calendar_date(day, today)
    return _month_day(day, today)


def _calendar_date(day: CalendarDate, today: date) -> date | None:
    if day.year is not None:
        return _date(day.year, day.month, day.day)
    # Its next occurrence, today included: this year's, else next year's. A date
    # neither year has (29 February) is no deadline.
    for year in (today.year, today.year + 1):
        candidate = _date(year, day.month, day.day)
        if candidate is not None and candidate >= today:
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
        start = date(today.year + period.offset, 1, 1)
        return start, date(start.year + 1, 1, 1)
    if isinstance(period, NamedMonth):
        year = period.year
        if year is None:
            year = today.year if period.month >= today.month else today.year + 1
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
        day, hour = day + timedelta(days=1), 0
    wall = datetime(day.year, day.month, day.day, hour, minute, tzinfo=zone)
    instant = wall.astimezone(UTC)
    if instant.astimezone(zone).replace(tzinfo=None) == wall.replace(tzinfo=None):
        return instant
    return _gap_end(wall.replace(fold=1).astimezone(UTC), instant, zone)


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
