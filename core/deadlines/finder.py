"""Finding the deadline wording inside proposal terms (R9), precision first.

`find_deadline_phrase` returns the one span the English or Chinese grammar reads as a
deadline, or None: no wording, two deadlines, time wording outside the grammar, a
start ("from Friday", 明天起) or past date (三天前), a time tied to an event or another
zone, or a recurring schedule / standing rule, where a time is a condition, not an end.

It must be cheap on terms without deadline wording: runs are only tried at the few
positions just before a trigger word (today, Friday, end, within, a digit, 前, 周 …).
"""

from __future__ import annotations

import itertools
import re
from itertools import islice
from typing import Final

from core.deadlines import chinese as deadline_chinese
from core.deadlines import chinese_lexicon, english_lexicon
from core.deadlines import english as deadline_english

CJK: Final = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")
_LATIN: Final = re.compile(r"[A-Za-z]")
_DIGIT: Final = re.compile(r"\d")
_WORD: Final = re.compile(r"[a-z0-9]+")

# A recurring schedule or a standing rule ("never before 9am", 周末不发提醒) uses times
# as conditions, not as the moment the agreement is over.
_EN_STANDING: Final = frozenset(
    [
        "daily",
        "weekly",
        "monthly",
        "yearly",
        "annually",
        "nightly",
        "weekdays",
        "weekends",
        "weeknights",
        "mondays",
        "tuesdays",
        "wednesdays",
        "thursdays",
        "fridays",
        "saturdays",
        "sundays",
        "mornings",
        "afternoons",
        "evenings",
        "nights",
        "never",
        "always",
        "usually",
        "normally",
        "generally",
        "anymore",
        "whenever",
    ]
)
_EN_EVERY: Final = frozenset({"every", "each"})
# Periodic adjectives that also name a kind of thing ("the weekly report").
_EN_PERIODIC: Final = frozenset({"daily", "weekly", "monthly", "yearly", "quarterly", "nightly"})
_DETERMINER: Final = frozenset({"the", "my", "your", "our", "this", "that", "his", "her", "their"})
_NOUN_ADJECTIVES: Final = frozenset(
    {"new", "latest", "last", "next", "usual", "full", "final", "current"}
)
_ZH_EVERY_NOUN: Final = re.compile(r"每个?(?:周|天|日|月|年|星期|礼拜|季度)的")
# Quoted names (todo contents, titles): blanked out before reading the terms.
_QUOTE_MARKS: Final = re.compile('["“「『«《]')
_QUOTED: Final = re.compile('"[^"\n]*"|“[^”\n]*”|「[^」\n]*」|『[^』\n]*』|«[^»\n]*»|《[^》\n]*》')
_EN_EVERY_WHAT: Final = frozenset(
    [
        "other",
        "single",
        "day",
        "week",
        "month",
        "year",
        "morning",
        "afternoon",
        "evening",
        "night",
        "time",
        "hour",
        "minute",
        "weekday",
        "weekend",
        *english_lexicon.WEEKDAYS,
        *english_lexicon.MONTH_NAMES,
    ]
)
_ZH_STANDING: Final = (
    "每",
    "天天",
    "(?<![本这下上个])周周",  # 本周周五 is this week's Friday, 周周 alone every week
    "总是",
    "永远",
    "从不",
    "从来",
    "一直",
    "始终",
    "平时",
    "通常",
    "经常",
    "往后",
    "今后",
    "以后都",
    "工作日",
)
_ZH_STANDING_WORD: Final = re.compile("|".join(_ZH_STANDING))
# Words just before a time that make it a start or a past reference (ignored), or
# approximate (then no deadline at all).
_EN_START_BEFORE: Final = frozenset(
    ["from", "starting", "start", "starts", "since", "after", "than", "last", "past", "previous"]
)
_EN_FILLER: Final = frozenset({"on", "at", "the"})
_EN_UNSURE_BEFORE: Final = frozenset(
    # "first thing tomorrow" is tomorrow morning; "early next week", "the middle of
    # December", "the week of December 7" name part of a period or another period.
    {
        *("every", "each", "following", "around", "about", "between", "thing"),
        *("early", "mid", "late", "middle", "of"),
        # "this time next week", "same time tomorrow": a clock time of that day, not its end.
        "time",
    }
)
# After a run: a zone other than the user's ("5pm EST", "5pm Beijing time") or a
# dangling date the grammar could not join ("noon on the 1st"): no deadline at all.
# "Friday after next" (the Friday of next week, or the one after "next Friday"), a date
# run into a slash ("2027/13/10"): no deadline at all.
_EN_UNSURE_AFTER: Final = re.compile(
    r"\s*(?:[A-Z]{1,4}T|UTC|GMT|Z)\b|\s+(?:\w+\s+)?time\b|\s*,?\s+(?:on|at|of)\s+(?:the\s+)?\d"
    r"|\s+after\s+next\b|/\w"
    # "by 2027.03.16" read as "by 2027"; "within an hour or two", "in an hour or so".
    r"|\.\d|\s+(?i:or\s+(?:so|\d+|one|two|three|four|five|six|seven|eight|nine|ten))\b"
    # "by Friday week" (a week after Friday), "Monday next", "Thanksgiving weekend",
    # "Christmas break", "Oct 31 '28": more than the run read.
    r"|\s+(?i:week|weekend|break|holidays?|season|vacation|next(?!\s+(?:week|month|year)\b))\b"
    r"|\s*'\d"
    # "tomorrow + 2 days": arithmetic the run does not hold; "Monday COB": the close of
    # business, not the day's end.
    r"|\s*\+|\s+(?i:cob|eob|close\s+of\s+(?:business|play)|end\s+of\s+(?:business|play))\b"
)
# After a length: what it counts from, if not now ("within 30 days of signing", "in 2
# weeks after launch"): the length is from an event, so no deadline at all.
_EN_LENGTH_FROM: Final = re.compile(
    r"\s+(?:of|after|from|following|since|upon|on|before)\b", re.IGNORECASE
)
# After a run: more time wording the run stopped short of (R9: a longer expression only
# partly read gives no deadline rather than its first piece's): a range's second end
# ("November 19 to 20", "morning 6-8"), a range after "from" ("this week from Tue to
# Thur"), a date after a weekday ("monday, jan twenty two, 2029"), one more length
# ("2 days 1 hour 5 minutes 30 seconds").
_EN_TIME_WORD: Final = (
    r"(?:\d|(?:"
    + "|".join(english_lexicon.WEEKDAYS)
    + r"|mon|tues?|wed|thu(?:rs?)?|fri|sat|sun"
    + "|"
    + "|".join(name for name in english_lexicon.MONTH_NAMES if name != "may")
    + r"|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec|noon|midnight)\b(?!['\u2019]))"
)
_EN_LONGER_AFTER: Final = re.compile(
    rf"\s*(?:[-\u2013]|\s(?:to|through|thru|until|till|til)\s)\s*(?:the\s+)?{_EN_TIME_WORD}"
    rf"|\s*,?\s+(?:from|between)\s+(?:the\s+)?{_EN_TIME_WORD}"
    r"|\s+\d{1,2}(?:[:.]\d{2})?\s*(?:[-\u2013]|\s(?:to|through|thru|until|till|til)\s)\s*\d"
    r"|\s*,?\s*(?:january|february|march|april|june|july|august|september|october"
    r"|november|december|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec|may\s+\d)\b"
    # "by the end of the month of August": the month the run stopped short of.
    rf"|\s+of\s+{_EN_TIME_WORD}"
    r"|\s*,?\s*(?:and\s+)?(?:\d+(?:\.\d+)?|an?|half)\s*"
    r"(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?)\b",
    re.IGNORECASE,
)
# After a run: the rest of a date or time the run stopped short of, which a deadline
# would drop (R9: none, not the piece read): a two-digit or quoted year ending the
# clause or before a time ("may 27 79 at 4:30", "jan 10, '00", "3 jan 31", "in the year
# 1980"; a count goes on: "by Friday 10 copies"), a clock time ("Friday 10.30"), a unit
# its last number counts ("september 3 years ago"), a past reference ("tuesday before
# last", "Friday of last week", "5pm the day before"), an offset from UTC ("22:11:35
# +0100"), or a numeric date run on ("2034.08.09").
_EN_STOPPED_SHORT: Final = re.compile(
    r"\s*,\s*(?:'\d{2}\b|\d{2,4}\b(?=\s*(?:$|[,;!?)@]|\.(?!\d)|at\b)))"
    r"|\s+(?:'\d{2}\b|\d{2,4}\b(?!\s*(?:[ap]\.?\s?m\b|o'clock|hours?\b))"
    r"(?=\s*(?:$|[,;!?)@]|\.(?!\d)|at\b|\d{1,2}[:.]\d)))"
    r"|\s+\d{1,2}[:.]\d{2}\b"
    r"|\s+in\s+(?:the\s+year\b|(?:19|20)\d{2}\b)"
    r"|\s+(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|fortnights?|months?"
    r"|years?|decades?)\b"
    r"|\s+before\s+last\b"
    r"|\s+(?:of\s+)?(?:last|previous|prior|the\s+(?:previous|prior|preceding))"
    r"\s+(?:week|month|year)\b"
    r"|\s+the\s+(?:day|week|month|year)\s+(?:before|prior|earlier)\b"
    r"|\s+(?:last|prior|just\s+(?:gone|past))\s*(?:$|[,.;!?])"
    r"|\s*(?:utc|gmt)?[+-]\d{2}:?\d{2}\b(?!\s*[a-z%])"
    r"|[.,-]\d"
    # "by Monday first thing" (Monday morning, as "first thing Monday", which is refused),
    # "by today 11th" (an ordinal ending the clause, which the run left)
    r"|\s*,?\s*(?:first|1st)\s+thing\b|\s+\d{1,2}(?:st|nd|rd|th)\s*(?:$|[,.;!?])",
    re.IGNORECASE,
)
# Before a run: a past reference, a period or a compact length the run does not hold
# ("3 months ago saturday", "yesterday at 3pm", "the year after next @ midnight", "in 2d
# 03:00"): the run is part of a longer expression.
_EN_LONGER_BEFORE: Final = re.compile(
    r"\b(?:ago|before\s+last|after\s+next|yesterday|last\s+night"
    r"|\d+\s*(?:d|h|hrs?|m|mins?|w|wks?|y|yrs?))\s*(?:[@,]\s*)?(?:(?:at|on)\s+)?$",
    re.IGNORECASE,
)
# After a run: when its length starts ("in 10 minutes starting tomorrow"): the length is
# not counted from now, and the start is a second time the run does not hold: none.
_EN_STARTING_AFTER: Final = re.compile(
    r"\s*,?\s+(?:starting|beginning|commencing)\b", re.IGNORECASE
)
# Just before a run: a length it is moved by ("two hours before 5pm", "the day before
# Christmas"), which the run does not hold: no deadline at all, not the run's own.
_EN_LENGTH_BEFORE: Final = re.compile(
    r"\b(?:\d+|an?|the|one|two|three|four|five|six|seven|eight|nine|ten|twelve|few|several)\s+"
    r"(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|fortnights?|months?|years?)"
    r"[\s,]*$",
    re.IGNORECASE,
)
_EN_MOVING: Final = ("before", "prior", "ahead", "in advance", "after")
# "in the coming week", "over the upcoming month": seven days or next calendar week
# ("in the next week" is a length): none, as "within the coming week".
_EN_COMING: Final = re.compile(r"(?:the\s+|this\s+)?(?:up)?coming\s+(?:calendar\s+)?[a-z]+$")
_EN_SPAN_BEFORE: Final = re.compile(r"\b(?:in|over|during|for|within)\s+$", re.IGNORECASE)
# After a run: a start or a past time ("Monday onwards", "2 hours ago"), ignored.
# ("Friday's meeting" never gets here: an item followed by an apostrophe does not lex.)
_EN_AFTER: Final = re.compile(
    r"\s+(?:onwards?|ago|or\s+later|or\s+after|and\s+after|later)\b", re.IGNORECASE
)
# A marker a few words before the time belongs to something else ("before the meeting
# on Friday"); in Chinese, 前 just after it does ("周五下班前").
_EN_EVENT_BEFORE: Final = frozenset({"by", "before", "until", "till", "prior"})
# The same for the two-word markers, one word further back ("ahead of the call on Friday").
_EN_EVENT_AHEAD: Final = frozenset({"ahead", "advance"})
# Up to four characters before the clause ends (full-width or ASCII punctuation).
_ZH_EVENT_AFTER: Final = re.compile(
    r"[^\uff0c,\u3002\uff1b;\uff01!\uff1f?\s]{1,4}?(?:之前|以前|前)"
)
_ZH_START_BEFORE: Final = ("从", "自", "打", "由", "上", "上个", "去", "前")
# 北京时间: another zone.
# 第3天内, 第二周前: an ordinal day or week of something else, not a length from now.
# 3至5日内: a range whose start the run does not hold.
_ZH_UNSURE_BEFORE: Final = (
    *("下", "每", "大约", "大概", "时间", "第"),
    *("至", "~", "\uff5e", "\u2014", "\u2013"),
)
# 次年年底, 后年年底, 来年年末: a year the run does not hold (it would read 年年底 as this
# year's end): no deadline at all.
_ZH_OTHER_YEAR: Final = ("次", "后", "前", "去", "隔", "翌", "来")
# Just before a run: a year it does not hold (后年春节前, 去年12月前, 前年的中秋): the run
# alone would read this year's or the next occurrence: no deadline at all.
_ZH_YEAR_BEFORE: Final = re.compile(r"年\s*的?\s*$")
# Before a length: another length it adds to (一个星期又三天内, 两周加三天内), which the
# run does not hold (lengths added up in Chinese are not in the grammar): no deadline.
_ZH_SUM_BEFORE: Final = re.compile(
    r"(?:天|日|周|星期|礼拜|月|年|小时|钟头|钟|分|秒)\s*(?:又|零|加上?|和|再加)?\s*$"
)
# Before a run: a past day, week, month or year it belongs to (前天下午3点, 去年5月,
# 上上周的周日): a past time, not a deadline; or a year joined to it by 的 (后年的春节):
# a year the run does not hold (R9: none, not the run's reading alone).
_ZH_PAST_BEFORE: Final = re.compile(
    r"(?:(?:大?前天|昨[天日晚儿个]?|前晚|前(?:几|些)天|前年|去年"
    r"|上上?个?(?:周|星期|礼拜|月))的?"
    r"|(?:今年|明年|后年|大后年|来年|次年|\d{4}年)的)\s*$"
)
# Just before a run: a numeral (二百 of 二百二十五日内): the run starts inside a number.
_ZH_NUMERAL_BEFORE: Final = re.compile(
    r"[0-9\uff10-\uff19一二三四五六七八九十百千万两零\u3007廿卅]$"
)
# After a run: a numeral with a date or clock unit the run stopped short of
# (七月五日到七月廿二十一日: a garbled day): none, not the run's own reading.
_ZH_NUMERAL_AFTER: Final = re.compile(
    r"[廿卅0-9\uff10-\uff19一二三四五六七八九十两]{1,4}\s*(?:日|号|月|年|点|时)"
)
# Between a run read as a start or a past time and the next run: nothing, or one joining
# particle (3周前周五, 明年的感恩节, 三天之内的下午3点, 3个星期后的周五): the next run is a
# part of the same expression, which is not in the grammar; so is a few characters with
# a time word (3周后的周零到周日). A noun between them (今天的活明天前做完) makes two
# phrases.
_ZH_JOINED_GAP: Final = re.compile(
    r"[的之啊呀]?|[^\s\uff0c,\u3002\uff1b;\uff01!\uff1f?\u3001]{0,2}[周天月年日号点]"
    r"[^\s\uff0c,\u3002\uff1b;\uff01!\uff1f?\u3001]{0,2}"
)
# A length before or after now (3周前, 两个月后): time wording even where a run of it is
# ignored.
_ZH_OFF_NOW: Final = re.compile(
    r"[\d一二三四五六七八九十两几半]\s*个?\s*(?:周|星期|礼拜|天|日|月|年|小时|钟头|分钟?)"
    r"(?:以|之)?[前后]$"
)
# After a closed run (周五前, 三天内): a count of days or hours before it (周五前一日,
# 周五前12点), not a count of things (周五前3号楼, 周五前两点建议): none.
_ZH_DAY_BEFORE: Final = re.compile(
    r"[一两二三四五六七八九十\d]{1,2}\s*(?:个)?\s*"
    r"(?:日|天|周|星期|礼拜|小时|钟头|分钟|点(?!建议|意见|要求|想法))"
)
# 29日前 (no month) is a day of the month only there too: after an event (到期30日前,
# 会议3日前) it counts days before the event, and after other words (按三日前讨论的) it
# may be three days ago: no deadline at all.
_ZH_CLAUSE_OPENED: Final = re.compile(
    r"(?:^|[\s\uff0c,\u3002\uff1a:\uff1b;\uff01!\uff1f?\u3001]"
    r"|[你您我们他她请要须需应得必都就也并且还先再])$"
)
# 之后 opens the terms or follows their subject (我们约定: 之后5分钟…, 你之后3天内…); after a
# comma the clause before may name the event it follows (还有30天, 之后5天内).
_ZH_AFTERWARDS_OPENED: Final = re.compile(r"(?:^|[\uff1a:]|[你您我们请])$")
# A length right after 后 counts from an event (会后5分钟内, 下班以后两小时内).
_ZH_AFTER_EVENT: Final = re.compile(r"后\s*$")
# A date after a length (2年后3月5号前, 3个月后10号前) counts from now only where the
# clause opens with it (你3个月后10号前付款); after other words the length may count from
# an event (合同签订3个月后10号前, 收到货3个月后10号前): no deadline at all.
_ZH_DATE_AFTER_LENGTH: Final = re.compile(r"后\s*[\d一二三四五六七八九十两]")
_ZH_BARE_DAY_RI: Final = re.compile(r"(?:\d{1,2}|[一二三四五六七八九十]{1,3})日(?!\s*(?:之|以)?内)")
# 明后天 / 今明两天内: one of two days, or counted from today, not from now.
_ZH_TWO_DAYS: Final = ("后天", "两天", "二天")
_ZH_START_AFTER: Final = ("起", "开始", "以后", "之后", "后", "以来", "的")
# After a run: approximate (左右, 前后) or part of the period (下个月初, 下周中, 12月中旬).
# A range ("下午5点-7点", "5点到7点") ends at its second time, which the run does not hold.
# 明年第九个月, 今年第一季度: an ordinal the run stopped short of (R9: none, not the year).
_ZH_UNSURE_AFTER: Final = re.compile(
    r"左右|前后|上下|初|上旬|中旬|下旬|中(?!午)|第\s*[\d一二三四五六七八九十两]"
    r"|\s*(?:[-~\uff5e\u2014\u2013至]|到)\s*[\d一二三四五六七八九十两]"
    # 周六(3/20)前: a number in brackets after the run, its date the run does not hold.
    r"|\s*[(\uff08]\s*[\d一二三四五六七八九十两]"
    # 明天这个时候: this time tomorrow, not the end of tomorrow.
    r"|这个?时候|此时|同一?时[间刻]"
)
# A bare day of the month (8号) or holiday (元旦) is a date only before a verb or the
# end of a clause: 8号楼 is a building, 元旦晚会 an event, 春节期间 a period.
_BARE_DAY: Final = re.compile(r"(?:\d{1,2}|[一二三四五六七八九十]{1,3})号")
# A holiday ending a run without 前 (元旦, 明年春节): the same rule.
_ENDS_IN_HOLIDAY: Final = re.compile(
    "(?:" + "|".join(sorted(chinese_lexicon.HOLIDAYS, key=len, reverse=True)) + ")"
    "(?:早上|上午|下午|晚上|当天|当日|那天|那一天)?$"
)
_ZH_AFTER_BARE_DAY: Final = frozenset(
    # 或 / 和 / 及 / 与: one of two days (中秋节或国庆节前), never the other alone
    "交发给完提做把到截开见要让再就都前之以内、。\uff0c\uff1b\uff01\uff1f或和及与"
)
_AHEAD: Final = 24  # characters of context worth looking at on either side
# Every significant Chinese run holds one of these; a run starts with one of _ZH_FIRST
# at most _ZH_REACH characters before it ("在二十五分钟内": 内 is 6 after 在).
_ZH_TRIGGER: Final = re.compile(
    r"[前内止截最迟今明后周星礼月年号日:点时午晚来季天0-9节旦夕秋诞夜腊双宵钟]"
)
_ZH_FIRST: Final = frozenset(
    "再截最不在到于0123456789零\u3007一二两三四五六七八九十半本这下月年今明后大周星礼早上中傍晚夜凌午未接季元情妇劳儿国圣平春除端七重次来翌从之清深植青光双腊小正"
    "农愚建教万母父感女过新冬"
)
_ZH_REACH: Final = 7
_ZH_OPENER: Final = re.compile("[" + "".join(sorted(_ZH_FIRST)) + "]")
# "no later than the twenty-first of December": the trigger word is 8 words in.
_EN_REACH: Final = 8


