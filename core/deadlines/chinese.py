"""The Chinese deadline grammar (DESIGN section 4): a small lexer and a strict parser.

A phrase is an optional lead (截止到, 截至, 最晚, 在, 到 …), then a day (明天, 下周五,
12月1日, 下月15号), a period (本周, 下个月, 月底, 年底, 周末), a part of the day
(下午, 晚上) and a clock time (3点半, 18:00), in that natural order, then an optional
end marker: 前 / 之前 / 以前 / 为止 (the end of the day or period, or the instant of a
clock time) or 内 / 之内 / 以内 (within a duration, or by the end of a day or period).

A duration followed by 前 ("三天前") is a date in the past, not a deadline, and is
read as no wording at all. Anything else outside the grammar reads as None.
"""

from __future__ import annotations

import enum
import functools
import re

from core.deadlines.grammar import (
    PART_OF_DAY_END,
    CalendarDate,
    Clock,
    Day,
    DeadlineSpec,
    Duration,
    Edge,
    Hint,
    Holiday,
    Lexer,
    MonthDay,
    NamedMonth,
    NamedYear,
    RelativeDay,
    RelativePeriod,
    Token,
    Unit,
    Weekday,
    clock_time,
)
from core.deadlines.grammar import Slots as _Slots
from core.deadlines.grammar import set_day as _set_day
from core.deadlines.grammar import set_hint as _set_hint
from core.deadlines.grammar import set_period as _set_period
from core.deadlines.numerals import ZH_NUMERAL, zh_number

_N = rf"(?:\d{{1,2}}|{ZH_NUMERAL})"
_YEAR = "(?:\\d{4}|[〇零一二三四五六七八九]{4})"
_REL = "(本|这个|这|下个|下)"
_WEEKDAY_CHARS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_WEEKDAY_CHARS |= {str(i + 1): i for i in range(7)}
_DAYWORDS: dict[str, tuple[int, Hint | None]] = {
    "今天": (0, None),
    "今日": (0, None),
    "今儿": (0, None),
    "今晚": (0, Hint.EVENING),
    "今夜": (0, Hint.EVENING),
    "今早": (0, Hint.MORNING),
    "明天": (1, None),
    "明日": (1, None),
    "明儿": (1, None),
    "明晚": (1, Hint.EVENING),
    "明夜": (1, Hint.EVENING),
    "明早": (1, Hint.MORNING),
    "后天": (2, None),
    "大后天": (3, None),
}
_HOLIDAYS = {
    "元旦": "new_year",
    "情人节": "valentine",
    "妇女节": "women",
    "劳动节": "labour",
    "五一": "labour",
    "儿童节": "children",
    "国庆节": "national",
    "国庆": "national",
    "平安夜": "christmas_eve",
    "圣诞节": "christmas",
    "圣诞": "christmas",
    "春节": "spring",
    "除夕": "lunar_new_year_eve",
    "元宵节": "lantern",
    "端午节": "dragon_boat",
    "端午": "dragon_boat",
    "七夕": "qixi",
    "中秋节": "mid_autumn",
    "中秋": "mid_autumn",
    "重阳节": "double_ninth",
}
_DAYPARTS = {
    "凌晨": Hint.EARLY,
    "早上": Hint.MORNING,
    "早晨": Hint.MORNING,
    "上午": Hint.MORNING,
    "早": Hint.MORNING,
    "中午": Hint.NOON,
    "下午": Hint.AFTERNOON,
    "傍晚": Hint.AFTERNOON,
    "晚上": Hint.EVENING,
    "夜里": Hint.EVENING,
    "夜间": Hint.EVENING,
    "晚": Hint.EVENING,
}
_UNITS = {
    "分钟": Unit.MINUTE,
    "小时": Unit.HOUR,
    "钟头": Unit.HOUR,
    "天": Unit.DAY,
    "日": Unit.DAY,
    "周": Unit.WEEK,
    "星期": Unit.WEEK,
    "礼拜": Unit.WEEK,
    "月": Unit.MONTH,
    "年": Unit.YEAR,
}


