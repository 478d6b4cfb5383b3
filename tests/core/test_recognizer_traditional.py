# ruff: noqa: RUF001, RUF002 - Chinese turns are written with full-width punctuation
"""Traditional characters and polite questions in Chinese phrases (R1, R4, R8, R14).

约定 written 約定, and the other characters of the phrase grammar in their traditional
forms, are the same words: a turn written that way gives the same intent as its
simplified spelling, with the user's own characters in the terms. A polite question
that asks the agent to cancel ("能不能帮我取消这个约定？") is a request; one that asks
for permission or not to cancel is not.

Tables of turns with one assertion each, alike in shape by design (one behaviour a
test; CONTRIBUTING.md, "Repeated shapes").
"""

from __future__ import annotations

import pytest

from core.intents import NO_INTENT, Cancellation, Proposal
from core.recognition.normalize import SIMPLIFIED_FORMS, TRADITIONAL_SOURCES
from core.recognition.recognizer import recognize
from tests.support.corpus_kit import POSITIVE, reading

# Simplified -> traditional (the first traditional form where there are two).
TO_TRADITIONAL = str.maketrans(
    dict(reversed(list(zip(SIMPLIFIED_FORMS, TRADITIONAL_SOURCES, strict=True))))
)
CHINESE_POSITIVES = [
    row
    for row in POSITIVE
    if row["lang"] == "zh" and row["text"].translate(TO_TRADITIONAL) != row["text"]
]


def test_the_table_maps_one_traditional_character_to_one_simplified() -> None:
    """R14: one character for one, so positions and the user's prose stay exact."""
    assert len(TRADITIONAL_SOURCES) == len(SIMPLIFIED_FORMS) == len(set(TRADITIONAL_SOURCES))
    assert "約" in TRADITIONAL_SOURCES
    assert not set(TRADITIONAL_SOURCES) & set(SIMPLIFIED_FORMS)


@pytest.mark.parametrize("row", CHINESE_POSITIVES, ids=lambda row: row["text"][:20])
def test_a_traditional_spelling_gives_the_same_intent(row: dict[str, str]) -> None:
    """R1, R4, R8, R14: the same intent, its terms and hint in the user's characters."""
    traditional = row["text"].translate(TO_TRADITIONAL)
    expected = reading(recognize(row["text"], "user"))
    got = reading(recognize(traditional, "user"))
    assert got["intent"] == expected["intent"]
    for field in ("terms", "target_hint", "todo_target"):
        if expected[field] is None:
            assert got[field] is None
        else:
            assert got[field] == (expected[field] or "").translate(TO_TRADITIONAL)


@pytest.mark.parametrize(
    "text",
    ["我們約定：下週五前交報告。", "咱們約定：每天十點前睡覺", "好的，我們約定：開會先說結論"],
)
def test_traditional_proposal_keeps_the_users_characters(text: str) -> None:
    """R1, R14: 我們約定 proposes; the terms are cut from the turn as written."""
    intent = recognize(text, "user")
    assert isinstance(intent, Proposal)
    assert intent.terms in text
    assert intent.terms.translate(TO_TRADITIONAL) == intent.terms


def test_traditional_deadline_wording_in_traditional_terms() -> None:
    """R1, R9: terms in traditional characters still carry their deadline wording."""
    intent = recognize("我們約定：下週五前交報告。", "user")
    assert isinstance(intent, Proposal)
    assert intent.deadline_phrase == "下週五前"


@pytest.mark.parametrize(
    "text",
    [
        "能不能帮我取消这个约定？",
        "你能不能帮我取消这个约定？",
        "能否取消这个约定？",
        "可不可以帮我取消这个约定？",
        "你可以帮我取消这个约定吗？",
        "您能帮我取消这个约定吗？",
        "这周太忙了，能不能帮我取消这个约定？",
        "能不能幫我取消這個約定？",
    ],
)
def test_polite_question_asking_to_cancel_is_a_cancellation(text: str) -> None:
    """R8: a polite question that asks the agent to cancel is a request."""
    assert isinstance(recognize(text, "user"), Cancellation)


@pytest.mark.parametrize(
    "text",
    [
        "我能不能取消这个约定？",  # asks whether the user may
        "能不能不要取消这个约定？",  # asks not to cancel
        "可以取消这个约定吗？",  # may ask for permission
        "能取消这个约定吗？",
        "如果下雨，能不能帮我取消这个约定？",  # a condition
        "能不能帮我取消这个约定，但是先别删",  # a contrast
        "能不能帮我取消这个约定？开玩笑的",  # taken back
        "Could you please cancel this agreement? Just kidding",
        "他问我能不能帮他取消这个约定",  # reported
    ],
)
def test_question_that_is_not_a_request_to_cancel_is_no_intent(text: str) -> None:
    """R8: permission, negation, conditions and reported questions cancel nothing."""
    assert recognize(text, "user") == NO_INTENT


def test_polite_cancellation_names_its_quoted_target() -> None:
    """R8: a quoted target in a polite request is the hint."""
    intent = recognize("好的，您能帮我取消“早睡”这个约定吗？", "user")
    assert isinstance(intent, Cancellation)
    assert intent.target_hint == "早睡"
