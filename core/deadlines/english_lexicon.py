"""The English deadline lexicon: word tables, token kinds and the lexer (DESIGN section 4).

The grammar's vocabulary lives here; `english.py` parses the tokens into a spec.
`CANDIDATE` is the same token set as one search pattern, so `find_deadline_phrase`
only ever returns spans the parser was written for; `TRIGGERS` and `STARTERS` let
it skip terms and positions where no run can be.
"""

from __future__ import annotations

import enum
import re
from typing import Final

from core.deadlines.grammar import Hint, Lexer, Token, Unit
from core.deadlines.numerals import (
    EN_HOUR_WORDS,
    EN_NUMBER_WORD_LIST,
    EN_NUMBER_WORDS,
    EN_ORDINAL_WORDS,
)

WEEKDAYS: Final[tuple[str, ...]] = (
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
)
MONTH_NAMES: Final[tuple[str, ...]] = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
MONTHS: Final = {name: i for i, name in enumerate(MONTH_NAMES, 1)} | {
    name[:3]: i for i, name in enumerate(MONTH_NAMES, 1)
}
MONTHS["sept"] = 9
UNITS: Final = {
    "second": Unit.SECOND,
    "sec": Unit.SECOND,
    "minute": Unit.MINUTE,
    "min": Unit.MINUTE,
    "hour": Unit.HOUR,
    "hr": Unit.HOUR,
    "h": Unit.HOUR,
    "day": Unit.DAY,
    "week": Unit.WEEK,
    "fortnight": Unit.WEEK,  # two weeks: english._duration doubles the amount
    "month": Unit.MONTH,
    "quarter": Unit.QUARTER,
    "year": Unit.YEAR,
}
HOLIDAYS: Final = {
    "christmas eve": "christmas_eve",
    "christmas": "christmas",
    "christmas day": "christmas",
    "new years eve": "new_year_eve",
    "new year eve": "new_year_eve",
    "new years day": "new_year",
    "new year day": "new_year",
    "valentines": "valentine",
    "valentines day": "valentine",
    "valentine day": "valentine",
    "valentine": "valentine",
    "halloween": "halloween",
    "chinese new year": "spring",
    "lunar new year": "spring",
    "chinese new years eve": "lunar_new_year_eve",
    "lunar new years eve": "lunar_new_year_eve",
    "mid-autumn": "mid_autumn",
    "mid-autumn festival": "mid_autumn",
    "independence day": "independence",
    "xmas": "christmas",
    "x-mas": "christmas",
    "thanksgiving": "thanksgiving",
    "thanksgiving day": "thanksgiving",
    "thanks giving": "thanksgiving",
    "thanks giving day": "thanksgiving",
    "mothers day": "mother",
    "fathers day": "father",
    # The United States' federal holidays ("Labor Day" in its US spelling only: "Labour
    # Day" is 1 May in most of the world and September in Canada, so it names none).
    "martin luther king day": "mlk",
    "martin luther king jr day": "mlk",
    "martin luther kings day": "mlk",
    "martin luther king jrs day": "mlk",
    "mlk day": "mlk",
    "juneteenth": "juneteenth",
    "presidents day": "presidents",
    "president day": "presidents",
    "washingtons birthday": "presidents",
    "memorial day": "memorial",
    "labor day": "labor",
    "columbus day": "columbus",
    "indigenous peoples day": "columbus",
    "indigenous people day": "columbus",
    "veterans day": "veterans",
    "veteran day": "veterans",
    "boxing day": "boxing",
    "st patricks day": "st_patrick",
    "easter": "easter",
    "easter sunday": "easter",
    "easter monday": "easter_monday",
    "good friday": "good_friday",
    "saint patricks day": "st_patrick",
}


def holiday_key(text: str) -> str:
    """A holiday as written ("Presidents' Day", "new year's  day") as a HOLIDAYS key."""
    return " ".join(text.replace("'", "").replace(".", "").replace(",", "").split())


SHORT_ENDS: Final = {"eow": Unit.WEEK, "eom": Unit.MONTH, "eoq": Unit.QUARTER, "eoy": Unit.YEAR}
DAYPARTS: Final = {
    "morning": Hint.MORNING,
    "afternoon": Hint.AFTERNOON,
    "evening": Hint.EVENING,
    "night": Hint.EVENING,
}

