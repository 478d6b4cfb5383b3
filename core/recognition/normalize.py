"""What the recognizer reads: a turn folded to NFKC without invisible characters.

Matching runs on the folded text (full-width letters, compatibility forms and
zero-width tricks all fold away), but the prose handed back (terms, todo content,
target hints) is cut from the *original* turn through an index map, in NFC and
without invisible characters: NFKC would turn the Chinese full-width comma of a
memory into an ASCII one and break exact todo contents written with full-width
parentheses.

Two decisions (documented in the README, tested in tests/core/test_recognizer.py):

- Bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069)
  reorder what a reader sees ("Trojan Source", CVE-2021-42574), so the prose we would
  store may not be what the user saw: a turn holding one is folded to nothing and
  recognizes nothing. The marks LRM, RLM and ALM reorder nothing and are dropped like
  zero-width characters.
- Traditional characters of the phrase grammar are read as their simplified forms
  (我們約定 as 我们约定, 能不能幫我取消這個約定 as 能不能帮我取消这个约定), one character
  for one, so positions do not move and the terms keep the user's own characters.
- Look-alike letters are not folded: "Let's agree" typed with a Cyrillic U+0430 for
  its "a" is not the trigger. NFKC folds compatibility forms (full-width, mathematical,
  circled letters) but never one script into another, and a trigger typed in another
  script is not an explicit phrase.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

# Characters that show nothing, or nothing a reader can check, and are dropped before
# matching: the default-ignorable code points (soft hyphen, combining grapheme joiner,
# the zero-width family, word joiner, invisible operators, the BOM, variation selectors
# and their supplement, the Hangul fillers U+115F/U+1160/U+3164/U+FFA0, the Mongolian
# free variation selectors, the bidi *marks*, which change no order, and the tag
# characters U+E0000-U+E007F that spell hidden ASCII), the blank Braille pattern U+2800,
# control characters other than tab and line ends (ESC sequences clear screens and
# forge hyperlinks), and private-use characters (no agreed meaning at all).
# "Let's ag\u200bree" still reads as the trigger, but prose that holds one of them is
# never stored: see `Folded.original`.
_INVISIBLE_BMP: Final = (
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f"
    "\u2060-\u2065\u206a-\u206f\u2800\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8"
    "\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ue000-\uf8ff"
)
_INVISIBLE_ASTRAL: Final = (
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff"
    "\U000f0000-\U000ffffd\U00100000-\U0010fffd"
)
_INVISIBLE: Final = _INVISIBLE_BMP + _INVISIBLE_ASTRAL
_INVISIBLE_RE: Final = re.compile(f"[{_INVISIBLE}]")
# (Checked after `str.isprintable`, which is C speed and true for most turns.)
_ASCII_CONTROL_RE: Final = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# Kept in the prose check (not in the stored text): an emoji's presentation selector
# right after it, and the joiner inside an emoji sequence ("❤️", "👩‍💻").
_EMOJI_PRESENTATION: Final = frozenset("\ufe0e\ufe0f")
_EMOJI_JOINER: Final = "\u200d"


def drop_invisible(text: str) -> str:
    """`text` without the characters dropped before matching."""
    return _INVISIBLE_RE.sub("", text)


# Trailing decoration after a question mark: emoji and other symbols, skin-tone and
# other modifiers, enclosing keycaps.
_DECORATION: Final = frozenset(("So", "Sk", "Me"))


def rstrip_decoration(text: str, chars: str) -> str:
    """`text` without its trailing `chars`, emoji and other symbols: "metric? 😀" asks
    as much as "metric?" (invisible characters are gone from folded text already)."""
    end = len(text)
    while end and (text[end - 1] in chars or unicodedata.category(text[end - 1]) in _DECORATION):
        end -= 1
    return text[:end]


def _is_symbol(char: str) -> bool:
    return bool(char) and unicodedata.category(char) == "So"


def hides_something(text: str) -> bool:
    """Whether dropping the invisible characters changes what `text` says: any of them
    but an emoji's presentation selector or the joiner between two emoji."""
    for found in _INVISIBLE_RE.finditer(text):
        at = found.start()
        char = text[at]
        before = text[at - 1] if at else ""
        if char in _EMOJI_PRESENTATION and _is_symbol(before):
            continue
        if char == _EMOJI_JOINER:
            base = text[at - 2] if before in _EMOJI_PRESENTATION and at > 1 else before
            if _is_symbol(base) and _is_symbol(text[at + 1 : at + 2]):
                continue
        return True
    return False


