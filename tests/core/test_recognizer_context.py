# ruff: noqa: RUF001 - these tests are about full-width punctuation and dashes in real messages
"""Explicit phrases in context: after lead-ins, before reasons, never loose (R1, R4, R8).

The grammar (docs/recognizer.md): before a trigger may stand lead-ins (lead words, a
lead-in clause ending in a comma, colon or dash); after an acceptance or cancellation
may stand courtesy words and particles, then a reason after a comma, dash or full
stop. The tables below are that grammar's rows. For every trigger, every lead-in and
every tail the intent is found; in every negating frame (a question, a negation,
reported speech, a speaker label, a hypothesis, a past report, code, another role) it
is not.
"""

from __future__ import annotations

from itertools import product

from hypothesis import given
from hypothesis import strategies as st

from contracts.common import Role
from core.intents import NO_INTENT, Acceptance, Cancellation, Intent, Proposal, without_evidence
from core.recognition.recognizer import recognize


def _user(text: str) -> Intent:
    return without_evidence(recognize(text, Role.USER))


EN, ZH = "en", "zh"
TERMS = {EN: "start with the conclusion", ZH: "先说结论"}

# (language, trigger, intent type). Proposals are followed by their terms.
TRIGGERS: list[tuple[str, str, type[Intent]]] = [
    (EN, "let's agree: ", Proposal),
    (EN, "let's agree that ", Proposal),
    (EN, "I accept this agreement", Acceptance),
    (EN, "I agree to the agreement", Acceptance),
    (EN, "cancel this agreement", Cancellation),
    (EN, "please cancel this agreement", Cancellation),
    (EN, "plz cancel this agreement", Cancellation),
    (EN, "pls cancel the agreement", Cancellation),
    (EN, "kindly cancel this agreement", Cancellation),
    (ZH, "我们约定：", Proposal),
    (ZH, "我们约定", Proposal),
    (ZH, "咱们约定好：", Proposal),
    (ZH, "我接受这个约定", Acceptance),
    (ZH, "我同意这个约定", Acceptance),
    (ZH, "我还是接受这个约定", Acceptance),
    (ZH, "那我们就取消这个约定", Cancellation),
    (ZH, "取消这个约定", Cancellation),
    (ZH, "麻烦你取消这个约定", Cancellation),
    (ZH, "请您帮我取消这个约定", Cancellation),
]

# What may stand before a trigger: lead words (discourse markers, fillers, particles,
# labels of one's own), stacked lead words, and lead-in clauses giving a reason.
LEAD_INS = {
    EN: [
        "",
        "Anyway, ",
        "Anyway — ",
        "OK so anyway, ",
        "After sleeping on it: ",
        "After sleeping on it, ",
        "Having thought about it: ",
        "On second thought, ",
        "Honestly, ",
        "Well... ",
        "Yes — ",
        "Yes - ",
        "Update: ",
        "Btw, ",
        "Thanks! ",
        "🙂 ",
        "- ",
        "The plan looks fine, ",
        "This week was hard for me: ",
        "Long story short — ",
        "Claude, ",
        "Ok cool, ",
        "Having read it again, ",
        "After reading it again, ",
        "Before I forget, ",
        "One more thing before I go: ",
        "Sorry, ",
        "Oh and ",
    ],
    ZH: [
        "",
        "嗯",
        "嗯那",
        "嗯嗯，那",
        "那",
        "好啊，",
        "啊，",
        "总之，",
        "其实，",
        "想了想，",
        "我想了想，还是",
        "我想了一下：",
        "这周事情太多，",
        "说实话——",
        "谢谢！",
        "🙂 ",
        "- ",
        "那个，",
        "行，那就",
        "其实吧，",
        "我想了想还是",
        "话说回来，",
        "说真的，",
        "没问题，",
        "不好意思，",
        "为了少走弯路，",
        "经过讨论，",
        "顺便说一句，",
    ],
}

# Lead words alone (a lead-in clause is a whole clause: it does not stack).
LEAD_WORDS = {
    EN: ["Anyway, ", "OK ", "so ", "Honestly — ", "Update: ", "well, ", "yes, ", "Btw, "],
    ZH: ["嗯", "那", "嗯，", "好啊，", "啊，", "总之，", "其实", "想了想，", "还是"],
}

