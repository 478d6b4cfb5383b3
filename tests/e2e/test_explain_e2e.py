"""`accord explain` on every record of the demo, each link checked against the store (R16).

Every bundled transcript (EN and ZH, scenarios 01-13) goes through the real streams to
a real worker; then every record any of them created is read from the store and
explained, and each link of its chain is checked: the revision against the stored
history, the input against the entry in the input stream (stream, entry id, session,
seq, message or call id, time), the rule's span against the entry's own text, the
tool arguments against the call, the snapshot against the todo_write, the deadline
against the terms. The CLI prints the same chain, by short id, and answers "unknown
record" for a record of another scope.
"""

from __future__ import annotations

import json
import uuid
from datetime import datetime
from typing import Any

import msgspec
import pytest
import redis.asyncio

from accord_client import AccordClient, UnknownRecordError
from contracts.codec import decode_entry
from contracts.common import Cause
from contracts.explain import Explanation, explain
from contracts.inputs import ChatTurn, InputEvent, ToolCall, ToolResult
from contracts.outputs import StateChanged
from contracts.partition import partition_of
from contracts.records import AgreementRecord, Evidence, HistoryEntry
from store.reads import record_history
from tests.support.cli_kit import Ran, accord_process, command_env
from tests.support.worker_kit import now_s, running_worker, worker_settings
from worker.demo import LANGUAGES, SCENARIOS, TRANSCRIPTS
from worker.gateway import Gateway, load_transcript, rebase, suffix_ids

pytestmark = [pytest.mark.asyncio, pytest.mark.redis, pytest.mark.slow, pytest.mark.timeout(240)]

PARTITIONS = 2
_USER_CAUSES = {
    Cause.USER_ACCEPTED,
    Cause.USER_CANCELLED,
    Cause.AMENDMENT_USER_ACCEPTED,
    Cause.AMENDMENT_CANCELLED,
}
_AGENT_CAUSES = {Cause.AGENT_ACCEPTED, Cause.AMENDMENT_AGENT_ACCEPTED}


async def _demo(client: redis.asyncio.Redis) -> list[AgreementRecord]:
    """Every transcript through the streams; every record it created, as stored."""
    gateway = Gateway(client, PARTITIONS)
    await gateway.mark_start()
    run = f"~{uuid.uuid4().hex[:6]}"
    for stem, _, _ in SCENARIOS:
        for language in LANGUAGES:
            lines = load_transcript(TRANSCRIPTS / f"{stem}.{language}.jsonl")
            await gateway.replay(suffix_ids(rebase(lines, now_s()), run))
            await gateway.wait_processed(timeout_s=60)
    await gateway.read_events()
    ids = dict.fromkeys(e.record_id for e in gateway.events if isinstance(e, StateChanged))
    records = []
    for record_id in ids:
        found = None
        for partition in range(PARTITIONS):
            found = found or await record_history(client, partition, record_id)
        assert found is not None, record_id
        records.append(found)
    return records


async def _input(client: redis.asyncio.Redis, stream: str, entry_id: str) -> InputEvent:
    entries: Any = await client.xrange(stream, entry_id, entry_id)
    assert len(entries) == 1, (stream, entry_id)
    return decode_entry(entries[0][1])


async def _check_chain(client: redis.asyncio.Redis, record: AgreementRecord) -> Explanation:
    """Every link of the record's explanation, against the store and the input streams."""
    explanation = explain(record)
    assert explanation.revision == record.revision == len(record.history)
    assert [r.revision for r in explanation.revisions] == list(range(1, record.revision + 1))
    assert partition_of(record.agent_id, record.user_id, PARTITIONS) in range(PARTITIONS)
    for step, entry in zip(explanation.revisions, record.history, strict=True):
        assert (step.state, step.cause, step.at, step.input) == (
            entry.state,
            entry.cause,
            entry.at,
            entry.provenance,
        )
        assert all("?" not in line for line in step.because), step.because
        evidence = entry.evidence
        assert evidence is not None, (record.record_id, entry.revision)
        if entry.cause in {Cause.DEADLINE_REACHED, Cause.AMENDMENT_LAPSED} and (
            entry.provenance.stream is None
        ):
            # No input caused it: the deadline (history time) and what passed it.
            assert entry.at == (record.history[entry.revision - 2].deadline_at or entry.at)
            assert evidence.passed in {"input", "watermark"}
            assert evidence.passed_at is not None
            assert evidence.passed_at >= entry.at
            continue
        source = entry.provenance
        assert source.stream is not None
        assert source.entry_id is not None
        event = await _input(client, source.stream, source.entry_id)
        assert (event.session_id, event.seq) == (source.session_id, source.seq)
        assert evidence.input_at == event.ts
        if isinstance(event, ChatTurn):
            _check_turn(entry, evidence, event)
        elif isinstance(event, ToolCall):
            _check_call(record, entry, evidence, event)
        else:
            _check_result(record, entry, evidence, event)
        if entry.terms is not None and entry.deadline_at is not None:
            assert evidence.deadline is not None
            assert evidence.deadline.resolved == entry.deadline_at
    return explanation