BIDI_CONTROLS: Final = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_BIDI_RE: Final = re.compile(f"[{BIDI_CONTROLS}]")

# Every trigger holds "agree" (any case) or "约定". The fast path below must never
# miss a turn whose *folded* form holds one, so it also watches for the characters
# that fold into one of those letters (full-width, mathematical, circled, superscript
# "a"...) and the invisible ones that could split a keyword. The table is committed
# as data because scanning every code point costs every process start (CLI commands
# included); tests/core/test_recognizer.py rebuilds it with `scan_keyword_sources` from this
# Python's Unicode database, so an upgrade that changes NFKC fails that test instead of
# silently unsounding the fast path. Unicode 14.0.0 (Python 3.11).
KEYWORD_LETTERS: Final = frozenset("agreAGRE约定")
KEYWORD_SOURCES: Final = (
    "\xaa\u02b3\u1d2c\u1d31\u1d33\u1d3f\u1d43\u1d49\u1d4d\u1d63\u1e9a\u2090\u2091"
    "\u20a8\u2100\u2101\u210a\u211b\u211c\u211d\u2121\u212f\u2130\u213b\u2147"
    "\u249c\u24a0\u24a2\u24ad\u24b6\u24ba\u24bc\u24c7\u24d0\u24d4\u24d6\u24e1"
    "\u3250\u32cc\u32cd\u32ce\u3371\u3372\u3373\u3374\u3380\u3381\u3382\u3383"
    "\u3384\u3387\u3388\u3389\u338d\u338e\u338f\u3393\u33a9\u33aa\u33ab\u33ac"
    "\u33ad\u33ae\u33af\u33c2\u33c6\u33c9\u33ca\u33d2\u33da\u33db\u33df\u33ff"
    "\uff21\uff25\uff27\uff32\uff41\uff45\uff47\uff52\U0001d400\U0001d404"
    "\U0001d406\U0001d411\U0001d41a\U0001d41e\U0001d420\U0001d42b\U0001d434"
    "\U0001d438\U0001d43a\U0001d445\U0001d44e\U0001d452\U0001d454\U0001d45f"
    "\U0001d468\U0001d46c\U0001d46e\U0001d479\U0001d482\U0001d486\U0001d488"
    "\U0001d493\U0001d49c\U0001d4a2\U0001d4b6\U0001d4c7\U0001d4d0\U0001d4d4"
    "\U0001d4d6\U0001d4e1\U0001d4ea\U0001d4ee\U0001d4f0\U0001d4fb\U0001d504"
    "\U0001d508\U0001d50a\U0001d51e\U0001d522\U0001d524\U0001d52f\U0001d538"
    "\U0001d53c\U0001d53e\U0001d552\U0001d556\U0001d558\U0001d563\U0001d56c"
    "\U0001d570\U0001d572\U0001d57d\U0001d586\U0001d58a\U0001d58c\U0001d597"
    "\U0001d5a0\U0001d5a4\U0001d5a6\U0001d5b1\U0001d5ba\U0001d5be\U0001d5c0"
    "\U0001d5cb\U0001d5d4\U0001d5d8\U0001d5da\U0001d5e5\U0001d5ee\U0001d5f2"
    "\U0001d5f4\U0001d5ff\U0001d608\U0001d60c\U0001d60e\U0001d619\U0001d622"
    "\U0001d626\U0001d628\U0001d633\U0001d63c\U0001d640\U0001d642\U0001d64d"
    "\U0001d656\U0001d65a\U0001d65c\U0001d667\U0001d670\U0001d674\U0001d676"
    "\U0001d681\U0001d68a\U0001d68e\U0001d690\U0001d69b\U0001f110\U0001f114"
    "\U0001f116\U0001f121\U0001f12c\U0001f130\U0001f134\U0001f136\U0001f141"
    "\U0001f16c"
)


def scan_keyword_sources() -> str:
    """Every non-ASCII code point whose NFKC differs from it and holds a keyword letter.

    About 0.3 s: what `KEYWORD_SOURCES` saves every process; tests compare the two.
    """
    found = []
    for codepoint in range(0x80, 0x110000):
        char = chr(codepoint)
        folded = unicodedata.normalize("NFKC", char)
        if folded != char and not KEYWORD_LETTERS.isdisjoint(folded):
            found.append(char)
    return "".join(found)


def _char_class(chars: str) -> str:
    return "".join(re.escape(c) for c in chars)


