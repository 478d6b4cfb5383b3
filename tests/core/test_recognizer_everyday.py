"""Real everyday chat gives no intent, from the user or the assistant (R1).

tests/corpus/everyday/ holds the redistributable part of the issue 39 measurement on
real chat (chatterbot-corpus, BSD-3; the Tencent chit-chat prompts, CC BY 3.0; their
README says where each line comes from). The larger corpora that may not be copied
here are measured by benchmarks/everyday_chat.py; figures in docs/recognizer.md.
"""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from contracts.common import Role
from core.intents import NO_INTENT, Proposal
from core.recognition.recognizer import recognize
from tests.support.paths import CORPUS

EVERYDAY = sorted((CORPUS / "everyday").glob("*.jsonl"))


def _texts(path: Path) -> list[str]:
    with path.open(encoding="utf-8") as lines:
        return [str(msgspec.json.decode(line)["text"]) for line in lines if line.strip()]


@pytest.mark.parametrize("path", EVERYDAY, ids=[path.stem for path in EVERYDAY])
def test_everyday_chat_gives_no_intent_as_user_or_assistant_turn_r1(path: Path) -> None:
    """Not one line of real chat proposes, accepts or cancels; as an assistant turn
    nothing counts at all (R1)."""
    texts = _texts(path)
    fired = [(text, recognize(text, Role.USER)) for text in texts]
    assert [(text, intent) for text, intent in fired if intent != NO_INTENT] == []
    assert [text for text in texts if recognize(text, Role.ASSISTANT) != NO_INTENT] == []


def test_everyday_sample_is_the_size_its_readme_states() -> None:
    """The counts in tests/corpus/everyday/README.md are the files' (so a line lost or
    added shows)."""
    sizes = {path.stem: len(_texts(path)) for path in EVERYDAY}
    assert sizes == {"chatterbot_en": 1707, "chatterbot_zh": 878, "tencent_zh": 2000}


@pytest.mark.parametrize(
    "text",
    [
        "我们约定了五五分账",  # 了: a past agreement reported
        "我们约定过五五分账",  # 过: the same
        "我们约定的是五五分账",  # what was agreed, described
        "他说我们约定五五分账",  # reported speech
        "你要是中止我们的约定",  # a condition
        "我没有中止约定",
        "不会的\uff0c因为我们有个新约定",
        "Jack 我们约定好的",
        "Can we just agree to leave this aside till we meet later?",
        "If u agree, we can see what we can do tmr.",
        "Just agree to what I said. (y)",
        "Agreed.",
    ],
)
def test_agreement_words_in_real_chat_and_subtitles_are_not_an_act_r1(text: str) -> None:
    """Lines of the measured corpora (or their report forms) that reach the full grammar
    because they hold 约定 or "agree", and are no agreement act (R1)."""
    assert recognize(text, Role.USER) == NO_INTENT


def test_we_agree_with_terms_is_a_proposal_even_when_a_film_reports_it_r1() -> None:
    """The one fire of the measurement, kept on purpose: in its TV scene 我们约定五五分账
    reports a deal with a third party, but a turn is read alone and Chinese marks no
    tense, so typed to the agent it is the explicit form 我们约定 + terms (R1)."""
    intent = recognize("我们约定五五分账", Role.USER)
    assert isinstance(intent, Proposal)
    assert intent.terms == "五五分账"
    assert recognize("我们约定五五分账", Role.ASSISTANT) == NO_INTENT
