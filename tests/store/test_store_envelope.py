"""Envelope sanity: `ts` bounded around the entry's id time, unread oversize parts
ignored, a refused input's dead letter names its session and seq, ids logged only
within their limit. Against a real Redis with the real core (worker.engine.Engine)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
import pytest
import redis.asyncio
from accord_harness.reading import read_new

from contracts.codec import ContractError, Limits, check_ts, decode_entry
from contracts.common import AgreementState
from contracts.outputs import (
    AgreementEvent,
    ClarificationKind,
    ClarificationRequested,
    DeadLetter,
    DeadLetterReason,
    StateChanged,
    ToolOutcome,
)
from contracts.streams import DATA_FIELD, GROUP, Entry
from contracts.tools import ACCEPT_TOOL_NAME, RejectionReason
from store import keys
from store.config import StoreConfig
from store.processor import PartitionProcessor
from store.reads import record_history
from worker.engine import Engine
from worker.observability import log_events

SCOPE = {"agent_id": "agent", "user_id": "user"}


def now_iso() -> str:
    return datetime.now(UTC).isoformat()


def turn(seq: int, text: str, ts: str | None = None) -> dict[str, Any]:
    return {
        "type": "chat_turn", **SCOPE, "session_id": "s", "seq": seq, "ts": ts or now_iso(),
        "role": "user", "text": text, "message_id": f"m{seq}",
    }  # fmt: skip


def call(seq: int, name: str, arguments: dict[str, Any], ts: str | None = None) -> dict[str, Any]:
    return {
        "type": "tool_call", **SCOPE, "session_id": "s", "seq": seq, "ts": ts or now_iso(),
        "call_id": f"c{seq}", "name": name, "arguments": arguments,
    }  # fmt: skip


async def write(client: redis.asyncio.Redis, *documents: dict[str, Any]) -> None:
    for document in documents:
        stream = "chat-turn:{0}" if document["type"] == "chat_turn" else "tool-call:{0}"
        await client.xadd(stream, {DATA_FIELD: json.dumps(document)})


async def letters(client: redis.asyncio.Redis) -> list[DeadLetter]:
    raw: Any = await client.xrange(keys.dead_letters_stream(0))
    return [msgspec.json.decode(f[b"__data__"], type=DeadLetter) for _, f in raw]


async def next_seq(client: redis.asyncio.Redis) -> int:
    raw: Any = await client.hget(keys.session_key(0, "agent", "user", "s"), "n")
    return int(raw or 1)


def processor(client: redis.asyncio.Redis) -> PartitionProcessor[Any, Any]:
    return PartitionProcessor(client, 0, Engine(), StoreConfig())


@pytest.mark.redis
@pytest.mark.asyncio
@pytest.mark.parametrize(
    "ts", ["9999-12-31T12:00:00Z", "0001-01-02T00:00:00Z", "2099-01-01T00:00:00Z"]
)
async def test_a_ts_far_from_the_entry_time_is_refused_cleanly(
    client: redis.asyncio.Redis, ts: str
) -> None:
    """A contract-valid `ts` near year 1 or 9999 (or a turn stamped 2099) is a dead letter
    `contract_violation` naming `$.ts` and its session and seq, never an OverflowError
    from deadline arithmetic and never a turn that expires the session's agreements."""
    await write(client, turn(1, "Let's agree: send the report within 3 days.", ts))
    report = await processor(client).process(await read_new(client, 0, GROUP, "c"))
    assert report.outcomes == {"dead_letter": 1}
    (letter,) = await letters(client)
    assert letter.reason is DeadLetterReason.CONTRACT_VIOLATION
    assert letter.detail.startswith("$.ts: more than")
    assert (letter.session_id, letter.seq) == ("s", 1)


def test_the_ts_window_is_around_the_entry_id_time() -> None:
    """`ts` up to `max_ts_behind_s` before and `max_ts_ahead_s` after the entry's id time."""
    limits = Limits(max_ts_behind_s=10, max_ts_ahead_s=5)
    document = turn(1, "hi", "2026-01-01T00:00:00Z")
    entry_ms = int(datetime(2026, 1, 1, tzinfo=UTC).timestamp() * 1000)
    fields = {DATA_FIELD: json.dumps(document)}
    for offset_s, ok in ((-5, True), (0, True), (10, True), (11, False), (-6, False)):
        event = decode_entry(fields, limits)
        if ok:
            check_ts(event, entry_ms + offset_s * 1000, limits)
        else:
            with pytest.raises(ContractError, match=r"\$\.ts"):
                check_ts(event, entry_ms + offset_s * 1000, limits)