def find_deadline_phrase(terms: str) -> str | None:
    """The one deadline wording inside proposal terms, or None.

    None when there is no wording, when there are two, when any time wording around
    is outside the grammar (it might be the real deadline), or when the terms set a
    recurring schedule or a standing rule. Mixed Chinese and English text is read
    with both grammars.
    """
    # A quoted name is data, not grammar: 'mark todo "Write weekly report" as completed
    # by Friday' is read with the name blanked out (same length, so spans still match).
    terms_read = _QUOTED.sub(_blank, terms) if _QUOTE_MARKS.search(terms) else terms
    if not terms_read.isascii() and chinese_lexicon.HAS_TRADITIONAL.search(terms_read) is not None:
        terms_read = terms_read.translate(chinese_lexicon.TRADITIONAL)
    spans = _spans(terms_read)
    if spans is None or len(spans) != 1:
        return None
    start, end = spans[0]
    return terms[start:end]


def _spans(terms: str) -> list[tuple[int, int]] | None:
    """Every deadline span in `terms`, or None when the terms cannot have a deadline."""
    chinese = not terms.isascii() and CJK.search(terms) is not None
    spans: list[tuple[int, int]] = []
    if chinese and not _chinese_spans(terms, spans):
        return None
    words: list[str] = []
    # Chinese terms without a Latin letter have no English to read: their only words
    # would be numbers, which no English rule or run needs.
    if not chinese or _LATIN.search(terms) is not None:
        lower = _lower(terms)
        words = _WORD.findall(lower)
        if not _english_spans(terms, lower, words, spans):
            return None
    if _standing(terms, words, chinese=chinese):
        return None
    return spans


