# ruff: noqa: RUF001 - Chinese turns are written with their own punctuation
"""Claims in assistant turns, checked against the state, never acted on (R18).

Its tables of assistant turns are alike in shape on purpose: one behaviour, one
assertion and one rule each (CONTRIBUTING.md, "Repeated shapes").
"""

from __future__ import annotations

import json

import pytest

from contracts.common import AgreementState, Role
from contracts.outputs import ClaimKind, ClaimUnverified, StateChanged, described
from core.intents import NO_INTENT, Claims
from core.lifecycle.claims import claims_in
from core.lifecycle.state import empty_session
from tests.support.lifecycle_kit import Conversation, created
from tests.support.paths import CORPUS

NOTES = "Organize reading notes"


def _agreed(talk: Conversation, text: str, session: str | None = None) -> str:
    record_id = created(talk.say(text, session=session))
    assert talk.agent_accepts(record_id, session=session).accepted
    talk.say("I accept this agreement.", session=session)
    assert talk.state_of(record_id) == AgreementState.OPEN
    return record_id


def _claims(talk: Conversation, text: str, session: str | None = None) -> list[ClaimUnverified]:
    """The assistant says `text`; the advisory events, after checking nothing changed."""
    name = session or talk.session
    before = (talk.scope, talk.sessions.get(name, empty_session(name)))
    step = talk.say(text, role=Role.ASSISTANT, session=session)
    assert not [e for e in step.events if isinstance(e, StateChanged)]
    assert not step.scope_changed
    assert not step.session_changed
    assert (talk.scope, talk.sessions[name]) == before
    return [e for e in step.events if isinstance(e, ClaimUnverified)]


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("As we agreed, I'll start with the conclusion.", "As we agreed"),
        ("Per our agreement, here is the summary first.", "Per our agreement"),
        ("I'll keep it short, as agreed.", "as agreed"),
        ("按照我们的约定，我先说结论。", "按照我们的约定"),
        ("我们说好的，先说结论。", "我们说好的"),
    ],
)
def test_an_agreement_claim_with_no_agreement_is_flagged_r18(text: str, phrase: str) -> None:
    """R18: the scope has no open agreement: one advisory event naming session, seq,
    kind and the claim's span in the text; the state is untouched."""
    talk = Conversation()
    (event,) = _claims(talk, text)
    assert (event.session_id, event.seq, event.kind) == ("s1", 1, ClaimKind.AGREEMENT)
    assert text[event.span[0] : event.span[1]] == phrase
    assert event.checked == ()
    assert described(event.event_id) == f"s1#1:claim_unverified@{event.span[0]}"
    assert event.message_id == "m-s1-1"


def test_an_open_agreement_backs_an_agreement_claim_r18() -> None:
    """R18: any open agreement backs a claim that names no subject."""
    talk = Conversation()
    _agreed(talk, "Let's agree: start with the conclusion.")
    assert _claims(talk, "As we agreed, the conclusion first: ship it.") == []
    assert _claims(talk, "按照我们的约定，先说结论。") == []


def test_a_proposal_does_not_back_an_agreement_claim_r6_r18() -> None:
    """R18 with R6: nothing calls a proposal agreed, so it backs no claim."""
    talk = Conversation()
    record_id = created(talk.say("Let's agree: start with the conclusion."))
    (event,) = _claims(talk, "As we agreed, the conclusion first.")
    assert event.checked == ()
    assert talk.state_of(record_id) == AgreementState.PROPOSED


def test_a_claims_subject_must_be_in_an_open_agreements_terms_r18() -> None:
    """R18: a quoted or named subject is backed only by open terms that contain it; the
    event lists the open records it was checked against."""
    talk = Conversation()
    record_id = _agreed(talk, "Let's agree: always offer green tea first.")
    assert _claims(talk, 'As we agreed, "green tea" comes first.') == []
    assert _claims(talk, "As we agreed about green tea, here it is.") == []
    (quoted,) = _claims(talk, 'As we agreed, "no meetings on Friday".')
    assert quoted.checked == (record_id,)
    (named,) = _claims(talk, "As we agreed about the Friday meetings, I cancelled them.")
    assert named.checked == (record_id,)
    (zh,) = _claims(talk, "按照我们关于周五开会的约定，我取消了会议。")
    assert zh.checked == (record_id,)
    assert _claims(talk, "按照我们关于green tea的约定，先上绿茶。") == []


def test_an_expired_agreement_backs_no_claim_r9_r18() -> None:
    """R18 with R9: an agreement past its deadline is not current, even before a sweep."""
    talk = Conversation()
    _agreed(talk, "Let's agree: send the summary within 30 minutes.", session="s2")
    talk.advance(minutes=31)
    (event,) = _claims(talk, "As we agreed, here is the summary.")
    assert event.checked == ()


