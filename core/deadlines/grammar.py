"""What a deadline phrase says, independent of the language it was said in.

The English and Chinese readers (`deadline_english`, `deadline_chinese`) turn a
phrase into a `DeadlineSpec`; `deadlines` evaluates it against the turn's time and
zone. Specs are frozen msgspec Structs: cheap to build, compared by type and value. The
spec is calendar-free on purpose: "next Friday" stays `Weekday(4, week=1)`
until a reference day exists, so the readers never see a clock (DESIGN section 4).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Generic, NamedTuple, TypeVar

import msgspec


class Edge(enum.Enum):
    """Which end of a day or period the deadline is, when no clock time is named."""

    START = "start"  # EN "before Friday": the first instant of Friday
    END = "end"  # "by Friday", "周五前": the first instant after Friday


class Hint(enum.Enum):
    """A part of the day that disambiguates a 12-hour clock ("8 tonight", 下午3点)."""

    EARLY = "early"  # 凌晨: small hours
    MORNING = "morning"
    NOON = "noon"  # 中午: around midday
    AFTERNOON = "afternoon"
    EVENING = "evening"  # evening and night, "tonight", 晚上


class Unit(enum.Enum):
    SECOND = "second"  # only from a half minute (十三分半以内); elapsed time like minutes
    MINUTE = "minute"
    HOUR = "hour"
    DAY = "day"
    WEEK = "week"
    MONTH = "month"
    QUARTER = "quarter"  # a calendar quarter (January, April, July, October); periods only
    YEAR = "year"


# The nodes below are declarations alike by design (CONTRIBUTING.md, "Repeated shapes").
class RelativeDay(msgspec.Struct, frozen=True):
    """Today plus `days` (today 0, tomorrow 1, the day after tomorrow 2, 大后天 3)."""

    days: int


class Weekday(msgspec.Struct, frozen=True):
    """Monday=0. `week` None: next occurrence, today included; 0 this week; 1 next week."""

    weekday: int
    week: int | None


class CalendarDate(msgspec.Struct, frozen=True):
    """A date; without a year it means its next occurrence, today included.

    `year_offset` names the year relative to the turn's instead (明年1月5日: 1), and
    then it is that year's date, none if it is already over.
    """

    month: int
    day: int
    year: int | None
    after: bool = False  # "next 6th of April": its next occurrence after today
    year_offset: int | None = None


class MonthDay(msgspec.Struct, frozen=True):
    """A day of the month (15号); `month_offset` None: next occurrence; 0 this month; 1 next."""

    day: int
    month_offset: int | None


class CheckedDate(msgspec.Struct, frozen=True):
    """A date said with its weekday ("Friday, December 4", 12月4日周五): the date, and
    no deadline at all when the two disagree."""

    date: CalendarDate | MonthDay
    weekday: int


class NthWeekday(msgspec.Struct, frozen=True):
    """The `nth` (1..5, or -1 for the last) weekday of a month ("the last Friday of March",
    十月的第一个星期一); `weekday` None names a day ("the last day of March").

    Its next occurrence, today included: this year's if it is still to come, else next
    year's; `year` fixes the year.
    """

    month: int
    nth: int
    weekday: int | None
    year: int | None = None
    # 这个月的最后一个星期五, "the first Monday of next month": this (0) or next (1)
    # month instead of `month` (then 0), never rolled to another month.
    month_offset: int | None = None


class Holiday(msgspec.Struct, frozen=True):
    """A holiday by name (`holidays.py`): its next occurrence, today included.

    `year_offset` names the (Gregorian) year relative to the turn's: 明年春节 is 1, and
    then it is that year's occurrence, none if it is already over.
    """

    name: str
    year_offset: int | None = None
    year: int | None = None  # "Christmas 2027": that year's occurrence
    after: bool = False  # "next New Year's Day": its next occurrence after today


class Shifted(msgspec.Struct, frozen=True):
    """A day moved by whole days: "2 days after next Friday", "a week after tomorrow"."""

    day: RelativeDay | Weekday | CalendarDate | MonthDay | Holiday
    days: int
    months: int = 0  # "two months after next Friday": whole months first, then days


def with_day(current: Day | None, new: Day) -> Day | None:
    """The day a phrase names once `new` is read after `current`, or None if two days.

    A bare weekday and a date may name the same day; which one wins is checked
    against the calendar, so "Friday, December 5" in a year where it is a Saturday
    gives no deadline.
    """
    if current is None:
        return new
    if isinstance(current, Weekday) and current.week is None:
        weekday, date = current, new
    elif isinstance(new, Weekday) and new.week is None:
        weekday, date = new, current
    else:
        return None
    if not isinstance(date, CalendarDate | MonthDay):
        return None
    return CheckedDate(date, weekday.weekday)


class RelativePeriod(msgspec.Struct, frozen=True):
    """This (0) or next (1) calendar week (Monday first), month, quarter or year."""

    unit: Unit
    offset: int


class NamedMonth(msgspec.Struct, frozen=True):
    """A month by name; without a year, the current month if it is that one, else the next.

    `offset` names the year relative to the turn's (明年九月: 1); it wins over `year`.
    """

    month: int
    year: int | None
    offset: int | None = None
    after: bool = False  # "next March": its next occurrence after the current month


class NamedYear(msgspec.Struct, frozen=True):
    year: int


class Duration(msgspec.Struct, frozen=True):
    amount: int
    unit: Unit


Day = RelativeDay | Weekday | CalendarDate | MonthDay | CheckedDate | Holiday | NthWeekday | Shifted
Period = RelativePeriod | NamedMonth | NamedYear


class DeadlineSpec(msgspec.Struct, frozen=True):
    """One deadline: exactly one of `within`, `period`, `day` or a lone `time`.

    `time` is (hour, minute) on a 24-hour clock, hour 24 meaning the end of the day;
    it is never set together with `period` or `within`.

    `either_half`: `time` is a 12-hour clock said without am/pm or a part of the day
    (三点, "at 3"), so it may also mean 12 hours later. Only two phrasings set it, where
    the calendar settles which: today's (今天三点: the one reading still to come today,
    none if both are) and a span from now (从现在到八点: the next time the clock shows it).
    """

    edge: Edge = Edge.END
    day: Day | None = None
    period: Period | None = None
    time: tuple[int, int] | None = None
    within: Duration | None = None
    either_half: bool = False
    seconds: int = 0  # added to `time` ("by 7:56:30pm"); set only with a time
    # A range's start ("Monday to Friday", 6月12号到7月3号, "from May to December"): the
    # deadline is the range's end, and an end said as a next occurrence (a bare weekday,
    # a date or month without a year) counts from the start's first day; an end before
    # the start gives none.
    since: Day | Period | None = None


class Clock(msgspec.Struct, frozen=True):
    """A clock time as written: `meridiem` is "a"/"p" when am/pm was said; `fixed` when
    the writing alone fixes a 24-hour reading (17:00, 09:30, 15点, 0点)."""

    hour: int
    minute: int
    meridiem: str | None = None
    fixed: bool = False
    second: int = 0  # "7:56:30pm"


def clock_time(clock: Clock, hint: Hint | None) -> tuple[int, int] | None:  # noqa: PLR0911  # one exit per reading
    """The 24-hour (hour, minute) a clock names given a part of the day, or None if unsure.

    "8" alone could be morning or evening: without am/pm or a part of the day it is
    ambiguous and gives None, never a guess.
    """
    hour, minute = clock.hour, clock.minute
    if minute > 59 or hour > 24 or (hour == 24 and minute):
        return None
    if clock.meridiem is not None:
        if not 1 <= hour <= 12:
            return None
        evening = clock.meridiem == "p"
        if hint is not None and (hint in {Hint.EARLY, Hint.MORNING}) == evening:
            return None
        return ((hour % 12) + (12 if evening else 0), minute)
    if hour >= 13 or hour == 0:
        if hour >= 13 and hint in {Hint.EARLY, Hint.MORNING}:
            return None
        return (hour, minute)
    if hint is None:
        return (hour, minute) if clock.fixed else None
    return _hinted(hour, minute, hint)


def shared_meridiem(start: Clock, end: Clock) -> tuple[Clock, Clock]:
    """1点pm到3点, "3:30-6pm": am / pm said once holds for both ends of a clock range."""
    later = end.hour % 12 > start.hour % 12
    if start.meridiem is not None and end.meridiem is None and not end.fixed and later:
        return start, Clock(end.hour, end.minute, meridiem=start.meridiem)
    if end.meridiem is not None and start.meridiem is None and not start.fixed and later:
        return Clock(start.hour, start.minute, meridiem=end.meridiem), end
    return start, end


def twelve_hour(clock: Clock, hint: Hint | None) -> tuple[int, int] | None:
    """The morning reading of a clock that `clock_time` refuses only for want of am/pm.

    "3" or 三点 alone: (3, 0), to be read with `DeadlineSpec.either_half`; None for any
    other refusal (a bad minute, a conflict with a part of the day).
    """
    if hint is not None or clock.meridiem is not None or clock.fixed:
        return None
    if not 1 <= clock.hour <= 12 or clock.minute > 59:
        return None
    return (clock.hour, clock.minute)


def _hinted(hour: int, minute: int, hint: Hint) -> tuple[int, int] | None:  # noqa: PLR0911  # one exit per part of day
    # hour is 1..12 here; the ranges are where each part of the day is unambiguous.
    if hint is Hint.EARLY:
        return (hour, minute) if hour <= 6 else None
    if hint is Hint.MORNING:
        return (hour, minute) if hour <= 11 else None
    if hint is Hint.NOON:
        if hour in {11, 12}:
            return (hour, minute)
        return (hour + 12, minute) if hour <= 2 else None
    if hint is Hint.AFTERNOON:
        return (hour + 12 if hour < 12 else 12, minute)
    # Evening and night: "8 tonight" is 20:00, "12 tonight" the end of the day; "2 at
    # night" could be either side of midnight, so it is refused.
    if hour == 12:
        return (24, 0) if minute == 0 else None
    return (hour + 12, minute) if hour >= 5 else None


K = TypeVar("K", bound=enum.Enum)


class Token(NamedTuple, Generic[K]):
    """One lexed item: its kind, the capture groups of its pattern, and its text."""

    kind: K
    groups: tuple[str | None, ...]
    text: str


_Table = dict[str, tuple[Any, tuple[int, ...]]]


class Lexer(Generic[K]):
    """Token patterns as alternations dispatched on the first character.

    Each item says which characters it can start with; for a given first character
    only those items are tried, in their declared order (first match wins), as one
    regex alternation. Each pattern is the named group `t<n>`; `lastgroup` names the
    one that matched and a table maps it back to its kind and its capture groups.
    """

    def __init__(self, items: Iterable[tuple[K, str, str]], wrap: Callable[[K, str], str]) -> None:
        entries = tuple(items)
        by_char: dict[str, list[int]] = {}
        for number, (_, _, first) in enumerate(entries):
            for char in first:
                by_char.setdefault(char, []).append(number)
        compiled: dict[tuple[int, ...], tuple[re.Pattern[str], _Table]] = {}
        self._dispatch: dict[str, tuple[re.Pattern[str], _Table]] = {}
        for char, numbers in by_char.items():
            key = tuple(numbers)
            if key not in compiled:
                compiled[key] = _alternation([entries[n] for n in key], wrap)
            self._dispatch[char] = compiled[key]
        # Every item in one alternation: what the dispatch must agree with (tested).
        self._full = _alternation(entries, wrap)

    def token(self, text: str, pos: int, *, dispatch: bool = True) -> tuple[Token[K], int] | None:
        """The token at `pos` and the position after it, or None."""
        found = self._dispatch.get(text[pos]) if dispatch else self._full
        if found is None:
            return None
        pattern, table = found
        match = pattern.match(text, pos)
        if match is None or match.lastgroup is None:
            return None
        kind, indices = table[match.lastgroup]
        if len(indices) > 1:
            groups = match.group(*indices)
        else:
            groups = tuple(match.group(i) for i in indices)
        return Token(kind, groups, match.group()), match.end()

    def kind_end(self, text: str, pos: int) -> tuple[K, int] | None:
        """The kind of the token at `pos` and the position after it, or None.

        `token` without building the token: the deadline finder only needs to know
        how far a run of tokens reaches. Unlike `token`, it also tries every item at
        a digit of another script (see below), as the finder's CANDIDATE pattern does.
        """
        if pos >= len(text):
            return None
        char = text[pos]
        found = self._dispatch.get(char)
        if found is None:
            # `\d` in a pattern also matches digits of other scripts (Arabic-Indic,
            # full-width), which no item lists among its first characters: there, every
            # item is tried, as the single search pattern (CANDIDATE) this stands in for.
            if not char.isdecimal():
                return None
            found = self._full
        pattern, table = found
        match = pattern.match(text, pos)
        if match is None or match.lastgroup is None:
            return None
        return table[match.lastgroup][0], match.end()


def _alternation(
    entries: Sequence[tuple[K, str, str]], wrap: Callable[[K, str], str]
) -> tuple[re.Pattern[str], _Table]:
    parts: list[str] = []
    table: _Table = {}
    index = 1
    for number, (kind, source, _) in enumerate(entries):
        name = f"t{number}"
        inner = re.compile(source).groups
        parts.append(f"(?P<{name}>{wrap(kind, source)})")
        table[name] = (kind, tuple(range(index + 1, index + 1 + inner)))
        index += 1 + inner
    return re.compile("|".join(parts)), table


@dataclass(slots=True)
class Slots:
    """What one phrase has named so far; each part at most once (both languages)."""

    day: Day | None = None
    period: Period | None = None
    clock: Clock | None = None
    hint: Hint | None = None
    duration: Duration | None = None
    force_end: bool = False
    span: bool = False  # "the next 10 days", 未来三天: a duration read as "within"
    end_of_day: bool = False  # "EOD", "end of day": of today, or of the day named with it
    since: Day | Period | None = None  # a range's start (DeadlineSpec.since)
    range_from: Clock | None = None  # the first clock of a clock range ("3:30-6pm")
    shift: int | None = None  # days to move the day named next ("2 days after …")
    shift_months: int = 0  # months to move it ("two months after next Friday")


# When a part of the day is over, if no clock time is named ("by Thursday evening",
# 后天下午前): the morning at noon, the afternoon at 18:00, the evening at midnight.
PART_OF_DAY_END: Final[dict[Hint, tuple[int, int]]] = {
    Hint.MORNING: (12, 0),
    Hint.NOON: (12, 0),
    Hint.AFTERNOON: (18, 0),
    Hint.EVENING: (24, 0),
}


def set_day(slots: Slots, day: Day | None) -> bool:
    if day is None:
        return False
    if slots.period is not None:
        # "next week, Tuesday", 明年春节: a period that only places the day.
        slots.day, slots.period = _placed(day, slots.period), None
        return slots.day is not None
    slots.day = with_day(slots.day, day)
    return slots.day is not None


def set_period(slots: Slots, period: Period) -> bool:
    if slots.period is not None:
        return False
    if slots.day is not None:
        # "Tuesday, next week", "Christmas next year": the period places the day.
        slots.day = _placed(slots.day, period)
        return slots.day is not None
    slots.period = period
    return True


def _placed(day: Day, period: Period) -> Day | None:
    """A bare weekday in a relative week, a holiday in a relative year; else None (two times)."""
    if not isinstance(period, RelativePeriod):
        return None
    if isinstance(day, Weekday) and day.week is None and period.unit is Unit.WEEK:
        return Weekday(day.weekday, period.offset)
    if isinstance(day, Holiday) and day.year_offset is None and period.unit is Unit.YEAR:
        return Holiday(day.name, period.offset)
    if isinstance(day, CalendarDate) and day.year is None and day.year_offset is None:
        # 明年1月5日, 今年3月20日前: that year's date.
        yearly = period.unit is Unit.YEAR
        return CalendarDate(day.month, day.day, None, year_offset=period.offset) if yearly else None
    return None


def range_start(start: Slots) -> Day | Period | None:
    """What a range's start names when it is one day or one period alone ("Monday" in
    "Monday to Friday", 十二月 in 十二月至一月), else None (a clock range is read apart)."""
    if start.clock is not None or start.duration is not None or start.hint is not None:
        return None
    if start.since is not None or (start.day is None) == (start.period is None):
        return None
    return start.day if start.day is not None else start.period


def ranged(spec: DeadlineSpec | None, since: Day | Period | None) -> DeadlineSpec | None:
    """`spec` as the end of a range that starts at `since` (None: not a range).

    A range ends at the end of its last day or period, or at its clock time; a length
    or a 12-hour clock still to be settled cannot end one.
    """
    if spec is None or since is None:
        return spec
    if spec.within is not None or spec.either_half:
        return None
    return msgspec.structs.replace(spec, edge=Edge.END, since=since)


def set_hint(slots: Slots, hint: Hint) -> bool:
    if slots.hint not in {None, hint}:
        return False
    slots.hint = hint
    return True


# Lengths that add up as elapsed time ("a day and 5 hours"): seconds in each unit. A
# week, month or year is a calendar length, never added to another.
_ELAPSED: Final[dict[Unit, int]] = {
    Unit.SECOND: 1,
    Unit.MINUTE: 60,
    Unit.HOUR: 3600,
    Unit.DAY: 86400,
}


def add_duration(slots: Slots, duration: Duration) -> bool:
    """Name a length, or add a finer one to the length named ("1 day and 5 hours").

    The sum is counted in the finer unit, so a day with hours is 24 elapsed hours plus
    them (DESIGN section 4 counts hours as elapsed time), never a calendar day.
    """
    current = slots.duration
    if current is None:
        slots.duration = duration
        return True
    coarse, fine = _ELAPSED.get(current.unit), _ELAPSED.get(duration.unit)
    if coarse is None or fine is None or fine >= coarse:
        return False
    slots.duration = Duration(current.amount * (coarse // fine) + duration.amount, duration.unit)
    return True