def _lower(terms: str) -> str:
    lower = english_lexicon.normalize(terms)
    if len(lower) == len(terms):
        return lower
    # A few characters grow when lower-cased ("İ"); keep offsets aligned with terms.
    return "".join(c if len(c.lower()) != 1 else c.lower() for c in terms)


def _standing(terms: str, words: list[str], *, chinese: bool) -> bool:
    """Whether the terms set a recurring schedule or a standing rule."""
    if chinese:
        # "每周的周报" is a noun phrase (the weekly report), "每周五都" a rule.
        rule_text = _ZH_EVERY_NOUN.sub("", terms) if "每" in terms else terms
        if _ZH_STANDING_WORD.search(rule_text) is not None:
            return True
    standing = _EN_STANDING.intersection(words)
    if standing and not all(_in_noun_phrase(words, word) for word in standing):
        return True
    if "now" in words and "from now on" in " ".join(words):
        return True
    if _EN_EVERY.isdisjoint(words):
        return False
    return any(
        first in _EN_EVERY and (second in _EN_EVERY_WHAT or second[0].isdigit())
        for first, second in itertools.pairwise(words)
    )


def _in_noun_phrase(words: list[str], word: str) -> bool:
    """Whether every use of `word` modifies a noun after a determiner ("the weekly report").

    "send me the weekly report by Friday" names one report; "send me a weekly report"
    and "weekly, send me …" set a schedule.
    """
    if word not in _EN_PERIODIC:
        return False
    for index, found in enumerate(words):
        if found != word:
            continue
        previous = words[index - 1] if index else ""
        if previous in _NOUN_ADJECTIVES and index > 1:
            previous = words[index - 2]
        if index + 1 >= len(words) or previous not in _DETERMINER:
            return False
    return True


