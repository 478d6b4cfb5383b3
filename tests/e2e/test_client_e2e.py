"""The seed scenarios through the Python client only, against a real worker process.

Every bundled transcript (EN and ZH) is written with `client.Session` calls (no entry
built by hand: the client numbers the seqs), the agent's acceptances go through
`session.accept` (request/reply on the events stream), another service follows the
events with `client.subscribe`, and what the client reads (the outcomes, the events,
the views, the applied seqs) must agree with the rules (tests/support/worker_kit.py EXPECTED)
and with the stored state the worker keeps (`store.reads.session_view`).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Iterator
from datetime import datetime
from typing import Any

import msgspec
import pytest
import pytest_asyncio
from redis.asyncio import Redis

from accord_client import AccordClient, Delivery, Session
from accord_client.contracts.outputs import StateChanged, ToolOutcome
from contracts.outputs import AgreementEvent
from store.reads import session_view
from tests.support.worker_kit import (
    EXPECTED,
    flushed,
    now_s,
    summarize,
    summarize_view,
    worker_env,
    worker_processes,
)
from worker.demo import LANGUAGES, TRANSCRIPTS
from worker.engine import Engine
from worker.gateway import PROPOSAL_REF, Line, load_transcript, rebase, suffix_ids

PARTITIONS = 2

pytestmark = [pytest.mark.asyncio, pytest.mark.redis, pytest.mark.slow, pytest.mark.timeout(240)]


@pytest.fixture(scope="module")
def worker_url(redis_url: str) -> Iterator[str]:
    with worker_processes(1, worker_env(flushed(redis_url), ACCORD_PARTITIONS=str(PARTITIONS))):
        yield redis_url


@pytest_asyncio.fixture
async def client(worker_url: str) -> AsyncIterator[AccordClient]:
    async with AccordClient(Redis.from_url(worker_url), partitions=PARTITIONS) as accord:
        yield accord


def _as_worker(event: Any) -> AgreementEvent:
    """A client's event as the worker's type: the same JSON, decoded by the worker's copy
    of the contracts (the client carries its own), so the shared tables can read it."""
    return msgspec.json.decode(msgspec.json.encode(event), type=AgreementEvent)


class Observer:
    """Another service: follows every agreement event in its own consumer group."""

    def __init__(self, accord: AccordClient) -> None:
        self.deliveries: list[Delivery] = []
        self.subscription = accord.subscribe(f"observer-{uuid.uuid4().hex[:6]}", start="$")
        self.task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        await self.subscription._setup()  # the group exists before the first write
        self.task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        async for delivery in self.subscription:
            self.deliveries.append(delivery)

    def events_of(self, sessions: set[str]) -> list[Any]:
        return [
            d.event for d in self.deliveries if getattr(d.event, "session_id", None) in sessions
        ]

    async def proposal_of(self, session_id: str, seq: int) -> str | None:
        for _ in range(400):
            for event in self.events_of({session_id}):
                if (
                    isinstance(event, StateChanged)
                    and event.from_state is None
                    and event.provenance.seq == seq
                ):
                    return event.record_id
            await asyncio.sleep(0.025)
        return None


async def _write(session: Session, line: Line, observer: Observer, seqs: dict[int, int]) -> int:
    """One transcript line through the client; returns the seq the client allocated."""
    ts = datetime.fromisoformat(line["ts"])
    if line["type"] == "chat_turn":
        write = {"user": session.user, "assistant": session.assistant, "system": session.system}
        extra = {"timezone": line.get("timezone")} if line["role"] == "user" else {}
        appended = await write[line["role"]](
            line["text"], message_id=line["message_id"], ts=ts, **extra
        )
        return appended.seq
    if line["type"] == "tool_result":
        appended = await session.tool_result(
            line["call_id"], line["ok"], name=line["name"], todos=line.get("todos"), ts=ts
        )
        return appended.seq
    arguments = dict(line["arguments"])
    target = arguments.get("record_id")
    if isinstance(target, str) and target.startswith(PROPOSAL_REF):
        turn = seqs[int(target.removeprefix(PROPOSAL_REF))]
        await session.wait_applied(turn, timeout=30)
        found = await observer.proposal_of(session.session_id, turn)
        arguments["record_id"] = found or f"none-{session.session_id}-{turn}"
    outcome = await session.accept(
        arguments["record_id"],
        arguments["expected_revision"],
        call_id=line["call_id"],
        ts=ts,
        timeout=30,
    )
    assert isinstance(outcome, ToolOutcome)
    assert outcome.call_id == line["call_id"]
    return outcome.seq


async def _play(accord: AccordClient, stem: str, language: str) -> None:
    observer = Observer(accord)
    await observer.start()
    try:
        lines = load_transcript(TRANSCRIPTS / f"{stem}.{language}.jsonl")
        lines = suffix_ids(rebase(lines, now_s()), f"~py{uuid.uuid4().hex[:6]}")
        sessions: dict[str, Session] = {}
        seqs: dict[str, dict[int, int]] = {}
        last: dict[str, Line] = {}
        for line in lines:
            sid = line["session_id"]
            session = sessions.setdefault(
                sid, accord.session(line["agent_id"], line["user_id"], sid)
            )
            mapping = seqs.setdefault(sid, {})
            mapping[line["seq"]] = await _write(session, line, observer, mapping)
            assert mapping[line["seq"]] == line["seq"], "the client numbers as the transcript"
            last[sid] = line
        expected_events, expected_views = EXPECTED[stem]
        for sid, session in sessions.items():
            await session.wait_applied(last[sid]["seq"], timeout=30)
            assert await session.applied(last[sid]["seq"])
            assert not await session.applied(last[sid]["seq"] + 1)
        deadline = asyncio.get_running_loop().time() + 30
        while len(observer.events_of(set(sessions))) < len(expected_events):
            assert asyncio.get_running_loop().time() < deadline, "events did not arrive"
            await asyncio.sleep(0.05)
        events = observer.events_of(set(sessions))
        summaries = [summarize(_as_worker(e)) for e in events]
        assert summaries == expected_events, f"{stem} ({language})"
        event_ids = [d.event_id for d in observer.deliveries]
        assert len(event_ids) == len(set(event_ids)), "each event once"
        for sid, session in sessions.items():
            as_of = datetime.fromisoformat(last[sid]["ts"])
            view = await session.view(as_of=as_of)
            stored = await session_view(
                accord.redis, Engine(), PARTITIONS, agent_id=session.agent_id,
                user_id=session.user_id, session_id=sid, as_of=as_of,
            )  # fmt: skip
            # The client's view has its own copy of the types (accord_client.contracts):
            # equal on the wire, field by field.
            assert msgspec.to_builtins(view) == msgspec.to_builtins(stored), (
                "the client's view is the worker's stored state"
            )
            key = sid.split("~")[0].rsplit("-", 1)[-1]
            assert summarize_view(stored) == expected_views[key]
        scope = next(iter(sessions.values()))
        scope_view = await accord.scope_view(scope.agent_id, scope.user_id, as_of=as_of)
        assert {a.record_id for a in scope_view.current_agreements} == {
            a.record_id for a in view.current_agreements
        }
    finally:
        assert observer.task is not None
        observer.task.cancel()


@pytest.mark.parametrize("stem", list(EXPECTED))
@pytest.mark.parametrize("language", LANGUAGES)
async def test_seed_scenario_through_the_python_client(
    client: AccordClient, stem: str, language: str
) -> None:
    """R1-R15 through the client: allocated seqs, accept outcomes, subscribed events,
    views and applied seqs agree with the rules and with the worker's stored state."""
    await _play(client, stem, language)
