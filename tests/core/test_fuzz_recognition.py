"""Fuzzing recognition and deadline resolution: total functions, typed results (R1, R9).

The recognizer and the deadline grammar run on every chat turn, inside the commit
path: an exception there would fail the whole batch. Whatever the text, time and
zone, they return a value: an Intent (only a user turn may carry one, R1), a deadline
phrase or None, a UTC deadline strictly after the turn's time or None (R9).
"""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from accord_harness.fuzz_kit import fuzz_settings, hostile_text
from hypothesis import given
from hypothesis import strategies as st

from contracts.common import Role
from contracts.inputs import ChatTurn
from core.deadlines.resolve import find_deadline_phrase, resolve_deadline
from core.intents import NO_INTENT, Acceptance, Cancellation, NoIntent, Proposal
from core.interpret import interpret
from core.recognition.recognizer import recognize

INTENTS = (Proposal, Acceptance, Cancellation, NoIntent)
ZONES = ("UTC", "Asia/Shanghai", "America/New_York", "Europe/London", "Pacific/Chatham",
         "Australia/Lord_Howe", "America/St_Johns", "Pacific/Kiritimati")  # fmt: skip
# Hypothesis takes naive bounds and attaches the zone itself.
times = st.datetimes(
    min_value=datetime(1971, 1, 1),  # noqa: DTZ001
    max_value=datetime(2199, 12, 31),  # noqa: DTZ001
    timezones=st.just(UTC),
)


@fuzz_settings()
@given(hostile_text, st.sampled_from(list(Role)))
def test_recognize_is_total_and_only_user_turns_carry_intent(text: str, role: Role) -> None:
    """R1: any text gives an Intent; assistant and system text never gives one."""
    intent = recognize(text, role)
    assert isinstance(intent, INTENTS)
    if role is not Role.USER:
        assert intent == NO_INTENT


@fuzz_settings()
@given(hostile_text, times, st.sampled_from(ZONES), st.sampled_from([None, *ZONES]))
def test_interpret_is_total_and_deadlines_follow_the_turn(
    text: str, ts: datetime, default_zone: str, zone: str | None
) -> None:
    """R9: a proposal's deadline, when any, is a UTC instant strictly after the turn."""
    turn = ChatTurn(
        agent_id="a", user_id="u", session_id="s", seq=1, ts=ts, role=Role.USER,
        text=text, message_id="m", timezone=zone,
    )  # fmt: skip
    intent = interpret(turn, default_zone)
    assert isinstance(intent, INTENTS)
    if isinstance(intent, Proposal) and intent.deadline_at is not None:
        assert intent.deadline_at.tzinfo is not None
        assert intent.deadline_at > ts


@fuzz_settings()
@given(hostile_text, times, st.sampled_from(ZONES))
def test_deadline_phrases_resolve_after_the_reference_or_not_at_all(
    terms: str, ts: datetime, zone: str
) -> None:
    """R9: the grammar never raises; a resolved deadline is strictly after ts."""
    phrase = find_deadline_phrase(terms)
    if phrase is None:
        return
    assert phrase
    deadline = resolve_deadline(phrase, ts, ZoneInfo(zone))
    assert deadline is None or deadline > ts
