"""Unbounded consumption: every size a hostile producer controls has a limit with a
clear outcome (docs/security.md, OWASP LLM10).

- Input sizes (`contracts.codec.Limits`): the entry, a turn's text, the todo snapshot
  (items and each item's content), a tool call's arguments. Past a limit the entry is a
  dead letter with reason `oversize` naming the field; at the limit it is accepted.
  Sizes are UTF-8 bytes, not characters, so three-byte Chinese text cannot carry three
  times the allowance.
- Scope sizes (`core.lifecycle.reducer.Policy`): the terms' length and the number of
  live (pending plus open) records of a scope, whichever session made them. Past a limit
  the proposal is refused with a `ProposalRefused` event naming the reason and the
  limit, and no record is created.

Each limit is checked at its boundary through the decoder or the core, and then end to
end: settings read from the environment, the store's processor with the real core, a
real Redis.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import msgspec
import pytest
import redis.asyncio
from structlog.testing import capture_logs

from contracts.codec import DEFAULT_LIMITS, ContractError, Limits, decode_event
from contracts.outputs import (
    DeadLetter,
    DeadLetterReason,
    ProposalRefused,
    RefusalReason,
    StateChanged,
)
from contracts.streams import DATA_FIELD, stream_name
from core.lifecycle.state import record_id_for
from core.lifecycle.todo import tracked_bytes
from store import reads
from store.keys import session_key
from store.processor import PartitionProcessor
from tests.support.security_kit import BASE, SCOPE, envelope
from tests.support.worker_kit import gateway_xadd, process_new
from worker.app import core_for
from worker.settings import Settings


def turn(text: str, session: str = "s1", seq: int = 1) -> dict[str, Any]:
    return {
        "type": "chat_turn",
        **envelope(session, seq),
        "role": "user",
        "text": text,
        "message_id": f"m-{session}-{seq}",
    }


def todos(items: list[str], session: str = "s1", seq: int = 1) -> dict[str, Any]:
    return {
        "type": "tool_result",
        **envelope(session, seq),
        "call_id": f"c-{session}-{seq}",
        "name": "todo_write",
        "ok": True,
        "todos": [{"content": content, "status": "pending"} for content in items],
    }


def call(arguments: dict[str, Any], session: str = "s1", seq: int = 1) -> dict[str, Any]:
    return {
        "type": "tool_call",
        **envelope(session, seq),
        "call_id": f"c-{session}-{seq}",
        "name": "soul_agreement_accept",
        "arguments": arguments,
    }


def padded_arguments(size: int) -> dict[str, Any]:
    """Acceptance arguments whose JSON encoding is exactly `size` bytes."""
    base = {"record_id": "", "expected_revision": 1}
    fill = size - len(msgspec.json.encode(base))
    return {"record_id": "r" * fill, "expected_revision": 1}


# (name, the document at the limit, the document one unit past it, the field refused)
Case = tuple[str, Callable[[Limits], dict[str, Any]], Callable[[Limits], dict[str, Any]], str]
CASES: list[Case] = [
    (
        "text_bytes",
        lambda lim: turn("约" * (lim.max_text_bytes // 3)),
        lambda lim: turn("约" * (lim.max_text_bytes // 3) + "ab"),
        "$.text",
    ),
    (
        "todo_items",
        lambda lim: todos([f"t{i}" for i in range(lim.max_todos)]),
        lambda lim: todos([f"t{i}" for i in range(lim.max_todos + 1)]),
        "$.todos",
    ),
    (
        "todo_content_bytes",
        lambda lim: todos(["x" * lim.max_todo_content_bytes]),
        lambda lim: todos(["x" * (lim.max_todo_content_bytes + 1)]),
        "$.todos[0].content",
    ),
    (
        "argument_bytes",
        lambda lim: call(padded_arguments(lim.max_argument_bytes)),
        lambda lim: call(padded_arguments(lim.max_argument_bytes + 1)),
        "$.arguments",
    ),
]
SMALL = Limits(max_text_bytes=90, max_todos=3, max_todo_content_bytes=20, max_argument_bytes=80)


@pytest.mark.parametrize("limits", [DEFAULT_LIMITS, SMALL], ids=["default", "small"])
@pytest.mark.parametrize("case", CASES, ids=[case[0] for case in CASES])
def test_input_sizes_are_accepted_at_the_limit_and_oversize_one_past_it(
    case: Case, limits: Limits
) -> None:
    """Each configured size limit decides exactly at its boundary, counted in bytes."""
    _, at_limit, past_limit, field = case
    decode_event(json.dumps(at_limit(limits), ensure_ascii=False), limits)
    with pytest.raises(ContractError) as refused:
        decode_event(json.dumps(past_limit(limits), ensure_ascii=False), limits)
    assert refused.value.reason == DeadLetterReason.OVERSIZE
    assert refused.value.field == field


def test_the_whole_entry_is_bounded_before_it_is_parsed() -> None:
    """An entry over `max_entry_bytes` is refused before JSON parsing: no allocation
    proportional to a hostile document's nesting or key count."""
    limits = Limits(max_entry_bytes=1024)
    with pytest.raises(ContractError) as refused:
        decode_event(b"[" * 1025, limits)
    assert (refused.value.reason, refused.value.field) == (DeadLetterReason.OVERSIZE, "$")