@pytest.mark.redis
@pytest.mark.asyncio
async def test_an_oversize_tool_call_accord_never_reads_is_applied_not_dead_lettered(
    client: redis.asyncio.Redis,
) -> None:
    """R15: a 5 KB `write_file` call (over the 4 KB argument limit, which only the accept
    tool's arguments need) is applied with its arguments dropped; the next turn applies
    at once, with no gap to wait for."""
    await write(
        client,
        turn(1, "hello"),
        call(2, "write_file", {"path": "notes.md", "content": "x" * 5_000}),
        turn(3, "Let's agree: start with the conclusion."),
    )
    report = await processor(client).process(await read_new(client, 0, GROUP, "c"))
    assert report.outcomes == {"applied": 3}
    assert await letters(client) == []
    assert await next_seq(client) == 4


@pytest.mark.redis
@pytest.mark.asyncio
async def test_an_oversize_accept_call_is_a_dead_letter_with_its_session_and_seq(
    client: redis.asyncio.Redis,
) -> None:
    """R3: the accept tool's arguments are read, so over the limit they are refused; the
    dead letter names the session and seq its valid envelope gives."""
    await write(client, call(1, "soul_agreement_accept", {"record_id": "r" * 5_000}))
    await processor(client).process(await read_new(client, 0, GROUP, "c"))
    (letter,) = await letters(client)
    assert letter.reason is DeadLetterReason.OVERSIZE
    assert (letter.session_id, letter.seq) == ("s", 1)


def test_an_invalid_envelope_gives_no_ids_to_the_dead_letter() -> None:
    """An id longer than the contract allows is no id: the letter names no session."""

    document = turn(1, "hi") | {"session_id": "s" * 300, "seq": 0}
    store = PartitionProcessor(None, 0, Engine(), StoreConfig())  # type: ignore[arg-type]
    entry = Entry("chat-turn:{0}", f"{int(datetime.now(UTC).timestamp() * 1000)}-0",
                  {DATA_FIELD.encode(): json.dumps(document).encode()})  # fmt: skip
    letter = store.admission.admit(entry, {})
    assert letter is not None
    assert (letter.session_id, letter.seq) == (None, None)


def test_a_rejected_calls_raw_record_id_is_logged_only_by_its_head() -> None:
    """The model's `record_id` (up to 4 KB) reaches the INFO line cut to 64 characters."""
    lines: list[dict[str, Any]] = []

    class Log:
        def info(self, event: str, **fields: Any) -> None:
            lines.append({"event": event, **fields})

    outcome = ToolOutcome(
        event_id="o", agent_id="agent", user_id="user", session_id="s", seq=1,
        call_id="c", accepted=False, at=datetime.now(UTC), record_id="x" * 4_000,
    )  # fmt: skip
    log_events(Log(), [outcome])
    assert len(lines[0]["record_id"]) < 80
    assert lines[0]["record_id"].startswith("x" * 64)


@pytest.mark.redis
@pytest.mark.asyncio
async def test_a_refused_input_with_a_valid_envelope_moves_its_session_on_at_once(
    client: redis.asyncio.Redis,
) -> None:
    """R15: seq 2 is refused (text over the limit) but its envelope is valid: it takes its
    place in the order, so seq 3 applies at once (no gap timeout), the letter names the
    session and seq, and a redelivery writes no second letter."""
    store = PartitionProcessor(
        client,
        0,
        Engine(),
        StoreConfig(limits=Limits(max_text_bytes=100), gap_timeout_ms=3_600_000),
    )
    await write(client, turn(1, "hello"), turn(2, "x" * 500), turn(3, "Let's agree: be brief."))
    entries = await read_new(client, 0, GROUP, "c")
    report = await store.process(entries)
    assert report.outcomes == {"applied": 2, "dead_letter": 1}
    assert await next_seq(client) == 4
    (letter,) = await letters(client)
    assert (letter.reason, letter.session_id, letter.seq) == (DeadLetterReason.OVERSIZE, "s", 2)
    await store.process(entries)  # redelivered: duplicates, no second letter
    assert len(await letters(client)) == 1