def _blank(match: re.Match[str]) -> str:
    quoted = match.group()
    return quoted[0] + " " * (len(quoted) - 2) + quoted[-1]


def _english_spans(terms: str, lower: str, words: list[str], spans: list[tuple[int, int]]) -> bool:
    """Append English deadline spans; False if there is time wording we cannot read.

    Only runs that hold a trigger word are deadline wording, so matching is tried at
    the few word starts just before each trigger instead of at every character.
    """
    if english_lexicon.TRIGGERS.isdisjoint(words) and _DIGIT.search(lower) is None:
        return True
    trigger_words, starter_words = english_lexicon.TRIGGERS, english_lexicon.STARTERS
    triggers = [
        index for index, word in enumerate(words) if word in trigger_words or word[0].isdigit()
    ]
    if not triggers:
        return True
    # Word starts up to the last trigger: no run is tried after it.
    starts = _word_starts(lower, words, triggers[-1] + 1)
    taken = tuple(spans)
    last_end, tried = 0, 0  # word indexes below `tried` were tried and need no retry
    for index in triggers:
        if starts[index] < last_end:
            continue
        for first in range(max(tried, index - _EN_REACH), index + 1):
            tried = first + 1
            word = words[first]
            if starts[first] < last_end or not (word in starter_words or word[0].isdigit()):
                continue
            run_start = starts[first]
            run_end = english_lexicon.candidate_end(lower, run_start)
            if run_end <= starts[index]:
                continue
            floor, last_end = last_end, run_end
            if any(run_start < end and start < run_end for start, end in taken):
                break  # already read as Chinese ("明天 18:00 前")
            if not _take(terms, (run_start, run_end), spans, floor=floor, chinese=False):
                return False
            break
    return True


