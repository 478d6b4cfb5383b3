# ruff: noqa: RUF001, RUF002 - these tests are about full-width and look-alike characters
"""The recognizer's decisions, one behaviour per test (R1, R4, R8, R11, R14).

The corpus (test_recognizer_corpus.py) covers breadth; these tests pin the decisions
the issue asked to make and document: normalisation, bidi controls, look-alike letters,
what the terms are, and how `interpret` resolves the deadline.

The tests share one shape on purpose: a parametrized table of turns, one assertion,
and a docstring naming the behaviour and its rule (CONTRIBUTING.md, "Repeated shapes").
"""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import msgspec
import pytest

from contracts.common import Role
from contracts.inputs import ChatTurn
from core import interpret as interpret_module
from core.deadlines.grammar import DeadlineSpec
from core.deadlines.resolve import parse_deadline
from core.intents import (
    NO_INTENT,
    Acceptance,
    Amendment,
    Cancellation,
    Proposal,
    without_evidence,
)
from core.interpret import interpret, zone_for
from core.recognition.normalize import (
    KEYWORD_SOURCES,
    fold,
    fold_text,
    may_hold_trigger,
    scan_keyword_sources,
)
from core.recognition.recognizer import recognize


def _user(text: str) -> object:
    # What was recognized; where it was (R16 evidence) is tested in test_explain_evidence.py.
    # These tests pin the recognizer; the deadline wording it finds in the terms has its
    # own tests (tests/core/test_deadline_*.py), so it is left out of the comparison. (Not
    # by patching the finder: the compiled recognizer, core/native.py, calls it directly.)
    intent = without_evidence(recognize(text, Role.USER))
    if isinstance(intent, Proposal | Amendment):
        return msgspec.structs.replace(intent, deadline_phrase=None)
    return intent


# --- normalisation decisions --------------------------------------------------------


def test_full_width_trigger_fires_and_terms_keep_the_users_characters_r14() -> None:
    """NFKC folds "Ｌｅｔ＇ｓ ａｇｒｅｅ：" for matching; the memory prose stays as typed."""
    assert _user("Ｌｅｔ＇ｓ ａｇｒｅｅ：ｒｅｐｌｙ ｂｒｉｅｆｌｙ") == Proposal(
        terms="ｒｅｐｌｙ ｂｒｉｅｆｌｙ"
    )


def test_chinese_terms_keep_full_width_punctuation_r14() -> None:
    """Folding turns "，" into ",", but the terms are cut from the original turn."""
    assert _user("我们约定：下次先说结论，再讲原因。") == Proposal(terms="下次先说结论，再讲原因")


def test_zero_width_characters_inside_a_trigger_are_dropped_before_matching() -> None:
    """ "ag\u200bree" is "agree": zero-width characters cannot hide a phrase or split one.
    Inside the terms one would make the stored prose differ from the sent one: no
    proposal (tests/worker/test_security_text.py)."""
    assert _user("Let's ag\u200bree: reply in English.") == Proposal(terms="reply in English")
    assert _user("Let's ag\u200bree: reply in Eng\u200dlish.") == NO_INTENT


def test_bidi_marks_are_dropped_like_zero_width_characters() -> None:
    """LRM, RLM and ALM reorder nothing visible in a Latin or Chinese turn: dropped."""
    assert _user("I accept\u200e this agreement\u200f.") == Acceptance()


@pytest.mark.parametrize("control", ["\u202a", "\u202b", "\u202d", "\u202e", "\u2066", "\u2068"])
def test_bidi_embeddings_overrides_and_isolates_make_the_turn_unrecognized_r1(
    control: str,
) -> None:
    """A bidi control can make the screen show other words than the ones stored: no intent."""
    assert _user(f"Let's agree: {control}reply in English") == NO_INTENT
    assert _user(f"我们约定：每天跑步{control}") == NO_INTENT