_NEEDS_FOLDING: Final = re.compile(f"[{_INVISIBLE}{_char_class(KEYWORD_SOURCES)}]")
# A class of BMP characters only compiles to a bitmap (one lookup per character); with
# astral ones in it, every character is tried against each entry in turn (~20x slower).
# So the BMP part is searched first and the whole class only from the first astral one.
_NEEDS_FOLDING_BMP: Final = re.compile(
    f"[{_INVISIBLE_BMP}{_char_class(''.join(c for c in KEYWORD_SOURCES if c <= chr(0xFFFF)))}]"
)
_ASTRAL: Final = re.compile("[\U00010000-\U0010ffff]")


def _needs_folding(text: str) -> bool:
    """Whether `text` holds an invisible character or one that folds into a keyword letter."""
    if _NEEDS_FOLDING_BMP.search(text) is not None:
        return True
    astral = _ASTRAL.search(text)
    return astral is not None and _NEEDS_FOLDING.search(text, astral.start()) is not None


# Traditional characters of the phrase grammar (phrases.py) and their simplified forms,
# one to one (為 and 爲, 裏 and 裡 are both written). Only characters the grammar uses:
# folding the rest would change nothing the recognizer reads.
TRADITIONAL_SOURCES: Final = (
    "萬個爲為麼於們會倆兒關寫幾別辦動號後嗎頭對將幫應廢開當換據無時條來標"
    "樣沒點煩現確約經給見覺認記許設訴話該說請讀誰謝過還這裏裡問間項題館週"
)
SIMPLIFIED_FORMS: Final = (
    "万个为为么于们会俩儿关写几别办动号后吗头对将帮应废开当换据无时条来标"
    "样没点烦现确约经给见觉认记许设诉话该说请读谁谢过还这里里问间项题馆周"
)
_TRADITIONAL: Final = str.maketrans(TRADITIONAL_SOURCES, SIMPLIFIED_FORMS)
_HAS_TRADITIONAL: Final = re.compile(f"[{TRADITIONAL_SOURCES}]")
# 约定 written with the traditional 約 (定 is the same in both).
_TRADITIONAL_KEYWORD: Final = "約定"


def _simplified(folded: str) -> str:
    """`folded` with the grammar's traditional characters simplified (same length)."""
    if _HAS_TRADITIONAL.search(folded) is None:
        return folded
    return folded.translate(_TRADITIONAL)


def may_hold_trigger(text: str) -> bool:
    """False only when no trigger can appear in the folded text: the fast path.

    Sound because a keyword letter is never the result of a canonical composition,
    so without invisible characters or characters that fold into a keyword letter,
    the folded text holds a keyword only where the original text does.
    """
    if text.isascii() and (text.isprintable() or _ASCII_CONTROL_RE.search(text) is None):
        return "agree" in text.lower()
    if not _needs_folding(text):
        return "约定" in text or _TRADITIONAL_KEYWORD in text or "agree" in text.lower()
    folded = unicodedata.normalize("NFKC", drop_invisible(text))
    return "约定" in folded or _TRADITIONAL_KEYWORD in folded or "agree" in folded.lower()


class Folded:
    """A turn folded for matching, with the way back to its original characters.

    `text` is NFKC of the turn without invisible characters. Folded position i comes
    from original positions `starts[i]` up to `ends[i]` (None: ASCII, identical).
    The original is `source`: the turn as shown (visible.py), which `origin` places in
    the turn.
    A plain class, not a NamedTuple: the compiled build makes it a native class, built
    and read without a Python-level constructor (one per recognized turn).
    """

    __slots__ = ("ends", "origin", "source", "starts", "text")

    def __init__(
        self,
        text: str,
        source: str,
        starts: tuple[int, ...] | None = None,
        ends: tuple[int, ...] | None = None,
    ) -> None:
        self.text = text
        self.source = source
        self.starts = starts
        self.ends = ends
        # Where each character of `source` stands in the turn, when `source` is only
        # the part of the turn a reader sees (visible.py); None when it is the turn.
        self.origin: tuple[int, ...] | None = None

    def original(self, start: int, end: int) -> str:
        """The original prose behind folded text[start:end], NFC, invisibles dropped.

        Empty when that prose holds an invisible character that says something (tag
        characters spelling hidden words, a control, a filler, a zero-width character
        inside the words): the stored text would not be what the user saw, so there is
        no prose to store, and a proposal with no terms is no proposal.
        """
        if start >= end:
            return ""
        if self.starts is None or self.ends is None:
            raw = self.source[start:end]
            return raw if raw.isascii() else unicodedata.normalize("NFC", raw)
        raw = self.source[self.starts[start] : self.ends[end - 1]]
        # Invisible characters right after the prose belong to it ("units<tags>").
        reach = self.starts[end] if end < len(self.starts) else len(self.source)
        if hides_something(self.source[self.starts[start] : reach]):
            return ""
        return unicodedata.normalize("NFC", drop_invisible(raw))


