"""The plain lane (store/units.py `plain`, store/commit_plan.py `PlainLane`) writes what
the general path writes for the same scope: the same planned writes, outcomes and
snapshots to remember, and, through commit.lua, the same keys in Redis (R15: the order of
a session's inputs alone decides what is stored). Each comparison is shown to catch a
planted bug in the lane."""

from __future__ import annotations

import hashlib
import random
from collections import defaultdict
from collections.abc import Iterator
from typing import Any, ClassVar

import msgspec
import pytest
import redis.asyncio
from accord_harness.bench.workload import build
from accord_harness.documents import Document, encode, stream_of
from accord_harness.reading import read_new
from accord_harness.store_harness import real_core_workload

from contracts.codec import decode_event
from contracts.streams import DATA_FIELD, GROUP, as_text, input_streams
from store import commit as commit_module
from store import keys
from store.admission import Admission
from store.commit_plan import KeyTable, PlainLane, SessionWrite, UnitPlan
from store.config import StoreConfig
from store.gate import Arrival
from store.intake import ensure_groups
from store.loading import KeyNames
from store.ownership import Fence
from store.processor import PartitionProcessor
from store.scripts import COMMIT, LuaScript
from store.state_cache import (
    NO_DEADLINES,
    NO_PARKED,
    ScopeSnapshot,
    SessionSnapshot,
    StateCache,
    session_weight,
)
from store.unit import Unit
from store.units import UnitPlanner
from store.work import ScopeId, ScopeWork
from worker.engine import Engine

OWNER = "1:worker"
INPUTS = input_streams(0)
# What one unit writes, resolved to names and bytes: (view key, [(session key, next seq,
# applied field, core state or None), ...], [(stream, entry id), ...]).
Writes = tuple[str, list[tuple[str, int, str, bytes | None]], list[tuple[str, str]]]


def lane_writes(table: KeyTable, lane: PlainLane, ack_pairs: int) -> Writes:
    """The writes of the lane's last unit (its acks: the lane's last `ack_pairs`)."""
    entries = lane.entries
    at = 0
    while True:  # the last unit's start
        size = 2 + 4 * int(entries[at + 1])
        if at + size == len(entries):
            break
        at += size
    sessions = [
        (
            table.names[int(entries[i]) - 1],
            int(entries[i + 1]),
            str(entries[i + 2]),
            table.blobs[int(entries[i + 3]) - 2] if entries[i + 3] else None,
        )
        for i in range(at + 2, len(entries), 4)
    ]
    acks = lane.acks[len(lane.acks) - 2 * ack_pairs :]
    pairs = [(table.names[int(acks[i]) - 1], str(acks[i + 1])) for i in range(0, len(acks), 2)]
    return table.names[int(entries[at]) - 1], sessions, pairs


def unit_writes(table: KeyTable, plan: UnitPlan) -> Writes | str:
    """The same of a trusted unit planned in full, or what it does beyond them."""
    rest = msgspec.structs.replace(plan, sessions=[], acks=[], view_key=None, trusted=False)
    if rest != UnitPlan() or not plan.trusted or plan.view_key is None:
        return f"more than a plain unit: {rest}"
    sessions = []
    for write in plan.sessions:
        bare = msgspec.structs.replace(write, next_seq=None, applied_field=None, core=None)
        if bare != SessionWrite(write.key) or write.next_seq is None or not write.applied_field:
            return f"more than a plain session: {write}"
        core = None if write.core is None else table.blobs[write.core - 2]
        sessions.append((table.names[write.key - 1], write.next_seq, write.applied_field, core))
    acks = plan.acks
    pairs = [(table.names[int(acks[i]) - 1], str(acks[i + 1])) for i in range(0, len(acks), 2)]
    return table.names[plan.view_key - 1], sessions, pairs


def conversations(rng: random.Random) -> list[Document]:
    """Agreements with noise in between (most of their scopes are not plain), and the
    benchmark's chat with todo lists and a flow in one session of five (most are)."""
    chat = build(sessions=40, blocks=3, partitions=1, real_text=True).documents
    return real_core_workload(rng, scopes=6, sessions=3, blocks=3) + chat


