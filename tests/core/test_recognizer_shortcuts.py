# ruff: noqa: RUF001 - these tests use full-width and look-alike characters on purpose
"""The recognizer's shortcuts find what the plain search finds (R1, R8, R14).

The candidate search skips phrases an ASCII turn cannot hold and starts a phrase's
search at its opening word; the sentence-break and quote-opener patterns start with
one character class; folding takes NFKC character by character when that is NFKC of
the whole turn. Each is checked here against the plain computation on the
corpus and on random turns built from phrase pieces, case changes and characters
that grow when lower-cased or fold into letters.
"""

from __future__ import annotations

import re
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from core.recognition.markup import mask_quoted_markup
from core.recognition.normalize import SIMPLIFIED_FORMS, TRADITIONAL_SOURCES, fold
from core.recognition.phrases import (
    COURTESY_WORDS,
    DISAGREE,
    PAST_TERMS,
    PAST_WORDS,
    PHRASES,
    RULE_OF,
    TODO_TARGETS,
    TRAILING_COURTESY,
    Kind,
    caseless,
)
from core.recognition.recognizer import _TODO_QUOTE, MAX_CANDIDATES, _candidates
from core.recognition.sentences import _QUOTE_OPENER, EMOJI, SENTENCE_BREAK
from tests.support.corpus_kit import NEGATIVE, POSITIVE

CORPUS_TEXTS = [row["text"] for row in (*POSITIVE, *NEGATIVE)]
PIECES = [
    "Let's agree: ",
    "LET US AGREE THAT ",
    "let’s make an agreement: ",
    "Let's change our agreement to: ",
    "I accept this agreement",
    "cancel the agreement",
    "我们约定：",
    "取消这个约定",
    "把约定改成",
    "İ",
    "ı",
    "ſ",
    "K",
    "ＬＥＴ",
    "é",
    "e\u0301",
    "。",
    "，",
    "約",
    "們",
    " ",
    "\n",
    "“",
    "”",
    "`",
    "let",
    "agree",
]


def joined(pieces: list[str], max_size: int) -> st.SearchStrategy[str]:
    """Turns put together from up to `max_size` of `pieces`."""
    return st.lists(st.sampled_from(pieces), max_size=max_size).map("".join)


turns = st.one_of(
    st.sampled_from(CORPUS_TEXTS),
    joined(PIECES, 10),
    st.tuples(st.sampled_from(CORPUS_TEXTS), st.sampled_from(PIECES)).map("".join),
    st.text(max_size=60),
)


def plain_candidates(scan: str) -> list[tuple[int, Kind, str]] | None:
    """Every phrase whose words the turn holds, tried from the start of the turn."""
    lowered = scan.lower()
    by_start: dict[int, tuple[int, Kind, str]] = {}
    for phrase in PHRASES:
        if not all(any(word in lowered for word in group) for group in phrase.needs):
            continue
        for match in list(phrase.pattern.finditer(scan))[: MAX_CANDIDATES + 1]:
            by_start.setdefault(match.start(), (match.start(), phrase.kind, match.group()))
        if len(by_start) > MAX_CANDIDATES:
            return None
    return sorted(by_start.values(), key=lambda candidate: candidate[0])


def shortcut_candidates(scan: str) -> list[tuple[int, Kind, str]] | None:
    found = _candidates(scan)
    if found is None:
        return None
    return [(at, kind, match.group()) for at, kind, match in found]


@settings(max_examples=400, deadline=None)
@given(turns)
def test_candidate_search_matches_the_plain_search(text: str) -> None:
    """R1, R8: skipping phrases and earlier positions never loses or adds a candidate."""
    folded = fold(text)
    if folded is None:
        return
    scan = mask_quoted_markup(folded.text)
    assert shortcut_candidates(scan) == plain_candidates(scan)


def test_opening_words_open_every_match() -> None:
    """R8: a phrase that declares its opening word starts every corpus match with it."""
    declared = [phrase for phrase in PHRASES if phrase.opens]
    assert declared
    for text in CORPUS_TEXTS:
        for phrase in declared:
            for match in phrase.pattern.finditer(text):
                assert match.group().lower().startswith(phrase.opens)


@settings(max_examples=400, deadline=None)
@given(turns)
def test_folding_is_nfkc_without_invisible_characters(text: str) -> None:
    """R14: the folded text is NFKC of the turn, the grammar's traditional characters simplified."""
    folded = fold(text)
    if folded is None:
        assert re.search("[\u202a-\u202e\u2066-\u2069]", text)
        return
    if folded.starts is None:
        simplified = str.maketrans(TRADITIONAL_SOURCES, SIMPLIFIED_FORMS)
        assert folded.text == unicodedata.normalize("NFKC", text).translate(simplified)


