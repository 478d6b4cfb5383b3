"""The English deadline grammar (DESIGN section 4): a strict parser over the lexer's tokens.

A phrase is an optional marker ("by", "before", "until", "no later than", "on or
before", "within") followed by one to three items: a day ("tomorrow", "next Friday",
"Dec 1st"), a period ("next week", "the end of the month"), a clock time ("5pm",
"14:30", "noon") and a part of the day ("tonight", "in the evening"). Items may be
joined by "at", "on", "," or an inner "by"/"before" before a clock ("tomorrow before
5pm"). Anything else, or any combination that could mean two instants, reads as
None: the proposal keeps its terms and gets no deadline.

The words and the lexer are in `english_lexicon.py`; this module turns tokens into a
calendar-free `DeadlineSpec` (spec first, evaluated later by `resolve.py`).
"""

from __future__ import annotations

import functools
from typing import Final

from core.deadlines import grammar as g
from core.deadlines.english_lexicon import (
    DAYPARTS,
    HOLIDAYS,
    MONTHS,
    SHORT_ENDS,
    UNITS,
    WEEKDAYS,
    EnToken,
    Kind,
    holiday_key,
    lex,
    normalize,
)
from core.deadlines.numerals import en_number, en_ordinal

# Items that name a time by themselves; a run made only of others ("3 days", "at 3",
# "December", "in the morning") is not deadline wording unless a marker leads it.
_STRONG: Final = frozenset(
    {
        Kind.ISO,
        Kind.MDY,
        Kind.DMY,
        Kind.DAYWORD,
        Kind.WEEKDAY,
        Kind.DOM,
        Kind.SPAN,
        Kind.SHORT_END,
        Kind.END_UNIT,
        Kind.UNIT_END,
        Kind.REL_PERIOD,
        Kind.CLOCK12,
        Kind.CLOCK24,
        Kind.CLOCK_WORD,
        Kind.YMD_NAMED,
        Kind.CLOCK_RANGE,
        Kind.NTH_WEEKDAY,
        Kind.AFTER_DAY,
        Kind.CLOCK_RANGE_PART,
        Kind.DATE_SPAN,
        Kind.ORDINAL_MONTH,
    }
)
_CLOCKS: Final = frozenset(
    {
        *(Kind.CLOCK12, Kind.CLOCK24, Kind.CLOCK_WORD, Kind.AT_HOUR, Kind.CLOCK_PAST),
        *(Kind.CLOCK_RANGE, Kind.CLOCK_COMPACT, Kind.CLOCK_RANGE_PART),
    }
)
_RANGES: Final = frozenset({Kind.RANGE_FROM, Kind.RANGE_TO})
# Markers that may also stand inside a run, before its clock: "tomorrow before 5pm",
# "Feb 1st no later than 6pm"; "and" only between two lengths ("a day and 5 hours").
_INNER_BEFORE_CLOCK: Final = frozenset(
    {"by", "before", "at", "no later than", "not later than", "until", "till"}
)
# Markers read as "before": the start of a day or period, a clock time itself.
_PART_ALONE: Final = frozenset({"by", "until", "till", "no later than", "not later than"})
_BEFORE: Final = frozenset({"before", "prior to", "in advance of", "ahead of"})
# A span from now ("between now and eight o'clock"): like 从现在到八点, its 12-hour clock
# without am/pm is the next time the clock shows it (DESIGN section 4: a range's end).
_FROM_NOW: Final = frozenset(
    {"between now and", "from now until", "from now till", "from now to", "from now through"}
)
_JOINERS: Final = frozenset({Kind.MARKER, Kind.CONNECTOR})
_PERIOD_ENDS: Final = frozenset({Kind.END_UNIT, Kind.UNIT_END})
_ABBREVIATIONS: Final = tuple(name[:3] for name in WEEKDAYS)