def batches(rng: random.Random, documents: list[Document]) -> Iterator[list[Document]]:
    """The documents cut into batches at random, each session's in order."""
    by_session: dict[tuple[str, str, str], list[Document]] = defaultdict(list)
    for document in documents:
        by_session[document["agent_id"], document["user_id"], document["session_id"]].append(
            document
        )
    cursor = dict.fromkeys(by_session, 0)
    while any(cursor[key] < len(inputs) for key, inputs in by_session.items()):
        batch: list[Document] = []
        for key, inputs in by_session.items():
            size = rng.randint(0, 3)
            batch += inputs[cursor[key] : cursor[key] + size]
            cursor[key] = min(len(inputs), cursor[key] + size)
        yield batch


class StaleEngine(Engine):
    """A planted bug: every session state encoded as a new session's."""

    def encode_session(self, session: Any) -> bytes:
        return super().encode_session(self.decode_session(None, session.session_id))


def differences_of(  # noqa: PLR0913, PLR0917  (a unit's inputs, and the lane's core)
    planner: UnitPlanner[Any, Any],
    lane_core: Engine,
    scope_id: ScopeId,
    work: ScopeWork,
    before: ScopeSnapshot[Any],
    held: dict[str, SessionSnapshot[Any]],
) -> tuple[bool, list[str], Unit[Any, Any]]:
    """One scope planned both ways: (whether the lane took it, the differences, the
    general path's unit)."""
    real = planner.core
    planner.version = "v.1"  # the same commit token for both paths
    general_table = KeyTable()
    general = planner.unit(general_table, scope_id, work, before, held, trusted=True)
    lane, lane_table = PlainLane(), KeyTable()
    planner.core = lane_core
    # The lane moves the cache's own snapshots on: a cache of copies, advanced as the
    # processor advances it once the commit passed.
    cache: StateCache[Any, Any] = StateCache(1000)
    cache.remember(scope_id, None, {sid: msgspec.structs.replace(s) for sid, s in held.items()})
    cached = cache.get(scope_id)
    assert cached is not None
    plain = planner.plain(lane_table, lane, scope_id, work, before, dict(cached.sessions))
    planner.core = real
    expected = unit_writes(general_table, general.plan)
    if plain is None:
        plainly = not isinstance(expected, str)
        return False, [f"{scope_id}: not taken, but plain: {expected}"] * plainly, general
    found = []
    pairs = sum(len(arrivals) for arrivals in work.arrivals.values())
    got = lane_writes(lane_table, lane, pairs)
    if got != expected:
        found.append(f"{scope_id}: wrote {got}, not {expected}")
    if general.events or general.outcomes != {"applied": plain.applied}:
        found.append(f"{scope_id}: outcomes {general.outcomes}, not {plain.applied} applied")
    cache.advance(scope_id, planner.version, plain.moves)
    if cached.sessions != general.sessions_after:
        found.append(f"{scope_id}: remembers other sessions")
    if cache.bytes != cached.weight or cached.weight != sum(
        map(session_weight, cached.sessions.values())
    ):
        found.append(f"{scope_id}: weighs its sessions otherwise")
    if (plain.scope_after or before) != general.scope_after:
        found.append(f"{scope_id}: remembers another scope")
    return True, found, general


