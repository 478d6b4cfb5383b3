"""The Chinese deadline grammar (DESIGN section 4): a strict parser over the lexer's tokens.

A phrase is an optional lead (截止到, 截至, 最晚, 在, 到 …), then a day (明天, 下周五,
12月1日, 下月15号), a period (本周, 下个月, 月底, 年底, 周末), a part of the day
(下午, 晚上) and a clock time (3点半, 18:00), in that natural order, then an optional
end marker: 前 / 之前 / 以前 / 为止 (the end of the day or period, or the instant of a
clock time) or 内 / 之内 / 以内 (within a duration, or by the end of a day or period).

A duration followed by 前 ("三天前") is a date in the past, not a deadline, and is
read as no wording at all. Anything else outside the grammar reads as None.

The words and the lexer are in `chinese_lexicon.py`; this module turns tokens into a
calendar-free `DeadlineSpec` (spec first, evaluated later by `resolve.py`).
"""

from __future__ import annotations

import functools
from typing import Final

from core.deadlines import grammar as g
from core.deadlines import holidays
from core.deadlines.chinese_lexicon import (
    DAYPARTS,
    DAYWORDS,
    HOLIDAYS,
    LEAD,
    TAIL,
    TRADITIONAL,
    UNITS,
    WEEKDAY_CHARS,
    Kind,
    ZhToken,
    lex,
)
from core.deadlines.numerals import zh_number

_STRONG_LEADS: Final = frozenset({"截止到", "截止", "截至", "最晚", "最迟", "不晚于", "不迟于"})
# Holidays that name a day without a marker only where they cannot be read otherwise:
# 国庆 is also a given name, 五一 also a number.
# 元宵 is also the dumpling, 重阳 a given name, 六一 a number, 过年 a verb, 新年 and 清明
# words of other senses.
_NOT_BARE_HOLIDAYS: Final = frozenset(
    {"国庆", "五一", "六一", "十一国庆", "元宵", "重阳", "过年", "新年", "清明"}
)
_YEAR_OFFSETS: Final = {"今": 0, "明": 1, "次": 1, "来": 1, "翌": 1, "后": 2}
_BEFORE_TAILS: Final = frozenset({"之前", "以前", "前", "为止"})
_CLOCK_KINDS: Final = frozenset({Kind.CLOCK, Kind.CLOCK24, Kind.MIDNIGHT, Kind.BARE_HOUR})
_STRONG: Final = frozenset(
    {
        Kind.NTH_WEEKDAY,
        Kind.ISO,
        Kind.DATE,
        Kind.MONTH_DAY_REL,
        Kind.MONTH_END,
        Kind.YEAR_END,
        Kind.WEEKEND,
        Kind.WEEKDAY,
        Kind.REL_WEEK,
        Kind.REL_MONTH,
        Kind.REL_YEAR,
        Kind.DAYWORD,
        Kind.SPAN,
        Kind.SPAN_LEAD,
        Kind.FROM_NOW,
        Kind.MONTH_DAY,
        Kind.CLOCK24,
        Kind.MIDNIGHT,
    }
)


