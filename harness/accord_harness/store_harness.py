"""Shared pieces of the store's tests: input builders, consumers, snapshots and the oracle.

The oracle applies a core once per (session, seq), in seq order, with no Redis at all.
A snapshot reads what the store left in Redis into the same shape, so a test compares
the two with `==`. Provenance entry ids are checked against the entries written for
that (session, seq), then left out: a gateway duplicate has an entry id of its own.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import msgspec

from accord_harness.chaos.oracle import TIMING_KEYS
from contracts.codec import decode_event
from contracts.inputs import INPUT_STREAM_OF, InputEvent
from contracts.partition import partition_of
from contracts.streams import DATA_FIELD, GROUP, Entry, as_text, input_streams, stream_name
from core.lifecycle.state import ScopeState, record_id_for
from store import keys
from store.config import StoreConfig
from store.core_port import CorePort
from store.intake import ensure_groups, read_new, reclaim
from store.processor import PartitionProcessor, provenance_of
from store.scripts import AnyRedis

BASE_TS = 1_798_761_600  # 2027-01-01T00:00:00Z: proposals' deadlines lie beyond the test run


def iso(offset_s: int) -> str:
    return datetime.fromtimestamp(BASE_TS + offset_s, tz=UTC).isoformat().replace("+00:00", "Z")


def chat(
    scope: tuple[str, str], session: str, seq: int, text: str, role: str = "user"
) -> dict[str, Any]:
    return {
        "type": "chat_turn",
        "agent_id": scope[0],
        "user_id": scope[1],
        "session_id": session,
        "seq": seq,
        "ts": iso(seq),
        "role": role,
        "text": text,
        "message_id": f"m-{session}-{seq}",
    }


def call(
    scope: tuple[str, str], session: str, seq: int, name: str, arguments: dict[str, Any]
) -> dict[str, Any]:
    return {
        "type": "tool_call",
        "agent_id": scope[0],
        "user_id": scope[1],
        "session_id": session,
        "seq": seq,
        "ts": iso(seq),
        "call_id": f"c-{session}-{seq}",
        "name": name,
        "arguments": arguments,
    }


def result(scope: tuple[str, str], session: str, seq: int, *, ok: bool = True) -> dict[str, Any]:
    return {
        "type": "tool_result",
        "agent_id": scope[0],
        "user_id": scope[1],
        "session_id": session,
        "seq": seq,
        "ts": iso(seq),
        "call_id": f"c-{session}-{seq}",
        "name": "todo_write",
        "ok": ok,
        "todos": [{"content": "notes", "status": "pending"}],
    }


def stream_of(document: dict[str, Any], partitions: int) -> str:
    family = INPUT_STREAM_OF[type(decode_event(json.dumps(document)))]
    return stream_name(family, partition_of(document["agent_id"], document["user_id"], partitions))


async def xadd(redis: AnyRedis, document: dict[str, Any], partitions: int) -> tuple[str, str]:
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


# --------------------------------------------------------------------------- oracle
def _plain(value: msgspec.Struct) -> Any:
    return msgspec.json.decode(msgspec.json.encode(value))


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


@dataclass
class Outcome:
    """What a run left: records with histories, session core states, events per session."""

    records: dict[str, Any] = field(default_factory=dict)
    sessions: dict[str, Any] = field(default_factory=dict)
    scopes: dict[str, Any] = field(default_factory=dict)
    events: dict[str, list[Any]] = field(default_factory=lambda: defaultdict(list))


def oracle(
    core: CorePort[Any, Any],
    documents: Iterable[dict[str, Any]],
    partitions: int,
    scope_projection: Callable[[Any], Any],
) -> Outcome:
    """The core applied once per (session, seq), in seq order; sessions one after another."""
    by_session: dict[tuple[str, str, str], dict[int, InputEvent]] = defaultdict(dict)
    for document in documents:
        event = decode_event(json.dumps(document))
        by_session[(event.agent_id, event.user_id, event.session_id)].setdefault(event.seq, event)
    scopes: dict[tuple[str, str], Any] = {}
    outcome = Outcome()
    for (agent, user, session_id), events in sorted(by_session.items()):
        scope = scopes.get((agent, user)) or core.decode_scope(None, agent, user)
        session = core.decode_session(None, session_id)
        for seq in sorted(events):
            event = events[seq]
            stream = stream_name(
                INPUT_STREAM_OF[type(event)], partition_of(agent, user, partitions)
            )
            step = core.apply(scope, session, event, provenance_of(stream, "x", event))
            scope, session = step.scope, step.session
            for record in step.records:
                outcome.records[record.record_id] = without_entry_ids(record)
            for out in step.events:
                outcome.events[out.session_id].append(without_entry_ids(out))
        scopes[(agent, user)] = scope
        outcome.sessions[f"{agent}|{user}|{session_id}"] = _plain(session)
    for (agent, user), scope in scopes.items():
        outcome.scopes[f"{agent}|{user}"] = scope_projection(scope)
    return outcome


def without_entry_ids(value: msgspec.Struct) -> Any:
    return _walk_without_entry_ids(_plain(value))


async def snapshot(  # noqa: PLR0913, PLR0917  (what a snapshot is compared by)
    redis: AnyRedis,
    core: CorePort[Any, Any],
    documents: Sequence[dict[str, Any]],
    partitions: int,
    entries: dict[tuple[str, str], tuple[str, int]],
    scope_projection: Callable[[Any], Any],
) -> Outcome:
    """Read the store's records, sessions, scopes and events in the oracle's shape."""
    outcome = Outcome()
    seen_sessions = {(d["agent_id"], d["user_id"], d["session_id"]) for d in documents}
    for agent, user, session_id in sorted(seen_sessions):
        p = partition_of(agent, user, partitions)
        raw: Any = await redis.hget(keys.session_key(p, agent, user, session_id), "c")
        outcome.sessions[f"{agent}|{user}|{session_id}"] = _plain(
            core.decode_session(raw, session_id)
        )
        raw_scope: Any = await redis.hget(keys.scope_key(p, agent, user), "s")
        outcome.scopes[f"{agent}|{user}"] = scope_projection(
            core.decode_scope(raw_scope, agent, user)
        )
    for p in range(partitions):
        names = [name async for name in redis.scan_iter(match=keys.record_key(p, "*"))]
        for name in names:
            data: Any = await redis.get(name)
            record = json.loads(data)
            record = _strip_entry_ids(record, entries)
            outcome.records[record["record_id"]] = _walk_without_entry_ids(record)
        raw_events: Any = await redis.xrange(keys.events_stream(p))
        for _, fields in raw_events:
            event = _strip_entry_ids(json.loads(fields[DATA_FIELD.encode()]), entries)
            outcome.events[event["session_id"]].append(_walk_without_entry_ids(event))
    return outcome


def _walk_without_entry_ids(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _walk_without_entry_ids(v) for k, v in node.items() if k not in TIMING_KEYS}
    if isinstance(node, list):
        return [_walk_without_entry_ids(v) for v in node]
    return node


# ------------------------------------------------------------------------- consumers
async def settled(redis: AnyRedis, partitions: int) -> bool:
    """Nothing pending, nothing undelivered, nothing parked, on every partition."""
    for p in range(partitions):
        if await redis.zcard(keys.gaps_key(p)):
            return False
        for stream in input_streams(p):
            groups: Any = await redis.xinfo_groups(stream)
            info = next(g for g in groups if g["name"] in {GROUP, GROUP.encode()})
            if int(info["pending"]):
                return False
            last = info["last-delivered-id"]
            last = as_text(last)
            after: Any = await redis.xrange(stream, min="(" + last, max="+", count=1)
            if after:
                return False
    return True


@dataclass
class Consumers:
    """Concurrent consumers of one group that lose batches and steal each other's entries.

    A lost batch stays pending (a consumer that died before its commit); stealing is
    XAUTOCLAIM with no idle time, so two consumers often process the same entries at
    once and the version checks decide.
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
                        entries += await reclaim(
                            client, p, GROUP, name, min_idle_ms=0, count=self.batch
                        )
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