# The sentence patterns as first written: alternatives tried at every position.
PLAIN_SENTENCE_BREAK = re.compile(
    rf"[!?](?![A-Za-z0-9_=&/])|[。…\n{EMOJI}]|(?<!\.[A-Za-z])\.(?=\s*\Z|\s+(?!\d))"
)
PLAIN_QUOTE_OPENER = re.compile("[\"“「『«《]|(?<![A-Za-z])['\u2018]")
BREAKY = st.text(alphabet="ab5 .!?。…\n👋=/&_\"“「'\u2018", max_size=30)


@settings(max_examples=500, deadline=None)
@given(st.one_of(turns, BREAKY), st.integers(min_value=0, max_value=40))
def test_sentence_patterns_match_their_plain_forms(text: str, start: int) -> None:
    """R8: the class-first sentence break and quote opener find what the plain ones find."""
    for fast, plain in (
        (SENTENCE_BREAK, PLAIN_SENTENCE_BREAK),
        (_QUOTE_OPENER, PLAIN_QUOTE_OPENER),
    ):
        found, expected = fast.search(text, start), plain.search(text, start)
        assert (found and (found.span(), found.group())) == (
            expected and (expected.span(), expected.group())
        )


def test_caseless_keeps_every_letter_a_pattern_ignoring_case_takes() -> None:
    """R1, R14: a word matched ignoring case is in `caseless` of the match, for any character.

    Every character that can stand in folded text (its own NFKC) and that a pattern
    with IGNORECASE takes for an ASCII letter is checked: the substring tests in
    front of the todo, courtesy, disagreement and past-terms patterns lose no match.
    """
    stable = "".join(
        char
        for point in range(0x110000)
        if not 0xD800 <= point <= 0xDFFF
        and unicodedata.normalize("NFKC", char := chr(point)) == char
    )
    letters = set(re.findall("[a-z]", stable, re.IGNORECASE))
    # The ASCII letters, and what IGNORECASE adds to them: dotted capital I, dotless i.
    assert len(letters) == 52 + 2
    for char in letters:
        takes = [
            letter
            for letter in "abcdefghijklmnopqrstuvwxyz"
            if re.fullmatch(letter, char, re.IGNORECASE)
        ]
        assert takes, char
        assert all(letter in caseless(char) for letter in takes), char


GATED = (
    (TRAILING_COURTESY, COURTESY_WORDS),
    (PAST_TERMS, PAST_WORDS),
    (DISAGREE, ("disagree",)),
    *((pattern, (word,)) for word, pattern in TODO_TARGETS),
)
GATE_PIECES = [
    *PIECES,
    "Thanks!",
    ". THANK YOU SO MUCH",
    ", cheers",
    "。谢谢您",
    "辛苦了",
    "it was",
    "WE WERE",
    "they had been",
    "D\u0130D",
    "d\u0131d",
    "we disagree",
    "DISAGREE",
    "Mark todo “Write report” as done",
    "MARK THE TO-DO 'x' COMPLETE",
    "把待办“周报”标记为完成",
    "把“周报”这个待办标成已完成",
]
gated_texts = st.one_of(st.sampled_from(CORPUS_TEXTS), joined(GATE_PIECES, 8))


@settings(max_examples=500, deadline=None)
@given(gated_texts)
def test_every_gated_match_holds_its_gate_word(text: str) -> None:
    """R1, R11: every match of a gated pattern holds one of its words, caseless.

    The recognizer runs these patterns only where `caseless` of the terms holds such a
    word, and the todo patterns only where an opening quote stands (every todo is
    named in quotes), so the gates never lose a match.
    """
    folded = fold(text)
    if folded is None:
        return
    for pattern, words in GATED:
        for match in pattern.finditer(folded.text):
            assert any(word in caseless(match.group()) for word in words), (pattern, match)
    for _, pattern in TODO_TARGETS:
        for match in pattern.finditer(folded.text):
            assert _TODO_QUOTE.search(match.group()) is not None


def test_the_gate_pieces_reach_every_gated_pattern() -> None:
    """The gate test's pieces give every gated pattern matches, the case-changed ones included."""
    folded = [fold(piece) for piece in GATE_PIECES]
    texts = [item.text for item in folded if item is not None]
    for pattern, _ in GATED:
        assert any(pattern.search(text) for text in texts), pattern
    assert PAST_TERMS.search("D\u0130D")
    assert "did" in caseless("D\u0130D")


def test_each_phrase_pattern_has_its_own_source() -> None:
    """R16: a match's rule is looked up by its pattern's source: no two phrases share one."""
    sources = [phrase.pattern.pattern for phrase in PHRASES]
    assert len(set(sources)) == len(sources)
    assert all(RULE_OF[phrase.pattern.pattern] == phrase.rule for phrase in PHRASES)