# What may follow: for a proposal, the end of its terms' sentence; for an acceptance or
# cancellation, courtesy and particles in its clause, then a reason.
PROPOSAL_TAILS = {
    EN: ["", ".", "!", ". It saves me time.", ". Thanks!"],
    ZH: ["", "。", "！", "。这样我省时间。", "。谢谢！"],
}
ACT_TAILS = {
    EN: [
        "",
        ".",
        "!",
        " please",
        " plz",
        " now, thanks",
        " — it stresses me out",
        " – it stresses me out",
        " -- it stresses me out",
        ", it stresses me out",
        ". It stresses me out.",
        ", this doesn't help me anymore.",
        " (it stresses me out)",
        ": it's not for me",
        " because it stresses me out",
        " pls, it stresses me out",
        " i dont need it anymore",  # a voice transcript: no punctuation before the reason
        " it stresses me out",
        " thanks we're done here",
        ", no problem",
    ],
    ZH: [
        "",
        "。",
        "吧",
        "啊",
        "吧，谢谢",
        "了",
        "——压力太大了",
        "，压力太大了",
        "。压力太大了。",
        "，算了吧",
        "哈",
        "因为压力太大",
        "，因为太麻烦了",
        "呗",
        "~",
        "我最近太忙了",  # a voice transcript: no punctuation before the reason
        "吧我最近太忙了",
    ],
}


def _sentence(lead: str, trigger: str, kind: type[Intent], lang: str, tail: str) -> str:
    terms = TERMS[lang] if kind is Proposal else ""
    return f"{lead}{trigger}{terms}{tail}"


def _tails(kind: type[Intent], lang: str) -> list[str]:
    return PROPOSAL_TAILS[lang] if kind is Proposal else ACT_TAILS[lang]


def _every_sentence() -> list[tuple[str, type[Intent], str]]:
    return [
        (_sentence(lead, trigger, kind, lang, tail), kind, lang)
        for lang, trigger, kind in TRIGGERS
        for lead, tail in product(LEAD_INS[lang], _tails(kind, lang))
    ]


def test_every_trigger_after_every_lead_in_before_every_tail_is_found_r1_r4_r8() -> None:
    """R1, R4, R8: trigger x lead-in x tail from the tables, each gives its intent; a
    proposal's terms are its own sentence, without lead-in or reason."""
    wrong = []
    for text, kind, lang in _every_sentence():
        intent = _user(text)
        terms_wrong = isinstance(intent, Proposal) and intent.terms != TERMS[lang]
        if terms_wrong or not isinstance(intent, kind):
            wrong.append((text, intent))
    assert wrong == []


@given(
    st.sampled_from(TRIGGERS),
    st.lists(st.integers(min_value=0, max_value=100), min_size=1, max_size=3),
    st.data(),
)
def test_stacked_lead_ins_still_find_the_trigger_r1(
    trigger: tuple[str, str, type[Intent]], picks: list[int], data: st.DataObject
) -> None:
    """R1: lead words stack ("OK so anyway, ...", "嗯嗯, 那...") before any trigger."""
    lang, phrase, kind = trigger
    words = LEAD_WORDS[lang]
    leads = "".join(words[pick % len(words)] for pick in picks)
    tail = data.draw(st.sampled_from(_tails(kind, lang)))
    assert isinstance(_user(_sentence(leads, phrase, kind, lang, tail)), kind)


# Tails after an act that make it no act: a condition, a hedge, a retraction.
REFUSED_TAILS = {
    EN: [
        " — but only if you agree",
        ", if that's OK",
        " — no wait",
        " (just kidding)",
        ", maybe",
        " because... nah",
        " — scratch that",
        " i guess",
        " i think",
        " it was a joke haha",
    ],
    ZH: [
        "，不过要等你同意",
        "——不对",
        "，如果你同意的话",
        "（开玩笑的）",
        "，也许",
        "——算了不取消了",
    ],
}


def test_every_act_before_a_refusing_tail_gives_no_intent_r4_r8() -> None:
    """R4, R8: an acceptance or cancellation followed by a condition, hedge or
    retraction, after any lead-in, is no act."""
    fired = [
        text
        for lang, trigger, kind in TRIGGERS
        if kind is not Proposal
        for lead, tail in product(LEAD_INS[lang], REFUSED_TAILS[lang])
        if _user(text := f"{lead}{trigger}{tail}") != NO_INTENT
    ]
    assert fired == []