def test_terms_length_counts_characters_at_the_boundary_in_the_real_core() -> None:
    """The terms limit through recognition and the reducer: at the limit a record, one
    past it a `terms_too_long` refusal naming the limit and no record."""
    engine = core_for(Settings.from_env({"ACCORD_MAX_TERMS_CHARS": "30"}))
    scope = engine.decode_scope(None, *SCOPE)
    session = engine.decode_session(None, "s1")
    outcomes = []
    for terms in ("a" * 30, "a" * 31):
        event = decode_event(json.dumps(turn(f"Let's agree: {terms}.")))
        step = engine.apply(scope, session, event, "chat-turn:{0}", "1-0")
        outcomes.append(tuple(type(e).__name__ for e in step.events))
        if isinstance(step.events[0], ProposalRefused):
            assert step.events[0].reason == RefusalReason.TERMS_TOO_LONG
            assert step.events[0].limit == 30
            assert step.scope == scope
    assert outcomes == [("StateChanged",), ("ProposalRefused",)]


# ---------------------------------------------------------- end to end through Redis


async def run(
    client: redis.asyncio.Redis, settings: Settings, documents: list[dict[str, Any]]
) -> list[Any]:
    """XADD the documents as a gateway would, one at a time, each processed by the
    configured store before the next (sessions of one batch have no defined order)."""
    processor = PartitionProcessor(client, 0, core_for(settings), settings.store)
    events: list[Any] = []
    for doc in documents:
        await gateway_xadd(client, doc)
        events += await process_new(client, processor, "limits")
    return events


@pytest.mark.redis
@pytest.mark.asyncio
async def test_oversize_inputs_from_the_environment_are_dead_letters_and_others_proceed(
    client: redis.asyncio.Redis,
) -> None:
    """ACCORD_MAX_* settings reach the store: each oversize input becomes a dead letter
    `oversize` naming its field, and an in-limit proposal in another session applies."""
    settings = Settings.from_env(
        {
            "ACCORD_MAX_TEXT_BYTES": str(SMALL.max_text_bytes),
            "ACCORD_MAX_TODOS": str(SMALL.max_todos),
            "ACCORD_MAX_TODO_CONTENT_BYTES": str(SMALL.max_todo_content_bytes),
            "ACCORD_MAX_ARGUMENT_BYTES": str(SMALL.max_argument_bytes),
        }
    )
    assert settings.store.limits == SMALL
    oversize = [{**past(SMALL), "session_id": f"big-{name}"} for name, _, past, _ in CASES]
    events = await run(client, settings, [*oversize, turn("Let's agree: be brief.", "ok")])
    letters = [e for e in events if isinstance(e, DeadLetter)]
    assert sorted(letter.reason for letter in letters) == [DeadLetterReason.OVERSIZE] * 4
    assert sorted(letter.detail.split(":")[0] for letter in letters) == sorted(
        field for *_, field in CASES
    )
    created = [e for e in events if isinstance(e, StateChanged)]
    assert [(e.session_id, e.terms) for e in created] == [("ok", "be brief")]