DIGITS: Final = "0123456789"
_WD: Final = "|".join(WEEKDAYS)
_MON_FULL: Final = "|".join(MONTH_NAMES)
_MON: Final = "(?:" + _MON_FULL + "|(?:sept|jan|feb|mar|apr|jun|jul|aug|sep|oct|nov|dec)\\.?)"
_ORD: Final = "(?:st|nd|rd|th)?"
# A day of the month: "1", "1st" or "first" (two groups: digits, words).
_DAY: Final = rf"(?:(\d{{1,2}}){_ORD}|({EN_ORDINAL_WORDS}))"
# An hour, and minutes in words after it ("five-thirty", "seven forty-five"): ten and
# up only, so "five two" is no time.
_HOUR: Final = rf"(\d{{1,2}}|{EN_HOUR_WORDS})"
_MINUTE_WORDS: Final = (
    "(ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen"
    "|(?:twenty|thirty|forty|fifty)(?:[- ](?:one|two|three|four|five|six|seven|eight|nine))?)"
)
_MERIDIEM: Final = r"\s*([ap])\.?\s?m\.?"
# A clock at either end of a range: hour, minutes, am/pm (three groups).
_RANGE_CLOCK: Final = r"(\d{1,2})(?:[:.](\d{2}))?(?:\s*([ap])\.?\s?m\.?(?![a-z]))?"
_RANGE_JOIN: Final = r"(?:\s*[-\u2013]\s*|\s+(?:to|until|till|til|through|thru)\s+)"
# What a range's second item may be: a weekday, a month, a day of the month.
_RANGE_NEXT: Final = (
    rf"\s+(?:(?:this|next)\s+(?:week\s+)?)?(?:{'|'.join(WEEKDAYS)}|{'|'.join(MONTH_NAMES)}"
    r"|(?:jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\.?|today|tomorrow"
    r"|(?:mon|tues?|weds?|thu(?:rs?)?|fri|sat|sun)\.?)(?![\w'])"
)
_MER: Final = r"\s*[ap]\.?\s?m\.?(?![a-z])"
# Two days of one month joined as a range: "19 to 20", "19th-20th" (four groups).
_SPAN_DAYS: Final = (
    r"(\d{1,2})(?:st|nd|rd|th)?\s*(?:[-\u2013]|to|through|thru|until|till)\s*(?:the\s+)?"
    r"(\d{1,2})(?:st|nd|rd|th)?"
)
_HH_MM: Final = r"\d{1,2}(?:[:.]\d{2})?"
# A clock range is one only with minutes or am/pm, or after "from" / "between" with a
# part of the day after it: "chapters 9-10" and "from 2 to 3 people" name no time.
_CLOCK_RANGE_IF: Final = (
    rf"(?=\d{{1,2}}[:.]\d{{2}}|\d{{1,2}}{_MER}|{_HH_MM}{_RANGE_JOIN}{_HH_MM}{_MER}"
    rf"|(?:from|between)\s+(?:\d{{1,2}}[:.]\d{{2}}|\d{{1,2}}{_MER}"
    rf"|{_HH_MM}(?:{_RANGE_JOIN}|\s+and\s+){_HH_MM}(?:{_MER}|\s+(?:at\s+night|tonight"
    r"|in\s+the\s+(?:morning|afternoon|evening)|this\s+(?:morning|afternoon|evening)"
    r"|tomorrow\s+(?:morning|afternoon|evening|night)))))"
)


# Lexicon tables and token kinds: rows alike by design (CONTRIBUTING.md, "Repeated shapes").
class Kind(enum.IntEnum):  # IntEnum: hashed in C, and kinds are looked up per token
    ISO = enum.auto()
    MDY = enum.auto()
    NUMERIC = enum.auto()
    DMY = enum.auto()
    DURATION = enum.auto()
    SPAN = enum.auto()
    DOM = enum.auto()
    DOM_BARE = enum.auto()
    SHORT_END = enum.auto()
    HOLIDAY = enum.auto()
    DAYWORD = enum.auto()
    WEEKDAY = enum.auto()
    WEEKDAY_ABBR = enum.auto()
    END_UNIT = enum.auto()
    UNIT_END = enum.auto()
    END_OF = enum.auto()
    REL_PERIOD = enum.auto()
    MONTH = enum.auto()
    YEAR = enum.auto()
    CLOCK12 = enum.auto()
    CLOCK24 = enum.auto()
    CLOCK_WORD = enum.auto()
    CLOCK_PAST = enum.auto()
    AT_HOUR = enum.auto()
    DAYPART = enum.auto()
    MARKER = enum.auto()
    CONNECTOR = enum.auto()
    YMD_NAMED = enum.auto()
    CLOCK_RANGE = enum.auto()
    NTH_WEEKDAY = enum.auto()
    AFTER_DAY = enum.auto()
    QUARTER_HOUR = enum.auto()
    DURATION_SEQ = enum.auto()
    CLOCK_COMPACT = enum.auto()
    RANGE_FROM = enum.auto()
    RANGE_TO = enum.auto()
    CLOCK_RANGE_PART = enum.auto()
    DATE_SPAN = enum.auto()
    ORDINAL_MONTH = enum.auto()
    ISO_DOTTED = enum.auto()
    YEAR_MONTH = enum.auto()
    PART_ALONE = enum.auto()