@pytest.mark.parametrize(
    "text",
    [
        "Let's \u0430gree: reply in English.",  # Cyrillic a
        "Let's agr\u0435e: reply in English.",  # Cyrillic e
        "I \u0430ccept this agreement.",
        "Cancel this \u0430greement.",
        "Let\u2019s \u0251gree: reply in English.",  # Latin alpha
    ],
)
def test_look_alike_letters_inside_a_trigger_are_not_folded_r1(text: str) -> None:
    """Another script's look-alike letter makes a different word: no explicit phrase."""
    assert _user(text) == NO_INTENT


def test_fold_maps_folded_positions_back_to_the_original_text() -> None:
    """Every folded character knows the original run it came from (NFC, invisibles
    dropped); prose with an invisible character inside is no prose (it is not what the
    user saw), so it comes back empty."""
    folded = fold("Ｘ\u200bｙ，e\u0301!Ｘｙ")
    assert folded is not None
    assert folded.text == "Xy,é!Xy"
    assert folded.original(0, 2) == ""
    assert folded.original(3, 4) == "é"
    assert folded.original(5, 7) == "Ｘｙ"
    assert fold_text("Ｘ\u200bｙ") == "Xy"


def test_fast_path_table_is_what_this_python_unicode_database_gives() -> None:
    """The committed KEYWORD_SOURCES table equals a scan of every code point (no drift)."""
    rebuilt = scan_keyword_sources()
    assert rebuilt == KEYWORD_SOURCES, (
        "Unicode changed: regenerate KEYWORD_SOURCES in core/recognition/normalize.py from "
        "scan_keyword_sources()"
    )
    assert {"\uff41", "\U0001d41a", "\u24d0"} <= set(KEYWORD_SOURCES)


def test_fast_path_rejects_ordinary_chat_and_passes_disguised_keywords() -> None:
    """The pre-check skips ordinary turns but never one that folds into "agree" or "约定"."""
    assert not may_hold_trigger("Sure, I'll send it tomorrow.")
    assert not may_hold_trigger("好的，我明天发你。")
    assert may_hold_trigger("ＡＧＲＥＥ")
    assert may_hold_trigger("ag\u00adree")
    assert may_hold_trigger("约\u200b定")


# --- what the terms are ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "terms"),
    [
        ("Let's agree: “start with the conclusion.”", "start with the conclusion"),
        ("我们约定：「先说结论」。", "先说结论"),
        ("Let's agree: start with the conclusion!!!", "start with the conclusion"),
        ("Let's agree: start with the conclusion. Thanks!", "start with the conclusion"),
        ("我们约定：先说结论。谢谢！", "先说结论"),
        ('Let\'s agree: "Deep work" is 9 to 11.', '"Deep work" is 9 to 11'),
        # A question in another sentence asks something else (sentence-level reading).
        ("Let's agree: start with the conclusion.\n\nAlso, lunch?", "start with the conclusion"),
        (
            "Let's agree: start with the conclusion.\n\nAlso, see you at lunch.",
            "start with the conclusion",
        ),
    ],
)
def test_terms_are_the_users_prose_without_trigger_quotes_or_trailing_punctuation_r14(
    text: str, terms: str | None
) -> None:
    """Trigger, wrapping quotes, trailing punctuation and a closing "thanks" are not terms."""
    expected = NO_INTENT if terms is None else Proposal(terms=terms)
    assert _user(text) == expected


def test_terms_are_cut_from_the_original_even_when_folding_changes_lengths_r14() -> None:
    """Combining marks and ligatures fold to other lengths; the map still finds the prose."""
    text = "Let's agree: e\u0301crire en français, ﬁnal answer ﬁrst."
    assert _user(text) == Proposal(terms="écrire en français, ﬁnal answer ﬁrst")


def test_a_line_break_starts_a_sentence() -> None:
    """A phrase on its own line opens a sentence, unless the line before ends with a colon."""
    assert _user("Thanks for today\nLet's agree: start with the conclusion") == Proposal(
        terms="start with the conclusion"
    )