def _check_turn(entry: HistoryEntry, evidence: Evidence, event: ChatTurn) -> None:
    """A user's phrase: rule, span in the entry's own text, target resolution, deadline."""
    assert entry.provenance.message_id == event.message_id
    assert evidence.rule is not None
    assert evidence.span is not None
    said = event.text[evidence.span[0] : evidence.span[1]]
    assert said
    if entry.cause == Cause.PROPOSED:
        assert said.endswith(entry.terms or "-")
    if entry.cause == Cause.AMENDMENT_PROPOSED:
        assert entry.amendment is not None
        assert said.endswith(entry.amendment.terms)
    if entry.cause in _USER_CAUSES:
        assert evidence.resolution in {"only_candidate", "quoted_hint"}
    if evidence.deadline is not None:
        assert evidence.deadline.written in said
        assert evidence.deadline.timezone == event.timezone


def _check_call(
    record: AgreementRecord, entry: HistoryEntry, evidence: Evidence, event: ToolCall
) -> None:
    """The agent's acceptance: the call's own arguments, naming this record."""
    assert entry.cause in _AGENT_CAUSES
    assert entry.provenance.call_id == event.call_id
    assert evidence.arguments is not None
    named = {
        "record_id": evidence.arguments.record_id,
        "expected_revision": evidence.arguments.expected_revision,
    }
    assert named == event.arguments
    assert evidence.arguments.record_id == record.record_id


def _check_result(
    record: AgreementRecord, entry: HistoryEntry, evidence: Evidence, event: ToolResult
) -> None:
    """Delivery: the snapshot of that todo_write shows the bound item completed."""
    assert entry.cause == Cause.DELIVERY_VERIFIED
    assert entry.provenance.call_id == event.call_id
    assert evidence.snapshot_seq == event.seq
    assert record.binding is not None
    assert evidence.origin_seq == record.binding.origin_seq
    assert event.todos is not None
    shown = {(t.content, t.status.value) for t in event.todos}
    assert (record.binding.content, "completed") in shown


def _accord(url: str, *args: str) -> Ran:
    env = command_env(url, ACCORD_PARTITIONS=str(PARTITIONS))
    return accord_process(*args, env=env, timeout=60)


async def test_explain_every_record_of_the_demo_r16(
    aredis: redis.asyncio.Redis, redis_url: str
) -> None:
    """R16: every record of every demo scenario, EN and ZH, explains completely, and
    each link agrees with the stored history and the input it names."""
    settings = worker_settings(redis_url, partitions=PARTITIONS)
    async with running_worker(settings):
        records = await _demo(aredis)
    causes: set[Cause] = set()
    for record in records:
        explanation = await _check_chain(aredis, record)
        causes.update(r.cause for r in explanation.revisions)
    # The demo exercises every cause, so every kind of link was checked.
    assert causes == set(Cause)
    assert len(records) >= 26

    # The CLI: a short id, JSON equal to the library's explanation; the human chain.
    record = next(r for r in records if r.revision >= 6)
    shown = _accord(redis_url, "explain", record.record_id[:12], "--json")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout) == _plain(explain(record))
    human = _accord(redis_url, "explain", record.record_id)
    assert human.returncode == 0, human.stderr
    for revision in range(1, record.revision + 1):
        assert f"rev {revision} " in human.stdout
    assert "input chat-turn:{" in human.stdout

    # A record of another scope is unknown, as one that does not exist.
    other = _accord(redis_url, "explain", record.record_id, "--agent", "someone-else")
    assert (other.returncode, "unknown record" in other.stderr) == (1, True)
    missing = _accord(redis_url, "explain", "agr-000000000000000000000000")
    assert (missing.returncode, "unknown record" in missing.stderr) == (1, True)


def _plain(explanation: Explanation) -> Any:
    return msgspec.json.decode(msgspec.json.encode(explanation))


async def test_client_explain_within_its_scope_only_r16(
    aredis: redis.asyncio.Redis, redis_url: str
) -> None:
    """R16 through the Python client: `explain(record_id)` of its scope; another scope's
    record raises UnknownRecordError."""
    settings = worker_settings(redis_url, partitions=PARTITIONS)
    lines = load_transcript(TRANSCRIPTS / "09-amendment-agent-first.en.jsonl")
    lines = suffix_ids(rebase(lines, now_s()), f"~{uuid.uuid4().hex[:6]}")
    async with running_worker(settings):
        gateway = Gateway(aredis, PARTITIONS)
        await gateway.mark_start()
        await gateway.replay(lines)
        await gateway.wait_processed(timeout_s=60)
    await gateway.read_events()
    change = next(e for e in gateway.events if isinstance(e, StateChanged))
    client = AccordClient(aredis, partitions=PARTITIONS)
    explanation = await client.explain(change.agent_id, change.user_id, change.record_id)
    assert explanation.revision == 6
    assert explanation.terms.endswith("start with the risks, then the conclusion")
    with pytest.raises(UnknownRecordError):
        await client.explain(change.agent_id, "another-user", change.record_id)
    with pytest.raises(UnknownRecordError):
        await client.explain(change.agent_id, change.user_id, "agr-nothing")
    assert isinstance(explanation.revisions[0].at, datetime)