@functools.lru_cache(maxsize=4096)  # find and resolve read the same phrase; phrases recur
def read(phrase: str) -> tuple[g.DeadlineSpec | None, bool]:
    """(spec or None, whether the phrase is deadline wording at all).

    The flag lets `find_deadline_phrase` tell "not about time" (ignore it) from
    "about time but outside the grammar" (then no deadline for the whole terms).
    """
    tokens = lex(normalize(phrase.strip()))
    if not tokens:
        return None, False
    significant = tokens[0].kind is Kind.MARKER or any(_strong(t) for t in tokens)
    # "the end of April": "end of" with something after it names a time.
    significant = significant or any(t.kind is Kind.END_OF for t in tokens[:-1])
    if any(t.kind in _RANGES for t in tokens):
        return _range(tokens)
    spec = _parse(tokens)
    # "at 8 in the evening": a clock a part of the day settles names a time.
    if spec is not None and spec.time is not None and not significant:
        significant = any(t.kind is Kind.DAYPART for t in tokens) and any(
            t.kind in _CLOCKS for t in tokens
        )
    return spec, significant


def _range(tokens: list[EnToken]) -> tuple[g.DeadlineSpec | None, bool]:  # noqa: PLR0911  # one exit per refusal
    """ "from Monday to Friday", "May - December": the end, counted from the start.

    "from" without a second item is a start ("from Friday"), not deadline wording.
    """
    if len(tokens) > 1 and tokens[0].kind is Kind.REL_PERIOD and tokens[1].kind is Kind.RANGE_FROM:
        # "this week from Tue to Thur": both days in that week.
        if UNITS[tokens[0].groups[1] or ""] is not g.Unit.WEEK:
            return None, True
        return _in_week(_range(tokens[1:])[0], _relative_offset(tokens[0].groups[0] or "")), True
    between = tokens[0].text == "between"
    led = tokens[0].kind is Kind.RANGE_FROM
    if led:
        tokens = tokens[1:]
    # "from Friday until Sunday": after "from", "until" / "till" end the range too.
    cuts = [
        index
        for index, token in enumerate(tokens)
        if token.kind in _RANGES
        or (led and token.kind is Kind.MARKER and token.text in {"until", "till"})
    ]
    if not cuts:
        if any(t.kind is Kind.DATE_SPAN for t in tokens):
            return _parse(tokens), True  # "from November 19 to 20": a range in one item
        return None, False
    cut = cuts[0]
    if len(cuts) > 1 or not 0 < cut < len(tokens) - 1 or tokens[cut].kind is Kind.RANGE_FROM:
        return None, True
    if between != (tokens[cut].text == "and"):
        return None, True  # "between" takes "and", and "and" ends a range only after it
    return _range_ends(tokens[:cut], tokens[cut + 1 :]), True


def _range_ends(first: list[EnToken], rest: list[EnToken]) -> g.DeadlineSpec | None:
    """The end of a range whose start is `first` and end `rest` (a range word between)."""
    start = g.Slots()
    if not all(t.kind not in _JOINERS and _fill(start, t) for t in first):
        return None
    start_time = None
    if start.clock is not None and start.day is not None:
        # "Jun 28 5:00 PM - Aug 02 7:00 PM": a day and a clock at both ends; the end
        # clock on the end day, that day counted from the start day.
        start_time = g.clock_time(start.clock, start.hint)
        if start_time is None:
            return None
        start.clock = start.hint = None
    timed = start_time is not None
    since = g.range_start(start)
    end = _parse(rest)
    if start_time is not None:
        if end is None or end.time is None or end.day is None:
            return None
        if end.day == since and end.time <= start_time:
            return None  # "from tomorrow 5pm to tomorrow 9am": an end before its start
    if end is None and len(rest) == 1 and rest[0].kind is Kind.MONTH:
        # "May to December": a month alone ends a range (it needs "by" on its own).
        month = g.Slots()
        end = g.DeadlineSpec(period=month.period) if _fill(month, rest[0]) else None
    if since is None or end is None or (end.time is not None and not timed):
        return None
    if isinstance(end.day, g.Weekday) and isinstance(since, g.Weekday) and since.week is None:
        # "from Tuesday to Thursday this week": the week said once holds for both days.
        since = g.Weekday(since.weekday, end.day.week)
    return g.ranged(end, since)