# The same act negated later in its sentence, after a comma or run on (a voice
# transcript): the act is taken back.
TAKEN_BACK_TAILS: dict[type[Intent], dict[str, list[str]]] = {
    Acceptance: {
        EN: [", I don't accept it", " i do not accept it", ", actually I don't agree",
             " i changed my mind"],
        ZH: ["，我不接受", "我不接受", "我还是不同意", "，我反悔了"],
    },
    Cancellation: {
        EN: [", don't cancel it", " i do not want to cancel it... no, do not cancel"],
        ZH: ["，还是别取消了", "我不取消了"],
    },
}  # fmt: skip


def test_an_act_negated_in_its_own_sentence_gives_no_intent_r4_r8() -> None:
    """R4, R8: "I accept this agreement, I don't accept it", 我接受这个约定我不接受:
    a sentence that negates its own act accepts or cancels nothing."""
    fired = [
        text
        for lang, trigger, kind in TRIGGERS
        if kind is not Proposal
        for lead, tail in product(LEAD_INS[lang], TAKEN_BACK_TAILS[kind][lang])
        if _user(text := f"{lead}{trigger}{tail}") != NO_INTENT
    ]
    assert fired == []


def test_a_reason_that_negates_another_verb_keeps_the_act_r4_r8() -> None:
    """R4, R8: only the act itself negated takes it back; a reason may say no to
    something else."""
    assert isinstance(_user("取消这个约定，我不同意了"), Cancellation)
    assert isinstance(_user("cancel this agreement i dont need it anymore"), Cancellation)
    assert isinstance(_user("我接受这个约定，不用再提醒我了"), Acceptance)
    assert isinstance(_user("I accept this agreement, I don't need a reminder"), Acceptance)


# Triggers negated: no phrase of the grammar is in them.
NEGATED = {
    EN: [
        "let's not agree: start with the conclusion",
        "I don't accept this agreement",
        "I do not accept this agreement",
        "I never accept this agreement",
        "don't cancel this agreement",
        "do not cancel this agreement",
        "I won't cancel this agreement",
    ],
    ZH: [
        "我们不约定：先说结论",
        "我们别约定：先说结论",
        "我不接受这个约定",
        "我没有接受这个约定",
        "不要取消这个约定",
        "别取消这个约定",
        "我不想取消这个约定",
    ],
}

# Frames around lead-in + trigger + tail that make it no act of the user's own.
FRAMES = {
    EN: [
        "{}?",  # a question
        "{}. OK?",  # the next sentence asks about it
        "{}. Just kidding",  # and takes it back
        "He said: {}",
        "She wrote, {}",
        'He said "{}"',
        "> {}",
        "Assistant: {}",
        "AI: {}",
        "Bob: {}",
        "If you agree, {}",
        "Otherwise, {}",
        "As soon as you finish, {}",
        "Hypothetically, {}",
        "For example, {}",
        "Translate this: {}",
        "My friend texted me: {}",
        "He suggested: {}",
        "After you finish the report, {}",
        "Before you go, {}",
        "My boss keeps saying {}",
        "She is always telling me, {}",
        "[assistant] {}",
        "(Assistant) {}",
        "Assistant:\n{}",
        "The bot wrote:\n{}",
        "---------- Forwarded message ----------\n{}",
        "Suppose I said, {}",
        "Yesterday, {}",
        "Last week: {}",
        "`{}`",
        "```\n{}\n```",
    ],
    ZH: [
        "{}？",
        "{}吗？",
        "{}。好吗？",
        "{}。开玩笑的",
        "他说：{}",
        "他说，{}",
        "他说：“{}”",
        "助手：{}",
        "助手：好的，{}",
        "用户：{}",
        "如果你同意，{}",
        "要是明天下雨，{}",
        "否则，{}",
        "等你写完以后，{}",
        "【助手】{}",
        "[客服] {}",
        "助手：\n{}",
        "转发的消息：\n{}",
        "我们去年吵了一架，{}",
        "我们结婚的时候，{}",
        "比如：{}",
        "翻译一下：{}",
        "他提议：{}",
        "昨天，{}",
        "上周：{}",
        "`{}`",
        "```\n{}\n```",
    ],
}


def test_every_negated_trigger_in_every_context_gives_no_intent_r1_r4_r8() -> None:
    """R1, R4, R8: a negated phrase after any lead-in and before any tail is no act."""
    fired = [
        text
        for lang in (EN, ZH)
        for negated, lead, tail in product(NEGATED[lang], LEAD_INS[lang], ACT_TAILS[lang])
        if _user(text := f"{lead}{negated}{tail}") != NO_INTENT
    ]
    assert fired == []