def _word_starts(lower: str, words: list[str], count: int) -> list[int]:
    """Where the first `count` words of `lower` start.

    Words are maximal runs of [a-z0-9] and only other characters lie between two of
    them, so each is found at the next place the text holds it (a `str.find`, far
    cheaper than a match object per word).
    """
    starts: list[int] = []
    at = 0
    for word in islice(words, count):
        at = lower.find(word, at)
        starts.append(at)
        at += len(word)
    return starts


def _chinese_spans(terms: str, spans: list[tuple[int, int]]) -> bool:
    """Append Chinese deadline spans; False if there is time wording we cannot read."""
    last_end, tried = 0, 0  # positions below `tried` were tried and need no retry
    ignored_end = -1  # where the last run read as a start or a past time ended
    for trigger in _ZH_TRIGGER.finditer(terms):
        position = trigger.start()
        if position < last_end:
            continue
        first = max(last_end, tried, position - _ZH_REACH)
        tried = position + 1
        # Only characters that can open a run are tried; a search finds the next one.
        while (opener := _ZH_OPENER.search(terms, first, position + 1)) is not None:
            first = opener.start()
            run_end = chinese_lexicon.candidate_end(terms, first)
            if run_end <= position:
                first += 1
                continue
            tried = first + 1
            if ignored_end >= 0 and _ZH_JOINED_GAP.fullmatch(terms, ignored_end, first):
                return False  # 3周前周五, 明年的感恩节: one expression, not two runs
            floor, last_end = last_end, run_end
            found = len(spans)
            if not _take(terms, (first, run_end), spans, floor=floor, chinese=True):
                return False
            ignored_end = run_end if len(spans) == found and _timely(terms[first:run_end]) else -1
            break
    return True