def _relative_offset(word: str) -> int:
    """0 for "this", "the current"; 1 for "next", "the following", "(this) coming"."""
    return 0 if word in {"this", "the current", "current"} else 1


def _in_week(spec: g.DeadlineSpec | None, week: int) -> g.DeadlineSpec | None:
    """A range of two bare weekdays placed in this (0) or next (1) week; else None."""
    if spec is None or spec.time is not None:
        return None
    since, end = spec.since, spec.day
    if not (isinstance(since, g.Weekday) and since.week is None):
        return None
    if not (isinstance(end, g.Weekday) and end.week is None):
        return None
    return g.ranged(
        g.DeadlineSpec(day=g.Weekday(end.weekday, week)), g.Weekday(since.weekday, week)
    )


def _strong(token: EnToken) -> bool:  # noqa: PLR0911  # one exit per kind of token
    # A numeric date is not wording by itself ("the score was 23/12", "3/4 of it"): it
    # needs a marker ("by 23/12") or a clock ("23/12 before 5pm").
    kind, groups = token.kind, token.groups
    if kind is Kind.DAYWORD and token.text.startswith("next"):
        return False  # "next day delivery" names no deadline; "by next day" does
    if kind in _STRONG:
        return True
    if kind is Kind.DURATION:
        return bool(groups[0] or groups[5])  # "in 3 days", "3 days from now"
    if kind is Kind.MONTH:
        return bool(groups[0] or groups[1])  # "in December", "next March"
    if kind is Kind.HOLIDAY:
        return bool(groups[0])  # "on Christmas"
    if kind is Kind.WEEKDAY_ABBR:
        return bool(groups[0] or groups[1])  # "on Tue", "next Fri"
    if kind is Kind.CLOCK_PAST:
        return bool(groups[3] or groups[4])  # "quarter to eight pm", "quarter to noon"
    if kind is Kind.QUARTER_HOUR or kind is Kind.DURATION_SEQ:
        return bool(groups[0])  # "in a quarter of an hour", "in 1d 2hr 5min"
    if kind is Kind.CLOCK_COMPACT:
        return bool(groups[2])  # "330 p.m."
    return False