_AFTER_WEEKDAY: Final = (
    "(?:"
    + "|".join(
        f"(?<={name}{gap})"
        for name in (
            *WEEKDAYS,
            "mon",
            "tue",
            "tues",
            "wed",
            "weds",
            "thu",
            "thur",
            "thurs",
            "fri",
            "sat",
            "sun",
        )
        for gap in (r"\s", r",\s", r"\.\s")
    )
    + ")"
)


# Order matters: the first pattern that matches at a position wins, so longer forms
# come before their prefixes ("the end of the month" before "the end of").
# Each item: kind, pattern, and the characters it can start with (the lexer only
# tries the items that can start with the character at hand).
_ITEM_SOURCES: Final[tuple[tuple[Kind, str, str], ...]] = (
    (Kind.ISO, r"(\d{4})[-/](\d{1,2})[-/](\d{1,2})", DIGITS),
    # 2027.03.16: a date after a marker only ("release 2027.1.1" is a version).
    (Kind.ISO_DOTTED, r"(\d{4})\.(\d{1,2})\.(\d{1,2})(?!\d|\.\d)", DIGITS),
    # 2027/Aug/10.
    (Kind.YMD_NAMED, rf"(\d{{4}})[-/]({_MON})[-/](\d{{1,2}})", DIGITS),
    # "2030 May 22nd": the year first, spaced (digits for the day).
    (Kind.YMD_NAMED, rf"(\d{{4}})\s+({_MON})\s+(\d{{1,2}})(?:st|nd|rd|th)?", DIGITS),
    # "by 2033-06": a month of a year, right after a marker only ("2033-06" alone may be
    # a reference number).
    (
        Kind.YEAR_MONTH,
        (
            r"(?:(?<=by\s)|(?<=before\s)|(?<=until\s)|(?<=till\s)|(?<=than\s))"
            r"(\d{4})-(0[1-9]|1[0-2])(?![\d./:-])"
        ),
        DIGITS,
    ),
    # "November 19 to 20", "19-20 Nov": a range of days in one month (its last day's end).
    (
        Kind.DATE_SPAN,
        (
            rf"(?:({_MON})\s*(?:the\s+)?{_SPAN_DAYS}|{_SPAN_DAYS}\s+(?:of\s+)?({_MON}))"
            r"(?:,?\s+(\d{4}))?(?![\d:]|\.\d)(?!\s*[ap]\.?\s?m\b)"
        ),
        "jfmasond" + DIGITS,
    ),
    (
        Kind.MDY,
        (
            rf"(?:(next)\s+)?({_MON})(?:\s*-\s*|\s*)(?:the\s+)?{_DAY}"
            # "Oct 31, 2027", "Oct 31 '27".
            r"(?:(?:,?\s+|,|\s+')(\d{4}|(?<=')\d{2}))?"
        ),
        "jfmasondn",
    ),
    # 23/12, 12/23, 23/12/2026: read only where one number cannot be a month (DESIGN
    # section 4: without the turn's locale, 12/1 is no date). "24/7" is "always".
    # A two-digit year is this century's ("09/18/27": 2027).
    (
        Kind.NUMERIC,
        r"(?!24/7(?![\d/]))(\d{1,2})/(\d{1,2})(?:/(\d{4}|\d{2}))?(?![\d/])",
        DIGITS,
    ),
    # 19.02.2028, 19-02-2028: the same rule, and only with the year ("3.5" is a number).
    # A two-digit year after dashes only ("10-31-27"; "08.15.30" may be a clock).
    (Kind.NUMERIC, r"(\d{1,2})[.-](\d{1,2})[.-](\d{4}|(?<=-)\d{2})(?![\d-]|\.\d)", DIGITS),
    # A range of clock times ("3:30-6pm", "from 10 to 11", "between 3:30pm and 6 pm"): it
    # ends at its second time (DESIGN section 4). Only with "from" / "between", minutes or
    # am/pm: "chapters 9-10" is no time.
    (
        Kind.CLOCK_RANGE,
        (
            rf"{_CLOCK_RANGE_IF}(?:between\s+{_RANGE_CLOCK}(?:{_RANGE_JOIN}|\s+and\s+){_RANGE_CLOCK}"
            rf"|(?:from\s+)?{_RANGE_CLOCK}{_RANGE_JOIN}{_RANGE_CLOCK})(?![\d:])"
        ),
        DIGITS + "fb",
    ),
    # Right after a part of the day, which settles both ends: "this evening from 7 to
    # 7:30", "next monday morning 6-8"; only before the end of the clause or a small
    # word ("this evening 5-6 people" counts people).
    (
        Kind.CLOCK_RANGE_PART,
        (
            r"(?:(?<=morning\s)|(?<=afternoon\s)|(?<=evening\s)|(?<=night\s)|(?<=tonight\s))"
            rf"(?:from\s+)?{_RANGE_CLOCK}{_RANGE_JOIN}{_RANGE_CLOCK}(?![\d:])"
            r"(?=\s*(?:[^\w\s]|$)|\s+(?:on|at|and|then|to|for|so|please|you|we|i|today|tomorrow)\b)"
        ),
        DIGITS + "f",
    ),
    # "the 3rd month next year", "the third month of 2028".
    (
        Kind.ORDINAL_MONTH,
        (
            rf"(?:the\s+)?(?:(\d{{1,2}})(?:st|nd|rd|th)|({EN_ORDINAL_WORDS}))\s+month\s+"
            r"(?:of\s+)?(?:(?:the\s+)?(this|next)\s+year|(\d{4}))"
        ),
        "t" + DIGITS + "fsten",
    ),
    # "the last Friday of March", "the first Monday of next month", "the last day of March".
    (
        Kind.NTH_WEEKDAY,
        (
            r"(?:the\s+)?(first|second|third|fourth|fifth|last|1st|2nd|3rd|4th|5th)"
            rf"\s+({_WD}|day)\s+(?:of|in)\s+(?:({_MON})(?:,?\s+(\d{{4}}))?|(this|next)\s+month)"
        ),
        "tfsl12345",
    ),
    # "2 days after next Friday", "a week after tomorrow": the day, moved.
    (
        Kind.AFTER_DAY,
        (
            rf"(\d{{1,3}}|{EN_NUMBER_WORDS}|an?)\s+(day|week|fortnight|month|year)s?\s+(?:after|from)"
            r"(?=\s|$)(?!\s+(?:now|today)\b)"
        ),
        DIGITS + "zotfsenah",
    ),
    # "in a quarter of an hour", "three-quarters of an hour".
    (
        Kind.QUARTER_HOUR,
        r"(in\s+)?(?:a\s+(quarter)|(?:three|3)[- ](quarters))\s+of\s+an\s+hour",
        "ia3t",
    ),
    # "in 1d 2hr 5min": a day in shorthand only before hours (a lone "2d" may be "2D").
    (
        Kind.DURATION_SEQ,
        (
            r"(in\s+)?(\d{1,3})d,?\s+(\d{1,3})\s?(?:h|hrs?|hours?)"
            r"(?:,?\s+(?:and\s+)?(\d{1,3})\s?(?:m|mins?|minutes?))?"
        ),
        "i" + DIGITS,
    ),
    (
        Kind.DMY,
        (
            rf"(?:(next)\s+)?(?:the\s+)?{_DAY}(?:\s+day\s+of\s+|\s+(?:of\s+)?|\s*[-/]\s*|(?<=\d))"
            # "28-nov-2027", "31-Oct-27", "31/Oct/2027", "18 Sep '27": a two-digit year
            # after a dash, a slash or an apostrophe.
            rf"({_MON})(?:(?:,?\s+|[-/]|\s+')(\d{{4}}|(?<=[-/'])\d{{2}}))?"
        ),
        "nt" + DIGITS + "fsten",  # next, the, digits, ordinal words
    ),
    # The 3rd of next month; "by the 15th" (digits only: "the first meeting" is no date).
    (
        Kind.DOM,
        rf"(?:the\s+)?{_DAY}(?:\s+day)?\s+of\s+(this|next|the\s+current|the)\s+month",
        "t" + DIGITS + "fsten",
    ),
    (Kind.DOM_BARE, r"the\s+(\d{1,2})(?:st|nd|rd|th)", "t"),
    # "Thu 11th", "Thursday, 11th": an ordinal day right after a weekday (which checks it).
    # Only before the end of the clause or a small word: "by Monday 1st thing", "by
    # Friday 3rd place" hold no date.
    (
        Kind.DOM_BARE,
        (
            rf"{_AFTER_WEEKDAY}(\d{{1,2}})(?:st|nd|rd|th)"
            r"(?=\s*(?:[^\w\s']|$)|\s+(?:at|@|by|before|on|and|then|so|please|you|we|i|ok|thanks)\b)"
        ),
        DIGITS,
    ),
    # "the next 10 days", "over the next two weeks", "for the coming 48 hours": within.
    (
        Kind.SPAN,
        (
            r"(?:(?:over|during|for|in|within)\s+)?(?:the\s+)?(?:next|coming)\s+"
            rf"(\d{{1,3}}|{EN_NUMBER_WORDS})\s+(minute|min|hour|hr|day|week|month|year)s?"
        ),
        "odfiwtnc",
    ),
    # "in 2 hours", "in an hour and a half", "within 1.5 hours", "3 days from now".
    (
        Kind.DURATION,
        (
            # "within the next day": "the next" alone counts one.
            # "in less than an hour": within it.
            r"(in\s+(?:less\s+than\s+|under\s+|no\s+more\s+than\s+)?)?(?:the\s+next\s+)?"
            # "a half hour", "the next half hour": half of an hour, as "half an hour".
            # Minutes and seconds may run to seven digits ("1500 minutes from now"); hours
            # and days not ("within 1800 hours" is a clock, not a length).
            r"(\d{4,7}(?=\s?(?:minutes?|mins?|seconds?|secs?)\b)"
            rf"|\d{{1,3}}(?:\.5)?|{EN_NUMBER_WORDS}|an?\s+half(?=\s+hour)|an?|half\s+an?"
            r"|half(?=\s+hour)"
            r"|the\s+next)"
            # Chat shorthand right after the digits: "within 2h", "in 30min", "in 2 hrs".
            r"(\s+and\s+a\s+half)?(?:\s+|(?<=\d)\s?(?=(?:h|hrs?|hours?|mins?|minutes?|secs?"
            r"|seconds?|days?|weeks?|months?|years?)\b))"
            r"(second|sec|minute|min|hour|hr|day|fortnight|week|month|year|h)s?"
            # "20 minutes past 3pm" is a clock time, not a length.
            # "in 3 weeks' time", "in an hour's time": the same length.
            r"(?:(?:'s|(?<=s)')?\s+time)?"
            r"(\s+and\s+a\s+half)?(\s+(?:from\s+(?:now|today)|hence))?(?!\s+(?:past|after|to)\s)"
        ),
        "it" + DIGITS + "zotfsenah",  # in, the next, digits, number words, a/an/half
    ),
    (Kind.SHORT_END, r"(eow|eom|eoq|eoy)", "e"),
    # Holidays need a marker ("by Christmas", "before Christmas Eve") or "on" ("on
    # Christmas", the day itself): "Christmas gifts" names no time.
    (
        Kind.HOLIDAY,
        (
            r"(on\s+)?(?:(next|this)\s+)?(christmas\s+eve|christmas(?:\s+day)?"
            r"|new\s+year(?:'?s|s')?\s+(?:eve|day)"
            r"|valentine(?:'?s|s')?(?:\s+day)?|halloween|independence\s+day|x-?mas"
            r"|thanks\s?giving(?:\s+day)?|mother'?s\s+day|father'?s\s+day"
            r"|(?:chinese|lunar)\s+new\s+year(?:'s\s+eve)?|(?:the\s+)?mid-autumn(?:\s+festival)?"
            r"|martin\s+luther\s+king(?:,?\s+jr\.?)?(?:'s)?\s+day|mlk\s+day|juneteenth"
            r"|president(?:'?s|s')?\s+day|washington's\s+birthday|memorial\s+day|labor\s+day"
            r"|columbus\s+day|indigenous\s+people(?:'?s|s')?\s+day|veteran(?:'?s|s')?\s+day|boxing\s+day"
            r"|(?:st\.?|saint)\s+patrick'?s\s+day|easter(?:\s+sunday|\s+monday)?|good\s+friday)"
            # "Christmas 2027": that year's.
            r"(?:,?\s+(?:of\s+)?(\d{4}))?"
        ),
        "cnvhlmtoixfjpwbseg",
    ),
    (
        Kind.DAYWORD,
        (
            r"(?:the\s+)?day\s+after\s+tomorrow|today|tonight|tomorrow|eod"
            # "by next day": tomorrow ("the next day after ..." counts from an event).
            r"|next\s+day(?!\s+(?:after|of|following|from|since)\b)"
            r"|(?:the\s+)?end\s+of\s+(?:the\s+)?day|this\s+(?:morning|afternoon|evening)"
        ),
        "tden",
    ),
    # "next Friday", "Friday of next week", "next week Friday".
    (
        Kind.WEEKDAY,
        (
            rf"(?:(this|next|(?:this\s+|the\s+)?(?:up)?coming)\s+(?:week\s+)?)?({_WD})"
            r"(?:\s+(?:of\s+)?(this|next)\s+week)?"
        ),
        "tnmwfsuc",
    ),
    # "on Tue", "by Fri.", "next Wed": an abbreviation names a day only after "on", a
    # marker or this/next ("we sat down", "wed" alone name none).
    (
        Kind.WEEKDAY_ABBR,
        (
            r"(on\s+)?(?:(this|next|(?:this\s+|the\s+)?(?:up)?coming)\s+)?"
            r"(mon|tues?|weds?|thu(?:rs?)?|fri|sat|sun)\.?"
        ),
        "otnmwfsuc",
    ),
    (
        Kind.END_UNIT,
        # Not before "of": "the end of the month of August" is the end of August.
        r"(?:the\s+)?end\s+of\s+(?:the\s+)?(?:(this|next)\s+)?(week|month|quarter|year)(?!\s+of\s)",
        "te",
    ),
    (Kind.UNIT_END, r"(week|month|quarter|year)[- ]end", "wmqy"),
    (Kind.END_OF, r"(?:the\s+)?end\s+of", "te"),
    (
        Kind.REL_PERIOD,
        (
            r"(this|next|the\s+following|(?:the\s+)?current|(?:this\s+|the\s+)?(?:up)?coming)\s+"
            r"(?:calendar\s+)?(week|month|quarter|year)"
        ),
        "tnuc",
    ),
    # "in December": a month named alone is its end (DESIGN section 4); "next March": its
    # next occurrence after this month; "Sep 2027", "June of 2027".
    (
        Kind.MONTH,
        (
            r"(in\s+(?:the\s+month\s+of\s+)?|(?:the\s+)?month\s+of\s+)?(?!this\s+may\b)"
            r"((?:next|this)\s+)?"
            # An abbreviation alone is no month before a marker: "ask Jan by Friday".
            rf"({_MON_FULL}|(?:jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\.?"
            r"(?=\s+\d{4}|(?!,?\s+(?:by|before|until|till|at|on|no|not|prior|ahead|in|within)\b)))"
            r"(?:\s+(?:of\s+)?(\d{4}))?"
        ),
        "injfmasondtm",
    ),
    (Kind.YEAR, r"(20\d\d)", "2"),
    # "5pm", "five thirty p.m.", and the chat form "8:45a" (minutes needed: "5a" is no time).
    (
        Kind.CLOCK12,
        (
            rf"{_HOUR}(?:[:.](\d{{2}})(?::([0-5]\d))?|[- ]{_MINUTE_WORDS})?(?:\s*o'clock)?"
            rf"(?:{_MERIDIEM}|(?<=:\d\d)([ap]))"
        ),
        DIGITS + "otfsen",  # digits, one … twelve
    ),
    # "330 p.m.", "730 in the evening": hour and minutes run together, with am/pm or a
    # part of the day.
    (
        Kind.CLOCK_COMPACT,
        (
            rf"(?<!\d)(1[0-2]|0?[1-9])([0-5]\d)(?!\d)(?:{_MERIDIEM}"
            r"|(?=\s+(?:in\s+the\s+(?:morning|afternoon|evening)|tonight|at\s+night)))"
        ),
        DIGITS,
    ),
    # "quarter to eight", "half past 7 pm", "ten after five": minutes, direction, hour.
    (
        Kind.CLOCK_PAST,
        (
            rf"(?:a\s+)?(quarter|half|\d{{1,2}}|{EN_NUMBER_WORDS})(?:\s+minutes?)?"
            rf"\s+(past|after|to)\s+(?:{_HOUR}|(noon|midnight))(?:{_MERIDIEM}|\s*o'clock)?"
        ),
        DIGITS + "aqhotfsen",
    ),
    # ("12:00 noon" is read as the word.)
    # A fraction of a second after ISO seconds is dropped ("09:15:01.002" is 09:15:01).
    (
        Kind.CLOCK24,
        r"(\d{1,2}):(\d{2})(?::([0-5]\d)(?:(?<=\d\d:\d\d:\d\d)\.\d{1,9})?)?(?!\s+(?:noon|midday|midnight)\b)",
        DIGITS,
    ),
    # Military time: "by 1800 hours", "0930h"; from 1000 only right after a marker or
    # "at" ("log 1200 hours by Friday" counts hours).
    (
        Kind.CLOCK24,
        (
            r"(?:(?=0)|(?<=by\s)|(?<=at\s)|(?<=before\s)|(?<=until\s)|(?<=till\s)|(?<=than\s))"
            r"([01]\d|2[0-3])([0-5]\d)(?:\s*hours|\s*hrs|h)()"
        ),
        DIGITS,
    ),
    # "today at 2100", "tomorrow at 0930": four digits after a day word and "at" are a
    # 24-hour clock.
    (
        Kind.CLOCK24,
        r"(?:(?<=today\sat\s)|(?<=tomorrow\sat\s)|(?<=tonight\sat\s))([01]\d|2[0-3])([0-5]\d)()(?![\d:.])",
        DIGITS,
    ),
    (Kind.CLOCK24, r"(\d{2})h(\d{2})()", DIGITS),  # 13h30
    (
        Kind.CLOCK_WORD,
        r"(?:(?:12(?::00)?|twelve)(?:\s*o'clock)?\s+)?(noon|midday|midnight)",
        "1nmt",
    ),
    # An hour without am/pm, read only with a part of the day ("at 8 tonight", "8 in
    # the evening"); "at 3" alone stays ambiguous.
    # "10, tonight" with a comma only where the number starts the phrase or follows a
    # marker: "chapters 9 and 10, tonight" counts chapters.
    (
        Kind.AT_HOUR,
        (
            rf"at\s+{_HOUR}(?::(\d{{2}})|[- ]{_MINUTE_WORDS})?(?![\d:.])(?!{_MER}|\s*o'clock{_MER})"
            r"(?:\s*o'clock)?"
            rf"|{_HOUR}\s*o'clock"
            rf"|{_HOUR}(?::(\d{{2}})|[- ]{_MINUTE_WORDS})?(?=\s+(?:tonight|in\s+the\s|at\s+night"
            r"|this\s+(?:morning|afternoon|evening)|tomorrow\s+(?:morning|afternoon|evening|night)))"
            r"|(?:(?<=by\s)|(?<![\w,]\s)(?<![\w,]))(\d{1,2})(?=\s*,\s*tonight(?![\w']))"
        ),
        "a" + DIGITS + "otfsen",
    ),
    # "by morning", "until evening": a part of the day alone, right after a marker and
    # before the end of the clause or a small word ("by morning shift", "by afternoon
    # tea" name other things; "by night" is an idiom: not read).
    (
        Kind.PART_ALONE,
        (
            r"(?:(?<=by\s)|(?<=until\s)|(?<=till\s)|(?<=than\s))(morning|afternoon|evening)"
            r"(?=\s*(?:[^\w\s']|$)|\s+(?:on|and|then|so|please|you|we|i|ok|okay|thanks|today|tomorrow)\b)"
        ),
        "mae",
    ),
    (
        Kind.DAYPART,
        (
            r"(?:in\s+)?(?:the\s+)?(morning|afternoon|evening|night)\s+of(?=\s)"
            r"|in\s+the\s+(morning|afternoon|evening)|at\s+(night)"
            # Bare right after a marker only as PART_ALONE allows ("by morning shift": none).
            r"|(?<!by\s)(?<!until\s)(?<!till\s)(?<!than\s)(morning|afternoon|evening|night)"
        ),
        "iament",
    ),
    # "from Monday to Friday", "from May to December": a range of days or months, which
    # ends at the end of its last (DESIGN section 4); "from Friday" alone is a start.
    (Kind.RANGE_FROM, rf"(?:from|between)(?={_RANGE_NEXT})", "fb"),
    # "and" ends a range only after "between" (english._range checks).
    (Kind.RANGE_TO, rf"(?:to|through|thru|-|\u2013|and)(?={_RANGE_NEXT})", "t-\u2013a"),
)
_MARKER_SOURCE: Final = (
    r"on\s+or\s+before|on\s+or\s+prior\s+to|on\s+or\s+earlier\s+than|no\s+later\s+than|not\s+later\s+than|by|until"
    r"|till|before|prior\s+to|in\s+advance\s+of|ahead\s+of"
    r"|within(?:\s+less\s+than|\s+under|\s+no\s+more\s+than)?"
    # "between now and eight o'clock": a span from now ends at its end (DESIGN section 4).
    r"|between\s+now\s+and|from\s+now\s+(?:until|till|to|through)"
)
_CONNECTOR_SOURCE: Final = r"at|@|on|of|and"
MARKER = re.compile(rf"(?:{_MARKER_SOURCE})\s")
_END: Final = r"(?![\w'])"

