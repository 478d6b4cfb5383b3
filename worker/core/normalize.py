"""What the recognizer reads: a turn folded to NFKC without invisible characters.

Matching runs on the folded text (full-width letters, compatibility forms and
zero-width tricks all fold away), but the prose handed back (terms, todo content,
target hints) is cut from the *original* turn through an index map, in NFC and
without invisible characters: NFKC would turn the Chinese full-width comma of a
memory into an ASCII one and break exact todo contents written with full-width
parentheses.

Two decisions (documented in the README, tested in tests/test_recognizer.py):

- Bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069)
  reorder what a reader sees ("Trojan Source", CVE-2021-42574), so the prose we would
  store may not be what the user saw: a turn holding one is folded to nothing and
  recognizes nothing. The marks LRM, RLM and ALM reorder nothing and are dropped like
  zero-width characters.
- Look-alike letters are not folded: "Let's agree" typed with a Cyrillic U+0430 for
  its "a" is not the trigger. NFKC folds compatibility forms (full-width, mathematical,
  circled letters) but never one script into another, and a trigger typed in another
  script is not an explicit phrase.
"""

from __future__ import annotations

import re
import unicodedata
from typing import NamedTuple

# Format characters that carry no meaning in prose and are dropped before matching:
# soft hyphen, combining grapheme joiner, the zero-width family, word joiner and the
# invisible operators, the BOM, the Mongolian vowel separator, variation selectors,
# and the bidi *marks* (they change no order).
_INVISIBLE = (
    "\u00ad\u034f\u061c\u180e\u200b\u200c\u200d\u200e\u200f"
    "\u2060\u2061\u2062\u2063\u2064\ufeff"
    "\ufe00\ufe01\ufe02\ufe03\ufe04\ufe05\ufe06\ufe07"
    "\ufe08\ufe09\ufe0a\ufe0b\ufe0c\ufe0d\ufe0e\ufe0f"
)
_DROP_INVISIBLE = str.maketrans(dict.fromkeys(_INVISIBLE))
_INVISIBLE_RE = re.compile(f"[{_INVISIBLE}]")
_INVISIBLE_SET = frozenset(_INVISIBLE)

BIDI_CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_BIDI_RE = re.compile(f"[{BIDI_CONTROLS}]")

# Every trigger holds "agree" (any case) or "约定". The fast path below must never
# miss a turn whose *folded* form holds one, so it also watches for the characters
# that fold into one of those letters (full-width, mathematical, circled, superscript
# "a"...) and the invisible ones that could split a keyword. Computed from this
# Python's Unicode database (about 0.2 s, once per process) so it cannot drift from
# what `fold` does.
KEYWORD_LETTERS = frozenset("agreAGRE约定")


def _folds_into_keyword(char: str) -> bool:
    folded = unicodedata.normalize("NFKC", char)
    return folded != char and not KEYWORD_LETTERS.isdisjoint(folded)


def _char_class(chars: list[str]) -> str:
    return "".join(re.escape(c) for c in chars)


# Blocks with no compatibility decomposition are skipped to keep the import cheap: CJK
# unified ideographs (U+4E00-U+9FFF) and planes 2-16 but for the compatibility
# ideographs (U+2F800-U+2FA1F). A test checks the skip against every code point.
SCANNED_RANGES = (range(0x80, 0x4E00), range(0xA000, 0x20000), range(0x2F800, 0x2FA20))
_KEYWORD_SOURCES = [
    chr(cp) for span in SCANNED_RANGES for cp in span if _folds_into_keyword(chr(cp))
]
_NEEDS_FOLDING = re.compile(f"[{_char_class([*_INVISIBLE, *_KEYWORD_SOURCES])}]")


def may_hold_trigger(text: str) -> bool:
    """False only when no trigger can appear in the folded text: the fast path.

    Sound because a keyword letter is never the result of a canonical composition,
    so without invisible characters or characters that fold into a keyword letter,
    the folded text holds a keyword only where the original text does.
    """
    if text.isascii():
        return "agree" in text.lower()
    if _NEEDS_FOLDING.search(text) is None:
        return "约定" in text or "agree" in text.lower()
    folded = unicodedata.normalize("NFKC", text.translate(_DROP_INVISIBLE))
    return "约定" in folded or "agree" in folded.lower()


class Folded(NamedTuple):
    """A turn folded for matching, with the way back to its original characters.

    `text` is NFKC of the turn without invisible characters. Folded position i comes
    from original positions `starts[i]` up to `ends[i]` (None: ASCII, identical).
    """

    text: str
    source: str
    starts: tuple[int, ...] | None = None
    ends: tuple[int, ...] | None = None

    def original(self, start: int, end: int) -> str:
        """The original prose behind folded text[start:end], NFC, invisibles dropped."""
        if start >= end:
            return ""
        if self.starts is None or self.ends is None:
            raw = self.source[start:end]
            return raw if raw.isascii() else unicodedata.normalize("NFC", raw)
        raw = self.source[self.starts[start] : self.ends[end - 1]]
        return unicodedata.normalize("NFC", raw.translate(_DROP_INVISIBLE))


class _CharFolds(dict[int, str]):
    """NFKC of single characters, for `str.translate`; filled on first sight, bounded."""

    def __missing__(self, codepoint: int) -> str:
        folded = unicodedata.normalize("NFKC", chr(codepoint))
        if len(self) < 20_000:
            self[codepoint] = folded
        return folded


_CHAR_FOLDS = _CharFolds()


def fold(text: str) -> Folded | None:
    """Fold a turn for matching; None when it holds a bidi control (see module doc)."""
    if text.isascii():
        return Folded(text=text, source=text)
    if _BIDI_RE.search(text) is not None:
        return None
    if _INVISIBLE_RE.search(text) is not None:
        return _fold_by_chunks(text)
    folded = unicodedata.normalize("NFKC", text)
    # Most non-ASCII turns fold character by character, one to one (full-width
    # punctuation, CJK): then folded position i is original position i, and the
    # index map is the identity. The C-speed translate checks exactly that.
    if folded == text or (len(folded) == len(text) and text.translate(_CHAR_FOLDS) == folded):
        return Folded(text=folded, source=text)
    return _fold_by_chunks(text)


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
        if char in _INVISIBLE_SET:
            continue
        if chunk and unicodedata.combining(char):
            chunk.append(char)
            chunk_end = index + 1
            continue
        flush()
        chunk = [char]
        chunk_start, chunk_end = index, index + 1
    flush()
    return Folded(text="".join(pieces), source=text, starts=tuple(starts), ends=tuple(ends))


def fold_text(text: str) -> str:
    """The folded form of any text (NFKC, invisibles dropped): to compare contents."""
    return unicodedata.normalize("NFKC", text.translate(_DROP_INVISIBLE))