def todo_write(
    scope: tuple[str, str], session: str, seq: int, status: str, *, ok: bool = True
) -> dict[str, Any]:
    return {**result(scope, session, seq, ok=ok), "todos": [{"content": TODO, "status": status}]}


TODO = "Organize reading notes"


def real_core_workload(
    rng: random.Random, scopes: int, sessions: int, blocks: int, record_id: Callable[..., str]
) -> list[dict[str, Any]]:
    """Conversations for the real core whose sessions do not reach into each other.

    Each session is a run of blocks: a full agreement (proposal, agent acceptance, user
    confirmation, and for a todo binding the todo writes that fulfil it), or noise
    (stale acceptances, ambiguous confirmations, assistant prose, failed todo writes).
    No cancellations and no deadlines: those act across the sessions of a scope, whose
    relative order in a batch the gate does not fix (only per-session order is R15's).
    """
    documents: list[dict[str, Any]] = []
    for s in range(scopes):
        scope = (f"agent-{s % 2}", f"user-{s}")
        for k in range(rng.randint(1, sessions)):
            session = f"s{s}-{k}"
            seq = 1
            proposals: list[int] = []

            def add(document: dict[str, Any]) -> None:
                nonlocal seq
                documents.append(document)
                seq += 1

            add(todo_write(scope, session, seq, "pending"))
            for _ in range(rng.randint(1, blocks)):
                if rng.random() < 0.6:
                    binding = rng.random() < 0.5
                    terms = (
                        f'mark todo "{TODO}" as completed'
                        if binding
                        else f"start with the conclusion, then the reasons ({seq})"
                    )
                    proposals.append(seq)
                    target = record_id(*scope, session, seq)
                    add(chat(scope, session, seq, f"Let's agree: {terms}."))
                    accept = {"record_id": target, "expected_revision": 1}
                    add(call(scope, session, seq, "soul_agreement_accept", accept))
                    add(chat(scope, session, seq, "I accept this agreement."))
                    if binding:
                        add(todo_write(scope, session, seq, "in_progress"))
                        add(todo_write(scope, session, seq, "completed", ok=rng.random() < 0.8))
                        add(todo_write(scope, session, seq, "pending"))
                else:
                    target = record_id(*scope, session, rng.choice(proposals or [1]))
                    stale = {"record_id": target, "expected_revision": rng.choice([1, 2, 3])}
                    add(call(scope, session, seq, "soul_agreement_accept", stale))
                    add(chat(scope, session, seq, "I accept this agreement."))
                    add(chat(scope, session, seq, "okay, agreed", "assistant"))
                    add(todo_write(scope, session, seq, "completed", ok=False))
    return documents


def real_scope_projection(scope: ScopeState) -> Any:
    """The scope's live records by id, provenance entry ids left out."""
    return {record.record_id: without_entry_ids(record) for record in scope.records}


TODOS = [
    {"content": "Organize reading notes", "status": "pending"},
    {"content": "Draft the quarterly plan", "status": "in_progress"},
    {"content": "Reply to Dana about the offsite", "status": "pending"},
]


def conversation(scope: tuple[str, str], session: str) -> list[dict[str, Any]]:
    record_id = record_id_for(*scope, session, 2)
    return [
        {**result(scope, session, 1), "todos": TODOS},
        chat(scope, session, 2, 'Let\'s agree: mark todo "Organize reading notes" as completed.'),
        call(
            scope,
            session,
            3,
            "soul_agreement_accept",
            {"record_id": record_id, "expected_revision": 1},
        ),
        chat(scope, session, 4, "I accept this agreement."),
        chat(scope, session, 5, "Thanks, talk tomorrow.", "assistant"),
    ]
