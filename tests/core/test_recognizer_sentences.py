# ruff: noqa: RUF001 - these tests are about full-width punctuation in real messages
"""Recognition inside longer, real messages: one sentence at a time (R1, R4, R8, R14).

A turn is read sentence by sentence: the explicit phrase is found in one sentence,
its terms and deadline come from that sentence alone, and a question elsewhere in the
turn asks something else. Confirmations and cancellations may carry a reason or a
polite form; weak, negated, conditional and questioned ones still count for nothing.

Each test is a table of messages and one assertion, alike in shape by design: one
behaviour and rule a test (CONTRIBUTING.md, "Repeated shapes").
"""

from __future__ import annotations

import pytest

from contracts.common import Role
from core.intents import (
    NO_INTENT,
    Acceptance,
    Cancellation,
    Intent,
    Proposal,
    without_evidence,
)
from core.recognition.recognizer import recognize


def _user(text: str) -> Intent:
    # What was recognized; where it was (R16 evidence) is tested in test_explain_evidence.py.
    return without_evidence(recognize(text, Role.USER))


# --- sentence-level proposals -----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "terms", "deadline"),
    [
        (
            (
                "Thanks for the help! Let's agree: send me the report by Friday. "
                "Also, what time is it tomorrow?"
            ),
            "send me the report by Friday",
            "by Friday",
        ),
        (
            "Let's agree: send me the report. I'm busy until tomorrow though.",
            "send me the report",
            None,
        ),
        (
            "I need this soon. Let's agree: reply within 2 hours! By the way, is it raining?",
            "reply within 2 hours",
            "within 2 hours",
        ),
        ("谢谢你！我们约定：周五前把周报发我。明天有空吗？", "周五前把周报发我", "周五前"),
        (
            "我明天很忙。我们约定：先说结论，再讲原因。你觉得今天会下雨吗？",
            "先说结论，再讲原因",
            None,
        ),
        (
            "Let's agree: send me the draft by Friday, and the slides too. See you Monday!",
            "send me the draft by Friday, and the slides too",
            "by Friday",
        ),
    ],
)
def test_the_proposal_is_read_from_its_own_sentence_r1_r14(
    text: str, terms: str, deadline: str | None
) -> None:
    """Terms and deadline come from the proposal's sentence; the other sentences' times
    and questions are not its deadline and do not turn it into a question."""
    assert _user(text) == Proposal(terms=terms, deadline_phrase=deadline)


@pytest.mark.parametrize(
    "text",
    [
        "🙂 Let's agree: reply in English.",
        "👉 Let's agree: reply in English",
        "- Let's agree: reply in English.",
        "• Let's agree: reply in English.",
        "Hi 👋, let's agree: reply in English.",
        "Great job 🎉 Let's agree: reply in English 🙏",
        "Thanks, let's agree: reply in English.",
    ],
)
def test_leading_emoji_bullets_and_thanks_do_not_hide_a_proposal_r1(text: str) -> None:
    """Emoji end a sentence and bullets are layout: the phrase still opens its sentence."""
    assert _user(text) == Proposal(terms="reply in English")


@pytest.mark.parametrize(
    ("text", "terms"),
    [
        ("👉 我们约定：每次先说结论。", "每次先说结论"),
        ("谢谢🙏我们约定：每次先说结论", "每次先说结论"),
        ("OK，let's agree：每次先说结论。", "每次先说结论"),
        ("好的！Let's agree: 回复用中文。", "回复用中文"),
        ("谢谢，我们约定：每次先说结论！", "每次先说结论"),
        ("Thanks！我们约定：reply in English。", "reply in English"),
    ],
)
def test_mixed_english_and_chinese_with_full_width_punctuation_r1(text: str, terms: str) -> None:
    """Mixed scripts and full-width punctuation split and match like ASCII text."""
    assert _user(text) == Proposal(terms=terms)


@pytest.mark.parametrize(
    "text",
    [
        "Let's agree: reply in English. I accept this agreement.",
        "Let's agree: reply in English. Let's agree: use bullet points.",
        "我们约定：先说结论。我们约定：再讲原因。",
        "I accept this agreement. Cancel this agreement.",
        "取消这个约定。我们约定：每次先说结论。",
    ],
)
def test_two_explicit_phrases_in_one_turn_give_no_intent_r1(text: str) -> None:
    """Two explicit acts in one turn: which one is meant would be a guess, so none."""
    assert _user(text) == NO_INTENT