def test_a_delivery_claim_before_and_after_the_todo_is_completed_r12_r18() -> None:
    """R18: "I've finished X" naming an open agreement's bound todo while the snapshot
    does not show it completed is flagged; after the verified delivery there is no open
    agreement bound to it and nothing is flagged."""
    talk = Conversation()
    talk.tool_result([(NOTES, "pending"), ("Buy milk", "pending")])
    record_id = _agreed(talk, f'Let\'s agree: mark todo "{NOTES}" as completed.')
    (event,) = _claims(talk, f"I've finished {NOTES}.")
    assert (event.kind, event.checked) == (ClaimKind.DELIVERY, (record_id,))
    assert "I've finished" in f"I've finished {NOTES}."[event.span[0] : event.span[1]]
    (zh,) = _claims(talk, f"「{NOTES}」已经完成了。")
    assert zh.kind == ClaimKind.DELIVERY
    talk.tool_result([(NOTES, "completed"), ("Buy milk", "pending")])
    assert talk.state_of(record_id) == AgreementState.FULFILLED
    assert _claims(talk, f"I've finished {NOTES}.") == []


def test_a_delivery_claim_about_anything_else_is_not_checked_r10_r18() -> None:
    """R18: a delivery claim that names no bound todo gives nothing (and does nothing, R10)."""
    talk = Conversation()
    talk.tool_result([(NOTES, "pending"), ("Buy milk", "pending")])
    _agreed(talk, f'Let\'s agree: mark todo "{NOTES}" as completed.')
    assert _claims(talk, "I've finished the report you asked for.") == []
    assert _claims(talk, "Buy milk 已经完成了。") == []


def test_a_completed_snapshot_backs_the_claim_though_delivery_was_not_verified_r18() -> None:
    """R18: the latest snapshot shows the bound item completed (it was completed before
    the agreement opened, so R12 never fulfilled it): the claim is backed."""
    talk = Conversation()
    talk.tool_result([(NOTES, "pending")])
    record_id = created(talk.say(f'Let\'s agree: mark todo "{NOTES}" as completed.'))
    talk.tool_result([(NOTES, "completed")])
    assert talk.agent_accepts(record_id).accepted
    talk.say("I accept this agreement.")
    assert talk.state_of(record_id) == AgreementState.OPEN
    assert _claims(talk, f"I have finished {NOTES}.") == []


def test_a_delivery_claim_from_another_session_cannot_be_backed_r18() -> None:
    """R18: the bound todo lives in its own session; elsewhere no snapshot backs it."""
    talk = Conversation()
    talk.tool_result([(NOTES, "pending")])
    record_id = _agreed(talk, f'Let\'s agree: mark todo "{NOTES}" as completed.')
    (event,) = _claims(talk, f"I've completed {NOTES}.", session="s2")
    assert event.checked == (record_id,)


@pytest.mark.parametrize(
    "text",
    [
        "Is this as we agreed?",
        "That is not as we agreed.",
        "Have I finished everything?",
        "这是按照我们的约定吗？",
        "这不是我们说好的",
        "Let me know when you've finished reading.",
        "We agreed on nothing yet, so let's talk.",
    ],
)
def test_questions_negations_and_ordinary_text_are_no_claims_r18(text: str) -> None:
    """R18: precision first: questions and negations claim nothing."""
    assert claims_in(text) == NO_INTENT


def test_a_user_saying_as_we_agreed_is_not_checked_r1_r18() -> None:
    """R18 concerns assistant turns; a user's words are theirs (and R1 holds)."""
    talk = Conversation()
    step = talk.say("As we agreed, you start with the conclusion.")
    assert step.events == ()
    step = talk.say("As we agreed, you start with the conclusion.", role=Role.SYSTEM)
    assert step.events == ()


def test_every_claim_of_a_turn_is_checked_r18() -> None:
    """R18: two claims, two events, in text order."""
    talk = Conversation()
    talk.tool_result([(NOTES, "pending")])
    _agreed(talk, f'Let\'s agree: mark todo "{NOTES}" as completed.')
    intent = claims_in(f'As we agreed, "weekly report" first. I\'ve finished {NOTES}.')
    assert isinstance(intent, Claims)
    assert [c.kind for c in intent.claims] == [ClaimKind.AGREEMENT, ClaimKind.DELIVERY]
    events = _claims(talk, f'As we agreed, "weekly report" first. I\'ve finished {NOTES}.')
    assert [e.kind for e in events] == [ClaimKind.AGREEMENT, ClaimKind.DELIVERY]


@pytest.mark.parametrize("with_agreement", [False, True])
def test_real_chat_negatives_as_assistant_turns_give_no_claim_event_r18(
    *, with_agreement: bool
) -> None:
    """R18: every real-chat negative of the corpus, said by the assistant, gives no
    event (none of them literally claims an agreement or a delivery), whether or not
    the scope has an open agreement with a bound todo."""
    talk = Conversation()
    if with_agreement:
        talk.tool_result([(NOTES, "pending")])
        _agreed(talk, f'Let\'s agree: mark todo "{NOTES}" as completed.')
    lines = (CORPUS / "recognizer_negative.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) > 500
    flagged = [
        json.loads(line)["text"] for line in lines if _claims(talk, json.loads(line)["text"])
    ]
    assert flagged == []