def _timely(phrase: str) -> bool:
    """Whether a run ignored by `_judge` was time wording (a start or a past time), not
    a number that only looked like a day (3号线) or wording the grammar does not read."""
    if _BARE_DAY.fullmatch(phrase) is not None:
        return False
    return deadline_chinese.read(phrase)[0] is not None or _ZH_OFF_NOW.search(phrase) is not None


def _take(
    terms: str, run: tuple[int, int], spans: list[tuple[int, int]], *, floor: int, chinese: bool
) -> bool:
    """Record the run if it is a deadline; False if it makes the whole terms unreadable."""
    verdict = _judge(terms, run, floor=floor, chinese=chinese)
    if verdict:
        spans.append(run)
    return verdict is not False


def _judge(terms: str, run: tuple[int, int], *, floor: int, chinese: bool) -> bool | None:
    """True: a deadline; False: time wording we cannot read (no deadline at all); None: ignore.

    The words before the run are read back to `floor`, the end of the previous run:
    "明天下午5点前到明天…" is not preceded by a stray 前.
    """
    start, end = run
    phrase = terms[start:end]
    spec, significant = (deadline_chinese if chinese else deadline_english).read(phrase)
    if not significant:
        return None
    before = terms[max(floor, start - _AHEAD) : start]
    after = terms[end : end + _AHEAD]
    within = spec is not None and spec.within is not None
    if chinese:
        context = _chinese_verdict(terms, start, phrase, (before, after), within=within)
    else:
        context = _english_verdict(phrase, before, after, within=within)
    return spec is not None if context is True else context