class Kind(enum.IntEnum):  # IntEnum: hashed in C, and kinds are looked up per token
    ISO = enum.auto()
    DATE = enum.auto()
    MONTH_DAY_REL = enum.auto()
    MONTH_END = enum.auto()
    YEAR_END = enum.auto()
    WEEKEND = enum.auto()
    WEEKDAY = enum.auto()
    REL_WEEK = enum.auto()
    REL_MONTH = enum.auto()
    REL_YEAR = enum.auto()
    DAYWORD = enum.auto()
    HOLIDAY = enum.auto()
    HALF_DURATION = enum.auto()
    SPAN = enum.auto()
    REL_QUARTER = enum.auto()
    DURATION = enum.auto()
    MONTH_DAY = enum.auto()
    CLOCK24 = enum.auto()
    CLOCK = enum.auto()
    MIDNIGHT = enum.auto()
    DAYPART = enum.auto()


# First match wins at a position: longer forms before their prefixes (大后天 before
# 后天, 下周末 before 下周五 before 下周, 12月1日 before the duration 12月).
_DIGITS = "0123456789"
_NUMERALS = "零\u3007一二两三四五六七八九十"
# Each item: kind, pattern, and the characters it can start with.
_ITEM_SOURCES: tuple[tuple[Kind, str, str], ...] = (
    (Kind.ISO, r"(\d{4})[-/](\d{1,2})[-/](\d{1,2})", _DIGITS),
    (Kind.DATE, rf"(?:({_YEAR})年)?({_N})月({_N})[日号]", _DIGITS + _NUMERALS),
    (Kind.MONTH_DAY_REL, rf"(本月|这个月|这月|下个月|下月)({_N})[日号]", "本这下"),
    (
        Kind.MONTH_END,
        rf"(?:(本|这个|这|下个|下)?月|({_N})月)[底末]",
        "本这下月" + _DIGITS + _NUMERALS,
    ),
    (Kind.YEAR_END, rf"(?:(今|明)|({_YEAR}))?年年?[底末]", "今明年" + _DIGITS + _NUMERALS),
    (Kind.WEEKEND, rf"{_REL}?周末", "本这下周"),
    (Kind.WEEKDAY, rf"{_REL}?(?:周|星期|礼拜)([一二三四五六日天1-7])", "本这下周星礼"),
    (Kind.REL_WEEK, rf"{_REL}(?:周|星期|礼拜)", "本这下"),
    (Kind.REL_MONTH, r"(本月|这个月|这月|下个月|下月)", "本这下"),
    (Kind.REL_YEAR, r"(今年|明年)", "今明"),
    (Kind.DAYWORD, "(" + "|".join(sorted(_DAYWORDS, key=len, reverse=True)) + ")", "今明后大"),
    # Holidays need 前 / 之前 / 以前 / 为止 or a lead (国庆节前, 到春节为止).
    (
        Kind.HOLIDAY,
        "(" + "|".join(sorted(_HOLIDAYS, key=len, reverse=True)) + ")",
        "元情妇劳五儿国圣平春除端七中重",
    ),
    (Kind.REL_QUARTER, r"(本|这个|这|下个|下)?季度([末底])?", "本这下季"),
    # 一个半小时: N and a half hours (before the duration, or 半小时 would match inside it).
    (Kind.HALF_DURATION, rf"(\d{{1,3}}|{ZH_NUMERAL})个?半(?:小时|钟头)", _DIGITS + _NUMERALS),
    # 未来三天, 接下来72小时: the next N units, read as "within".
    (
        Kind.SPAN,
        rf"(?:未来|接下来的?)(\d{{1,3}}|{ZH_NUMERAL})(个)?(分钟|小时|钟头|星期|礼拜|天|日|周|月|年)",
        "未接",
    ),
    (
        Kind.DURATION,
        rf"(\d{{1,3}}|{ZH_NUMERAL}|半)(个)?(分钟|小时|钟头|星期|礼拜|天|日|周|月|年)",
        _DIGITS + _NUMERALS + "半",
    ),
    (Kind.MONTH_DAY, rf"({_N})号", _DIGITS + _NUMERALS),
    (Kind.CLOCK24, r"(\d{1,2}):(\d{2})", _DIGITS),
    (Kind.CLOCK, rf"({_N})[点时](?:(半)|(一刻)|(三刻)|(\d{{2}}|{_N})分?)?钟?", _DIGITS + _NUMERALS),
    (Kind.MIDNIGHT, r"午夜", "午"),
    (
        Kind.DAYPART,
        "(" + "|".join(sorted(_DAYPARTS, key=len, reverse=True)) + ")",
        "早上中下傍晚夜凌",
    ),
)
_LEAD_SOURCE = r"截止到|截止|截至|最晚|最迟|不晚于|不迟于|在|到|于"
_STRONG_LEADS = frozenset({"截止到", "截止", "截至", "最晚", "最迟", "不晚于", "不迟于"})
_TAIL_SOURCE = r"之前|以前|前|为止|之内|以内|内"
_BEFORE_TAILS = frozenset({"之前", "以前", "前", "为止"})
# Items that end in a digit must not stop inside a number ("2026-12-011").
_NUMERIC_END = frozenset({Kind.ISO, Kind.CLOCK24, Kind.CLOCK})