def _parse(tokens: list[EnToken]) -> g.DeadlineSpec | None:  # noqa: C901, PLR0911, PLR0912  # one flat grammar check reads best
    if not tokens:
        return None
    marker = _marker(tokens)
    edge = g.Edge.START if marker in _BEFORE else g.Edge.END
    rest = tokens if marker is None else tokens[1:]
    if not rest:
        return None
    if marker == "within" and any(t.kind is Kind.REL_PERIOD and "coming" in t.text for t in rest):
        return None  # "within the coming week": seven days, or the end of next week
    slots = g.Slots()
    for index, token in enumerate(rest):
        after = rest[index + 1] if index + 1 < len(rest) else None
        if token.kind in _JOINERS:
            # Inner joiners: "tomorrow before 5pm", "by 5pm on Friday", "at noon".
            word = " ".join(token.text.split()).replace("@", "at")  # "tomorrow @ noon"
            if after is None:
                return None
            if word == "and":
                if slots.duration is None or after.kind is not Kind.DURATION:
                    return None
            elif word != "on" and (word not in _INNER_BEFORE_CLOCK or after.kind not in _CLOCKS):
                return None
            continue
        if token.kind is Kind.END_OF and (after is None or after.kind in _CLOCKS):
            return None
        if not _fill(slots, token):
            return None
    if slots.shift is not None:
        # "2 days after next Friday": a day, moved; nothing else.
        if not isinstance(slots.day, g.RelativeDay | g.Weekday | g.CalendarDate | g.Holiday):
            return None
        if slots.clock is not None or slots.hint is not None or slots.period is not None:
            return None
        slots.day = g.Shifted(slots.day, slots.shift, slots.shift_months)
    if slots.since is not None:
        return _date_span_end(slots, edge, marker)
    if slots.end_of_day:
        if slots.period is not None or slots.clock is not None:
            return None
        slots.day = slots.day or g.RelativeDay(0)
    within = marker == "within" or slots.span
    if slots.duration is not None:
        if not within or (slots.day, slots.period, slots.clock, slots.hint) != (None,) * 4:
            return None
        return g.DeadlineSpec(within=slots.duration)
    if within and (slots.clock is not None or slots.hint is not None):
        return None
    if slots.force_end or within:
        edge = g.Edge.END
    if slots.period is not None:
        if slots.day is not None or slots.clock is not None or slots.hint is not None:
            return None
        # "December" or "2027" alone is not deadline wording: it needs "by", "before", "end of".
        named = isinstance(slots.period, g.NamedMonth | g.NamedYear)
        if named and marker in {None, "at", "on"} and not slots.force_end:
            return None
        return g.DeadlineSpec(edge=edge, period=slots.period)
    if slots.clock is not None:
        if slots.force_end:
            return None
        time = g.clock_time(slots.clock, slots.hint)
        if slots.range_from is not None:
            return _clock_range_end(slots, slots.range_from, time)
        if time is None:
            # "today at 3": the reading still to come today (grammar.DeadlineSpec);
            # "between now and eight o'clock": the next time the clock shows it.
            time = g.twelve_hour(slots.clock, slots.hint)
            from_now = marker in _FROM_NOW and slots.day is None
            if (
                time is None
                or slots.clock.second
                or not (from_now or slots.day == g.RelativeDay(0))
            ):
                return None
            return g.DeadlineSpec(day=slots.day, time=time, either_half=True)
        return g.DeadlineSpec(day=slots.day, time=time, seconds=slots.clock.second)
    if slots.day is None:
        # "by morning", "until evening": today's part of the day, a bare word right
        # after a marker that ends it (over: none, as "by this morning").
        if not (marker in _PART_ALONE and len(rest) == 1 and rest[0].kind is Kind.PART_ALONE):
            return None
        slots.day = g.RelativeDay(0)
    if slots.hint is None:
        return g.DeadlineSpec(edge=edge, day=slots.day)
    if edge is g.Edge.START or slots.hint not in g.PART_OF_DAY_END:
        return None  # "before tonight": when the evening starts is a guess
    # "by Thursday evening", "tomorrow morning": when that part of the day is over.
    return g.DeadlineSpec(day=slots.day, time=g.PART_OF_DAY_END[slots.hint])


def _marker(tokens: list[EnToken]) -> str | None:
    """The marker leading a run ("by", "no later than"), one space between its words."""
    if tokens[0].kind not in _JOINERS:
        return None
    marker = " ".join(tokens[0].text.split())
    # "within less than 2 hours", "within under a week": within them.
    return "within" if marker.startswith("within") else marker


def _clock_range_end(
    slots: g.Slots, start: g.Clock, time: tuple[int, int] | None
) -> g.DeadlineSpec | None:
    """The end of "3:30-6pm", "from 10 to 11 at night", "11am to 1am" (DESIGN section 4).

    The start only checks the reading: it takes the end's part of the day, or the end's
    half of the day when it names none. An end not after its start runs past midnight
    only without a day named ("11am to 1am": the next 01:00); with one, none.
    """
    if time is None or start.second or slots.clock is None or slots.clock.second:
        return None
    begins = g.clock_time(start, slots.hint)
    if begins is None:
        hour = start.hour % 12
        if start.meridiem is not None or start.fixed or not 1 <= start.hour <= 12:
            return None
        begins = (hour + 12 if time[0] >= 12 and hour + 12 <= time[0] else hour, start.minute)
    if time <= begins and slots.day is not None:
        return None
    return g.DeadlineSpec(day=slots.day, time=time)