@functools.lru_cache(maxsize=4096)  # find and resolve read the same phrase; phrases recur
def read(phrase: str) -> tuple[g.DeadlineSpec | None, bool]:  # noqa: PLR0911  # one exit per refusal
    """(spec or None, whether the phrase is deadline wording at all); see deadline_english."""
    text = phrase.strip().translate(TRADITIONAL)
    lead = LEAD.match(text)
    tail = TAIL.search(text, 0 if lead is None else lead.end())
    tokens = lex(text, 0 if lead is None else lead.end(), None if tail is None else tail.start())
    if not tokens:
        return None, False
    lead_word = lead.group(1) if lead is not None else None
    tail_word = tail.group(1) if tail is not None else None
    if lead_word is None and tail_word is None and _bare_holiday_elsewhere(tokens):
        return None, False
    landed = _length_before_date(tokens)
    if landed is None:
        return None, True  # 2年后的周五, 3周后3月5号: where the length lands is not said
    length, tokens = landed
    split = _range_split(tokens)
    if split is None:
        return None, True  # two ranges, or one that does not join two clock times
    start, tokens = split
    if lead_word == "从" and not start:
        return None, False  # 从明天: a start, not an end (从下午5点到6点 is a range)
    slots = g.Slots()
    filled = all(_fill(slots, token) for token in tokens)
    if start:
        filled = filled and _from_start(slots, start)
    filled = filled and slots.shift is None  # 次日 outside a clock range: the day after what?
    filled = filled and (length is None or (not start and _land(slots, length)))
    filled = filled and not _length_after_from_now(tokens)
    if slots.duration is not None and tail_word is not None and tail_word not in _WITHIN_TAILS:
        return None, False  # "三天前" is three days ago: a past date, not a deadline
    from_now = lead_word is not None and lead_word.startswith("从现在")
    marked = tail_word is not None or lead_word in _STRONG_LEADS or from_now
    # A holiday alone names its day (元旦交报告); beside other words it may not (元旦晚会).
    # 情人节晚上 too (a part of the day in two characters: 元旦晚会 is an event).
    # With its year (2028年春节) it is as much alone.
    named = tokens[1:] if len(tokens) > 1 and tokens[0].kind is Kind.YEAR_NAMED else tokens
    alone = named[0].kind is Kind.HOLIDAY and all(
        (t.kind is Kind.DAYPART and len(t.text) == 2) or t.kind is Kind.THAT_DAY for t in named[1:]
    )
    significant = marked or alone or any(_strong(t) for t in tokens) or _clear_clock(slots)
    significant = significant or slots.since is not None  # 十二月至一月: a range of months
    if not filled or ("傍晚" in text and slots.clock is None):
        return None, significant  # when dusk is over is a guess
    if tail_word in _WITHIN_TAILS and any(_bare_month(t) for t in tokens):
        return None, significant  # 三月内: March, or (colloquially) three months
    holiday = any(t.kind is Kind.HOLIDAY for t in tokens)
    spec = _spec(slots, tail_word, from_now=from_now, holiday=holiday)
    return g.ranged(spec, slots.since), significant


_WITHIN_TAILS: Final = frozenset({"之内", "以内", "内"})
# Lengths that count from now with 后 (一年半后), and otherwise need 内 or a lead.
_FROM_NOW_WHEN_AFTER: Final = frozenset(
    {Kind.HALF_DURATION, Kind.QUARTER_HOURS, Kind.HALF_YEAR, Kind.MINUTES_AFTER}
)


def _range_split(tokens: list[ZhToken]) -> tuple[list[ZhToken], list[ZhToken]] | None:
    """(the range's start, its end) of 下午5点-7点 or 周三至周五; ([], tokens) without a range."""
    cuts = [index for index, token in enumerate(tokens) if token.kind is Kind.RANGE]
    if not cuts:
        return [], tokens
    cut = cuts[0]
    if len(cuts) > 1 or cut == 0:
        return None
    return tokens[:cut], tokens[cut + 1 :]