def _item(kind: Kind, source: str) -> str:
    return f"(?:{source})(?!\\d)" if kind in _NUMERIC_END else f"(?:{source})"


_LEXER = Lexer(_ITEM_SOURCES, _item)
_LEAD = re.compile(rf"\s*({_LEAD_SOURCE})\s*")
_TAIL = re.compile(rf"\s*({_TAIL_SOURCE})\s*$")
_SPACE = re.compile(r"\s*")

_ITEM = "(?:" + "|".join(_item(kind, source) for kind, source, _ in _ITEM_SOURCES) + ")"
CANDIDATE = re.compile(
    rf"(?<![\d:./-])(?:(?:{_LEAD_SOURCE})\s*)?{_ITEM}(?:\s*{_ITEM})*(?:\s*(?:{_TAIL_SOURCE}))?"
)

_CLOCK_KINDS = frozenset({Kind.CLOCK, Kind.CLOCK24, Kind.MIDNIGHT})
_STRONG = frozenset(
    {
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
        Kind.MONTH_DAY,
        Kind.CLOCK24,
        Kind.MIDNIGHT,
    }
)

# Traditional characters the grammar reads, mapped one to one onto simplified ones
# (下週五, 後天, 兩個鐘頭內): same length, so spans in the original text stay valid.
TRADITIONAL = str.maketrans("週後這個點時鐘頭內號兩禮來為於遲", "周后这个点时钟头内号两礼来为于迟")
# Whether a text holds one of them: a search is far cheaper than a translate that
# changes nothing, and most terms hold none.
HAS_TRADITIONAL = re.compile("[週後這個點時鐘頭內號兩禮來為於遲]")


ZhToken = Token[Kind]


def _lex(text: str) -> list[ZhToken] | None:
    tokens: list[ZhToken] = []
    pos, end = 0, len(text)
    space = _SPACE.match
    while pos < end:
        found = _LEXER.token(text, pos)
        if found is None:
            return None
        tokens.append(found[0])
        pos = space(text, found[1]).end()  # type: ignore[union-attr]  # \s* always matches
    return tokens


@functools.lru_cache(maxsize=4096)  # find and resolve read the same phrase; phrases recur
def read(phrase: str) -> tuple[DeadlineSpec | None, bool]:
    """(spec or None, whether the phrase is deadline wording at all); see deadline_english."""
    text = phrase.strip().translate(TRADITIONAL)
    lead = _LEAD.match(text)
    if lead is not None:
        text = text[lead.end() :]
    tail = _TAIL.search(text)
    if tail is not None:
        text = text[: tail.start()]
    tokens = _lex(text)
    if not tokens:
        return None, False
    slots = _Slots()
    filled = all(_fill(slots, token) for token in tokens)
    tail_word = tail.group(1) if tail is not None else None
    if slots.duration is not None and tail_word in _BEFORE_TAILS:
        return None, False  # "三天前" is three days ago: a past date, not a deadline
    marked = tail_word is not None or (lead is not None and lead.group(1) in _STRONG_LEADS)
    significant = marked or any(_strong(t) for t in tokens) or _clear_clock(slots)
    if not filled or ("傍晚" in text and slots.clock is None):
        return None, significant  # when dusk is over is a guess
    return _spec(slots, tail_word), significant


