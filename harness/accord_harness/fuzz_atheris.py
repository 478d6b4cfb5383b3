"""Coverage-guided fuzzing (atheris, libFuzzer) of entry decoding and recognition (R1, R9, R15).

    uv run --frozen python harness/accord_harness/fuzz_atheris.py -atheris_runs=200000

One target, three halves chosen by the first byte: the bytes as an entry's `__data__`
(an input event or a `ContractError` fit for a dead letter, nothing else), the bytes
as a turn's text through `recognize` and `interpret` (total; only user turns carry an
intent; a deadline is after the turn), and as deadline terms (total; after the
reference). Any other exception is a crash libFuzzer reports with the input that
caused it. Not collected by pytest (no `test_` prefix); the Hypothesis fuzz tests run
in CI; figures of the last run are in docs/reliability.md.
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import atheris  # type: ignore[import-untyped]

from contracts.codec import ContractError, decode_entry
from contracts.common import Role
from contracts.inputs import ChatTurn
from contracts.outputs import DeadLetterReason
from contracts.streams import DATA_FIELD
from core.deadlines.resolve import find_deadline_phrase, resolve_deadline
from core.intents import NO_INTENT, Proposal
from core.interpret import interpret
from core.recognition.recognizer import recognize

ZONES = ("UTC", "Asia/Shanghai", "America/New_York", "Pacific/Chatham", "Australia/Lord_Howe")
ROLES = tuple(Role)
EPOCH = datetime(2000, 1, 1, tzinfo=UTC)


def _decode(data: bytes) -> None:
    try:
        decode_entry({DATA_FIELD.encode(): data})
    except ContractError as error:
        if not isinstance(error.reason, DeadLetterReason):
            raise TypeError("a refusal without a dead-letter reason") from error


def _recognize(provider: atheris.FuzzedDataProvider) -> None:
    role = ROLES[provider.ConsumeIntInRange(0, len(ROLES) - 1)]
    zone = ZONES[provider.ConsumeIntInRange(0, len(ZONES) - 1)]
    ts = EPOCH + timedelta(seconds=provider.ConsumeIntInRange(0, 6_000_000_000))
    text = provider.ConsumeUnicodeNoSurrogates(provider.remaining_bytes())
    intent = recognize(text, role)
    if role is not Role.USER and intent != NO_INTENT:
        raise AssertionError(f"a {role} turn carried an intent: {text!r}")
    turn = ChatTurn(
        agent_id="a", user_id="u", session_id="s", seq=1, ts=ts, role=role, text=text,
        message_id="m", timezone=zone,
    )  # fmt: skip
    result = interpret(turn, "UTC")
    if isinstance(result, Proposal) and result.deadline_at is not None and result.deadline_at <= ts:
        raise AssertionError(f"deadline {result.deadline_at} not after {ts}: {text!r}")


def _deadline(provider: atheris.FuzzedDataProvider) -> None:
    zone = ZoneInfo(ZONES[provider.ConsumeIntInRange(0, len(ZONES) - 1)])
    ts = EPOCH + timedelta(seconds=provider.ConsumeIntInRange(0, 6_000_000_000))
    phrase = find_deadline_phrase(provider.ConsumeUnicodeNoSurrogates(provider.remaining_bytes()))
    if phrase is not None:
        deadline = resolve_deadline(phrase, ts, zone)
        if deadline is not None and deadline <= ts:
            raise AssertionError(f"deadline {deadline} not after {ts}: {phrase!r}")


def one_input(data: bytes) -> None:
    if not data:
        return
    which, rest = data[0] % 3, data[1:]
    if which == 0:
        _decode(rest)
    elif which == 1:
        _recognize(atheris.FuzzedDataProvider(rest))
    else:
        _deadline(atheris.FuzzedDataProvider(rest))


if __name__ == "__main__":
    # Every loaded Python function gets coverage feedback: the codec, the recognizer,
    # the deadline grammar and whatever they import.
    atheris.instrument_all()
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()