def _fill(slots: g.Slots, token: EnToken) -> bool:  # noqa: C901, PLR0911, PLR0912  # one case per token kind
    kind, groups, text = token
    if kind is Kind.END_OF:
        if slots.force_end:
            return False
        slots.force_end = True
        return True
    if kind is Kind.DAYPART or kind is Kind.PART_ALONE:
        part = next(g for g in groups if g)
        return g.set_hint(slots, DAYPARTS[part])
    if kind is Kind.DURATION or kind is Kind.SPAN:
        return _duration(slots, kind, groups)
    if kind is Kind.SHORT_END:
        slots.force_end = True
        return g.set_period(slots, g.RelativePeriod(SHORT_ENDS[groups[0] or ""], 0))
    if kind is Kind.CLOCK_RANGE or kind is Kind.CLOCK_RANGE_PART:
        if slots.clock is not None:
            return False
        # Six groups for "between … and …", six for the other forms: one set matched.
        h1, m1, mer1, h2, m2, mer2 = groups[:6] if groups[0] is not None else groups[6:]
        first, last = _range_clock(h1, m1, mer1), _range_clock(h2, m2, mer2)
        slots.range_from, slots.clock = g.shared_meridiem(first, last)
        return True
    if kind in _CLOCKS:
        if slots.clock is not None:
            return False
        slots.clock = _clock(kind, groups)
        return slots.clock is not None
    if kind is Kind.AFTER_DAY:
        amount = en_number(groups[0] or "")
        if amount is None or slots.shift is not None or slots.day is not None:
            return False
        unit = groups[1]
        per_unit = {"day": 1, "week": 7, "fortnight": 14}.get(unit or "")
        slots.shift = amount * per_unit if per_unit else 0
        slots.shift_months = amount * (12 if unit == "year" else 1) if not slots.shift else 0
        return True
    if kind is Kind.DATE_SPAN:
        return _date_span(slots, groups)
    if kind is Kind.ORDINAL_MONTH:
        return _ordinal_month(slots, groups)
    if kind is Kind.QUARTER_HOUR:
        slots.span = slots.span or groups[0] is not None
        return g.add_duration(slots, g.Duration(15 if groups[1] else 45, g.Unit.MINUTE))
    if kind is Kind.DURATION_SEQ:
        lead, days, hours, minutes = groups
        slots.span = slots.span or lead is not None
        total = (int(days or 0) * 24 + int(hours or 0)) * 60 + int(minutes or 0)
        return g.add_duration(slots, g.Duration(total, g.Unit.MINUTE))
    if kind in _PERIOD_ENDS:
        slots.force_end = True
        rel, period_unit = groups if kind is Kind.END_UNIT else (None, groups[0])
        return g.set_period(
            slots, g.RelativePeriod(UNITS[period_unit or ""], 1 if rel == "next" else 0)
        )
    if kind is Kind.REL_PERIOD:  # "this week", "next month", "the coming quarter"
        rel = " ".join((groups[0] or "").split())
        return g.set_period(slots, g.RelativePeriod(UNITS[groups[1] or ""], _relative_offset(rel)))
    if kind is Kind.MONTH:
        lead, following, name, year_text = groups
        if lead:
            slots.force_end = True  # "in December": the end of that month
        year = int(year_text) if year_text else None
        month = MONTHS[(name or "").rstrip(".")]
        if following and following.startswith("this"):
            # "this December": this year's, and none once it is over (said in March,
            # "this January" may be the one just past).
            return year is None and g.set_period(slots, g.NamedMonth(month, None, 0))
        if following:
            # "next March": its next occurrence after this month (never this month).
            if year is not None:
                return False
            return g.set_period(slots, g.NamedMonth(month, None, after=True))
        return g.set_period(slots, g.NamedMonth(month, year))
    if kind is Kind.YEAR_MONTH:  # "by 2033-06"
        return g.set_period(slots, g.NamedMonth(int(groups[1] or 0), int(groups[0] or 0)))
    if kind is Kind.YEAR:
        return g.set_period(slots, g.NamedYear(int(groups[0] or 0)))
    if kind is Kind.DAYWORD:
        return _dayword(slots, " ".join(text.split()))
    return g.set_day(slots, _day(kind, groups))


