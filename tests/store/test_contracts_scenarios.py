"""The seed's scenarios as input sequences (contracts/examples/scenarios/seed_*.jsonl):
every line is a real input event a gateway would XADD, valid for the published schema
and the strict decoder, numbered as the contract demands (R15), in both languages."""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

import pytest
import redis
from jsonschema import Draft202012Validator

from contracts.codec import decode_entry, decode_event, entry_fields
from contracts.common import Role
from contracts.inputs import INPUT_STREAM_OF, ChatTurn, InputEvent, ToolCall, ToolResult
from contracts.partition import partition_of
from contracts.streams import DATA_FIELD, GROUP, input_streams, stream_name
from contracts.tools import ACCEPT_TOOL_NAME, TODO_WRITE_TOOL_NAME, AcceptArguments
from core.lifecycle.state import record_id_for
from tests.support.paths import ROOT, SCHEMAS

SCENARIOS = ROOT / "contracts" / "examples" / "scenarios"
LANGUAGES = {
    "seed_en.jsonl": ("Let's agree:", "I accept this agreement.", "Cancel this agreement."),
    "seed_zh.jsonl": ("我们约定：", "我接受这个约定。", "取消这个约定。"),  # noqa: RUF001 - Chinese punctuation
}


def _lines(name: str) -> list[str]:
    return (SCENARIOS / name).read_text("utf-8").splitlines()


def _events(name: str) -> list[InputEvent]:
    return [decode_event(line) for line in _lines(name)]


def test_every_scenario_file_is_checked() -> None:
    """No scenario file escapes these tests."""
    assert sorted(path.name for path in SCENARIOS.glob("*.jsonl")) == sorted(LANGUAGES)


@pytest.mark.parametrize("name", sorted(LANGUAGES))
def test_every_line_is_valid_for_the_input_schema_and_the_strict_decoder(name: str) -> None:
    """An independent validator and the worker's strict decoder both accept every line."""
    schema: dict[str, Any] = json.loads((SCHEMAS / "input_event.schema.json").read_text("utf-8"))
    validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
    lines = _lines(name)
    assert len(lines) >= 10
    for line in lines:
        validator.validate(json.loads(line))
        event = decode_event(line)
        # As a gateway writes it: the JSON in the entry's __data__ field.
        assert decode_entry(entry_fields(event)) == event


@pytest.mark.parametrize("name", sorted(LANGUAGES))
def test_seq_runs_from_one_without_gaps_per_session_in_one_scope(name: str) -> None:
    """R15's contract: per session, seq starts at 1 and rises by one across all three
    streams; time never runs backwards; one scope, hence one partition for all of it."""
    by_session: dict[str, list[InputEvent]] = defaultdict(list)
    events = _events(name)
    for event in events:
        by_session[event.session_id].append(event)
    assert len(by_session) >= 2  # memory carries over to a later session of the scope (R6)
    for session in by_session.values():
        assert [e.seq for e in session] == list(range(1, len(session) + 1))
        assert [e.ts for e in session] == sorted(e.ts for e in session)
    assert len({(e.agent_id, e.user_id) for e in events}) == 1
    assert {type(e) for e in events} == {ChatTurn, ToolCall, ToolResult}
    assert len({partition_of(e.agent_id, e.user_id, 16) for e in events}) == 1


@pytest.mark.parametrize("name", sorted(LANGUAGES))
def test_acceptance_calls_name_real_proposals_of_their_session(name: str) -> None:
    """R3: every soul_agreement_accept call carries exactly record_id and expected_revision,
    and names the record the core derives for a user proposal earlier in the same session."""
    events = _events(name)
    proposal_phrase = LANGUAGES[name][0]
    proposals = {
        record_id_for(e.agent_id, e.user_id, e.session_id, e.seq): e
        for e in events
        if isinstance(e, ChatTurn) and e.role == Role.USER and e.text.startswith(proposal_phrase)
    }
    calls = [e for e in events if isinstance(e, ToolCall) and e.name == ACCEPT_TOOL_NAME]
    assert calls
    for call in calls:
        arguments = AcceptArguments(**call.arguments)
        proposal = proposals[arguments.record_id]
        assert (proposal.session_id, proposal.agent_id) == (call.session_id, call.agent_id)
        assert proposal.seq < call.seq


@pytest.mark.parametrize("name", sorted(LANGUAGES))
def test_scenario_covers_the_seed(name: str) -> None:
    """The seed's beats, in this language: proposal, assistant prose that is not an
    acceptance, the user's confirmation, a todo snapshot then a delivery to `completed`,
    a stale revision retried with a fresh one, an ambiguous cancellation."""
    events = _events(name)
    proposal, confirmation, cancellation = LANGUAGES[name]
    turns = [e for e in events if isinstance(e, ChatTurn)]
    user_texts = [t.text for t in turns if t.role == Role.USER]
    assert sum(text.startswith(proposal) for text in user_texts) >= 3
    assert confirmation in user_texts
    assert cancellation in user_texts
    assert any(t.role == Role.ASSISTANT for t in turns)
    assert all(t.timezone is not None for t in turns if t.role == Role.USER)
    snapshots = [
        [item.status for item in e.todos]
        for e in events
        if isinstance(e, ToolResult) and e.name == TODO_WRITE_TOOL_NAME and e.ok and e.todos
    ]
    assert ["pending"] in snapshots
    assert ["completed"] in snapshots
    revisions = [
        (e.arguments["record_id"], e.arguments["expected_revision"])
        for e in events
        if isinstance(e, ToolCall) and e.name == ACCEPT_TOOL_NAME
    ]
    retried = {rid for rid, rev in revisions if rev > 1}
    assert any((rid, 1) in revisions for rid in retried)


@pytest.mark.redis
@pytest.mark.parametrize("name", sorted(LANGUAGES))
def test_scenario_lines_travel_through_redis_streams_as_a_gateway_writes_them(
    name: str, redis_client: redis.Redis
) -> None:
    """The entry layout end to end on a real Redis: each line, byte for byte, XADDed as
    `__data__` to its family's stream of the scope's partition (P = 4), read back with
    XREADGROUP from a group created at id 0, decoded strictly and XACKed."""
    partitions = 4
    expected: dict[tuple[str, int], InputEvent] = {}
    for line in _lines(name):
        event = decode_event(line)
        family = INPUT_STREAM_OF[type(event)]
        stream = stream_name(family, partition_of(event.agent_id, event.user_id, partitions))
        redis_client.xadd(stream, {DATA_FIELD: line.encode("utf-8")})
        expected[event.session_id, event.seq] = event
    streams = {input_stream: "0" for p in range(partitions) for input_stream in input_streams(p)}
    for stream in streams:
        redis_client.xgroup_create(stream, GROUP, id="0", mkstream=True)
    got: dict[tuple[str, int], InputEvent] = {}
    read: list[tuple[bytes, list[tuple[bytes, dict[bytes, bytes]]]]]
    read = redis_client.xreadgroup(  # type: ignore[assignment]
        GROUP, "c1", dict.fromkeys(streams, ">"), count=1000
    )
    for stream_bytes, entries in read:
        for entry_id, fields in entries:
            event = decode_entry(fields)
            assert stream_bytes.decode() == stream_name(
                INPUT_STREAM_OF[type(event)],
                partition_of(event.agent_id, event.user_id, partitions),
            )
            got[event.session_id, event.seq] = event
            assert redis_client.xack(stream_bytes, GROUP, entry_id) == 1
    assert got == expected
    for stream in streams:
        assert redis_client.xpending(stream, GROUP)["pending"] == 0
