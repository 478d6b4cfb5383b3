"""The Chinese deadline lexicon: word tables, token kinds and the lexer (DESIGN section 4).

The grammar's vocabulary lives here; `chinese.py` parses the tokens into a spec.
`CANDIDATE` is the same token set as one search pattern, so `find_deadline_phrase`
only ever returns spans the parser was written for.
"""

from __future__ import annotations

import enum
import re
from typing import Final

from core.deadlines.grammar import Hint, Lexer, Token, Unit
from core.deadlines.numerals import ZH_NUMERAL

_N: Final = rf"(?:\d{{1,2}}|{ZH_NUMERAL})"
_MONTH_NUMBER: Final = "1[0-2]|0?[1-9]|十[一二]?|[一二三四五六七八九]"
_YEAR: Final = "(?:\\d{4}|[〇零一二三四五六七八九]{4})"
# 下下周, 下下个月: the week or month after next.
_REL: Final = "(本|这个|这|下下个|下下|下个|下)"
# A length's unit (5 小时, 两个星期): spaces may stand between number, 个 and unit.
# h / hr / min as chat writes them after digits (2h内, 30min后).
_UNIT: Final = "(分钟|秒钟|秒|小时|钟头|钟|星期|礼拜|天|日|周|月|年|(?:hrs?|h|mins?)(?![A-Za-z]))"
# A length's amount: digits (with one decimal: 1.5小时), a numeral, or 半.
_AMOUNT: Final = rf"(\d{{1,3}}(?:\.\d)?|{ZH_NUMERAL}|半)"
# The end markers that read a day as "by" (前, 或之前, 截止), as a lookahead source.
# "On or before": 或之前, 当天及以前, (含)前, 前(含): the day included, as with 前.
_INCLUSIVE: Final = r"[(\uff08]\s*含(?:当天|当日|本日)?\s*[)\uff09]"
_BEFORE_TAIL: Final = (
    rf"(?:{_INCLUSIVE}\s*)?(?:(?:当天|当日)?(?:或者?|及|以及)\s*)?(?:之前|以前|前)(?:\s*{_INCLUSIVE})?"
    r"|为止|截止|截至"
)
_BEFORE_AHEAD: Final = rf"\s*(?:{_BEFORE_TAIL})"
# What may follow a day (a part of the day, a clock), as a lookahead source.
_TIME_AHEAD: Final = (
    r"\s*(?:凌晨|清晨|早上|早晨|上午|中午|下午|傍晚|晚上|夜里|夜间|晚|早)"
    rf"|\s*(?:\d{{1,2}}|{ZH_NUMERAL})\s*[点时]|\s*\d{{1,2}}:\d"
)
# Right after a lead that makes what follows an end (截止29日, 最晚 29日), as a lookbehind
# source: one fixed-width lookbehind per lead, with or without a space.
_AFTER_STRONG_LEAD: Final = (
    "(?:"
    + "|".join(
        f"(?<={lead}{space})"
        # and a range's end: 3月1日至15日
        for lead in ("截止到", "截止", "截至", "最晚", "最迟", "不晚于", "不迟于", "至", "到")
        for space in ("", r"\s")
    )
    + ")"
)
# A date's weekday in brackets or after a comma, as a lookahead source: 20日(周六)前.
_WEEKDAY_NOTE: Final = r"\s*[(\uff08,\uff0c]\s*(?:周|星期|礼拜)[一二三四五六日天1-7]\s*[)\uff09]?"
_WEEKDAY_WORD: Final = "(?:周|星期|礼拜)([一二三四五六日天1-7])"
# am / pm after a clock (6点30pm, 3:15PM): one group, "a" or "p" in either case.
_MERIDIEM: Final = r"(?:\s*([AaPp])\.?[Mm]\.?(?![A-Za-z]))?"
WEEKDAY_CHARS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
WEEKDAY_CHARS |= {str(i + 1): i for i in range(7)}
# Lexicon tables: rows alike by design (CONTRIBUTING.md, "Repeated shapes").
DAYWORDS: Final[dict[str, tuple[int, Hint | None]]] = {
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
HOLIDAYS: Final[dict[str, str]] = {
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
    "元旦节": "new_year",
    "农历新年": "spring",
    "愚人节": "april_fools",
    "建军节": "army",
    "教师节": "teachers",
    "万圣节": "halloween",
    "母亲节": "mother",
    "父亲节": "father",
    "感恩节": "thanksgiving",
    "大年三十": "lunar_new_year_eve",  # 除夕, also in a year whose twelfth month has 29 days
    "大年初一": "spring",
    "正月初一": "spring",
    "正月十五": "lantern",
    "元宵": "lantern",  # also the dumpling: needs a marker
    "五月初五": "dragon_boat",
    "七夕节": "qixi",
    "七月初七": "qixi",
    "中元节": "zhongyuan",
    "九月初九": "double_ninth",
    "重阳": "double_ninth",  # also a given name: needs a marker
    "腊八节": "laba",
    "腊八": "laba",
    "腊月初八": "laba",
    "小年": "xiaonian",  # 腊月二十三 in the north, 二十四 in the south: none (no table)
    "植树节": "arbor",
    "青年节": "youth",
    "五四青年节": "youth",
    "建党节": "party",
    "光棍节": "singles",
    "双十一": "singles",
    "双11": "singles",
    "双十二": "double_twelve",
    "双12": "double_twelve",
    # A holiday named twice over: 五一劳动节, 六一儿童节, 十一国庆节, 三八妇女节 …
    "五一劳动节": "labour",
    "六一儿童节": "children",
    "六一": "children",  # also a number: needs a marker
    "十一国庆节": "national",
    "十一国庆": "national",
    "三八妇女节": "women",
    "三八节": "women",
    "女神节": "women",
    "七夕情人节": "qixi",
    "八一建军节": "army",
    "七一建党节": "party",
    "九九重阳节": "double_ninth",
    "年三十": "lunar_new_year_eve",
    # Named, but with no date the grammar can settle (none, never a guess): 过年 (除夕 or
    # 春节), 新年 (1 January or the lunar new year), 清明 and 冬至 (solar terms).
    "过年": "guonian",
    "新年": "xinnian",
    "清明节": "qingming",
    "清明": "qingming",
    "冬至": "dongzhi",
}
_LUNAR_DATE_NAMES: Final = ("五月初五", "七月初七", "九月初九")
_HOLIDAY_NAMES: Final = "(?:" + "|".join(sorted(HOLIDAYS, key=len, reverse=True)) + ")"
_NUMERAL_HOLIDAYS: Final = "|".join(("七夕", "五一", *_LUNAR_DATE_NAMES))
DAYPARTS: Final = {
    "凌晨": Hint.EARLY,
    "清晨": Hint.EARLY,  # dawn: its hours as 凌晨's, and no agreed end either
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
    "半夜": Hint.EVENING,  # 半夜12点 is midnight; 半夜2点, either side of it, is refused
    "深夜": Hint.EVENING,
    "晚": Hint.EVENING,
}
UNITS: Final = {
    "分钟": Unit.MINUTE,
    "秒钟": Unit.SECOND,  # 180秒后, 10分钟30秒后: seconds, elapsed time like minutes
    "秒": Unit.SECOND,
    "小时": Unit.HOUR,
    "钟头": Unit.HOUR,
    "天": Unit.DAY,
    "日": Unit.DAY,
    "周": Unit.WEEK,
    "星期": Unit.WEEK,
    "礼拜": Unit.WEEK,
    "月": Unit.MONTH,
    "年": Unit.YEAR,
    "钟": Unit.HOUR,  # 一个钟: an hour (colloquial, Cantonese); only with 个
    "h": Unit.HOUR,
    "hr": Unit.HOUR,
    "hrs": Unit.HOUR,
    "min": Unit.MINUTE,
    "mins": Unit.MINUTE,
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
    HALF_MINUTE = enum.auto()
    SPAN = enum.auto()
    FROM_NOW = enum.auto()
    REL_QUARTER = enum.auto()
    MONTH_NAMED = enum.auto()
    DURATION = enum.auto()
    MONTH_DAY = enum.auto()
    CLOCK24 = enum.auto()
    CLOCK = enum.auto()
    MIDNIGHT = enum.auto()
    DAYPART = enum.auto()
    RANGE = enum.auto()
    NTH_WEEKDAY = enum.auto()
    YEAR_NAMED = enum.auto()
    QUARTER_HOURS = enum.auto()
    HALF_YEAR = enum.auto()
    DATE_WEEKDAY = enum.auto()
    BARE_HOUR = enum.auto()
    MINUTES_AFTER = enum.auto()
    BRACKET_CLOSE = enum.auto()
    NUMERIC_DATE = enum.auto()
    THAT_DAY = enum.auto()
    NEXT_DAY = enum.auto()
    SPAN_LEAD = enum.auto()


# First match wins at a position: longer forms before their prefixes (大后天 before
# 后天, 下周末 before 下周五 before 下周, 12月1日 before the duration 12月).
_DIGITS: Final = "0123456789"
_NUMERALS: Final = "零\u3007一二两三四五六七八九十"
# Each item: kind, pattern, and the characters it can start with.
_ITEM_SOURCES: Final[tuple[tuple[Kind, str, str], ...]] = (
    (Kind.ISO, r"(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})", _DIGITS),
    # 十月的第一个星期一, 这个月的最后一个星期五: the Nth (or last) weekday of a month.
    (
        Kind.NTH_WEEKDAY,
        (
            rf"(?:(本月|这个月|这月|下下个月|下下月|下个月|下月)|(?:({_YEAR})年)?(1[0-2]|0?[1-9]|十[一二]?|[一二三四五六七八九])月份?)"
            rf"的?(?:第({_N})|(最后))[一1]?个?(?:周|星期|礼拜)([一二三四五六日天1-7])"
        ),
        "本这下" + _DIGITS + _NUMERALS,
    ),
    # 五月初五, 七月初七, 九月初九: lunar dates of festivals, before 五月 reads as May.
    (Kind.HOLIDAY, f"({'|'.join(_LUNAR_DATE_NAMES)})", "五七九"),
    (Kind.DATE, rf"(?:({_YEAR})\s*年\s*)?({_N})\s*月\s*({_N})\s*[日号]", _DIGITS + _NUMERALS),
    # 一月二十三前, 3月15之前: a date without 日 / 号, only before an end marker (八月十五
    # and 七月十五 in numerals are also the lunar 中秋 and 中元: two readings, none).
    (
        Kind.DATE,
        rf"(?!八月十五|七月十五)(?:({_YEAR})年)?({_N})月({_N})(?={_BEFORE_AHEAD})",
        _DIGITS + _NUMERALS,
    ),
    (Kind.MONTH_DAY_REL, rf"(本月|这个月|这月|下下个月|下下月|下个月|下月)({_N})[日号]", "本这下"),
    (
        Kind.MONTH_END,
        rf"(?:(本|这个|这|下下个|下下|下个|下)?月|({_N})月[份月]?)[底末尾]",
        "本这下月" + _DIGITS + _NUMERALS,
    ),
    # 次年 / 来年 / 翌年: the year after this one, said from now; 后年 the one after.
    (
        Kind.YEAR_END,
        rf"(?:(今|明|次|来|翌|后)|({_YEAR}))?年年?[底末尾]",
        "今明次来翌后年" + _DIGITS + _NUMERALS,
    ),
    # 明年第九个月, 2028年第3个月: an ordinal month, only after its year (第九个月 alone
    # counts months of something else), read as the month it names (明年九月).
    (
        Kind.MONTH_NAMED,
        rf"(?:(今年|明年|次年|来年|后年)|({_YEAR})年)的?第({_MONTH_NUMBER})个月",
        "今明次来后" + _DIGITS + _NUMERALS,
    ),
    # 明年九月, 3月份, 2027年6月: a month named alone (not 两月: a length), with 前 / 内 or a
    # lead to count (DESIGN section 4: the end of that month, its next occurrence).
    (
        Kind.MONTH_NAMED,
        # (not 九月初九: a lunar date, read as its festival or not at all; not 明年1月5日:
        # a date, placed in its year)
        (
            rf"(?:(今年|明年|次年|来年|后年)\s*的?\s*|({_YEAR})\s*年\s*)?({_MONTH_NUMBER})月份?"
            rf"(?!初[一二三四五六七八九十]|\s*{_N}\s*(?:[日号]|{_BEFORE_AHEAD}))"
        ),
        "今明次来后" + _DIGITS + _NUMERALS,
    ),
    # 2028年前, 二〇三五年之前: a year by its number (with 前 / 内 or a lead to count).
    # 二零二八年, 九月三号 (a full-width comma): the year still places the date after it.
    (
        Kind.YEAR_NAMED,
        # (2027年七夕, 2027年九月初九: a holiday named by numerals may follow it.)
        (
            rf"({_YEAR})年(?!(?!{_NUMERAL_HOLIDAYS})[\d{_NUMERALS}代度级])"
            rf"(?:\s*[,\uff0c]\s*(?={_N}月)|的(?={_HOLIDAY_NAMES}))?"
        ),
        _DIGITS + _NUMERALS,
    ),
    (Kind.WEEKEND, rf"{_REL}?周末", "本这下周"),
    # 周日, 三月十四号: a weekday, a comma, then its date (the comma is the weekday's).
    (
        Kind.WEEKDAY,
        (
            rf"{_REL}?(?:{_WEEKDAY_WORD}"
            # 这星期 4前: a spaced digit, only where no unit or clock follows (下周 3点前,
            # 这周 3天内 stay as they were).
            rf"|(?:周|星期|礼拜)\s([1-7])(?!\s*[\d个天日号点时小分钟月年周星礼:.]))"
            rf"(?:\s*[,\uff0c\u3001]\s*(?=(?:{_YEAR}\s*年\s*)?{_N}\s*月\s*{_N}|\d{{4}}[-/.]\d)"
            # 周六(3月20日)前: its date in brackets (closed by a BRACKET_CLOSE).
            rf"|\s*[(\uff08]\s*(?=(?:{_YEAR}\s*年\s*)?{_N}\s*月\s*{_N}\s*[日号]\s*[)\uff09]"
            r"|\d{4}[-/.]\d{1,2}[-/.]\d{1,2}\s*[)\uff09]))?"
        ),
        "本这下周星礼",
    ),
    # The bracket closing a weekday's date: 周六(3月20日)前.
    (
        Kind.BRACKET_CLOSE,
        r"(?:(?<=[日号])|(?<=[-/.]\d)|(?<=[-/.]\d\d))[)\uff09]",
        ")\uff09",
    ),
    # 3/20前, 20/3 18:00前, 3.15前: a numeric date without a year, only before an end marker or a
    # time, and only where one number is above 12 (12/1 is December or January: none).
    (
        Kind.NUMERIC_DATE,
        # 3.15前 too, month first only (1.5小时 is a length: no end marker after it).
        (
            rf"(\d{{1,2}})/(\d{{1,2}})(?![/\d])(?={_BEFORE_AHEAD}|{_TIME_AHEAD})"
            rf"|(\d{{1,2}})\.(\d{{1,2}})(?![.\d])(?={_BEFORE_AHEAD}|{_TIME_AHEAD})"
        ),
        _DIGITS,
    ),
    # 晚上10点到次日凌晨2点: the day after the range's start (only as a range's end).
    (Kind.NEXT_DAY, r"次日|第二天|翌日|隔天", "次第翌隔"),
    # 国庆节当天, 3月20日当天: that day, as the day alone.
    (Kind.THAT_DAY, r"当天|当日|那天|那一天", "当那"),
    # 10月11号, 星期一 / 3月22日(周一): a date's weekday after a comma or in brackets.
    (
        Kind.DATE_WEEKDAY,
        rf"(?:(?<=[日号])|(?<=[-/.]\d)|(?<=[-/.]\d\d))(?:[,\uff0c\u3001]\s*{_WEEKDAY_WORD}|[(\uff08]\s*{_WEEKDAY_WORD}\s*[)\uff09])",
        ",\uff0c\u3001(\uff08",
    ),
    (Kind.REL_WEEK, rf"{_REL}(?:周|星期|礼拜)", "本这下"),
    (Kind.REL_MONTH, r"(本月|这个月|这月|下下个月|下下月|下个月|下月)", "本这下"),
    # 明年的春节: 的 joins a year to the holiday or date after it.
    (Kind.REL_YEAR, rf"(今年|明年|后年)(?:的(?={_HOLIDAY_NAMES}|{_N}\s*月))?", "今明后"),
    (Kind.DAYWORD, "(" + "|".join(sorted(DAYWORDS, key=len, reverse=True)) + ")", "今明后大"),
    # Holidays need 前 / 之前 / 以前 / 为止 or a lead (国庆节前, 到春节为止).
    (
        Kind.HOLIDAY,
        "(" + "|".join(sorted(HOLIDAYS, key=len, reverse=True)) + ")",
        "元情妇劳五儿国圣平春除端七中重农愚建教万母父感大正九腊小植青光双六十三女八年过新清冬",
    ),
    (Kind.REL_QUARTER, r"(本|这个|这|下个|下)?季度([末底])?", "本这下季"),
    # 一个半小时: N and a half hours (before the duration, or 半小时 would match inside it);
    # 一个半小时后 counts from now, as 2小时后.
    (
        Kind.HALF_DURATION,
        rf"(\d{{1,3}}|{ZH_NUMERAL})\s*个?半(?:小时|钟头)\s*(以后|之后|过后|后)?",
        _DIGITS + _NUMERALS,
    ),
    # 一年半, 两年半后: N and a half years, a whole number of months (18, 30).
    (
        Kind.HALF_YEAR,
        rf"(\d{{1,3}}|{ZH_NUMERAL})\s*年半(以后|之后|过后|后)?",
        _DIGITS + _NUMERALS,
    ),
    # 一刻钟, 三刻钟后: quarters of an hour.
    (Kind.QUARTER_HOURS, r"([一两二三123])刻钟(以后|之后|过后|后)?", "一两二三123"),
    # 十三分半: N and a half minutes (分 alone is minutes only with 半: 九十分 may be a score).
    (Kind.HALF_MINUTE, rf"(\d{{1,3}}|{ZH_NUMERAL})分(?:钟)?半钟?", _DIGITS + _NUMERALS),
    # 未来三天, 接下来72小时: the next N units, read as "within".
    (
        Kind.SPAN,
        rf"(?:未来的?|接下来的?|之后的?){_AMOUNT}\s*(个)?\s*{_UNIT}(?!\s*半)",
        "未接之",
    ),
    # 未来一年半, 接下来一个半小时: the lead alone, before a length with a half.
    (Kind.SPAN_LEAD, rf"(?:未来的?|接下来的?|之后的?)(?=\s*(?:\d|{ZH_NUMERAL}|半))", "未接之"),
    # 2小时后, 3天以后, 再过8小时: N units from now, read as "within" (DESIGN section 4).
    (
        Kind.FROM_NOW,
        (
            rf"再过\s*{_AMOUNT}\s*(个)?\s*{_UNIT}\s*(?:以后|之后|后)?"
            rf"|{_AMOUNT}\s*(个)?\s*{_UNIT}\s*(?:以后|之后|过后|后)"
        ),
        "再" + _DIGITS + _NUMERALS + "半",
    ),
    # 1小时30分: minutes written 分 after hours (分 alone is minutes only there).
    (
        Kind.MINUTES_AFTER,
        # 1小时50分后: from now, as 1小时50分钟后.
        rf"(?:(?<=小时)|(?<=钟头)|(?<=小时\s)|(?<=钟头\s))({_N})分(?!钟)\s*(以后|之后|过后|后)?",
        _DIGITS + _NUMERALS,
    ),
    # 29日前, 3日下午5点, 截止29日: a day of the month with 日, only before an end marker
    # or a time, or after 截止 / 截至 (3日内 is a length; a bare 29日 may be either).
    (
        Kind.MONTH_DAY,
        (
            rf"{_AFTER_STRONG_LEAD}({_N})日(?!\s*(?:之|以)?内)"
            rf"|({_N})日(?={_BEFORE_AHEAD}|{_TIME_AHEAD}|{_WEEKDAY_NOTE}{_BEFORE_AHEAD})"
        ),
        _DIGITS + _NUMERALS,
    ),
    (
        Kind.DURATION,
        rf"{_AMOUNT}\s*(个)?\s*{_UNIT}",
        _DIGITS + _NUMERALS + "半",
    ),
    (Kind.MONTH_DAY, rf"({_N})号", _DIGITS + _NUMERALS),
    # 18:00, 10:30:00, 3:15pm (am / pm as chat writes it after a clock).
    (Kind.CLOCK24, rf"(\d{{1,2}}):(\d{{2}})(?::\d{{2}})?{_MERIDIEM}", _DIGITS),
    (
        Kind.CLOCK,
        (
            # 晚上 8 点前: one space may stand between the hour and 点.
            rf"({_N})\s?[点时](?:(半)|([1一]刻)|([3三]刻)|(\d{{2}}|{_N})分?)?钟?"
            # 16时40分50秒: seconds dropped, as in 10:30:00.
            rf"(?:(?<=分)(?:\d{{1,2}}|{_N})秒)?{_MERIDIEM}"
        ),
        _DIGITS + _NUMERALS,
    ),
    # 凌晨四到六点, 下午3-5点: the first hour of a range shares the second's 点.
    (
        Kind.BARE_HOUR,
        rf"({_N})(?=\s*(?:到|至|[-~\uff5e\u2014\u2013])\s*{_N}\s*[点时])",
        _DIGITS + _NUMERALS,
    ),
    (Kind.MIDNIGHT, r"午夜(?:\s*(?:12|十二)\s*[点时]整?)?", "午"),  # 午夜12点: midnight
    (
        Kind.DAYPART,
        # 晚 上 8:00前: one space may stand inside a two-character part of the day.
        "(" + "|".join(r"\s?".join(word) for word in sorted(DAYPARTS, key=len, reverse=True)) + ")",
        "早上中下傍晚夜凌清半深",
    ),
    # 下午5点-7点, 今晚10点到明早6点: a range of clock times, which ends at its second
    # (DESIGN section 4). Only before a clock time: 周五到公司 is "arrive on Friday".
    # A range of days (6月12号到7月3号, 星期三至星期五, 十二月至一月) ends at the end of its
    # last day or month; 到 is a range only before a time or a day, never before a verb.
    (
        Kind.RANGE,
        (
            r"(?:[-~\uff5e\u2014\u2013至]|到)(?=\s*(?:(?:(?:今|明|后|大后)?[天日晚早儿]?|次日|第二天|翌日|隔天)\s*"
            rf"(?:凌晨|清晨|早上|早晨|上午|中午|下午|傍晚|晚上|夜里|夜间|半夜|深夜|晚|早)?\s*{_N}[点时:]"
            # 7月1日至明年8月1日: a date in a relative year ends the range too.
            rf"|(?:(?:今|明|后)年的?|{_YEAR}年)?{_N}月|{_N}[号日]|{_REL}?(?:周|星期|礼拜)[一二三四五六日天1-7]"
            r"|今天|明天|后天|大后天))"
        ),
        "-~\uff5e\u2014\u2013至到",
    ),
)
# 从现在到八点: a span from now, which ends at its clock time (DESIGN section 4, ranges).
# 从 leads a range (从下午5点到6点); before anything else it is a start (ignored).
_LEAD_SOURCE: Final = (
    r"从现在(?:起|开始)?到|截止到|截止至|截至到|截止|截至|最晚|最迟|不晚于|不迟于|在|到|于|从"
)
# 或之前 / 及以前: "on or before", the day included as with 前; 截止 after a day as the
# lead 截止到 before it.
_TAIL_SOURCE: Final = rf"{_BEFORE_TAIL}|之内|以内|内"
# Items that end in a digit must not stop inside a number ("2026-12-011").
_NUMERIC_END: Final = frozenset({Kind.ISO, Kind.CLOCK24, Kind.CLOCK, Kind.BARE_HOUR})


def _item(kind: Kind, source: str) -> str:
    return f"(?:{source})(?!\\d)" if kind in _NUMERIC_END else f"(?:{source})"


LEXER: Final = Lexer(_ITEM_SOURCES, _item)
LEAD: Final = re.compile(rf"\s*({_LEAD_SOURCE})\s*")
TAIL: Final = re.compile(rf"\s*({_TAIL_SOURCE})\s*$")
_SPACE: Final = re.compile(r"\s*")

_ITEM: Final = "(?:" + "|".join(_item(kind, source) for kind, source, _ in _ITEM_SOURCES) + ")"
CANDIDATE: Final = re.compile(
    rf"(?<![\d:./-])(?:(?:{_LEAD_SOURCE})\s*)?{_ITEM}(?:\s*{_ITEM})*(?:\s*(?:{_TAIL_SOURCE}))?"
)
# `candidate_end` walks the same run token by token through the lexer's dispatch
# (same result as CANDIDATE, tested at every position of the corpora; far less
# regex work, since the single pattern tries every item after every item).
_NOT_AFTER: Final = re.compile(r"[\d:./-]")
_LEAD_AT: Final = re.compile(rf"(?:{_LEAD_SOURCE})\s*")
_TAIL_AT: Final = re.compile(rf"\s*(?:{_TAIL_SOURCE})")


def candidate_end(text: str, pos: int) -> int:
    """Where `CANDIDATE.match(text, pos)` ends, or -1 where it does not match."""
    if pos and _NOT_AFTER.match(text, pos - 1) is not None:
        return -1
    end = -1
    # No item starts with a lead's last character, so the pattern never backs off
    # a longer lead (截止到) to a shorter one (截止): the first lead that matches is it.
    lead = _LEAD_AT.match(text, pos)
    if lead is not None:
        end = _item_end(text, lead.end())
    if end < 0:
        end = _item_end(text, pos)
        if end < 0:
            return -1
    while (following := _item_end(text, _SPACE.match(text, end).end())) >= 0:  # type: ignore[union-attr]  # \s* always matches
        end = following
    tail = _TAIL_AT.match(text, end)
    return end if tail is None else tail.end()


def _item_end(text: str, pos: int) -> int:
    found = LEXER.kind_end(text, pos)
    return -1 if found is None else found[1]


# Traditional characters the grammar reads, mapped one to one onto simplified ones
# (下週五, 後天, 兩個鐘頭內, 國慶節前, 從下午3點到5點), and full-width digits onto ASCII
# ones (５小时内): same length, so spans in the original text stay valid.
_TRADITIONAL_FROM: Final = (
    "週後這個點時鐘頭內號兩禮來為於遲"
    "節國慶誕聖兒婦勞動師陽軍親萬樹雙臘農曆歷從過間裡裏開會發給讓見黨"
    "淩當現總經遠終" + "".join(chr(0xFF10 + digit) for digit in range(10))  # full-width 0-9
)
_SIMPLIFIED_TO: Final = (
    "周后这个点时钟头内号两礼来为于迟"
    "节国庆诞圣儿妇劳动师阳军亲万树双腊农历历从过间里里开会发给让见党"
    "凌当现总经远终"
    "0123456789"
)
TRADITIONAL: Final = str.maketrans(_TRADITIONAL_FROM, _SIMPLIFIED_TO)
# Whether a text holds one of them: a search is far cheaper than a translate that
# changes nothing, and most terms hold none.
HAS_TRADITIONAL: Final = re.compile(f"[{_TRADITIONAL_FROM}]")


ZhToken = Token[Kind]


def lex(text: str, start: int = 0, end: int | None = None) -> list[ZhToken] | None:
    """The tokens of `text[start:end]`; the words around (a lead, an end marker) stay
    visible to lookarounds (29日前, 截止29日: 日 is then a day of the month)."""
    tokens: list[ZhToken] = []
    pos, end = start, len(text) if end is None else end
    space = _SPACE.match
    while pos < end:
        found = LEXER.token(text, pos)
        if found is None or found[1] > end:
            return None
        tokens.append(found[0])
        pos = min(end, space(text, found[1]).end())  # type: ignore[union-attr]  # \s* always matches
    return tokens