class _CharFolds(dict[int, str]):
    """NFKC of single characters, for `str.translate`; filled on first sight, bounded."""

    def __missing__(self, codepoint: int) -> str:
        folded = unicodedata.normalize("NFKC", chr(codepoint))
        if len(self) < 20_000:
            self[codepoint] = folded
        return folded


_CHAR_FOLDS: Final = _CharFolds()


def fold(text: str) -> Folded | None:
    """Fold a turn for matching; None when it holds a bidi control (see module doc)."""
    if text.isascii():
        if not text.isprintable() and _ASCII_CONTROL_RE.search(text) is not None:
            return _fold_by_chunks(text)
        return Folded(text=text, source=text)
    if _BIDI_RE.search(text) is not None:
        return None
    if _has_invisible(text):
        return _fold_by_chunks(text)
    # Most non-ASCII turns fold character by character, one to one (full-width
    # punctuation, CJK): then folded position i is original position i, and the
    # index map is the identity. Folding each character (a C-speed translate) gives
    # NFKC of the whole turn whenever the result is itself NFKC: both are
    # compatibility-equivalent to the turn, and each class has one NFKC form. The
    # quick check is far cheaper than NFKC of a turn with full-width punctuation.
    # (A turn already in NFKC folds to itself character by character, so it is caught
    # here too.) Otherwise positions move, and the index map is built chunk by chunk.
    by_char = text.translate(_CHAR_FOLDS)
    if len(by_char) == len(text) and unicodedata.is_normalized("NFKC", by_char):
        return Folded(text=_simplified(by_char), source=text)
    return _fold_by_chunks(text)


_INVISIBLE_BMP_RE: Final = re.compile(f"[{_INVISIBLE_BMP}]")


def _has_invisible(text: str) -> bool:
    """`_INVISIBLE_RE.search(text) is not None`, with the BMP part first (see `_needs_folding`)."""
    if _INVISIBLE_BMP_RE.search(text) is not None:
        return True
    astral = _ASTRAL.search(text)
    return astral is not None and _INVISIBLE_RE.search(text, astral.start()) is not None


def _fold_by_chunks(text: str) -> Folded:
    pieces: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    chunk: list[str] = []
    chunk_start = chunk_end = 0

    def flush() -> None:
        if chunk:
            piece = unicodedata.normalize("NFKC", "".join(chunk))
            pieces.append(piece)
            starts.extend([chunk_start] * len(piece))
            ends.extend([chunk_end] * len(piece))

    # Chunks are a starter and its combining marks, so composition ("e" + U+0301)
    # happens inside a chunk and every folded character maps to a whole original run.
    for index, char in enumerate(text):
        if _INVISIBLE_RE.match(char) is not None:
            continue
        if chunk and unicodedata.combining(char):
            chunk.append(char)
            chunk_end = index + 1
            continue
        flush()
        chunk = [char]
        chunk_start, chunk_end = index, index + 1
    flush()
    folded = _simplified("".join(pieces))
    return Folded(text=folded, source=text, starts=tuple(starts), ends=tuple(ends))


def fold_text(text: str) -> str:
    """The folded form of any text (NFKC, invisibles dropped): to compare contents."""
    return unicodedata.normalize("NFKC", drop_invisible(text))


_UNPRINTABLE_RE: Final = re.compile(f"[{_INVISIBLE}{BIDI_CONTROLS}\\r]")


def _escaped(found: re.Match[str]) -> str:
    return found.group().encode("unicode_escape").decode("ascii")


def printable(text: str) -> str:
    """`text` for a terminal: every control, bidi, invisible and private-use character
    as its escape (`\\x1b`, `\\u202e`, `\\U000e0041`), so stored text cannot clear a
    screen, forge a hyperlink, reorder a line or hide words from whoever reads it.
    Tabs and line feeds stay."""
    return _UNPRINTABLE_RE.sub(_escaped, text)