@pytest.mark.parametrize(
    "text",
    [
        "Let's agree: start with the conclusion?\n\nSee you tomorrow.",
        'Let\'s agree: ""',
        "我们约定：「」。",
    ],
)
def test_questioned_or_empty_terms_propose_nothing_r1(text: str) -> None:
    """Terms that ask, or quotes around nothing, are no proposal."""
    assert _user(text) == NO_INTENT


@pytest.mark.parametrize(
    "text",
    [
        "Let's agree: no meetings. " * 50,
        '"' + "Let's agree: no meetings. " * 50,
        "I accept this agreement, but only on Mondays. " * 50,
    ],
)
def test_a_turn_full_of_phrases_is_not_one_explicit_act(text: str) -> None:
    """Many phrases, valid or not, give no intent (and bound the work of a hostile turn)."""
    assert _user(text) == NO_INTENT


def test_a_phrase_far_into_a_long_turn_still_counts() -> None:
    """The look-back window is an optimisation: a long preamble changes nothing."""
    preamble = "Some context about the project. " * 40
    assert _user(preamble + "Let's agree: no meetings on Friday.") == Proposal(
        terms="no meetings on Friday"
    )
    assert _user("\n" * 300 + "我接受这个约定") == Acceptance()


def test_an_unclosed_quote_does_not_wrap_the_terms() -> None:
    """Only a closed quotation is taken off the terms."""
    assert _user("Let's agree: \"start with the conclusion") == Proposal(
        terms='"start with the conclusion'
    )


def test_terms_keep_inline_code_written_after_the_trigger() -> None:
    """Code inside the terms is part of the user's terms; only phrases inside code are ignored."""
    assert _user("Let's agree: format with `ruff format` before every commit.") == Proposal(
        terms="format with `ruff format` before every commit"
    )


@pytest.mark.parametrize("text", ["Let's agree:", "Let's agree: ...", "我们约定：。", "我们约定"])
def test_a_phrase_without_terms_proposes_nothing_r1(text: str) -> None:
    """Nothing to keep as memory prose: nothing is proposed."""
    assert _user(text) == NO_INTENT


# --- targets --------------------------------------------------------------------------


def test_todo_target_is_the_exact_quoted_content_as_typed_r11() -> None:
    """The binding compares contents exactly, so full-width brackets stay full-width."""
    intent = _user("我们约定：把待办「整理笔记（上）」标记为完成。")
    assert isinstance(intent, Proposal)
    assert intent.todo_target == "整理笔记（上）"


@pytest.mark.parametrize(
    "text",
    [
        'Let\'s agree: finish todo "Pay rent".',
        "我们约定：完成待办「交房租」。",
        'Let\'s agree: never mark todo "Pay rent" as completed.',
        'Let\'s agree: mark todo "Pay rent" as done, then mark todo "Call mom" as done.',
    ],
)
def test_only_a_single_unnegated_mark_as_completed_names_a_todo_target_r11(text: str) -> None:
    """Finishing work, a negated mark or two different todos give a proposal with no target."""
    intent = _user(text)
    assert isinstance(intent, Proposal)
    assert intent.todo_target is None


def test_the_same_todo_named_twice_is_still_one_target_r11() -> None:
    """Repeating the one todo is not ambiguous."""
    intent = _user('Let\'s agree: mark todo "Pay rent" as done; yes, mark todo "Pay rent" as done.')
    assert isinstance(intent, Proposal)
    assert intent.todo_target == "Pay rent"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            'I accept the agreement "start with the conclusion".',
            Acceptance(target_hint="start with the conclusion"),
        ),
        ("我接受「先说结论」这个约定", Acceptance(target_hint="先说结论")),
        ("Cancel the agreement: “weekly summary”.", Cancellation(target_hint="weekly summary")),
        ("「周五不开会」这个约定作废", Cancellation(target_hint="周五不开会")),
        ("取消这个约定", Cancellation()),
    ],
)
def test_acceptance_and_cancellation_carry_a_quoted_target_hint_r4_r8(
    text: str, expected: object
) -> None:
    """Quoted terms after (or, in Chinese, before) the phrase pick among several records."""
    assert _user(text) == expected