@pytest.mark.redis
@pytest.mark.asyncio
async def test_live_record_cap_refuses_a_proposal_with_an_event_across_sessions(
    client: redis.asyncio.Redis,
) -> None:
    """ACCORD_MAX_RECORDS_PER_SCOPE=2: two pending proposals in two sessions fill the
    scope; a third in either session is refused with `too_many_records` and limit 2,
    published on the events stream, and creates no record; after a cancellation frees a
    place, the same proposal is recorded."""
    settings = Settings.from_env({"ACCORD_MAX_RECORDS_PER_SCOPE": "2"})
    events = await run(
        client,
        settings,
        [
            turn("Let's agree: answer in English.", "s1", 1),
            turn("Let's agree: keep replies short.", "s2", 1),
            turn("Let's agree: cite sources.", "s1", 2),
        ],
    )
    refused = [e for e in events if isinstance(e, ProposalRefused)]
    assert [(e.session_id, e.seq, e.reason, e.limit) for e in refused] == [
        ("s1", 2, RefusalReason.TOO_MANY_RECORDS, 2)
    ]
    published: Any = await client.xrange(stream_name("agreement-events", 0))
    kinds = [json.loads(fields[DATA_FIELD.encode()])["type"] for _, fields in published]
    assert kinds.count("agreement.proposal_refused") == 1
    view = await reads.session_view(
        client, core_for(settings), 1, agent_id=SCOPE[0], user_id=SCOPE[1],
        session_id="s1", as_of=BASE + timedelta(hours=1),
    )  # fmt: skip
    assert [p.terms for p in view.pending_proposals] == ["answer in English"]

    after = await run(
        client,
        settings,
        [
            turn("Cancel this agreement.", "s1", 3),
            turn("Let's agree: cite sources.", "s1", 4),
        ],
    )
    changes = [(e.to_state, e.terms) for e in after if isinstance(e, StateChanged)]
    assert changes == [("cancelled", "answer in English"), ("proposed", "cite sources")]


@pytest.mark.redis
@pytest.mark.asyncio
async def test_stored_todo_state_is_capped_and_a_bound_item_still_delivers_r11_r12(
    client: redis.asyncio.Redis,
) -> None:
    """ACCORD_MAX_TODO_STATE_BYTES=200 (with 100-byte todo contents, so one item fits): a
    write of 20 fillers and the bound item stores
    the bound item and the fillers that fit before it (counted bytes within the limit),
    says so in a `todo_state_capped` warning with counts only, and completing the bound
    item in the next oversize write still fulfils the open agreement (R12)."""
    settings = Settings.from_env(
        {"ACCORD_MAX_TODO_STATE_BYTES": "200", "ACCORD_MAX_TODO_CONTENT_BYTES": "100"}
    )
    assert settings.policy.max_todo_state_bytes == 200
    fillers = [f"filler {n:02d} " + "x" * 40 for n in range(20)]
    notes = "Organize reading notes"
    record_id = record_id_for(*SCOPE, "s1", 2)
    bound_open = [
        todos([notes], seq=1),
        turn(f'Let\'s agree: next time mark todo "{notes}" as completed.', seq=2),
        call({"record_id": record_id, "expected_revision": 1}, seq=3),
        turn("I accept this agreement.", seq=4),
    ]
    with capture_logs() as logs:
        events = await run(client, settings, [*bound_open, todos([*fillers, notes], seq=5)])
    assert [e.to_state for e in events if isinstance(e, StateChanged)] == [
        "proposed",
        "proposed",
        "open",
    ]
    raw: Any = await client.hget(session_key(0, *SCOPE, "s1"), "c")
    stored = core_for(settings).decode_session(raw, "s1")
    assert [t.content for t in stored.todos] == [*fillers[:2], notes]
    assert tracked_bytes(stored.todos) <= 200
    (warning,) = [line for line in logs if line["event"] == "todo_state_capped"]
    assert (warning["written"], warning["kept"], warning["limit_bytes"]) == (21, 3, 200)
    assert notes not in str(warning)

    completed = todos([*fillers, notes], seq=6)
    completed["todos"][-1]["status"] = "completed"
    delivered = await run(client, settings, [completed])
    changes = [(e.record_id, e.to_state) for e in delivered if isinstance(e, StateChanged)]
    assert changes == [(record_id, "fulfilled")]