@pytest.mark.redis
@pytest.mark.asyncio
async def test_an_early_refused_input_keeps_its_place_until_the_gap_fills(
    client: redis.asyncio.Redis,
) -> None:
    """R15: seqs 3 (refused) and 4 arrive before 2: 3 is lettered at once and its place
    is parked; when 2 comes, 2 and 4 apply and the session is at 5, nothing parked."""
    store = PartitionProcessor(
        client,
        0,
        Engine(),
        StoreConfig(limits=Limits(max_text_bytes=100), gap_timeout_ms=3_600_000),
    )
    await write(client, turn(1, "hello"), turn(3, "x" * 500), turn(4, "fine"))
    await store.process(await read_new(client, 0, GROUP, "c"))
    assert [x.seq for x in await letters(client)] == [3]
    assert await next_seq(client) == 2
    await write(client, turn(2, "now"))
    report = await store.process(await read_new(client, 0, GROUP, "c"))
    assert report.outcomes == {"applied": 1, "drained": 2}
    assert await next_seq(client) == 5
    assert not await client.exists(keys.parked_key(0, "agent", "user", "s"))
    assert len(await letters(client)) == 1


@pytest.mark.redis
@pytest.mark.asyncio
async def test_acceptances_stamped_before_their_proposal_are_refused_through_the_store(
    client: redis.asyncio.Redis,
) -> None:
    """R3, R4, R5: after a proposal (seq 1), the agent's call and the user's confirmation
    (seqs 2 and 3) stamped a minute before it are refused: a `before_proposal` outcome
    and a clarification without candidates are published, the record stays proposed
    at revision 1, and all three inputs are applied in order."""
    proposed_at = datetime.now(UTC)
    earlier = (proposed_at - timedelta(minutes=1)).isoformat()
    await write(client, turn(1, "Let's agree: start with the conclusion.", proposed_at.isoformat()))
    report = await processor(client).process(await read_new(client, 0, GROUP, "c"))
    assert report.outcomes == {"applied": 1}
    (proposal,) = await published(client)
    assert isinstance(proposal, StateChanged)
    arguments = {"record_id": proposal.record_id, "expected_revision": 1}
    await write(
        client,
        call(2, ACCEPT_TOOL_NAME, arguments, earlier),
        turn(3, "I accept this agreement.", earlier),
    )
    report = await processor(client).process(await read_new(client, 0, GROUP, "c"))
    assert report.outcomes == {"applied": 2}
    events = await published(client)
    assert [type(e) for e in events] == [StateChanged, ToolOutcome, ClarificationRequested]
    _, outcome, asked = events
    assert isinstance(outcome, ToolOutcome)
    assert (outcome.accepted, outcome.reason) == (False, RejectionReason.BEFORE_PROPOSAL)
    assert (outcome.current_revision, outcome.state) == (1, AgreementState.PROPOSED)
    assert isinstance(asked, ClarificationRequested)
    assert asked.candidates == ()
    assert await next_seq(client) == 4
    assert await letters(client) == []


@pytest.mark.redis
@pytest.mark.asyncio
async def test_a_cancellation_stamped_before_its_proposal_does_not_close_it_through_the_store(
    client: redis.asyncio.Redis,
) -> None:
    """R5, R8: after a proposal (seq 1), "Cancel this agreement." (seq 2) stamped a
    minute before it is no cancellation of it: a clarification without candidates is
    published, the stored record stays proposed at revision 1 and both inputs are
    applied in order. The same words stamped after the proposal (seq 3) cancel it."""
    proposed_at = datetime.now(UTC)
    earlier = (proposed_at - timedelta(minutes=1)).isoformat()
    await write(client, turn(1, "Let's agree: start with the conclusion.", proposed_at.isoformat()))
    await write(client, turn(2, "Cancel this agreement.", earlier))
    report = await processor(client).process(await read_new(client, 0, GROUP, "c"))
    assert report.outcomes == {"applied": 2}
    proposal, asked = await published(client)
    assert isinstance(proposal, StateChanged)
    assert isinstance(asked, ClarificationRequested)
    assert (asked.kind, asked.candidates) == (ClarificationKind.CANCELLATION, ())
    stored = await record_history(client, 0, proposal.record_id)
    assert stored is not None
    assert (stored.state, stored.revision) == (AgreementState.PROPOSED, 1)
    assert await next_seq(client) == 3
    later = (proposed_at + timedelta(seconds=1)).isoformat()
    await write(client, turn(3, "Cancel this agreement.", later))
    report = await processor(client).process(await read_new(client, 0, GROUP, "c"))
    assert report.outcomes == {"applied": 1}
    cancelled = (await published(client))[-1]
    assert isinstance(cancelled, StateChanged)
    assert (cancelled.record_id, cancelled.to_state) == (
        proposal.record_id,
        AgreementState.CANCELLED,
    )
    assert await letters(client) == []


async def published(client: redis.asyncio.Redis) -> list[AgreementEvent]:
    raw: Any = await client.xrange(keys.events_stream(0))
    return [msgspec.json.decode(f[DATA_FIELD.encode()], type=AgreementEvent) for _, f in raw]