def _from_start(slots: g.Slots, start_tokens: list[ZhToken]) -> bool:  # noqa: C901, PLR0911, PLR0912  # one exit per refusal
    """Complete a range's end from its start (DESIGN section 4: a range ends at its end).

    Days (周三至周五, 6月12号到7月3号): the end, a next occurrence counted from the
    start (`DeadlineSpec.since`). Clock times (下午5点-7点 is 17:00 to 19:00): the end
    takes the start's day, part of the day and am/pm when it names none (1点pm到3点),
    and the start the end's (3点-5点PM); an end not after its start runs past midnight
    only from an evening start into the small hours or morning the end names
    (晚上11点~凌晨2点: 02:00 the next day); any other end before its start (晚上10点到6点,
    as often quiet hours as one night) is refused.
    """
    start = g.Slots()
    if not all(_fill(start, token) for token in start_tokens):
        return False
    if start.clock is None:
        since = g.range_start(start)
        if since is None or slots.duration is not None:
            return False
        slots.since = since
        return True
    if start.period is not None or start.duration is not None or slots.clock is None:
        return False
    start.clock, slots.clock = g.shared_meridiem(start.clock, slots.clock)
    if slots.shift is not None:  # 晚上10点到次日凌晨2点: the day after the start's
        slots.shift = None
        slots.day = _next_day(start.day)
        return slots.day is not None and g.clock_time(slots.clock, slots.hint) is not None
    if slots.day is None:
        slots.day = start.day
    elif start.day is not None and start.day != slots.day:
        return True  # 今晚10点到明早6点: another day, after it
    named_hint = slots.hint is not None
    if not named_hint and g.clock_time(slots.clock, None) is None:
        slots.hint = start.hint
        if start.hint is g.Hint.MORNING and slots.clock.hour == 12:
            slots.hint = g.Hint.NOON  # 上午10点到12点: the morning runs to noon
    begins = g.clock_time(start.clock, start.hint)
    ends = g.clock_time(slots.clock, slots.hint)
    if begins is None:
        # 9点到下午1点: a start without am/pm before an end that has one stands when its
        # earlier reading is before the end (the deadline is the end either way).
        early = g.twelve_hour(start.clock, start.hint)
        return ends is not None and early is not None and early < ends
    if ends is not None and ends > begins:
        return True
    # Past midnight: only from the evening into the small hours or morning the end names
    # (晚上11点~凌晨2点); a bare end (晚上10点到6点) stays refused, as often quiet hours.
    hint = slots.hint if named_hint else None
    # From the afternoon only into the small hours the end names (下午5点到凌晨3点); into a
    # morning (下午5点到上午10点) it may as well be the next day's working hours.
    evening = start.hint is g.Hint.EVENING or begins >= (18, 0)
    if not evening and not (start.hint is g.Hint.AFTERNOON and hint is g.Hint.EARLY):
        return False
    if hint not in {g.Hint.EARLY, g.Hint.MORNING} or g.clock_time(slots.clock, hint) is None:
        return False
    if slots.day is None:
        slots.day = g.RelativeDay(1)
    elif isinstance(slots.day, g.RelativeDay):
        slots.day = g.RelativeDay(slots.day.days + 1)
    else:
        return False
    slots.hint = hint
    return True


def _length_before_date(
    tokens: list[ZhToken],
) -> tuple[g.Duration | None, list[ZhToken]] | None:
    """(the length, the tokens after it) of 2年后3月5号 or 3个月后10号: a date after a
    length from now; (None, tokens) where none is; None where a length from now is
    followed by a day it cannot place (3周后周五, 3个星期后的周五)."""
    if len(tokens) < 2 or tokens[1].kind not in _DATED_AFTER_LENGTH:
        return None, tokens
    first = tokens[0]
    from_now = (first.kind is Kind.FROM_NOW and first.groups[2] is None) or (
        first.kind is Kind.HALF_YEAR and first.groups[-1] is not None
    )
    if not from_now:
        return None, tokens
    scratch = g.Slots()
    if not _length(scratch, first.kind, first.groups) or scratch.duration is None:
        return None
    return scratch.duration, tokens[1:]


# What a length from now may place: a date without its year, a day of the month.
_DATED_AFTER_LENGTH: Final = frozenset({Kind.DATE, Kind.MONTH_DAY})


def _land(slots: g.Slots, length: g.Duration) -> bool:
    """Place the day after a length from now in the year or month the length lands in
    (2年后3月5号: 3 March two years on, even before the day it lands on; 3个月后10号,
    半年后21号: the 10th, the 21st of the month it lands in). Only whole years place a
    date (半年后3月5号: which year?), whole months or years a day of the month."""
    day = slots.day
    if length.unit is g.Unit.YEAR:
        months = 12 * length.amount
    elif length.unit is g.Unit.MONTH:
        months = length.amount
    else:
        return False  # 3天后10号, 3周后5号: not in the grammar
    if isinstance(day, g.CalendarDate) and day.year is None and day.year_offset is None:
        if length.unit is not g.Unit.YEAR or day.after:
            return False
        slots.day = g.CalendarDate(day.month, day.day, None, year_offset=length.amount)
        return True
    if isinstance(day, g.MonthDay) and day.month_offset is None:
        slots.day = g.MonthDay(day.day, months)
        return True
    return False