def plan_differences(lane_core: Engine) -> tuple[int, int, list[str]]:
    """Plan random real conversations, batch by batch, both ways from the same cached
    state: (scopes the lane took, scopes it left, every difference between the lane and
    the general path). The lane runs with `lane_core` (the real core, or a planted bug)."""
    rng = random.Random(11)
    documents = conversations(rng)
    engine = Engine()
    config = StoreConfig()
    planner: UnitPlanner[Any, Any] = UnitPlanner(
        0, engine, config, KeyNames(0), Admission(0, config)
    )
    scopes: dict[ScopeId, ScopeSnapshot[Any]] = {}
    sessions: dict[tuple[str, str, str], SessionSnapshot[Any]] = {}
    taken = left = 0
    differences: list[str] = []
    for number, batch in enumerate(batches(rng, documents)):
        work: dict[ScopeId, ScopeWork] = defaultdict(ScopeWork)
        for index, document in enumerate(batch):
            data = encode(document)
            arrival = Arrival(stream_of(document, 1), f"{number}-{index}", decode_event(data), data)
            work[document["agent_id"], document["user_id"]].add(document["session_id"], arrival)
        for scope_id, scope_work in work.items():
            empty = ScopeSnapshot("", engine.decode_scope(None, *scope_id), NO_DEADLINES)
            before = scopes.get(scope_id, empty)
            held: dict[str, SessionSnapshot[Any]] = {
                session_id: sessions.get(
                    (*scope_id, session_id), SessionSnapshot("", 1, (), NO_PARKED, None)
                )
                for session_id in scope_work.arrivals
            }
            took, found, general = differences_of(
                planner, lane_core, scope_id, scope_work, before, held
            )
            taken, left = taken + took, left + (not took)
            differences += found
            if general.scope_after is not None:
                scopes[scope_id] = general.scope_after
            for session_id, snapshot in general.sessions_after.items():
                sessions[(*scope_id, session_id)] = snapshot
    return taken, left, differences


def test_the_plain_lane_plans_what_the_general_path_plans_r15() -> None:
    """Real conversations (proposals, acceptances, todo writes, noise) cut into batches at
    random: every scope the lane takes gets the writes, outcomes and snapshots the general
    path gives it; every scope it leaves does more than a plain unit; most are taken."""
    taken, left, differences = plan_differences(Engine())
    assert differences == []
    assert taken > 30
    assert left > 10


def test_a_planted_bug_in_the_lane_is_caught_r15() -> None:
    """The comparison above, with the lane encoding each session's state as a new
    session's (the general path encodes the real one): it is caught."""
    _, _, differences = plan_differences(StaleEngine())
    assert differences


class Counted(Engine):
    """The real core, counting the inputs it is applied to."""

    applied: ClassVar[list[int]] = [0]

    def apply(self, *args: Any) -> Any:
        self.applied[0] += 1
        return super().apply(*args)


def test_a_scope_the_lane_leaves_is_planned_as_if_the_lane_never_tried_r15() -> None:
    """A scope whose input touches a record: after the lane's attempt, `unit` plans what
    it plans alone (writes, events, snapshots: R15), taking the lane's step for that
    input instead of applying the core to it a second time."""
    rng = random.Random(11)
    engine = Counted()
    config = StoreConfig()
    planner: UnitPlanner[Any, Any] = UnitPlanner(
        0, engine, config, KeyNames(0), Admission(0, config)
    )
    planner.version = "v.1"
    replayed = 0
    for number, batch in enumerate(
        batches(rng, real_core_workload(rng, scopes=6, sessions=3, blocks=3))
    ):
        work: dict[ScopeId, ScopeWork] = defaultdict(ScopeWork)
        for index, document in enumerate(batch):
            data = encode(document)
            arrival = Arrival(stream_of(document, 1), f"{number}-{index}", decode_event(data), data)
            work[document["agent_id"], document["user_id"]].add(document["session_id"], arrival)
        for scope_id, scope_work in work.items():
            before = ScopeSnapshot("", engine.decode_scope(None, *scope_id), NO_DEADLINES)
            held: dict[str, SessionSnapshot[Any]] = {
                session_id: SessionSnapshot("", arrivals[0].seq, (), NO_PARKED, None)
                for session_id, arrivals in scope_work.arrivals.items()
            }
            alone = planner.unit(KeyTable(), scope_id, scope_work, before, held, trusted=True)
            engine.applied[0] = 0
            if planner.plain(KeyTable(), PlainLane(), scope_id, scope_work, before, held):
                continue
            tried = engine.applied[0]
            after = planner.unit(KeyTable(), scope_id, scope_work, before, held, trusted=True)
            assert after == alone
            if tried:
                replayed += 1
                assert engine.applied[0] < tried + scope_work.entries()
    assert replayed > 5