LEXER: Final = Lexer(
    (
        *_ITEM_SOURCES,
        (Kind.MARKER, _MARKER_SOURCE, "onbutpwiaf"),
        (Kind.CONNECTOR, _CONNECTOR_SOURCE, "ao@"),
    ),
    lambda _kind, source: f"(?:{source}){_END}",
)
_GAP: Final = re.compile(r"[\s,]*")

# Words that join two items of one run: "tomorrow at 5pm", "Feb 1st no later than 6pm",
# "a day and 5 hours".
_JOINER_SOURCE: Final = r"at|@|on|by|before|no\s+later\s+than|not\s+later\s+than|until|till|and"
_ITEM: Final = "(?:" + "|".join(f"(?:{source}){_END}" for _, source, _ in _ITEM_SOURCES) + ")"
# A run of items, optionally led by a marker, joined the way the parser accepts. It
# runs on lower-cased text (see `normalize`), which keeps the regex engine fast.
CANDIDATE: Final = re.compile(
    rf"(?<![\w'])(?:(?:{_MARKER_SOURCE})\s+)?{_ITEM}"
    rf"(?:(?:\s*,\s*|\s+)(?:(?:{_JOINER_SOURCE})\s+)?{_ITEM})*"
)

# `candidate_end` walks the same run token by token: each position tries only the
# items that can start with its character (the lexer's dispatch), where the single
# pattern tries every item after every separator. Same result (tested at every
# position of the corpora against CANDIDATE), about a fifth of the regex work.
_NOT_AFTER: Final = re.compile(r"[\w']")
_MARKER_LEAD: Final = re.compile(rf"(?:{_MARKER_SOURCE})\s+")
_COMMA: Final = re.compile(r"\s*,\s*")
_SPACES: Final = re.compile(r"\s+")
_JOINER: Final = re.compile(rf"(?:{_JOINER_SOURCE})\s+")