def _length_after_from_now(tokens: list[ZhToken]) -> bool:
    """3天后5分钟内: a length after one counted from now (后) adds to nothing it names."""
    counted = False
    for token in tokens:
        if counted and token.kind in _LENGTH_KINDS:
            return True
        # FROM_NOW's first alternative, 再过N…, leads a sum (再过1天5小时); N…后 ends one.
        ends = token.kind is Kind.FROM_NOW and token.groups[2] is None
        halves = token.kind in _FROM_NOW_WHEN_AFTER and token.groups[-1] is not None
        counted = counted or ends or halves
    return False


def _next_day(day: g.Day | None) -> g.Day | None:
    """The day after `day` (today when none is named), or None where it cannot be said."""
    if day is None:
        return g.RelativeDay(1)
    if isinstance(day, g.RelativeDay):
        return g.RelativeDay(day.days + 1)
    if isinstance(day, g.Weekday | g.CalendarDate | g.MonthDay | g.Holiday):
        return g.Shifted(day, 1)
    return None


def _bare_holiday_elsewhere(tokens: list[ZhToken]) -> bool:
    """国庆 or 五一 alone, unmarked: a name or a number as often as the holiday."""
    return any(t.kind is Kind.HOLIDAY and t.groups[0] in _NOT_BARE_HOLIDAYS for t in tokens)


def _bare_month(token: ZhToken) -> bool:
    """A month with neither year nor 份 (三月): with 内 it may mean three months."""
    return (
        token.kind is Kind.MONTH_NAMED
        and token.groups[:2] == (None, None)
        and "份" not in token.text
    )


def _strong(token: ZhToken) -> bool:
    # A bare 周末 is as often "at weekends" (周末不讨论工作) as "by this weekend": it
    # needs a marker (周末前) or a week (这周末) to be deadline wording.
    if token.kind is Kind.WEEKEND:
        return token.groups[0] is not None
    if token.kind is Kind.REL_QUARTER:  # 季度 alone is "quarterly" (季度报告)
        return token.groups[0] is not None or token.groups[1] is not None
    if token.kind in _FROM_NOW_WHEN_AFTER:
        return token.groups[-1] is not None  # 一个半小时后, 一刻钟后: from now
    if token.kind is Kind.MONTH_NAMED:
        # 明年九月, 2027年6月, 3月份 name a time; 三月 alone may be a plan's setting
        # (我三月去北京) and needs a marker.
        return token.groups[0] is not None or token.groups[1] is not None or "份" in token.text
    return token.kind in _STRONG


def _clear_clock(slots: g.Slots) -> bool:
    # "下午3点" names a time; "一点" alone is as likely "a little" as one o'clock.
    return slots.clock is not None and g.clock_time(slots.clock, slots.hint) is not None


