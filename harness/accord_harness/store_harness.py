"""Shared pieces of the store's tests: input builders, consumers, snapshots.

The oracle (accord_harness.oracle) applies a core once per (session, seq), in seq
order, with no Redis at all. A snapshot reads what the store left in Redis into the
same shape, so a test compares the two with `==`. Provenance entry ids are checked
against the entries written for that (session, seq), then left out: a gateway
duplicate has an entry id of its own.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from accord_harness.documents import Document, Session, envelope, iso, stream_of
from accord_harness.oracle import Outcome, plain, session_key, without_entry_ids
from accord_harness.reading import read_new
from contracts.partition import partition_of
from contracts.streams import DATA_FIELD, GROUP, Entry, as_text, input_streams
from store import keys
from store.config import StoreConfig
from store.core_port import CorePort
from store.intake import ensure_groups, reclaim_pending
from store.processor import PartitionProcessor
from store.scripts import AnyRedis


# Inputs at an explicit seq, `seq` seconds after BASE_TS: the store tests place each one.
def chat(scope: tuple[str, str], session: str, seq: int, text: str, role: str = "user") -> Document:
    document = envelope("chat_turn", scope, session, seq, iso(seq))
    document.update(role=role, text=text, message_id=f"m-{session}-{seq}")
    return document


def call(
    scope: tuple[str, str], session: str, seq: int, name: str, arguments: dict[str, Any]
) -> Document:
    document = envelope("tool_call", scope, session, seq, iso(seq))
    document.update(call_id=f"c-{session}-{seq}", name=name, arguments=arguments)
    return document


def result(scope: tuple[str, str], session: str, seq: int, *, ok: bool = True) -> Document:
    document = envelope("tool_result", scope, session, seq, iso(seq))
    todos = [{"content": "notes", "status": "pending"}]
    document.update(call_id=f"c-{session}-{seq}", name="todo_write", ok=ok, todos=todos)
    return document


async def xadd(redis: AnyRedis, document: Document, partitions: int) -> tuple[str, str]:
    stream = stream_of(document, partitions)
    entry_id: Any = await redis.xadd(stream, {DATA_FIELD: json.dumps(document)})
    return stream, as_text(entry_id)


def random_workload(
    rng: random.Random, scopes: int, sessions: int, length: int
) -> list[dict[str, Any]]:
    """Sessions of inputs for a fake or real core: proposals, acceptances, chatter."""
    documents: list[dict[str, Any]] = []
    for s in range(scopes):
        scope = (f"agent-{s % 2}", f"user-{s}")
        for k in range(rng.randint(1, sessions)):
            session = f"s{s}-{k}"
            proposals: list[int] = []
            for seq in range(1, rng.randint(2, length) + 1):
                roll = rng.random()
                if roll < 0.3:
                    documents.append(chat(scope, session, seq, f"propose terms-{seq}"))
                    proposals.append(seq)
                elif roll < 0.55:
                    target = f"{session}/{rng.choice(proposals)}" if proposals else "nothing"
                    documents.append(call(scope, session, seq, "accept", {"record_id": target}))
                elif roll < 0.7:
                    documents.append(result(scope, session, seq))
                else:
                    documents.append(
                        chat(scope, session, seq, "hello", rng.choice(["user", "assistant"]))
                    )
    return documents


# ------------------------------------------------------------------------- snapshot
def _strip_entry_ids(data: Any, entries: dict[tuple[str, str], tuple[str, int]]) -> Any:
    """Drop provenance entry ids after checking each names an entry of its (session, seq)."""
    if isinstance(data, dict):
        out = {}
        for name, value in data.items():
            if name == "entry_id" and "seq" in data and "session_id" in data:
                written = entries.get((data["stream"], value))
                assert written == (data["session_id"], data["seq"]), (value, data)
                continue
            out[name] = _strip_entry_ids(value, entries)
        return out
    if isinstance(data, list):
        return [_strip_entry_ids(v, entries) for v in data]
    return data


async def snapshot(  # noqa: PLR0913, PLR0917  (what a snapshot is compared by)
    redis: AnyRedis,
    core: CorePort[Any, Any],
    documents: Sequence[Document],
    partitions: int,
    entries: dict[tuple[str, str], tuple[str, int]],
    project_scope: Callable[[Any], Any],
) -> Outcome:
    """Read the store's records, sessions, scopes and events in the oracle's shape."""
    outcome = Outcome()
    seen_sessions = {(d["agent_id"], d["user_id"], d["session_id"]) for d in documents}
    for agent, user, session_id in sorted(seen_sessions):
        p = partition_of(agent, user, partitions)
        raw: Any = await redis.hget(keys.session_key(p, agent, user, session_id), "c")
        name = session_key(agent, user, session_id)
        outcome.sessions[name] = plain(core.decode_session(raw, session_id))
        raw_scope: Any = await redis.hget(keys.scope_key(p, agent, user), "s")
        outcome.scopes[f"{agent}|{user}"] = project_scope(core.decode_scope(raw_scope, agent, user))
    for p in range(partitions):
        names = [name async for name in redis.scan_iter(match=keys.record_key(p, "*"))]
        for name in names:
            data: Any = await redis.get(name)
            record = _strip_entry_ids(json.loads(data), entries)
            outcome.records[record["record_id"]] = without_entry_ids(record)
        raw_events: Any = await redis.xrange(keys.events_stream(p))
        for _, fields in raw_events:
            event = _strip_entry_ids(json.loads(fields[DATA_FIELD.encode()]), entries)
            outcome.events[event["session_id"]].append(without_entry_ids(event))
    return outcome


# ------------------------------------------------------------------------- consumers
async def settled(redis: AnyRedis, partitions: int) -> bool:
    """Nothing pending, nothing undelivered, nothing parked, on every partition.

    The store tests and chaos both wait on it (chaos also on every session applied).
    """
    for p in range(partitions):
        if await redis.zcard(keys.gaps_key(p)):
            return False
        for stream in input_streams(p):
            groups: Any = await redis.xinfo_groups(stream)
            info = next(g for g in groups if g["name"] in {GROUP, GROUP.encode()})
            if int(info["pending"]):
                return False
            last = as_text(info["last-delivered-id"])
            after: Any = await redis.xrange(stream, min="(" + last, max="+", count=1)
            if after:
                return False
    return True


@dataclass
class Consumers:
    """Concurrent consumers of one group that lose batches and steal each other's entries.

    A lost batch stays pending (a consumer that died before its commit); stealing is
    XCLAIM with no idle time (the store's reclaim), so two consumers often process the
    same entries at once and the version checks decide.
    """

    make_client: Callable[[], AnyRedis]
    core: CorePort[Any, Any]
    partitions: int
    rng: random.Random
    count: int = 2
    batch: int = 5
    lose_rate: float = 0.15
    steal_rate: float = 0.3
    batches: int = 0

    async def run(self, stop: asyncio.Event) -> None:
        await asyncio.gather(*(self._consume(f"c{i}", stop) for i in range(self.count)))

    async def _consume(self, name: str, stop: asyncio.Event) -> None:
        client = self.make_client()
        # No delivery limit to speak of: stealing redelivers entries many times on purpose.
        config = StoreConfig(partitions=self.partitions, delivery_limit=10_000)
        processors = {
            p: PartitionProcessor(client, p, self.core, config) for p in range(self.partitions)
        }
        try:
            while not stop.is_set():
                for p, processor in processors.items():
                    entries: list[Entry] = await read_new(client, p, GROUP, name, count=self.batch)
                    if self.rng.random() < self.steal_rate:
                        entries += (
                            await reclaim_pending(
                                client, p, GROUP, name, min_idle_ms=0, count=self.batch
                            )
                        ).entries
                    if not entries:
                        continue
                    self.batches += 1
                    if self.rng.random() < self.lose_rate:
                        continue  # "crashed" before its commit: the entries stay pending
                    await processor.process(entries)
                await asyncio.sleep(0)
        finally:
            await client.aclose()


async def deliver_and_settle(  # noqa: PLR0913, PLR0917  (a scenario's knobs)
    redis: AnyRedis,
    make_client: Callable[[], AnyRedis],
    core: CorePort[Any, Any],
    documents: Sequence[dict[str, Any]],
    partitions: int,
    rng: random.Random,
    *,
    duplicate_rate: float = 0.15,
    timeout_s: float = 60.0,
) -> dict[tuple[str, str], tuple[str, int]]:
    """Write `documents` shuffled (with gateway duplicates) while consumers run; wait.

    Returns (stream, entry id) -> (session, seq) of every entry written.
    """
    for p in range(partitions):
        await ensure_groups(redis, [p], GROUP)
    order = list(documents)
    order += [d for d in documents if rng.random() < duplicate_rate]
    rng.shuffle(order)
    consumers = Consumers(make_client, core, partitions, rng)
    stop = asyncio.Event()
    task = asyncio.create_task(consumers.run(stop))
    entries: dict[tuple[str, str], tuple[str, int]] = {}
    try:
        for document in order:
            written = await xadd(redis, document, partitions)
            entries[written] = (document["session_id"], document["seq"])
            if rng.random() < 0.3:
                await asyncio.sleep(0)
        async with asyncio.timeout(timeout_s):
            while not await settled(redis, partitions):  # noqa: ASYNC110  (polling Redis, not a flag)
                await asyncio.sleep(0.02)
    finally:
        stop.set()
        await task
    return entries


TODO = "Organize reading notes"


def _todos(session: Session, status: str, *, ok: bool = True) -> None:
    session.todo_result([{"content": TODO, "status": status}], ok=ok)


def real_core_workload(
    rng: random.Random, scopes: int, sessions: int, blocks: int
) -> list[Document]:
    """Conversations for the real core whose sessions do not reach into each other.

    Each session is a run of blocks: a full agreement (proposal, agent acceptance, user
    confirmation, and for a todo binding the todo writes that fulfil it), or noise
    (stale acceptances, ambiguous confirmations, assistant prose, failed todo writes).
    No cancellations and no deadlines: those act across the sessions of a scope, whose
    relative order in a batch the gate does not fix (only per-session order is R15's).
    """
    documents: list[Document] = []
    for s in range(scopes):
        scope = (f"agent-{s % 2}", f"user-{s}")
        for k in range(rng.randint(1, sessions)):
            session = Session(scope, f"s{s}-{k}", step_s=1)
            proposals: list[int] = []
            _todos(session, "pending")
            for _ in range(rng.randint(1, blocks)):
                if rng.random() < 0.6:
                    binding = rng.random() < 0.5
                    terms = (
                        f'mark todo "{TODO}" as completed'
                        if binding
                        else f"start with the conclusion, then the reasons ({session.seq + 1})"
                    )
                    proposal = session.say(f"Let's agree: {terms}.")
                    proposals.append(proposal)
                    session.accept(proposal, 1)
                    session.say("I accept this agreement.")
                    if binding:
                        _todos(session, "in_progress")
                        _todos(session, "completed", ok=rng.random() < 0.8)
                        _todos(session, "pending")
                else:
                    stale = rng.choice(proposals or [1])
                    session.accept(stale, rng.choice([1, 2, 3]))
                    session.say("I accept this agreement.")
                    session.say("okay, agreed", "assistant")
                    _todos(session, "completed", ok=False)
            documents.extend(session.documents)
    return documents


TODOS = [
    {"content": "Organize reading notes", "status": "pending"},
    {"content": "Draft the quarterly plan", "status": "in_progress"},
    {"content": "Reply to Dana about the offsite", "status": "pending"},
]


def conversation(scope: tuple[str, str], session_id: str) -> list[Document]:
    """One agreement bound to a todo, accepted and confirmed, then small talk."""
    session = Session(scope, session_id, step_s=1)
    session.todo_result(TODOS)
    proposal = session.say('Let\'s agree: mark todo "Organize reading notes" as completed.')
    session.accept(proposal, 1)
    session.say("I accept this agreement.")
    session.say("Thanks, talk tomorrow.", "assistant")
    return session.documents