def _duration(slots: g.Slots, kind: Kind, groups: tuple[str | None, ...]) -> bool:  # noqa: C901  # one check per shape of length
    """A length: "3 days", "an hour and a half", "1.5 hours", "the next 10 days"."""
    if kind is Kind.SPAN:
        lead: str | None = "span"
        half_before: str | None = None
        half_after: str | None = None
        amount_group, unit_text = groups
    else:
        lead, amount_group, half_before, unit_text, half_after, from_now = groups
        lead = lead or from_now  # "3 days from now" reads as "in 3 days"
    amount_text, unit = amount_group or "", UNITS[unit_text or ""]
    if unit is g.Unit.SECOND and amount_text in {"a", "an"}:
        return False  # "in a second", "in a sec": an idiom, not a length
    if amount_text.startswith("the"):  # "within the next day"
        amount_text, lead = "1", lead or "span"
    half = bool(half_before or half_after) or amount_text.endswith(".5")
    if amount_text.startswith(("half", "a half", "an half")):
        if half or unit is not g.Unit.HOUR:
            return False
        amount_text, half = "0", True
    amount = en_number(amount_text.removesuffix(".5"))
    if amount is None or (amount == 0 and not half):
        return False
    if unit_text == "fortnight":
        if half:
            return False
        amount *= 2
    if half:
        # Half of an hour is 30 minutes; half a day or a week is not a length anyone agrees on.
        if unit is not g.Unit.HOUR:
            return False
        length = g.Duration(amount * 60 + 30, g.Unit.MINUTE)
    else:
        length = g.Duration(amount, unit)
    slots.span = slots.span or lead is not None
    return g.add_duration(slots, length)


def _dayword(slots: g.Slots, word: str) -> bool:
    if word == "eod" or word.startswith(("end", "the end")):
        if slots.end_of_day:
            return False
        slots.force_end = slots.end_of_day = True
        return True
    if word.startswith("this "):
        return g.set_day(slots, g.RelativeDay(0)) and g.set_hint(slots, DAYPARTS[word[5:]])
    if word == "tonight":
        return g.set_day(slots, g.RelativeDay(0)) and g.set_hint(slots, g.Hint.EVENING)
    # Else "(the) day after tomorrow".
    days = {"today": 0, "tomorrow": 1, "next day": 1}.get(word, 2)
    return g.set_day(slots, g.RelativeDay(days))


def _day(kind: Kind, groups: tuple[str | None, ...]) -> g.Day | None:  # noqa: C901, PLR0911, PLR0912  # one exit per kind of day
    if kind is Kind.NTH_WEEKDAY:
        return _nth_weekday(groups)
    if kind is Kind.YMD_NAMED:
        year_text, month_text, day_text = groups
        month = MONTHS[(month_text or "").rstrip(".")]
        return _date(month, int(day_text or 0), int(year_text or 0))
    if kind is Kind.DOM:
        day_digits, day_words, rel = groups
        day_of_month = int(day_digits) if day_digits else en_ordinal(day_words or "")
        if day_of_month is None or not 1 <= day_of_month <= 31:
            return None
        # "the 26th day of the month": its next occurrence, as a bare "the 26th".
        offset = None if rel == "the" else 1 if rel == "next" else 0
        return g.MonthDay(day_of_month, offset)
    if kind is Kind.HOLIDAY:
        _, rel, name, year_text = groups
        holiday = HOLIDAYS[holiday_key(name or "").removeprefix("the ")]
        if year_text:
            # "Christmas 2027"; "next Christmas 2027" says the year twice.
            return None if rel else g.Holiday(holiday, year=int(year_text))
        return g.Holiday(holiday, after=rel == "next")
    if kind is Kind.NUMERIC:
        return _numeric(groups)
    if kind is Kind.DOM_BARE:
        day_of_month = int(groups[0] or 0)
        return g.MonthDay(day_of_month, None) if 1 <= day_of_month <= 31 else None
    if kind is Kind.WEEKDAY_ABBR:
        _, rel, abbreviation = groups
        return _weekday(_ABBREVIATIONS.index((abbreviation or "")[:3]), rel)
    if kind is Kind.WEEKDAY:
        prefix, name, suffix = groups
        if prefix and suffix:
            return None
        return _weekday(WEEKDAYS.index(name or ""), prefix or suffix)
    if kind is Kind.ISO or kind is Kind.ISO_DOTTED:
        year, month, day = (int(g or 0) for g in groups)
        return _date(month, day, year)
    if kind is Kind.MDY:
        following, month_text, day_digits, day_words, year_text = groups
    else:
        following, day_digits, day_words, month_text, year_text = groups
    month = MONTHS[(month_text or "").rstrip(".")]
    day_of_month = int(day_digits) if day_digits else en_ordinal(day_words or "")
    if day_of_month is None or (following and year_text):
        return None
    in_year = full_year(year_text) if year_text else None
    date = _date(month, day_of_month, in_year)
    # "next 6th of April": its next occurrence after today (as "next March").
    return g.CalendarDate(date.month, date.day, None, after=True) if date and following else date