def _strong(token: ZhToken) -> bool:
    # A bare 周末 is as often "at weekends" (周末不讨论工作) as "by this weekend": it
    # needs a marker (周末前) or a week (这周末) to be deadline wording.
    if token.kind is Kind.WEEKEND:
        return token.groups[0] is not None
    if token.kind is Kind.REL_QUARTER:  # 季度 alone is "quarterly" (季度报告)
        return token.groups[0] is not None or token.groups[1] is not None
    return token.kind in _STRONG


def _clear_clock(slots: _Slots) -> bool:
    # "下午3点" names a time; "一点" alone is as likely "a little" as one o'clock.
    return slots.clock is not None and clock_time(slots.clock, slots.hint) is not None


def _spec(slots: _Slots, tail: str | None) -> DeadlineSpec | None:  # noqa: C901, PLR0911  # one exit per grammar rule
    within = tail in {"之内", "以内", "内"}
    if slots.duration is not None:
        if not (within or (slots.span and tail is None)):
            return None
        if (slots.day, slots.period, slots.clock, slots.hint) != (None,) * 4:
            return None
        return DeadlineSpec(within=slots.duration)
    if slots.period is not None:
        if slots.day is not None or slots.clock is not None or slots.hint is not None:
            return None
        return DeadlineSpec(period=slots.period)
    if slots.clock is not None:
        time = clock_time(slots.clock, slots.hint)
        if time is None or within:
            return None
        return DeadlineSpec(day=slots.day, time=time)
    if slots.hint is Hint.NOON:  # 中午 alone is noon: "明天中午前"
        return None if within else DeadlineSpec(day=slots.day, time=(12, 0))
    if slots.day is None:
        return None
    if isinstance(slots.day, Holiday):
        if slots.hint is not None:
            return None
        # 国庆节前, 中秋节之前, 到春节为止: a holiday is an event, the deadline is when it
        # begins (节前), not the end of its day.
        return DeadlineSpec(edge=Edge.START, day=slots.day)
    if slots.hint is None or slots.hint is Hint.EVENING:
        return DeadlineSpec(day=slots.day)
    end = PART_OF_DAY_END.get(slots.hint)
    # 后天下午前, 周五早上: when that part of the day is over (凌晨 has no agreed end).
    return None if end is None else DeadlineSpec(day=slots.day, time=end)


def _fill(slots: _Slots, token: ZhToken) -> bool:  # noqa: C901, PLR0911, PLR0912  # one case per token kind
    kind, groups, _ = token
    if kind is Kind.DAYPART:
        return _set_hint(slots, _DAYPARTS[groups[0] or ""])
    if kind is Kind.DAYWORD:
        days, hint = _DAYWORDS[groups[0] or ""]
        return _set_day(slots, RelativeDay(days)) and (hint is None or _set_hint(slots, hint))
    if kind in _CLOCK_KINDS:
        if slots.clock is not None:
            return False
        slots.clock = _clock(kind, groups)
        return slots.clock is not None
    if kind is Kind.DURATION:
        return _duration(slots, groups)
    if kind is Kind.SPAN:
        slots.span = True
        return _duration(slots, groups)
    if kind is Kind.HALF_DURATION:
        hours = zh_number(groups[0] or "")
        if slots.duration is not None or hours is None:
            return False
        slots.duration = Duration(hours * 60 + 30, Unit.MINUTE)
        return True
    if kind is Kind.REL_QUARTER:
        rel, end = groups
        if rel is None and end is None:
            return False
        return _set_period(slots, RelativePeriod(Unit.QUARTER, _offset(rel)))
    if kind is Kind.WEEKEND:
        return _set_period(slots, RelativePeriod(Unit.WEEK, _offset(groups[0])))
    if kind is Kind.REL_WEEK:
        return _set_period(slots, RelativePeriod(Unit.WEEK, _offset(groups[0])))
    if kind is Kind.REL_MONTH:
        return _set_period(slots, RelativePeriod(Unit.MONTH, _offset(groups[0])))
    if kind is Kind.REL_YEAR:
        return _set_period(slots, RelativePeriod(Unit.YEAR, 1 if groups[0] == "明年" else 0))
    if kind is Kind.MONTH_END:
        rel, month_text = groups
        if month_text is None:
            return _set_period(slots, RelativePeriod(Unit.MONTH, _offset(rel)))
        month = zh_number(month_text)
        return (
            month is not None and 1 <= month <= 12 and _set_period(slots, NamedMonth(month, None))
        )
    if kind is Kind.YEAR_END:
        rel, year_text = groups
        if year_text is not None:
            year = zh_number(year_text)
            return year is not None and _set_period(slots, NamedYear(year))
        return _set_period(slots, RelativePeriod(Unit.YEAR, 1 if rel == "明" else 0))
    return _set_day(slots, _day(kind, groups))


