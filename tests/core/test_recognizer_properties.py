# ruff: noqa: RUF001 - these tests are about full-width and look-alike characters
"""Properties of the recognizer over the corpus and random text (R1, R4, R8, R14).

- A positive wrapped in code, in a quotation with a reporting verb, or turned into a
  question never fires (R1).
- NFKC-equivalent inputs give equal results, and invisible characters change nothing.
- Random text without a trigger word never fires, and the fast path never skips a
  turn whose folded form holds a trigger word.
- Only the user's turns count (R1).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Literal

from hypothesis import given, settings
from hypothesis import strategies as st

from contracts.common import Role
from core.intents import NO_INTENT, Intent, Proposal
from core.recognition.normalize import may_hold_trigger
from core.recognition.recognizer import recognize
from core.recognition.sentences import SENTENCE_BREAK
from tests.support.corpus_kit import POSITIVE, reading

NormalForm = Literal["NFC", "NFD", "NFKC", "NFKD", "full-width"]
POSITIVE_TEXTS = [row["text"] for row in POSITIVE]
positives = st.sampled_from(POSITIVE_TEXTS)

CODE_WRAPPERS = [
    "```\n{}\n```",
    "```text\n{}\n```",
    "~~~\n{}\n~~~",
    "`{}`",
    "``{}``",
    "<code>{}</code>",
    "<pre>{}</pre>",
    "Here is the test input:\n\n```\n{}\n```\n\nIt should parse.",
    "Try this:\n\n    {}\n\nand tell me what happens.",
]
REPORTED = [
    'He said "{}"',
    "She told me: “{}”",
    "My boss wrote '{}' in the chat.",
    "Yesterday my friend said “{}” and laughed.",
    "他说：“{}”",
    "她说「{}」",
    "老板在邮件里写道：『{}』",
    "他昨天跟我说“{}”，我没回。",
    "> {}\n\nThat is what the other team wrote.",
]
QUESTIONS = [
    "{}?",
    "{}？",
    "{}, right?",
    "{}，好吗？",
    "{}吗？",
    "Should I say: {}?",
    "你觉得我该说“{}”吗？",
    "Do you think {}?",
]
_END = "。.!！ "
# Turns of one sentence: a question mark added to a longer turn ends another sentence,
# which asks something else (the recognizer reads sentence by sentence). A polite
# request ending in a question mark ("Could you please cancel …?", or 能不能帮我取消这个约定
# with a full-width one) is already a question in form.
POLITE_REQUEST = re.compile(r"(?:could|would|can|will)\s+you\s", re.IGNORECASE)
ONE_SENTENCE = [
    text
    for text in POSITIVE_TEXTS
    if SENTENCE_BREAK.search(text.rstrip(_END)) is None
    and not text.endswith(("?", "？"))
    and not POLITE_REQUEST.match(text)
]


def _fire(text: str) -> Intent:
    return recognize(text, Role.USER)


@given(positives, st.sampled_from(CODE_WRAPPERS))
def test_positive_inside_code_never_fires_r1(text: str, wrapper: str) -> None:
    """Text inside code blocks, inline code or indented code is not the user's act (R1)."""
    assert _fire(text) != NO_INTENT
    assert _fire(wrapper.format(text)) == NO_INTENT


@given(positives, st.sampled_from(REPORTED))
def test_positive_as_reported_speech_never_fires_r1(text: str, wrapper: str) -> None:
    """A quotation with a reporting verb reports someone's words; it proposes nothing (R1)."""
    assert _fire(wrapper.format(text)) == NO_INTENT


@given(st.sampled_from(ONE_SENTENCE), st.sampled_from(QUESTIONS))
def test_positive_as_a_question_never_fires_r1(text: str, wrapper: str) -> None:
    """A turn ending as a question asks; it neither proposes, accepts nor cancels (R1, R4, R8)."""
    assert _fire(wrapper.format(text.rstrip(_END))) == NO_INTENT


@given(positives, st.sampled_from([Role.ASSISTANT, Role.SYSTEM]))
def test_positive_said_by_anyone_but_the_user_never_fires_r1(text: str, role: Role) -> None:
    """Assistant and system text never creates, accepts or cancels anything (R1)."""
    assert recognize(text, role) == NO_INTENT


def _full_width(text: str) -> str:
    return "".join(
        chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else "\u3000" if c == " " else c for c in text
    )


def _folded_reading(intent: Intent) -> dict[str, str | None]:
    return {
        key: None if value is None else unicodedata.normalize("NFKC", value)
        for key, value in reading(intent).items()
    }


@settings(max_examples=300)
@given(positives, st.sampled_from(["NFC", "NFD", "NFKC", "NFKD", "full-width"]))
def test_nfkc_equivalent_inputs_give_equal_results(text: str, form: NormalForm) -> None:
    """Equal under NFKC in, equal out: same intent, fields equal under NFKC.

    Fields are cut from the original text (a Chinese memory keeps its full-width
    commas), so they are compared folded.
    """
    variant = _full_width(text) if form == "full-width" else unicodedata.normalize(form, text)
    assert unicodedata.normalize("NFKC", variant) == unicodedata.normalize("NFKC", text)
    assert _folded_reading(_fire(variant)) == _folded_reading(_fire(text))