def _spec(  # noqa: C901, PLR0911, PLR0912  # one exit per grammar rule
    slots: g.Slots, tail: str | None, *, from_now: bool, holiday: bool
) -> g.DeadlineSpec | None:
    within = tail in {"之内", "以内", "内"}
    if slots.duration is not None:
        if not (within or (slots.span and tail is None)):
            return None
        if (slots.day, slots.period, slots.clock, slots.hint) != (None,) * 4:
            return None
        return g.DeadlineSpec(within=slots.duration)
    if slots.period is not None:
        if slots.day is not None or slots.clock is not None or slots.hint is not None:
            return None
        return g.DeadlineSpec(period=slots.period)
    if slots.clock is not None:
        if within:
            return None
        time = g.clock_time(slots.clock, slots.hint)
        if time is not None:
            return g.DeadlineSpec(day=slots.day, time=time)
        # 三点 without 上午 / 下午: only today's (the reading still to come) or from now
        # (the next one) is settled by the calendar (grammar.DeadlineSpec.either_half).
        time = g.twelve_hour(slots.clock, slots.hint)
        today = slots.day == g.RelativeDay(0)
        if time is None or not (today or (from_now and slots.day is None)):
            return None
        return g.DeadlineSpec(day=slots.day, time=time, either_half=True)
    if slots.hint is g.Hint.NOON:  # 中午 alone is noon: "明天中午前"
        return None if within else g.DeadlineSpec(day=slots.day, time=(12, 0))
    if slots.day is None:
        return None
    if isinstance(slots.day, g.Holiday) or (holiday and isinstance(slots.day, g.CalendarDate)):
        if slots.hint is not None:
            # 情人节晚上: when that part of the holiday is over, as any day's.
            end = g.PART_OF_DAY_END.get(slots.hint)
            return None if end is None else g.DeadlineSpec(day=slots.day, time=end)
        # 国庆节前, 中秋节之前, 到春节为止: a holiday is an event, the deadline is when it
        # begins (节前), not the end of its day; named alone (元旦交报告), its day's end.
        if tail in _BEFORE_TAILS:
            return g.DeadlineSpec(edge=g.Edge.START, day=slots.day)
        return g.DeadlineSpec(day=slots.day)
    if slots.hint is None or slots.hint is g.Hint.EVENING:
        return g.DeadlineSpec(day=slots.day)
    end = g.PART_OF_DAY_END.get(slots.hint)
    # 后天下午前, 周五早上: when that part of the day is over (凌晨 has no agreed end).
    return None if end is None else g.DeadlineSpec(day=slots.day, time=end)


def _fill(slots: g.Slots, token: ZhToken) -> bool:  # noqa: C901, PLR0911, PLR0912  # one case per token kind
    kind, groups, _ = token
    if kind is Kind.DAYPART:
        return g.set_hint(slots, DAYPARTS["".join((groups[0] or "").split())])
    if kind is Kind.DAYWORD:
        days, hint = DAYWORDS[groups[0] or ""]
        return g.set_day(slots, g.RelativeDay(days)) and (hint is None or g.set_hint(slots, hint))
    if kind in _CLOCK_KINDS:
        if slots.clock is not None:
            return False
        slots.clock = _clock(kind, groups)
        return slots.clock is not None
    if kind in _LENGTH_KINDS:
        return _length(slots, kind, groups)
    if kind is Kind.YEAR_NAMED:
        year = zh_number(groups[0] or "")
        return year is not None and g.set_period(slots, g.NamedYear(year))
    if kind is Kind.REL_QUARTER:
        rel, end = groups
        if rel is None and end is None:
            return False
        return g.set_period(slots, g.RelativePeriod(g.Unit.QUARTER, _offset(rel)))
    if kind is Kind.WEEKEND:
        return g.set_period(slots, g.RelativePeriod(g.Unit.WEEK, _offset(groups[0])))
    if kind is Kind.REL_WEEK:
        return g.set_period(slots, g.RelativePeriod(g.Unit.WEEK, _offset(groups[0])))
    if kind is Kind.REL_MONTH:
        return g.set_period(slots, g.RelativePeriod(g.Unit.MONTH, _offset(groups[0])))
    if kind is Kind.REL_YEAR:
        return g.set_period(
            slots, g.RelativePeriod(g.Unit.YEAR, _YEAR_OFFSETS[(groups[0] or "今")[0]])
        )
    if kind is Kind.MONTH_END:
        rel, month_text = groups
        if month_text is None:
            return g.set_period(slots, g.RelativePeriod(g.Unit.MONTH, _offset(rel)))
        month = zh_number(month_text)
        return (
            month is not None
            and 1 <= month <= 12
            and g.set_period(slots, g.NamedMonth(month, None))
        )
    if kind is Kind.MONTH_NAMED:
        rel, year_text, month_text = groups
        month = zh_number(month_text or "")
        year = zh_number(year_text) if year_text else None
        offset = _YEAR_OFFSETS.get((rel or "")[:1]) if rel else None
        if month is None or not 1 <= month <= 12 or (year_text and year is None):
            return False
        named = slots.period
        if isinstance(named, g.NamedYear) and year_text is None and rel is None:
            # 2027年 十二月, 2027年, 十二月: the year named before the month is its year.
            slots.period = None
            year = named.year
        return g.set_period(slots, g.NamedMonth(month, year, offset))
    if kind is Kind.BRACKET_CLOSE:  # 周六(3月20日): the date's bracket, read with it
        return slots.day is not None
    if kind is Kind.SPAN_LEAD:  # 未来一年半: the length after it is read as "within"
        if slots.duration is not None or slots.span:
            return False
        slots.span = True
        return True
    if kind is Kind.NEXT_DAY:  # 次日: read only as a range's end (`_from_start`)
        if slots.shift is not None or slots.day is not None:
            return False
        slots.shift = 1
        return True
    if kind is Kind.THAT_DAY:  # 国庆节当天: the day named before it
        return slots.day is not None
    if kind is Kind.DATE_WEEKDAY:  # 10月11号, 星期一: the date's weekday, checked against it
        return g.set_day(slots, g.Weekday(WEEKDAY_CHARS[groups[0] or groups[1] or ""], None))
    if kind is Kind.YEAR_END:
        rel, year_text = groups
        if year_text is not None:
            year = zh_number(year_text)
            return year is not None and g.set_period(slots, g.NamedYear(year))
        return g.set_period(slots, g.RelativePeriod(g.Unit.YEAR, _YEAR_OFFSETS[rel or "今"]))
    if kind is Kind.HOLIDAY and isinstance(slots.period, g.NamedYear):
        # 2028年春节: that year's occurrence (the table's; outside it, none), as a date.
        found = holidays.in_year(HOLIDAYS[groups[0] or ""], slots.period.year)
        slots.period = None
        return found is not None and g.set_day(
            slots, g.CalendarDate(found.month, found.day, found.year)
        )
    return g.set_day(slots, _dated(slots, _day(kind, groups)))