def _offset(rel: str | None) -> int:
    return 1 if rel is not None and rel.startswith("下") else 0


def _day(kind: Kind, groups: tuple[str | None, ...]) -> Day | None:  # noqa: PLR0911  # one exit per kind of day
    if kind is Kind.HOLIDAY:
        return Holiday(_HOLIDAYS[groups[0] or ""])
    if kind is Kind.WEEKDAY:
        rel, char = groups
        return Weekday(_WEEKDAY_CHARS[char or ""], None if rel is None else _offset(rel))
    if kind is Kind.MONTH_DAY:
        day = zh_number(groups[0] or "")
        return MonthDay(day, None) if day is not None and 1 <= day <= 31 else None
    if kind is Kind.MONTH_DAY_REL:
        rel, day_text = groups
        day = zh_number(day_text or "")
        offset = 1 if (rel or "").startswith("下") else 0
        return MonthDay(day, offset) if day is not None and 1 <= day <= 31 else None
    year_text, month_text, day_text = groups
    year = zh_number(year_text) if year_text else None
    month, day = zh_number(month_text or ""), zh_number(day_text or "")
    if (year_text and year is None) or month is None or day is None:
        return None
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    return CalendarDate(month, day, year)


def _clock(kind: Kind, groups: tuple[str | None, ...]) -> Clock | None:
    if kind is Kind.MIDNIGHT:
        return Clock(24, 0, fixed=True)
    if kind is Kind.CLOCK24:
        hour_text, minute_text = groups
        return Clock(int(hour_text or 0), int(minute_text or 0), fixed=len(hour_text or "") == 2)
    hour_text, half, quarter, three_quarters, minute_text = groups
    hour = zh_number(hour_text or "")
    minute = 30 if half else 15 if quarter else 45 if three_quarters else 0
    if minute_text is not None:
        parsed = zh_number(minute_text)
        if parsed is None:
            return None
        minute = parsed
    return None if hour is None else Clock(hour, minute)


def _duration(slots: _Slots, groups: tuple[str | None, ...]) -> bool:
    amount_text, counter, unit_text = groups
    unit = _UNITS[unit_text or ""]
    if slots.duration is not None:
        return False
    if amount_text == "半":
        # 半小时 / 半个钟头 only: half a day or month is not a length anyone agrees on.
        if unit is not Unit.HOUR:
            return False
        slots.duration = Duration(30, Unit.MINUTE)
        return True
    # 个 is required before 月 (三月 is March) and refused before 天/日/周/年.
    if (unit_text == "月") != (counter is not None) and unit_text not in {
        "小时",
        "钟头",
        "星期",
        "礼拜",
    }:
        return False
    amount = zh_number(amount_text or "")
    if amount is None or amount == 0:
        return False
    slots.duration = Duration(amount, unit)
    return True