def candidate_end(lower: str, pos: int) -> int:
    """Where `CANDIDATE.match(lower, pos)` ends, or -1 where it does not match."""
    if pos and _NOT_AFTER.match(lower, pos - 1) is not None:
        return -1
    end = -1
    marker = _MARKER_LEAD.match(lower, pos)
    if marker is not None:
        end = _item_end(lower, marker.end())
    if end < 0:
        end = _item_end(lower, pos)
    while end >= 0:
        # At most one of the separators (and of the joining words) can match here, so
        # trying them in the pattern's order gives the pattern's choice.
        separator = _COMMA.match(lower, end) or _SPACES.match(lower, end)
        if separator is None:
            return end
        after = separator.end()
        joiner = _JOINER.match(lower, after)
        following = _item_end(lower, joiner.end()) if joiner is not None else -1
        if following < 0:
            following = _item_end(lower, after)
        if following < 0:
            return end
        end = following
    return -1


def _item_end(lower: str, pos: int) -> int:
    found = LEXER.kind_end(lower, pos)
    if found is None or found[0] is Kind.MARKER or found[0] is Kind.CONNECTOR:
        return -1
    return found[1]


# Every significant run holds one of these words (or a digit): terms without any are
# skipped before the candidate search, which is most terms.
TRIGGERS: Final = frozenset(
    {
        "today",
        "tonight",
        "tomorrow",
        "eod",
        "end",
        "within",
        "week",
        "month",
        "quarter",
        "year",
        *("eow", "eom", "eoq", "eoy", "next", "coming"),
        *("hour", "hours", "minute", "minutes", "min", "mins", "hr", "hrs", "day", "days"),
        *("weeks", "months", "years"),
        *("christmas", "eve", "halloween", "valentine", "autumn", "festival", "independence"),
        *("xmas", "thanksgiving", "giving", "juneteenth", "mlk", "king", "presidents"),
        *("president", "birthday", "memorial", "labor", "columbus", "veterans", "boxing"),
        *("patrick", "patricks", "fortnight", "fortnights", "second", "seconds", "sec", "secs"),
        *("hence", "hours", "easter", "good"),
        "noon",
        "midday",
        "midnight",
        "morning",
        "afternoon",
        "evening",
        "night",
        *("am", "pm", "m", "clock"),  # "five pm", "eleven a.m.", "seven o'clock tonight"
        *WEEKDAYS,
        *MONTHS,
        *("mon", "tue", "tues", "wed", "weds", "thu", "thur", "thurs", "fri", "sat", "sun"),
    }
)