INVISIBLE = "\u200b\u200c\u200d\u2060\ufeff\u00ad\u200e\u200f"


@settings(max_examples=300)
@given(positives, st.data())
def test_invisible_characters_change_nothing(text: str, data: st.DataObject) -> None:
    """Zero-width characters, soft hyphens and bidi marks anywhere are dropped before
    matching: they never change what is read, at most they make a proposal none (one
    inside its terms would be stored prose that differs from what the user saw); in
    front of the turn they change nothing at all."""
    assert reading(_fire(data.draw(st.sampled_from(INVISIBLE)) + text)) == reading(_fire(text))
    chars = list(text)
    inserts = data.draw(
        st.lists(
            st.tuples(st.integers(0, len(chars)), st.sampled_from(INVISIBLE)),
            min_size=1,
            max_size=6,
        )
    )
    for position, char in sorted(inserts, reverse=True):
        chars.insert(position, char)
    got = reading(_fire("".join(chars)))
    assert got in (reading(_fire(text)), reading(_fire("")))


# Letters of the trigger words, their look-alikes and full-width forms, CJK around 约定,
# quotes, punctuation and invisible characters: the neighbourhood where bugs would hide.
TRICKY = (
    "agreAGRE ctnmsluyhiwp'’:：,，.。?？!！\"“”「」『』`\n"
    "ａｇｒｅＡＧＲＥ𝐚𝐠𝐫𝐞ⓐⓖⓡⓔª"
    "约定我们咱接受同意取消这个作废把待办标记为完成了吗的好約們這個幫"
    "\u200b\u200d\u2060\ufeff\u00ad\u0301"
)


def _folded_has_keyword(text: str) -> bool:
    folded = unicodedata.normalize("NFKC", "".join(c for c in text if c not in INVISIBLE))
    # 約定 is 约定 written with the traditional 約 (the recognizer reads it as such).
    return "agree" in folded.lower() or "约定" in folded or "約定" in folded


@settings(max_examples=500)
@given(st.text(alphabet=TRICKY, max_size=60))
def test_text_without_a_trigger_word_never_fires(text: str) -> None:
    """No "agree" and no "约定" (or 約定) after folding: no intent, whatever else it holds."""
    if not _folded_has_keyword(text):
        assert _fire(text) == NO_INTENT


def _forms_of(letter: str) -> list[str]:
    """Every character that folds (NFKC) to `letter` or its capital, the letter included."""
    targets = {letter, letter.upper()}
    return [letter] + [
        chr(cp) for cp in range(0x80, 0x30000) if unicodedata.normalize("NFKC", chr(cp)) in targets
    ]


LETTER_FORMS = {letter: _forms_of(letter) for letter in "agre约定約"}


@st.composite
def disguised_keywords(draw: st.DrawFn) -> str:
    """ "agree" or "约定" spelled with look-alike compatibility forms and invisible characters."""
    keyword = draw(st.sampled_from(["agree", "约定", "約定"]))
    parts = []
    for letter in keyword:
        parts.append(draw(st.sampled_from(LETTER_FORMS[letter])))
        parts.append(draw(st.text(alphabet=INVISIBLE, max_size=2)))
    return "".join(parts)


@settings(max_examples=500)
@given(st.text(alphabet=TRICKY, max_size=30), disguised_keywords(), st.text(TRICKY, max_size=30))
def test_fast_path_never_skips_a_turn_that_folds_into_a_trigger_word(
    prefix: str, keyword: str, suffix: str
) -> None:
    """The cheap pre-check is sound: it passes every turn whose folded form has a keyword."""
    text = prefix + keyword + suffix
    if _folded_has_keyword(text):
        assert may_hold_trigger(text)


def test_there_are_look_alike_forms_to_test_the_fast_path_with() -> None:
    """The strategy above really disguises: each keyword letter has compatibility forms."""
    assert all(len(forms) > 1 for letter, forms in LETTER_FORMS.items() if letter.isascii())


@given(st.text(max_size=200))
def test_arbitrary_unicode_never_crashes_and_terms_come_from_the_turn(text: str) -> None:
    """Any input gives an intent; proposal terms are non-empty prose from the turn (R14)."""
    intent = _fire(text)
    if isinstance(intent, Proposal):
        assert intent.terms
        folded_terms = unicodedata.normalize("NFKC", intent.terms)
        assert folded_terms in unicodedata.normalize("NFKC", text)


@given(positives)
def test_a_second_phrase_in_the_turn_makes_it_ambiguous(text: str) -> None:
    """Two explicit phrases in one turn are ambiguous: nothing is recognized (R4, R8)."""
    assert _fire(f"{text.rstrip(_END)}. {text}") == NO_INTENT