def _ordinal_month(slots: g.Slots, groups: tuple[str | None, ...]) -> bool:
    """ "the 3rd month next year", "the third month of 2028": that month (as "March 2028")."""
    digits, words, rel, year_text = groups
    month = int(digits) if digits else en_ordinal(words or "")
    if month is None or not 1 <= month <= 12:
        return False
    if year_text:
        return g.set_period(slots, g.NamedMonth(month, int(year_text)))
    return g.set_period(slots, g.NamedMonth(month, None, _relative_offset(rel or "")))


def _weekday(weekday: int, rel: str | None) -> g.Day:
    """A weekday by its word before it: none, "this", "next", "(this) coming"."""
    if rel is None:
        return g.Weekday(weekday, None)
    if rel in {"this", "next"}:
        return g.Weekday(weekday, 1 if rel == "next" else 0)
    # "this coming Friday": the next one after today (on a Friday, a week later): the
    # next occurrence, today included, of the day before, moved by one day.
    return g.Shifted(g.Weekday((weekday - 1) % 7, None), 1)


def _date_span_end(slots: g.Slots, edge: g.Edge, marker: str | None) -> g.DeadlineSpec | None:
    """ "by November 19 to 20": the end of its last day, and nothing else with it."""
    if edge is g.Edge.START or marker == "within" or slots.shift is not None:
        return None
    if (slots.clock, slots.hint, slots.period, slots.duration) != (None,) * 4:
        return None
    return g.ranged(g.DeadlineSpec(day=slots.day), slots.since)


def _date_span(slots: g.Slots, groups: tuple[str | None, ...]) -> bool:
    """ "November 19 to 20", "19-20 Nov 2027": the second day, counted from the first."""
    month_first, first, last, first_b, last_b, month_last, year_text = groups
    month = MONTHS[(month_first or month_last or "").rstrip(".")]
    year = int(year_text) if year_text else None
    start = _date(month, int(first or first_b or 0), year)
    end = _date(month, int(last or last_b or 0), year)
    if start is None or end is None or end.day <= start.day or slots.since is not None:
        return False
    slots.since = start
    return g.set_day(slots, end)


_NTH: Final = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "last": -1}


def _nth_weekday(groups: tuple[str | None, ...]) -> g.Day | None:
    """ "the last Friday of March", "the first Monday of next month", "the last day of March"."""
    nth_text, weekday_text, month_text, year_text, rel = groups
    nth = _NTH.get(nth_text or "") or int((nth_text or "0")[:1])
    weekday = None if weekday_text == "day" else WEEKDAYS.index(weekday_text or "")
    if weekday is None and nth != -1 and nth_text != "first":
        # "the third day of March" is March 3; of "this / next month", a day of it.
        if rel is not None:
            return g.MonthDay(nth, 1 if rel == "next" else 0)
        return _date(MONTHS[(month_text or "").rstrip(".")], nth, int(year_text or 0) or None)
    if rel is not None:
        return g.NthWeekday(0, nth, weekday, month_offset=1 if rel == "next" else 0)
    month = MONTHS[(month_text or "").rstrip(".")]
    return g.NthWeekday(month, nth, weekday, int(year_text) if year_text else None)


def _range_clock(hour: str | None, minute: str | None, meridiem: str | None) -> g.Clock:
    """One end of a clock range: "09:30" fixes a 24-hour reading, "9:30" does not."""
    return g.Clock(
        int(hour or 0),
        int(minute or 0),
        meridiem=meridiem,
        fixed=meridiem is None and minute is not None and len(hour or "") == 2,
    )


def _date(month: int, day: int, year: int | None) -> g.CalendarDate | None:
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    return g.CalendarDate(month, day, year)