@pytest.mark.parametrize(
    "text",
    [
        "Let's agree: reply in English?",
        "Let's agree: reply in English. OK?",
        "Let's agree: reply in English. Does that work for you?",
        "Let's agree: reply in English. What do you think?",
        "我们约定：先说结论。好吗？",
        "我们约定：先说结论。你觉得怎么样？",
        "我们约定：先说结论，可以吗",
    ],
)
def test_a_proposal_asked_in_its_sentence_or_the_next_one_is_none_r1(text: str) -> None:
    """A question mark in the proposal's sentence, or a tag question right after it,
    asks the agent instead of proposing."""
    assert _user(text) == NO_INTENT


@pytest.mark.parametrize(
    "text",
    [
        "我们约定见面的地点吧",
        "我们约定好明天在咖啡馆碰头",
        "咱们约定一下时间",
        "我们约定在公司门口集合",
    ],
)
def test_yueding_fixing_a_time_or_place_to_meet_is_not_a_proposal_r1(text: str) -> None:
    """约定 run straight into a meeting, a time or a place arranges a meeting."""
    assert _user(text) == NO_INTENT


def test_yueding_with_a_colon_still_proposes_terms_about_a_time_r1() -> None:
    """With a separator the user states terms, even ones that name a time."""
    assert _user("我们约定：回复时间不超过两小时") == Proposal(terms="回复时间不超过两小时")


# --- confirmations and cancellations in real messages ----------------------------------


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("Cancel this agreement, this doesn't help me anymore.", Cancellation()),
        ("This doesn't help me anymore, cancel this agreement.", Cancellation()),
        ("这周事情太多，取消这个约定吧。", Cancellation()),
        ("取消这个约定，算了吧", Cancellation()),
        ("这周事情太多，算了，取消这个约定吧", Cancellation()),
        ("Could you please cancel the agreement?", Cancellation()),
        ("Would you kindly cancel this agreement.", Cancellation()),
        ("Please cancel the agreement about the report.", Cancellation(target_hint="report")),
        ("麻烦帮我取消一下这个约定，谢谢", Cancellation()),
        ("请取消关于周报的约定", Cancellation(target_hint="周报")),
        ("I accept this agreement, it makes sense to me.", Acceptance()),
        ("The plan looks fine, I accept this agreement.", Acceptance()),
        ("这个安排挺合理，我接受这个约定。", Acceptance()),
        ("我同意这个约定，这样挺好的。", Acceptance()),
        ("Thanks! I accept this agreement 👍", Acceptance()),
    ],
)
def test_confirmation_or_cancellation_with_a_reason_or_polite_form_counts_r4_r8(
    text: str, intent: Intent
) -> None:
    """A reason before or after the phrase, or a polite request, is still the user's act."""
    assert _user(text) == intent


@pytest.mark.parametrize(
    "text",
    [
        "I don't accept this agreement.",
        "I do not accept this agreement, it makes no sense.",
        "Let's not cancel this agreement.",
        "Please do not cancel this agreement.",
        "不要取消这个约定",
        "这周事情太多，不要取消这个约定",
        "Cancel this agreement?",
        "Can I cancel this agreement?",
        "Should we cancel the agreement? It doesn't help.",
        "取消这个约定吗？",
        "If it rains, cancel this agreement.",
        "如果你太忙，取消这个约定吧",
        "他说，取消这个约定。",
        "He said, cancel this agreement.",
        "I accept this agreement, but only if you reply in English.",
        "I accept this agreement, I guess.",
        "Cancel this agreement, maybe.",
        "Cancel this agreement, just kidding!",
        "取消这个约定，开玩笑的",
        "我接受这个约定，不过要等下周",
        "Please cancel the agreement. Actually no, wait?",
    ],
)
def test_weak_negated_conditional_or_questioned_ones_count_for_nothing_r4_r8(text: str) -> None:
    """Negations, questions, conditions, hedges and retractions accept and cancel nothing."""
    assert _user(text) == NO_INTENT