def _chinese_verdict(
    terms: str, start: int, phrase: str, around: tuple[str, str], *, within: bool
) -> bool | None:
    """`_judge`'s verdict on a Chinese run from the words around it (True: as read)."""
    before, after = around
    bare_day = (
        _BARE_DAY.fullmatch(phrase) is not None or _ENDS_IN_HOLIDAY.search(phrase) is not None
    )
    closed = phrase.endswith(("前", "内", "止"))
    context = _chinese_context(before, after, bare_day=bare_day, closed=closed)
    opened = terms[max(0, start - 4) : start]
    if (
        (before.endswith("明") and phrase.startswith(_ZH_TWO_DAYS))
        or (phrase.startswith("年") and before.endswith(_ZH_OTHER_YEAR))
        # 后年春节前, 去年12月: a year the run does not hold
        or _ZH_YEAR_BEFORE.search(terms[max(0, start - 3) : start]) is not None
        or (phrase.startswith("之后") and _ZH_AFTERWARDS_OPENED.search(opened) is None)
        or (_ZH_BARE_DAY_RI.match(phrase) is not None and _ZH_CLAUSE_OPENED.search(opened) is None)
        or (
            _ZH_DATE_AFTER_LENGTH.search(phrase) is not None
            and _ZH_CLAUSE_OPENED.search(opened) is None
        )
        or (within and _ZH_AFTER_EVENT.search(opened) is not None)
        # 一个星期又三天内: a length added to one the run misses
        or (within and _ZH_SUM_BEFORE.search(terms[max(0, start - _ZH_REACH) : start]))
    ):
        return False
    return context