def full_year(digits: str) -> int:
    """A year as written; two digits by the POSIX pivot (`strptime`'s %y): 00-68 are
    this century's ("09/18/27": 2027), 69-99 the last one's ("10-27-90": 1990, over,
    so no deadline, not 2090)."""
    year = int(digits)
    if len(digits) != 2:
        return year
    return year + (2000 if year < 69 else 1900)


def _numeric(groups: tuple[str | None, ...]) -> g.CalendarDate | None:
    """23/12 (day first) or 12/23 (month first): only where one number is above 12."""
    first, second = int(groups[0] or 0), int(groups[1] or 0)
    year_text = groups[2] or ""
    year = full_year(year_text) if year_text else None
    if first > 12 >= second:
        return _date(second, first, year)
    if second > 12 >= first:
        return _date(first, second, year)
    return None  # 12/1: 1 December or 12 January, by country


def _minutes(digits: str | None, words: str | None) -> int | None:
    if words is not None:
        return en_number(words.replace(" ", "-"))
    return int(digits or 0)


def _clock(kind: Kind, groups: tuple[str | None, ...]) -> g.Clock | None:  # noqa: PLR0911  # one exit per kind of clock
    if kind is Kind.CLOCK_WORD:
        return g.Clock(12, 0, fixed=True) if groups[0] != "midnight" else g.Clock(24, 0, fixed=True)
    if kind is Kind.CLOCK12:
        hour_text, minute_digits, second_digits, minute_words, meridiem, compact = groups
        hour, minute = en_number(hour_text or ""), _minutes(minute_digits, minute_words)
        if hour is None or minute is None:
            return None
        return g.Clock(hour, minute, meridiem=meridiem or compact, second=int(second_digits or 0))
    if kind is Kind.CLOCK24:
        hour_text, minute_text, second_text = groups
        # "09:30" or "17:00" fixes a 24-hour reading; "5:30" could be either half of the day.
        return g.Clock(
            int(hour_text or 0),
            int(minute_text or 0),
            fixed=len(hour_text or "") == 2,
            second=int(second_text or 0),
        )
    if kind is Kind.CLOCK_PAST:
        return _clock_past(groups)
    if kind is Kind.CLOCK_COMPACT:
        hour_text, minute_text, meridiem = groups
        return g.Clock(int(hour_text or 0), int(minute_text or 0), meridiem=meridiem)
    at_hour, at_digits, at_words, oclock_hour, bare_hour, bare_digits, bare_words, comma = groups
    hour = en_number(at_hour or oclock_hour or bare_hour or comma or "")
    minute = _minutes(at_digits or bare_digits, at_words or bare_words)
    return None if hour is None or minute is None else g.Clock(hour, minute)


def _clock_past(groups: tuple[str | None, ...]) -> g.Clock | None:
    """ "quarter to eight" (7:45), "half past 7", "ten after five": an hour on a 12-hour clock."""
    minutes_text, direction, hour_text, noon, meridiem = groups
    words = {"quarter": 15, "half": 30}
    minutes = words.get(minutes_text or "") or en_number(minutes_text or "")
    if noon is not None and minutes is not None and 1 <= minutes <= 59 and meridiem is None:
        # "a quarter to noon" 11:45, "a quarter past noon" 12:15, "ten to midnight" 23:50.
        base = 12 * 60 if noon == "noon" else 24 * 60
        at = base - minutes if direction == "to" else base + minutes
        return g.Clock(at // 60 % 24, at % 60, fixed=True)
    hour = en_number(hour_text or "")
    if minutes is None or hour is None or not 1 <= minutes <= 59 or not 1 <= hour <= 12:
        return None
    if direction != "to":
        return g.Clock(hour, minutes, meridiem=meridiem)
    if minutes == 30 or (hour == 12 and meridiem):
        return None  # "half to eight" is no English clock; "quarter to 12 pm" is a riddle
    # The hour before: "quarter to one" is 12:45, on the same half of the day.
    return g.Clock(hour - 1 if hour > 1 else 12, 60 - minutes, meridiem=meridiem)