_LENGTH_KINDS: Final = frozenset(
    {
        Kind.DURATION,
        Kind.SPAN,
        Kind.FROM_NOW,
        Kind.HALF_MINUTE,
        Kind.HALF_DURATION,
        Kind.HALF_YEAR,
        Kind.QUARTER_HOURS,
        Kind.MINUTES_AFTER,
    }
)


def _length(slots: g.Slots, kind: Kind, groups: tuple[str | None, ...]) -> bool:  # noqa: C901, PLR0911  # one case per kind of length
    """A length token (三天, 未来三天, 3天后, 一个半小时, 一年半, 一刻钟) into the slots."""
    if kind is Kind.DURATION:
        return _duration(slots, groups)
    if kind is Kind.SPAN:
        slots.span = True
        return _duration(slots, groups)
    if kind is Kind.FROM_NOW:  # 再过N… or N…后: its groups are in one of the two halves
        slots.span = True
        return _duration(slots, groups[:3] if groups[2] is not None else groups[3:])
    if kind is Kind.HALF_MINUTE:
        minutes = zh_number(groups[0] or "")
        if minutes is None:
            return False
        return g.add_duration(slots, g.Duration(minutes * 60 + 30, g.Unit.SECOND))
    if kind is Kind.HALF_DURATION:
        hours = zh_number(groups[0] or "")
        if slots.duration is not None or hours is None:
            return False
        slots.duration = g.Duration(hours * 60 + 30, g.Unit.MINUTE)
        slots.span = slots.span or groups[1] is not None  # 一个半小时后: from now
        return True
    if kind is Kind.MINUTES_AFTER:  # 1小时30分: minutes added to the hours before
        minutes = zh_number(groups[0] or "")
        slots.span = slots.span or groups[1] is not None  # 1小时50分后: from now
        return minutes is not None and g.add_duration(slots, g.Duration(minutes, g.Unit.MINUTE))
    if kind is Kind.HALF_YEAR:
        years = zh_number(groups[0] or "")
        if years is None or years == 0:
            return False
        slots.span = slots.span or groups[1] is not None  # 一年半后: from now
        return g.add_duration(slots, g.Duration(12 * years + 6, g.Unit.MONTH))
    # 一刻钟, 三刻钟后
    count = zh_number(groups[0] or "")
    if slots.duration is not None or count is None:
        return False
    slots.duration = g.Duration(15 * count, g.Unit.MINUTE)
    slots.span = slots.span or groups[1] is not None
    return True