_BREAKS = frozenset(".!?。！？…🙂")


def _one_sentence() -> list[tuple[str, str]]:
    """Every trigger with every lead-in and tail that keep it one sentence: a frame
    scopes over its own sentence ("He said: thanks! Let's agree: ..." proposes in
    the second sentence, as it should)."""
    return [(text, lang) for text, _kind, lang in _every_sentence() if _BREAKS.isdisjoint(text)]


def test_every_negating_frame_around_every_context_gives_no_intent_r1() -> None:
    """R1: questions, reported speech, speaker labels, hypotheses, past reports and code
    stay no act whatever lead-in and tail the phrase has inside them."""
    sentences = _one_sentence()
    assert len(sentences) > 500  # the frames see most of the grammar, not a corner
    fired = [
        text
        for sentence, lang in sentences
        for frame in FRAMES[lang]
        if _user(text := frame.format(sentence)) != NO_INTENT
    ]
    assert fired == []


def test_every_context_said_by_the_assistant_gives_no_intent_r1() -> None:
    """R1: an assistant or system turn never proposes, accepts or cancels, in any context."""
    fired = [
        text
        for text, _kind, _lang in _every_sentence()
        for role in (Role.ASSISTANT, Role.SYSTEM)
        if recognize(text, role) != NO_INTENT
    ]
    assert fired == []


# "Let's agree" with "that" left out, as people speak: the terms open with a subject or
# a time. Anything else after "agree" is no proposal.
THATLESS = [
    "lets agree next time we talk about money you start with the total",
    "ok so let's agree you remind me to stretch every hour",
    "let's agree we keep answers under five lines",
    "let's agree i get one question per reply",
    "Let's agree from now on you reply in French.",
    "let's agree whenever I say stop you stop",
    "let's agree every reply ends with a summary",
    "let's agree always metric units",
    "let's agree going forward you ask before deleting files",
]
NOT_THATLESS = [
    "let's agree to disagree",
    "let's agree on a time later",
    "let's agree what to do tomorrow",
    "let's agree when to meet",
    "let's agree about this later",
    "let's agree with the reviewers and move on",
    "let's agree you were right",
    "let's agree we were wrong about the budget",
    "lets agree next time we talk about money you start with the total?",
    "He said let's agree we keep answers short",
    "If we ever disagree, let's agree we stop for a day",
]


def test_a_proposal_with_that_left_out_is_found_when_its_terms_open_a_clause_r1() -> None:
    """R1, R2: "let's agree" + terms opening with a subject or a time proposes those terms."""
    wrong = [text for text in THATLESS if not isinstance(_user(text), Proposal)]
    assert wrong == []


def test_that_left_out_stays_narrow_r1() -> None:
    """R1: after "let's agree" anything but a subject or a time (to, on, what, when,
    about, with) is no proposal, nor are terms about the past, a question, reported
    speech or a condition."""
    fired = [text for text in NOT_THATLESS if _user(text) != NO_INTENT]
    assert fired == []


def test_a_polite_request_with_please_is_a_cancellation_even_as_a_question_r8() -> None:
    """R8: "Please could you cancel …", "Could you kindly cancel …?" request; without a
    courtesy word "Can you cancel this agreement?" may ask whether it can be done."""
    for text in (
        "Please could you cancel this agreement.",
        "Please could you cancel this agreement?",
        "Could you kindly cancel this agreement?",
        "Kindly cancel this agreement.",
    ):
        assert isinstance(_user(text), Cancellation), text
    for text in ("Can you cancel this agreement?", "Could you cancel this agreement?"):
        assert _user(text) == NO_INTENT, text


def test_haishi_before_an_acceptance_is_the_users_own_only_after_lead_ins_r4() -> None:
    """R4: 还是 may open the user's own acceptance with 我 left out (想了想, 还是接受这个约定吧),
    but advice to someone else or a hedge before it is no acceptance."""
    assert isinstance(_user("考虑了一下，还是接受这个约定吧"), Acceptance)
    for text in (
        "你还是接受这个约定吧",
        "他还是接受这个约定了",
        "我觉得还是接受这个约定吧",
        "还是接受这个约定吗？",
        "如果你同意，还是接受这个约定吧",
    ):
        assert _user(text) == NO_INTENT, text
