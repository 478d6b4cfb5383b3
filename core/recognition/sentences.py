"""Where the sentences of a folded turn end: the recognizer reads one sentence at a time.

People thank the agent, propose, then ask something else, all in one message. A
phrase's terms, its deadline and whether it asks are read from its own sentence, never
from the others. The text here is folded (NFKC), so the full-width "!" and "?" (U+FF01, U+FF1F) are
ASCII already; "。" and "…" stay as they are.

A sentence ends at "!", "?", "。", "…", a line break, or an emoji (people close a
thought with one: "谢谢🙏我们约定…"). A "." ends one only before the end of the turn or
a space, and not before a digit or after an abbreviation of single letters, so
"5.30pm", "Dec. 1", "e.g. the draft" and "5 p.m. tomorrow" stay inside their sentence.
A break inside a quotation opened in the sentence does not end it ('when I say
"stop!" you stop').
"""

from __future__ import annotations

import re
from typing import Final

# Pictographs and dingbats: emoji and the symbols people decorate messages with.
EMOJI: Final = "\u2190-\u21ff\u2300-\u23ff\u2600-\u27bf\u2b00-\u2bff\U0001f000-\U0001faff"
_EMOJI_CHAR: Final = re.compile(f"[{EMOJI}]")
# One break character, then what must hold around it: "!" and "?" not inside a token
# ("?id=", "!important"), "." not after an abbreviation of single letters nor before
# a digit, nor inside a spaced "p. m." / "a. m." ("by 7 p. m."), nor after "Jr." or "St."
# ("by Martin Luther King Jr. Day", "St. Patrick's Day"). Written as one
# character class first so the regex engine scans for candidates at C speed instead of
# trying every alternative at every position.
SENTENCE_BREAK: Final = re.compile(
    rf"[!?。…\n.{EMOJI}]"
    rf"(?:(?<=[!?])(?![A-Za-z0-9_=&/])|(?<=[。…\n{EMOJI}])"
    r"|(?<=\.)(?<!\.[A-Za-z]\.)(?<![AaPp]\.\s[Mm]\.)(?<!\bJr\.)(?<!\bSt\.)"
    r"(?!(?<=\w\s[AaPp]\.)\s[Mm]\b)"
    r"(?=\s*\Z|\s+(?!\d)))",
)
# Emoji before a "?" close a question: "Let's agree: X 🙏?" asks.
_QUESTION_AFTER_EMOJI: Final = re.compile(rf"[\s{EMOJI}]*\?")
# Where a quotation may open (an apostrophe inside a word, as in "don't", opens none).
# (One class first, as for SENTENCE_BREAK: a single quote counts unless a letter precedes it.)
_QUOTE_OPENER: Final = re.compile("[\"“「『«《'\u2018](?<![A-Za-z]['\u2018])")
_CLOSER: Final = {
    '"': '"',
    "“": "”",
    "「": "」",
    "『": "』",
    "«": "»",
    "《": "》",
    "'": "'",
    "\u2018": "\u2019",
}


def sentence_end(scan: str, start: int, stop: int) -> tuple[int, str]:
    """Where the sentence running from `start` ends before `stop`, and the break there.

    The break is "" when the sentence runs to `stop`, and "?" when it ends in emoji
    and a question mark. A quotation opened in the sentence and closed before `stop`
    is skipped whole; an unclosed one is not.
    """
    at = start
    while True:
        found = SENTENCE_BREAK.search(scan, at, stop)
        if found is None:
            return stop, ""
        opener = _QUOTE_OPENER.search(scan, at, found.start())
        close = -1 if opener is None else scan.find(_CLOSER[opener.group()], opener.end(), stop)
        if close < 0:
            mark = found.group()
            if is_emoji(mark) and _QUESTION_AFTER_EMOJI.match(scan, found.end(), stop):
                mark = "?"
            return found.start(), mark
        at = close + 1


def sentence_start(scan: str, start: int, at: int) -> int:
    """Where the sentence holding position `at` starts, looking back no further than `start`."""
    begin = start
    for found in SENTENCE_BREAK.finditer(scan, start, at):
        begin = found.end()
    return begin


def is_emoji(char: str) -> bool:
    """Whether `char` is a pictograph or dingbat (a sentence break)."""
    return _EMOJI_CHAR.fullmatch(char) is not None