# --- where a phrase counts ----------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "He said let's agree: we meet daily.",
        "If I accept this agreement, what happens?",
        "I accept this agreement, but only on weekdays.",
        "他说我们约定：每天跑步。",
        "He wrote:\nLet's agree: we meet daily.",
        "Let's agree: start with the conclusion. I accept this agreement.",
    ],
)
def test_a_phrase_counts_only_alone_at_a_sentence_start_as_the_users_act_r1(text: str) -> None:
    """Reporting verbs, conditions, an introducing colon or a second phrase: no intent."""
    assert _user(text) == NO_INTENT


@pytest.mark.parametrize("role", [Role.ASSISTANT, Role.SYSTEM, "assistant", "tool"])
def test_only_user_turns_are_read_r1(role: Role | str) -> None:
    """Assistant, system and any other text never creates, accepts or cancels (R1)."""
    assert recognize("I accept this agreement.", role) == NO_INTENT


# --- interpret: recognize, then resolve the deadline ------------------------------


def _turn(text: str, timezone: str | None = None) -> ChatTurn:
    return ChatTurn(
        agent_id="a",
        user_id="u",
        session_id="s",
        seq=1,
        ts=datetime(2026, 11, 27, 10, 0, tzinfo=UTC),
        role=Role.USER,
        text=text,
        message_id="m1",
        timezone=timezone,
    )


def test_interpret_resolves_the_proposals_deadline_from_the_turns_ts_and_zone_r9(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The phrase found in the terms is resolved at the turn's ts in the user's zone."""
    calls: list[tuple[DeadlineSpec, datetime, ZoneInfo]] = []
    due = datetime(2026, 11, 28, 16, 0, tzinfo=UTC)

    def fake_resolve(spec: DeadlineSpec, ts: datetime, zone: ZoneInfo) -> datetime:
        calls.append((spec, ts, zone))
        return due

    monkeypatch.setattr(interpret_module, "resolve_spec", fake_resolve)
    turn = _turn("Let's agree: send the report by Friday.", timezone="Asia/Shanghai")
    intent = without_evidence(interpret(turn, default_timezone="Europe/Paris"))
    assert intent == Proposal(
        terms="send the report by Friday", deadline_phrase="by Friday", deadline_at=due
    )
    assert calls == [(parse_deadline("by Friday"), turn.ts, ZoneInfo("Asia/Shanghai"))]


def test_interpret_leaves_a_proposal_without_deadline_phrase_and_other_intents_alone() -> None:
    """No phrase (or no proposal): nothing to resolve, the intent passes through."""
    assert without_evidence(interpret(_turn("I accept this agreement."), "UTC")) == Acceptance()
    assert interpret(_turn("ok"), "UTC") == NO_INTENT


def test_interpret_keeps_the_proposal_when_the_phrase_does_not_resolve_r9(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A phrase outside the grammar gives no deadline, never a guess; the proposal stands."""
    # "someday" is not wording the finder takes, so the recognizer is stood in for.
    found = Proposal(terms="tidy the garage someday", deadline_phrase="someday")
    monkeypatch.setattr(interpret_module, "recognize", lambda _text, _role: found)
    intent = without_evidence(interpret(_turn("Let's agree: tidy the garage someday."), "UTC"))
    assert intent == Proposal(terms="tidy the garage someday", deadline_phrase="someday")


def test_zone_is_the_turns_else_the_default_else_utc() -> None:
    """DESIGN section 4: the turn's time zone, else the configured default, else UTC."""
    assert zone_for("Asia/Shanghai", "Europe/Paris") == ZoneInfo("Asia/Shanghai")
    assert zone_for(None, "Europe/Paris") == ZoneInfo("Europe/Paris")
    assert zone_for("Not/AZone", "Europe/Paris") == ZoneInfo("Europe/Paris")
    assert zone_for(None, "") == ZoneInfo("UTC")
    assert zone_for("../etc", None) == ZoneInfo("UTC")