# Words a run can start with (besides numbers): find only tries matching there.
STARTERS: Final = TRIGGERS | frozenset(
    {
        *("on", "no", "not", "by", "until", "till", "before", "prior", "within", "from", "between"),
        *("the", "this", "next", "at", "in", "half", "a", "an", "day", "current"),
        *("over", "during", "for", "coming", "quarter", "ahead", "upcoming", "martin"),
        *("washington", "indigenous", "st", "saint"),
        *EN_NUMBER_WORD_LIST,
    }
)

EnToken = Token[Kind]


# ISO 8601 with a local time: "2031-12-27T09:15:01.002" reads as "2031-12-27 09:15:01.002"
# (CLOCK24 drops the fraction of a second); never with a zone or an offset after it ("Z",
# "+02:00"), whose instant the grammar does not read.
_ISO_T: Final = re.compile(
    r"(?<=\d{4}-\d{2}-\d{2})t(?=\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?![\w+:.-]))"
)


def normalize(phrase: str) -> str:
    """Lower case with straight apostrophes; same length as the input when it can be."""
    lower = phrase.lower().replace("\u2019", "'")
    if "t" in lower and ":" in lower and "-" in lower:
        lower = _ISO_T.sub(" ", lower)
    return lower


def lex(text: str) -> list[EnToken] | None:
    """Tokens of a lower-cased phrase, or None if any part is outside the grammar."""
    tokens: list[EnToken] = []
    gap = _GAP.match
    pos = gap(text).end()  # type: ignore[union-attr]  # [\s,]* always matches
    end = len(text)
    while pos < end:
        found = LEXER.token(text, pos)
        if found is None:
            return None
        tokens.append(found[0])
        pos = gap(text, found[1]).end()  # type: ignore[union-attr]
    return tokens