def _dated(slots: g.Slots, day: g.Day | None) -> g.Day | None:
    """二零二八年, 九月三号 (a comma between): the year named before a date is the date's."""
    year = slots.period
    if isinstance(year, g.NamedYear) and isinstance(day, g.CalendarDate) and day.year is None:
        slots.period = None
        return g.CalendarDate(day.month, day.day, year.year)
    return day


def _offset(rel: str | None) -> int:
    """本 / 这: 0; 下: 1; 下下 (the one after next): 2."""
    if rel is None or not rel.startswith("下"):
        return 0
    return 2 if rel.startswith("下下") else 1


def _day(kind: Kind, groups: tuple[str | None, ...]) -> g.Day | None:  # noqa: PLR0911  # one exit per kind of day
    if kind is Kind.NTH_WEEKDAY:
        return _nth_weekday(groups)
    if kind is Kind.HOLIDAY:
        return g.Holiday(HOLIDAYS[groups[0] or ""])
    if kind is Kind.WEEKDAY:
        rel, char, spaced = groups
        weekday = WEEKDAY_CHARS[char or spaced or ""]
        return g.Weekday(weekday, None if rel is None else _offset(rel))
    if kind is Kind.MONTH_DAY:  # 15号; 29日前 or 截止29日 (one of two groups)
        day = zh_number(next((text for text in groups if text), ""))
        return g.MonthDay(day, None) if day is not None and 1 <= day <= 31 else None
    if kind is Kind.NUMERIC_DATE:
        return _numeric_date(groups)
    if kind is Kind.MONTH_DAY_REL:
        rel, day_text = groups
        day = zh_number(day_text or "")
        return g.MonthDay(day, _offset(rel)) if day is not None and 1 <= day <= 31 else None
    year_text, month_text, day_text = groups
    year = zh_number(year_text) if year_text else None
    month, day = zh_number(month_text or ""), zh_number(day_text or "")
    if (year_text and year is None) or month is None or day is None:
        return None
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    return g.CalendarDate(month, day, year)


def _numeric_date(groups: tuple[str | None, ...]) -> g.CalendarDate | None:
    """3/20, 20/3: month and day told apart by the number above 12, else None (12/1);
    3.15 (its second pair of groups): month first only."""
    if groups[0] is None:
        month, day = int(groups[2] or 0), int(groups[3] or 0)
    else:
        first, second = int(groups[0]), int(groups[1] or 0)
        month, day = (first, second) if first <= 12 < second else (second, first)
    if not (1 <= month <= 12 < day <= 31):
        return None
    return g.CalendarDate(month, day, None)


def _nth_weekday(groups: tuple[str | None, ...]) -> g.NthWeekday | None:
    """十月的第一个星期一 (a month's Nth weekday), 这个月的最后一个星期五 (its last)."""
    rel, year_text, month_text, nth_text, last, weekday_char = groups
    weekday = WEEKDAY_CHARS[weekday_char or ""]
    nth = -1 if last else zh_number(nth_text or "")
    if nth is None or not (nth == -1 or 1 <= nth <= 5):
        return None
    if rel is not None:
        return g.NthWeekday(0, nth, weekday, month_offset=_offset(rel))
    month = zh_number(month_text or "")
    year = zh_number(year_text) if year_text else None
    if month is None or not 1 <= month <= 12 or (year_text and year is None):
        return None
    return g.NthWeekday(month, nth, weekday, year)


