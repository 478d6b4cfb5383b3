"""Numbers written in words (English) and in Chinese numerals, for deadline phrases.

Only what deadlines need: 0-99 in both languages (durations, hours, days of the
month) and four-digit years written digit by digit (二〇二六). Anything else is
`None`, never a guess, so the deadline grammar rejects the phrase instead.
"""

from __future__ import annotations

from typing import Final

_EN_UNITS: Final = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
}
_EN_TENS: Final = {
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
EN_NUMBER_WORD_LIST: Final = (*_EN_UNITS, *_EN_TENS)
# Regex source for an English number word, longest alternatives first.
EN_NUMBER_WORDS: Final = (
    "(?:(?:" + "|".join(_EN_TENS) + ")(?:[- ](?:one|two|three|four|five|six|seven|eight|nine))?"
    "|" + "|".join(sorted(_EN_UNITS, key=len, reverse=True)) + ")"
)

_EN_ORDINALS: Final = {
    "first": 1,
    "second": 2,
    "third": 3,
    "fourth": 4,
    "fifth": 5,
    "sixth": 6,
    "seventh": 7,
    "eighth": 8,
    "ninth": 9,
    "tenth": 10,
    "eleventh": 11,
    "twelfth": 12,
    "thirteenth": 13,
    "fourteenth": 14,
    "fifteenth": 15,
    "sixteenth": 16,
    "seventeenth": 17,
    "eighteenth": 18,
    "nineteenth": 19,
    "twentieth": 20,
    "thirtieth": 30,
}
# Regex source for a day of the month in ordinal words ("first" … "thirty-first").
EN_ORDINAL_WORDS: Final = (
    "(?:(?:twenty|thirty)[- ](?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth)|"
    + "|".join(sorted(_EN_ORDINALS, key=len, reverse=True))
    + ")"
)
# Regex source for an hour on a 12-hour clock in words.
EN_HOUR_WORDS: Final = "(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"

_ZH_DIGITS: Final = {
    "零": 0,
    "\u3007": 0,  # the circle zero of years written digit by digit
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
# Regex source for a Chinese numeral as deadlines use them (up to four characters).
ZH_NUMERAL: Final = "[零〇一二两三四五六七八九十]{1,4}"


def en_number(text: str) -> int | None:
    """`"3"`, `"three"`, `"twenty-four"`, `"a"` / `"an"` (one) as an int, else None."""
    if text.isascii() and text.isdigit():
        return int(text)
    if text in {"a", "an"}:
        return 1
    unit = _EN_UNITS.get(text)
    if unit is not None:
        return unit
    tens, sep, rest = text.replace(" ", "-").partition("-")
    base = _EN_TENS.get(tens)
    if base is None:
        return None
    if not sep:
        return base
    ones = _EN_UNITS.get(rest)
    return base + ones if ones is not None and 1 <= ones <= 9 else None


def zh_number(text: str) -> int | None:  # noqa: PLR0911  # one exit per malformed shape
    """Arabic digits or a Chinese numeral (三, 两, 十二, 二十五, 二〇二六) as an int, else None.

    `两` is accepted only alone or leading (两周, 两点), as Chinese writes it; `二〇二六`
    style (digit by digit) only for four characters, which is how years are written.
    """
    if text.isascii() and text.isdigit():
        return int(text)
    if not text:
        return None
    if "十" not in text:
        if len(text) == 1:
            return _ZH_DIGITS.get(text)
        if len(text) == 4 and "两" not in text and all(c in _ZH_DIGITS for c in text):
            return int("".join(str(_ZH_DIGITS[c]) for c in text))
        return None
    tens_text, _, ones_text = text.partition("十")
    if "十" in ones_text or len(tens_text) > 1 or len(ones_text) > 1:
        return None
    tens = 1 if not tens_text else _ZH_DIGITS.get(tens_text)
    ones = 0 if not ones_text else _ZH_DIGITS.get(ones_text)
    if tens is None or ones is None or tens == 0 or "零" in text or "\u3007" in text:
        return None
    if tens_text == "两" or ones_text == "两":
        return None
    return tens * 10 + ones


def en_ordinal(text: str) -> int | None:
    """`"first"`, `"twenty-first"`, `"thirtieth"` as an int, else None."""
    value = _EN_ORDINALS.get(text)
    if value is not None:
        return value
    tens, sep, rest = text.replace(" ", "-").partition("-")
    ones = _EN_ORDINALS.get(rest)
    if not sep or tens not in {"twenty", "thirty"} or ones is None or ones > 9:
        return None
    return _EN_TENS[tens] + ones