def _english_verdict(phrase: str, before: str, after: str, *, within: bool) -> bool | None:
    """`_judge`'s verdict on an English run from the words around it (True: as read)."""
    lower = _lower(phrase)
    led = english_lexicon.MARKER.match(lower) is not None
    context = _english_context(before, after, led=led)
    if (
        # "two hours before 5pm", "the day before Christmas": moved
        (lower.startswith(_EN_MOVING) and _EN_LENGTH_BEFORE.search(before) is not None)
        or (_EN_COMING.match(lower) is not None and _EN_SPAN_BEFORE.search(before) is not None)
        or (within and _EN_LENGTH_FROM.match(after) is not None)
        or (within and _EN_STARTING_AFTER.match(after) is not None)
    ):
        return False
    return context


def _chinese_context(
    before: str, after: str, *, bare_day: bool = False, closed: bool = False
) -> bool | None:
    """True: the words around do not change the reading; else a _judge verdict. A
    `closed` run ends in 前, 内 or 止: a numeral after it starts other words."""
    before, after = before.rstrip(), after.lstrip()
    if (
        before.endswith(_ZH_UNSURE_BEFORE)
        # 二百二十五日内: a number the run starts inside of (百 is not read)
        or _ZH_NUMERAL_BEFORE.search(before) is not None
        or _ZH_UNSURE_AFTER.match(after)
        or _ZH_PAST_BEFORE.search(before) is not None
        or (_ZH_NUMERAL_AFTER.match(after) is not None and not closed)
        or (closed and _ZH_DAY_BEFORE.match(after) is not None)
    ):
        return False
    if before.endswith(_ZH_START_BEFORE) or after.startswith(_ZH_START_AFTER):
        return None
    if bare_day and after[:1] and CJK.match(after) and after[0] not in _ZH_AFTER_BARE_DAY:
        return None  # 8号楼, 3号线: a number, not a day of the month
    # "周五下班前": before an event on that day, not the day's end.
    return _ZH_EVENT_AFTER.match(after) is None


def _english_context(before: str, after: str, *, led: bool) -> bool | None:
    """True: the words around do not change the reading; else a _judge verdict.

    Words before a run its own marker leads ("about by Friday", "by email by Friday")
    belong to the sentence, not to the time.
    """
    if (
        _EN_UNSURE_AFTER.match(after) is not None
        or _EN_LONGER_AFTER.match(after) is not None
        or _EN_STOPPED_SHORT.match(after) is not None
        or _EN_LONGER_BEFORE.search(before) is not None
    ):
        return False
    if _EN_AFTER.match(after) is not None:
        return None
    if led:
        return True
    words = _WORD.findall(_lower(before))[-5:]
    previous = words[-4:]
    if previous and previous[-1] in _EN_UNSURE_BEFORE:
        return False
    trimmed = list(previous)
    while trimmed and trimmed[-1] in _EN_FILLER:
        trimmed.pop()
    if trimmed and (trimmed[-1] in _EN_START_BEFORE or trimmed[-2:] == ["as", "of"]):
        return None
    # "before the meeting on Friday": the deadline is the event's, not Friday's end.
    return _EN_EVENT_BEFORE.isdisjoint(previous) and _EN_EVENT_AHEAD.isdisjoint(words)