def _clock(kind: Kind, groups: tuple[str | None, ...]) -> g.Clock | None:  # noqa: PLR0911  # one exit per kind of clock
    if kind is Kind.MIDNIGHT:
        return g.Clock(24, 0, fixed=True)
    if kind is Kind.BARE_HOUR:
        hour = zh_number(groups[0] or "")
        return None if hour is None else g.Clock(hour, 0)
    if kind is Kind.CLOCK24:
        hour_text, minute_text, meridiem = groups
        hours, minutes = int(hour_text or 0), int(minute_text or 0)
        if meridiem is not None:
            return g.Clock(hours, minutes, meridiem=meridiem.lower())
        return g.Clock(hours, minutes, fixed=len(hour_text or "") == 2)
    hour_text, half, quarter, three_quarters, minute_text, meridiem = groups
    hour = zh_number(hour_text or "")
    minute = 30 if half else 15 if quarter else 45 if three_quarters else 0
    if minute_text is not None:
        parsed = zh_number(minute_text)
        if parsed is None:
            return None
        minute = parsed
    if hour is None:
        return None
    return g.Clock(hour, minute, meridiem=None if meridiem is None else meridiem.lower())


# A half of these is a whole number of the unit below (半小时: 30 minutes, 半年: 6
# months); half a day, week or month is not a length anyone agrees on (12 hours or a
# working morning, 15 days or half a calendar month), so it gives none.
_HALVES: Final = {
    g.Unit.HOUR: g.Duration(30, g.Unit.MINUTE),
    g.Unit.YEAR: g.Duration(6, g.Unit.MONTH),
}
# 个 is required before 月 (三月 is March) and 钟 (一个钟: an hour), optional before
# these, and refused before 天/日/周/年/分钟.
_COUNTER_OPTIONAL: Final = frozenset({"小时", "钟头", "星期", "礼拜"})
_COUNTER_REQUIRED: Final = frozenset({"月", "钟"})


def _decimal(slots: g.Slots, amount_text: str, unit: g.Unit) -> bool:
    """1.5小时, 0.5年: a decimal length, read only where it is whole in the unit below
    (tenths of an hour are 6 minutes; a half minute 30 seconds, a half year 6 months);
    1.5天 is refused as 一天半 is."""
    whole_text, _, tenth_text = amount_text.partition(".")
    whole, tenth = int(whole_text), int(tenth_text)
    if unit is g.Unit.HOUR:
        length = g.Duration(60 * whole + 6 * tenth, g.Unit.MINUTE)
    elif tenth == 5 and unit in _HALVES:
        length = g.Duration(
            whole * 2 * _HALVES[unit].amount + _HALVES[unit].amount, _HALVES[unit].unit
        )
    elif tenth == 5 and unit is g.Unit.MINUTE:
        length = g.Duration(60 * whole + 30, g.Unit.SECOND)
    else:
        return False
    return length.amount > 0 and g.add_duration(slots, length)


def _duration(slots: g.Slots, groups: tuple[str | None, ...]) -> bool:
    """One length, or a finer one added to the length before it (8天20小时: 212 hours)."""
    amount_text, counter, unit_text = groups
    unit = UNITS[unit_text or ""]
    if amount_text == "半":
        half = _HALVES.get(unit)
        if half is None or slots.duration is not None:
            return False
        slots.duration = half
        return True
    if unit_text not in _COUNTER_OPTIONAL and (unit_text in _COUNTER_REQUIRED) != (
        counter is not None
    ):
        return False
    if amount_text is not None and "." in amount_text:
        return _decimal(slots, amount_text, unit)
    amount = zh_number(amount_text or "")
    if amount is None or amount == 0:
        return False
    # Lengths add up as elapsed time, a finer unit after a coarser one (as in English);
    # a week, month or year in a sum (两周三天) is refused by `add_duration`.
    return g.add_duration(slots, g.Duration(amount, unit))
