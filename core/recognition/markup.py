"""Where a phrase is not the user's own speech: code, block quotes, quotations (R1).

`mask_quoted_markup` blanks code (fenced, inline, indented, <code>/<pre>) and Markdown
block quotes with a filler of the same length, so positions still line up with the
folded text and no trigger can match inside them. `inside_quotation` tells whether a
position sits inside an open quotation: "he said 'let's agree: ...'" is reported
speech, not a proposal.
"""

from __future__ import annotations

import re
from typing import Final

# A character no pattern matches and no rule treats as space or punctuation.
FILLER: Final = "\x1a"

_FENCED: Final = re.compile(r"(`{3,}|~{3,})[^\n]*\n?.*?(?:\n[ \t]*\1[`~]*|\Z)", re.DOTALL)
_INLINE: Final = re.compile(r"(`+)(?!`).+?(?<!`)\1(?!`)", re.DOTALL)
_HTML_CODE: Final = re.compile(
    r"<(code|pre|kbd|samp)\b[^>]*>.*?(?:</\1\s*>|\Z)", re.DOTALL | re.IGNORECASE
)
# Markdown: a line indented by four spaces or a tab is code; a line opening with ">" quotes.
_INDENTED: Final = re.compile(r"^(?: {4}|\t).*$", re.MULTILINE)
_BLOCK_QUOTE: Final = re.compile(r"^[ \t]*>.*$", re.MULTILINE)


def _blank(match: re.Match[str]) -> str:
    return FILLER * (match.end() - match.start())


def mask_quoted_markup(text: str) -> str:
    """`text` with code and block quotes replaced by FILLER, same length."""
    if "`" in text or "~~~" in text:
        text = _FENCED.sub(_blank, text)
        text = _INLINE.sub(_blank, text)
    if "<" in text:
        text = _HTML_CODE.sub(_blank, text)
    if "    " in text or "\t" in text:
        text = _INDENTED.sub(_blank, text)
    if ">" in text:
        text = _BLOCK_QUOTE.sub(_blank, text)
    return text


# Paired quotation marks (after NFKC: full-width and half-width forms are folded).
# Chinese book-title marks enclose a title, never the user's own words.
PAIRED_QUOTES: Final = {"“": "”", "「": "」", "『": "』", "«": "»", "《": "》"}
_CLOSERS: Final = frozenset(PAIRED_QUOTES.values())
# Single quotes double as apostrophes ("let's", "I\u2019ll", "5'"): one opens a quotation
# only after a non-letter and before a non-space, and closes one only before a non-letter.
_SINGLE_OPEN: Final = {"'": "'", "\u2018": "\u2019"}
_SINGLE_CLOSE: Final = frozenset("'\u2019")


def _is_word_char(char: str) -> bool:
    return char.isascii() and char.isalnum()


class Quotations:
    """Which positions of one text lie inside an open quotation.

    Asked at increasing positions it reads each character once, so checking every
    phrase of a long turn stays linear.
    """

    def __init__(self, text: str) -> None:
        self._text = text
        self._stack: list[str] = []
        self._at = 0

    def open_at(self, position: int) -> bool:
        """Whether a quotation is open at `position`."""
        if position < self._at:
            self._stack, self._at = [], 0
        for index in range(self._at, position):
            self._read(index)
        self._at = position
        return bool(self._stack)

    def _read(self, index: int) -> None:
        text, stack = self._text, self._stack
        char = text[index]
        if char == '"':
            if stack and stack[-1] == '"':
                stack.pop()
            else:
                stack.append('"')
            return
        previous = text[index - 1] if index else " "
        following = text[index + 1] if index + 1 < len(text) else " "
        if char in _SINGLE_CLOSE and stack and stack[-1] == char and not following.isalnum():
            stack.pop()
        elif char in PAIRED_QUOTES:
            stack.append(PAIRED_QUOTES[char])
        elif char in _SINGLE_OPEN and not _is_word_char(previous) and not following.isspace():
            stack.append(_SINGLE_OPEN[char])
        elif char in _CLOSERS and char in stack:
            # A closer of an outer quotation also closes everything opened inside it.
            del stack[len(stack) - 1 - stack[::-1].index(char) :]


def inside_quotation(text: str, position: int) -> bool:
    """Whether `position` in `text` lies inside a quotation still open there."""
    return Quotations(text).open_at(position)