# ---------------------------------------------------------------- through Redis
async def store_after(
    client: redis.asyncio.Redis, documents: list[Document], *, lane: bool
) -> tuple[int, dict[str, Any]]:
    """Commit the documents batch by batch with a fenced processor (the lane on or off)
    into an empty Redis: (plain units committed, every key's content but the lease)."""
    await client.flushall()
    await ensure_groups(client, [0], GROUP)
    await client.hset(keys.lease_key(0), mapping={"o": OWNER, "e": 2**62})
    store: PartitionProcessor[Any, Any] = PartitionProcessor(client, 0, Engine(), StoreConfig())
    store.set_fence(Fence(0, OWNER))
    store.planner._token_prefix = "t."  # noqa: S105  (the same version tokens both times)
    taken = 0
    plan = store.planner.plain

    def counted(*args: Any) -> Any:
        nonlocal taken
        result = plan(*args) if lane else None
        taken += result is not None
        return result

    store.planner.plain = counted  # type: ignore[method-assign, assignment]
    # Entry ids after every input's time, the same both times (provenance names them).
    stamp = 1 + max(int(decode_event(encode(d)).ts.timestamp() * 1000) for d in documents)
    rng, number = random.Random(5), 0
    for batch in batches(rng, documents):
        for document in batch:
            number += 1
            data = encode(document)
            await client.xadd(stream_of(document, 1), {DATA_FIELD: data}, id=f"{stamp}-{number}")
        report = await store.process(await read_new(client, 0, GROUP, "c", count=10_000))
        assert report.outcomes["applied"] == len(batch)
    return taken, await contents(client)


async def contents(client: redis.asyncio.Redis) -> dict[str, Any]:
    """Every key's content (streams: data and pending count), the lease left out, Redis
    times left out."""
    found: dict[str, Any] = {}
    async for raw in client.scan_iter(count=1000):
        name = as_text(raw)
        kind = as_text(await client.type(name))
        if name == keys.lease_key(0):
            continue
        if kind == "hash":
            found[name] = await client.hgetall(name)
        elif kind == "zset" and name.startswith(("records:", "scopes:")):
            # Scored by the commit's Redis time: the members alone compare.
            found[name] = sorted(await client.zrange(name, 0, -1))
        elif kind == "zset":
            found[name] = await client.zrange(name, 0, -1, withscores=True)
        elif kind == "string":
            found[name] = await client.get(name)
        elif kind == "stream":
            entries: Any = await client.xrange(name)
            pending: Any = await client.xpending(name, GROUP) if name in INPUTS else None
            found[name] = ([fields for _, fields in entries], pending and pending["pending"])
        else:
            found[name] = kind
    return found


@pytest.mark.redis
@pytest.mark.asyncio
async def test_the_plain_lane_commits_what_the_general_path_commits_r15(
    client: redis.asyncio.Redis,
) -> None:
    """The same conversations committed with and without the lane leave every key of
    the store the same (sessions, views, scopes, records, indexes, streams, pending)."""
    documents = conversations(random.Random(3))
    taken, with_lane = await store_after(client, documents, lane=True)
    _, without = await store_after(client, documents, lane=False)
    assert taken > 10
    assert with_lane == without


@pytest.mark.redis
@pytest.mark.asyncio
async def test_a_planted_bug_in_the_lanes_script_is_caught_r15(
    client: redis.asyncio.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The comparison above, with commit.lua writing a plain session's applied seq one
    too high in its view: it is caught."""
    right = "fields[#fields + 1] = p[j + 1] - 1"
    assert right in COMMIT.source
    source = COMMIT.source.replace(right, "fields[#fields + 1] = p[j + 1]")
    sha = hashlib.sha1(source.encode()).hexdigest()  # noqa: S324  (Redis names scripts by SHA-1)
    monkeypatch.setattr(commit_module, "COMMIT", LuaScript("commit", source, sha))
    documents = conversations(random.Random(3))
    _, with_lane = await store_after(client, documents, lane=True)
    _, without = await store_after(client, documents, lane=False)
    assert with_lane != without
