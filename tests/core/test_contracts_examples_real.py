"""The output examples are real: replaying the seed scenario files through the real
recognizer (`interpret`) and lifecycle reducer emits exactly the published examples of
state changes, tool outcomes, clarifications, views and records (R2-R6, R9, R11-R14).

Provenance follows the convention the examples were made with: each line on its
family's stream of partition `partition_of(agent_id, user_id, 1)`, entry id = the
line's `ts` in milliseconds, sequence 0.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import msgspec
import pytest

from contracts.codec import decode_event
from contracts.common import Provenance
from contracts.inputs import INPUT_STREAM_OF, ChatTurn, InputEvent
from contracts.outputs import AgreementEvent, StateChanged
from contracts.partition import partition_of
from contracts.records import AgreementRecord, HistoryEntry
from contracts.streams import stream_name
from contracts.view import SessionView
from core.intents import NO_INTENT
from core.interpret import interpret
from core.lifecycle.reducer import Policy, apply_input, evolve
from core.lifecycle.state import ScopeState, SessionState, empty_scope, empty_session
from core.lifecycle.view import session_view
from tests.support.paths import EXAMPLES, ROOT


@dataclass(frozen=True)
class Replay:
    """Everything one scenario file produced, keyed for lookup."""

    events: tuple[AgreementEvent, ...]
    # (session_id, seq) -> the session's view as of that input's ts, after it.
    views: dict[tuple[str, int], SessionView]


def _provenance(event: InputEvent) -> Provenance:
    stream = stream_name(
        INPUT_STREAM_OF[type(event)], partition_of(event.agent_id, event.user_id, 1)
    )
    return Provenance(
        stream=stream,
        entry_id=f"{int(event.ts.timestamp() * 1000)}-0",
        session_id=event.session_id,
        seq=event.seq,
        message_id=getattr(event, "message_id", None),
        call_id=getattr(event, "call_id", None),
    )


def _replay(name: str) -> Replay:
    lines = (EXAMPLES / "scenarios" / name).read_text("utf-8").splitlines()
    scope: ScopeState | None = None
    sessions: dict[str, SessionState] = {}
    events: list[AgreementEvent] = []
    views: dict[tuple[str, int], SessionView] = {}
    for line in lines:
        event = decode_event(line)
        scope = scope or empty_scope(event.agent_id, event.user_id)
        session = sessions.get(event.session_id) or empty_session(event.session_id)
        intent = interpret(event, "UTC") if isinstance(event, ChatTurn) else NO_INTENT
        step = apply_input(scope, session, event, intent, _provenance(event), Policy())
        scope, sessions[event.session_id] = step.scope, step.session
        events.extend(step.events)
        views[event.session_id, event.seq] = session_view(scope, event.session_id, event.ts)
    return Replay(tuple(events), views)


REPLAYS = {"en": _replay("seed_en.jsonl"), "zh": _replay("seed_zh.jsonl")}


def _record(replay: Replay, record_id: str) -> AgreementRecord:
    record: AgreementRecord | None = None
    for event in replay.events:
        if isinstance(event, StateChanged) and event.record_id == record_id:
            record = evolve(record, event)
    assert record is not None, record_id
    return record


def _example(file_name: str, kind: Any) -> Any:
    return msgspec.json.decode((EXAMPLES / file_name).read_bytes(), type=kind)


# Output examples and the scenario that must emit them.
EVENT_EXAMPLES = [
    ("en", "state_changed.proposed.json"),
    ("en", "state_changed.fulfilled.json"),
    ("en", "tool_outcome.accepted.json"),
    ("en", "tool_outcome.rejected.json"),
    ("en", "clarification_requested.json"),
    ("zh", "clarification_requested.zh.json"),
    ("zh", "state_changed.expired.zh.json"),
]


def _by_id(events: tuple[AgreementEvent, ...]) -> Iterator[tuple[str, AgreementEvent]]:
    for event in events:
        yield event.event_id, event


@pytest.mark.parametrize(("language", "file_name"), EVENT_EXAMPLES)
def test_event_example_is_what_the_core_emits(language: str, file_name: str) -> None:
    """The example is, field for field, the event the real core emits for the scenario."""
    example = _example(file_name, AgreementEvent)
    emitted = dict(_by_id(REPLAYS[language].events))
    assert emitted[example.event_id] == example


@pytest.mark.parametrize("language", sorted(REPLAYS))
def test_scenario_emits_each_event_id_once(language: str) -> None:
    """Each event id occurs once (subscribers deduplicate by id, so ids never repeat)."""
    ids = [event.event_id for event in REPLAYS[language].events]
    assert len(ids) == len(set(ids))
    assert len(ids) >= 15


@pytest.mark.parametrize(
    ("language", "deadline"),
    [("en", "2026-12-01T00:00:00+00:00"), ("zh", "2026-12-01T00:00:00+08:00")],
)
def test_end_of_month_deadline_expires_at_the_local_start_of_the_next(
    language: str, deadline: str
) -> None:
    """R9: "by the end of the month" / "月底前" said on 30 November expires at the start
    of 1 December in the user's zone (London, Shanghai), with the deadline as history
    time; expiry is not fulfilment and nothing else happens to the record."""
    changes = [e for e in REPLAYS[language].events if isinstance(e, StateChanged)]
    expiries = [e for e in changes if e.to_state == "expired"]
    assert len(expiries) == 1
    [expiry] = expiries
    assert expiry.at == datetime.fromisoformat(deadline)
    assert expiry.deadline_at == expiry.at
    assert expiry.cause == "deadline_reached"
    assert not [e for e in changes if e.record_id == expiry.record_id and e.revision > 4]


VIEW_EXAMPLES = [
    ("en", "session_view.pending.json", "session-en-1", 9),
    ("zh", "session_view.zh.json", "session-zh-2", 5),
]
RECORD_EXAMPLES = [
    ("en", "agreement_record.fulfilled.json"),
    ("zh", "agreement_record.expired.zh.json"),
]


@pytest.mark.parametrize(("language", "file_name", "session_id", "seq"), VIEW_EXAMPLES)
def test_session_view_example_is_what_the_core_shows(
    language: str, file_name: str, session_id: str, seq: int
) -> None:
    """R6: the view after that input, as of its ts, is the published example."""
    assert REPLAYS[language].views[session_id, seq] == _example(file_name, SessionView)


@pytest.mark.parametrize(("language", "file_name"), RECORD_EXAMPLES)
def test_record_example_is_the_fold_of_its_events(language: str, file_name: str) -> None:
    """R5, R9, R11-R14: a fulfilled record and an expired one, each with its history."""
    example = _example(file_name, AgreementRecord)
    assert _record(REPLAYS[language], example.record_id) == example


def test_history_entry_example_is_the_fulfilled_records_last_revision() -> None:
    """The single history entry example is the delivery revision of the fulfilled record."""
    record = _example("agreement_record.fulfilled.json", AgreementRecord)
    assert _example("history_entry.json", HistoryEntry) == record.history[-1]


def _pretty(value: msgspec.Struct) -> str:
    """The examples' layout: msgspec's JSON, indented, non-ASCII kept readable."""
    return json.dumps(json.loads(msgspec.json.encode(value)), indent=2, ensure_ascii=False) + "\n"


def regenerate() -> list[Path]:
    """Rewrite the output examples from a fresh replay, after a deliberate core change:
    `uv run --frozen python tests/core/test_contracts_examples_real.py`."""
    written: list[Path] = []

    def write(file_name: str, value: msgspec.Struct) -> None:
        path = EXAMPLES / file_name
        path.write_text(_pretty(value), "utf-8")
        written.append(path)

    for language, file_name in EVENT_EXAMPLES:
        old = _example(file_name, AgreementEvent)
        write(file_name, dict(_by_id(REPLAYS[language].events))[old.event_id])
    for language, file_name, session_id, seq in VIEW_EXAMPLES:
        write(file_name, REPLAYS[language].views[session_id, seq])
    for language, file_name in RECORD_EXAMPLES:
        record = _record(REPLAYS[language], _example(file_name, AgreementRecord).record_id)
        write(file_name, record)
        if file_name == "agreement_record.fulfilled.json":
            write("history_entry.json", record.history[-1])
    return written


if __name__ == "__main__":
    for path in regenerate():
        sys.stdout.write(f"{path.relative_to(ROOT)}\n")
