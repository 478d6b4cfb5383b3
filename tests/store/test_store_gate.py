"""The ordering gate (R15): duplicates, parking and draining, gap timeout, late arrivals.

The first tests plan pure data (store/gate.py); the rest run the processor against a
real Redis with the small fake core, whose state logs every applied seq in order.
"""

from __future__ import annotations

import json
from typing import Any
from unittest.mock import patch

import msgspec
import pytest
import redis.asyncio
from accord_harness.reading import read_new
from accord_harness.store_harness import chat, xadd
from hypothesis import given, settings
from hypothesis import strategies as st

from contracts.codec import decode_event
from contracts.outputs import DeadLetter, DeadLetterReason
from contracts.streams import GROUP
from store import keys
from store.config import StoreConfig
from store.gate import Arrival, ParkedEntry, _plan_any, parse_skipped, plan_session
from store.processor import PartitionProcessor
from tests.support.fake_core import FakeCore

SCOPE = ("agent", "user")


def arrival(seq: int, entry_id: str = "") -> Arrival:
    document = chat(SCOPE, "s", seq, "hello")
    return Arrival("chat-turn:{0}", entry_id or f"{seq}-0", decode_event(json.dumps(document)), b"")


def test_plan_applies_in_seq_order_whatever_the_arrival_order() -> None:
    """R15: 3, 1, 2 arrive; 1, 2, 3 are applied."""
    plan = plan_session(1, (), {}, [arrival(3), arrival(1), arrival(2)])
    assert [seq for seq, _ in plan.apply] == [1, 2, 3]
    assert plan.next_seq == 4
    assert not plan.park


def refused(seq: int) -> Arrival:
    """A refused input with a valid envelope: no event, its place in the order."""
    return Arrival("chat-turn:{0}", f"{seq}-9", None, b"", refused_seq=seq)


@given(
    st.integers(1, 30),
    st.lists(st.tuples(st.integers(-3, 12), st.booleans()), max_size=10),
    st.sets(st.integers(-3, 12), max_size=4),
    st.booleans(),
    st.sampled_from([(), ((2, 4),)]),
)
def test_the_gates_fast_path_plans_what_the_general_plan_does_r15(
    next_seq: int,
    drawn: list[tuple[int, bool]],
    parked_offsets: set[int],
    skip_gap: bool,  # noqa: FBT001
    skipped: tuple[tuple[int, int], ...],
) -> None:
    """R15: the gate's fast path (the session's next seqs, in order, nothing parked, no
    gap to give up: most sessions of a merged batch) gives the plan the general one
    gives, and is taken exactly then. Drawn: runs that start early or late, repeats,
    any order, refused inputs (no event, a seq), parked entries, a gap to skip."""
    arrivals = [
        (refused if is_refused else arrival)(max(1, next_seq + offset))
        for offset, is_refused in drawn
    ]
    parked = {
        seq: ParkedEntry("chat-turn:{0}", f"{seq}-1", b"")
        for offset in parked_offsets
        if (seq := next_seq + offset) >= next_seq
    }
    general = _plan_any(next_seq, skipped, dict(parked), arrivals, skip_gap=skip_gap)
    with patch("store.gate._plan_any", wraps=_plan_any) as spy:
        plan = plan_session(next_seq, skipped, dict(parked), arrivals, skip_gap=skip_gap)
    assert plan == general
    in_order = [a.seq for a in arrivals] == list(range(next_seq, next_seq + len(arrivals)))
    assert spy.called == (bool(parked) or skip_gap or not in_order)


def test_plan_acks_seqs_below_the_next_expected_as_duplicates() -> None:
    """R15: a seq already applied has no effect."""
    plan = plan_session(5, (), {}, [arrival(2), arrival(5), arrival(5, "9-0")])
    assert [a.seq for a in plan.duplicates] == [2, 5]
    assert [seq for seq, _ in plan.apply] == [5]


def test_plan_parks_early_seqs_and_drains_parked_ones_when_the_gap_fills() -> None:
    """R15: 4 waits for 3; when 3 comes, the parked 4 follows it."""
    first = plan_session(3, (), {}, [arrival(4, "10-0")])
    assert [seq for seq, _ in first.park] == [4]
    assert first.oldest_parked_ms == 10
    parked = {4: ParkedEntry("chat-turn:{0}", "10-0", b"")}
    second = plan_session(3, (), parked, [arrival(3)])
    assert [seq for seq, _ in second.apply] == [3, 4]
    assert second.unpark == [4]
    assert second.oldest_parked_ms is None


def test_plan_skips_only_the_first_gap_and_marks_later_arrivals_late() -> None:
    """R15: skipping the gap 2..3 applies 4; a later 3 is late, not a duplicate."""
    parked = {4: ParkedEntry("s", "1-0", b""), 6: ParkedEntry("s", "2-0", b"")}
    plan = plan_session(2, (), parked, [], skip_gap=True)
    assert plan.skipped_now == (2, 3)
    assert [seq for seq, _ in plan.apply] == [4]
    assert plan.next_seq == 5
    later = plan_session(plan.next_seq, plan.skipped, {}, [arrival(3), arrival(1)])
    assert [a.seq for a in later.late] == [3]
    assert [a.seq for a in later.duplicates] == [1]


def test_skipped_ranges_round_trip() -> None:
    assert parse_skipped(b"3-5,9-9") == ((3, 5), (9, 9))
    assert parse_skipped(None) == ()


# ------------------------------------------------------------------ against Redis
async def send(client: redis.asyncio.Redis, *seqs: int, session: str = "s") -> None:
    for seq in seqs:
        await xadd(client, chat(SCOPE, session, seq, f"turn {seq}"), 1)


async def applied(client: redis.asyncio.Redis, session: str = "s") -> list[int]:
    raw: Any = await client.hget(keys.session_key(0, *SCOPE, session), "c")
    return list(FakeCore().decode_session(raw, session).seqs)


async def pending(client: redis.asyncio.Redis) -> int:
    summary: Any = await client.xpending("chat-turn:{0}", GROUP)
    return int(summary["pending"])


def processor(client: redis.asyncio.Redis, **config: Any) -> PartitionProcessor[Any, Any]:
    return PartitionProcessor(client, 0, FakeCore(), StoreConfig(**config))


@pytest.mark.redis
@pytest.mark.asyncio
async def test_early_events_are_parked_acked_and_drained_in_order(
    client: redis.asyncio.Redis,
) -> None:
    """R15: 3 and 2 arrive first and wait (acked, kept); 1 arrives and all three apply."""
    store = processor(client)
    await send(client, 3, 2)
    report = await store.process(await read_new(client, 0, GROUP, "c"))
    assert report.outcomes["parked"] == 2
    assert await applied(client) == []
    assert await pending(client) == 0, "parked entries are acked in the same commit"
    assert await client.hlen(keys.parked_key(0, *SCOPE, "s")) == 2
    await send(client, 1)
    report = await store.process(await read_new(client, 0, GROUP, "c"))
    assert report.outcomes["applied"] == 1
    assert report.outcomes["drained"] == 2
    assert await applied(client) == [1, 2, 3]
    assert not await client.exists(keys.parked_key(0, *SCOPE, "s")), "parked key is gone"
    assert not await client.zcard(keys.gaps_key(0))


@pytest.mark.redis
@pytest.mark.asyncio
async def test_duplicates_are_acked_with_no_effect(client: redis.asyncio.Redis) -> None:
    """R15: the same seq written twice, and an entry delivered twice, apply once."""
    store = processor(client)
    await send(client, 1, 2, 1)
    entries = await read_new(client, 0, GROUP, "c")
    await store.process(entries)
    report = await store.process(entries)  # a redelivery of the whole batch
    assert await applied(client) == [1, 2]
    assert report.outcomes["duplicate"] == 3
    assert not report.events
    assert await pending(client) == 0
    assert await client.xlen(keys.events_stream(0)) == 0, "no proposal, so no event at all"


@pytest.mark.redis
@pytest.mark.asyncio
async def test_a_gap_open_past_the_timeout_is_skipped_recorded_and_counted(
    client: redis.asyncio.Redis,
) -> None:
    """R15: with 2 never arriving, 3 and 4 wait until the gap timeout (counted from
    when the gap was observed), then apply."""
    store = processor(client, gap_timeout_ms=60_000)
    await send(client, 1, 3, 4)
    await store.process(await read_new(client, 0, GROUP, "c"))
    assert await applied(client) == [1]
    seen: Any = await client.hget(keys.session_key(0, *SCOPE, "s"), "g")
    observed = int(seen)
    assert await store.skip_stale_gaps(now_ms=observed + 59_999) == 0, "not yet"
    assert await applied(client) == [1]
    assert await store.skip_stale_gaps(now_ms=observed + 60_000) == 1
    assert await applied(client) == [1, 3, 4]
    session: Any = await client.hgetall(keys.session_key(0, *SCOPE, "s"))
    assert session[b"k"] == b"2-2", "the skipped seq is recorded in the session"
    assert session[b"n"] == b"5"
    stats: Any = await client.hgetall(keys.stats_key(0))
    assert stats == {b"gaps_skipped": b"1", b"seqs_skipped": b"1"}


@pytest.mark.redis
@pytest.mark.asyncio
async def test_an_event_arriving_after_its_gap_was_skipped_is_a_dead_letter(
    client: redis.asyncio.Redis,
) -> None:
    """R15: seq 2 arrives after its gap was skipped: dead letter `late_after_gap_skip`."""
    store = processor(client, gap_timeout_ms=0)
    await send(client, 1, 3)
    await store.process(await read_new(client, 0, GROUP, "c"))
    assert await store.skip_stale_gaps() == 1
    await send(client, 2)
    report = await store.process(await read_new(client, 0, GROUP, "c"))
    assert report.outcomes["dead_letter"] == 1
    assert await applied(client) == [1, 3]
    assert await pending(client) == 0
    letters: Any = await client.xrange(keys.dead_letters_stream(0))
    letter = msgspec.json.decode(letters[0][1][b"__data__"], type=DeadLetter)
    assert letter.reason is DeadLetterReason.LATE_AFTER_GAP_SKIP
    assert (letter.session_id, letter.seq) == ("s", 2)
    assert json.loads(letter.fields["__data__"])["seq"] == 2, "original fields kept"


@pytest.mark.redis
@pytest.mark.asyncio
async def test_sessions_are_gated_independently(client: redis.asyncio.Redis) -> None:
    """R15: a gap in one session does not hold back another session of the same scope."""
    store = processor(client)
    await send(client, 2, session="a")
    await send(client, 1, 2, session="b")
    await store.process(await read_new(client, 0, GROUP, "c"))
    assert await applied(client, "a") == []
    assert await applied(client, "b") == [1, 2]


@pytest.mark.redis
@pytest.mark.asyncio
async def test_a_stale_cache_loses_the_version_race_and_reloads(
    client: redis.asyncio.Redis,
) -> None:
    """R15: worker A remembers next seq 2, B applies 2, A's seq 3 is applied, not parked."""
    a, b = processor(client, cache_size=2_000), processor(client, cache_size=2_000)
    await send(client, 1)
    await a.process(await read_new(client, 0, GROUP, "a"))
    await send(client, 2)
    await b.process(await read_new(client, 0, GROUP, "b"))
    await send(client, 3)
    report = await a.process(await read_new(client, 0, GROUP, "a"))
    assert report.outcomes == {"applied": 1}
    assert await applied(client) == [1, 2, 3]
    assert not await client.exists(keys.parked_key(0, *SCOPE, "s"))


async def rolled_back(client: redis.asyncio.Redis, *names: str) -> dict[str, bytes]:
    """DUMP of keys, to put them back later as Redis would after losing writes."""
    dumps: dict[str, bytes] = {}
    for name in names:
        data = await client.dump(name)
        assert data is not None, name
        dumps[name] = data
    return dumps


async def roll_back(client: redis.asyncio.Redis, dumps: dict[str, bytes]) -> None:
    for name, data in dumps.items():
        await client.restore(name, 0, data, replace=True)


@pytest.mark.redis
@pytest.mark.asyncio
async def test_a_cached_duplicate_is_checked_so_a_rolled_back_input_is_applied_again(
    client: redis.asyncio.Redis,
) -> None:
    """R15 under Redis write loss: the cache says seq 2 was applied, Redis lost that
    commit (power cut under appendfsync everysec); the gateway's re-sent seq 2 must be
    applied, not acked as a duplicate on the cache's word."""
    store = processor(client, cache_size=2_000)
    session_key = keys.session_key(0, *SCOPE, "s")
    await send(client, 1)
    await store.process(await read_new(client, 0, GROUP, "c"))
    dumps = await rolled_back(client, session_key, keys.scope_key(0, *SCOPE))
    await send(client, 2)
    await store.process(await read_new(client, 0, GROUP, "c"))
    assert await applied(client) == [1, 2]
    await roll_back(client, dumps)
    assert await applied(client) == [1], "Redis lost the commit of seq 2"
    await send(client, 2)
    report = await store.process(await read_new(client, 0, GROUP, "c"))
    assert report.outcomes == {"applied": 1}
    assert await applied(client) == [1, 2]
    assert await pending(client) == 0


@pytest.mark.redis
@pytest.mark.asyncio
async def test_a_version_reached_again_after_a_rollback_fails_a_stale_check(
    client: redis.asyncio.Redis,
) -> None:
    """R15 under Redis write loss: A caches the scope after its second commit; Redis
    loses that commit and B commits another session of the scope. With versions counted,
    B's commit would bring the scope back to the version A holds and A would overwrite
    B's input; versions are tokens unique per commit, so A's check fails and it reloads."""
    a, b = processor(client, cache_size=2_000), processor(client, cache_size=2_000)
    scope_key = keys.scope_key(0, *SCOPE)
    await send(client, 1, session="s")
    await a.process(await read_new(client, 0, GROUP, "a"))
    dumps = await rolled_back(client, scope_key, keys.session_key(0, *SCOPE, "s"))
    await send(client, 2, session="s")
    await a.process(await read_new(client, 0, GROUP, "a"))
    await roll_back(client, dumps)
    await send(client, 1, session="t")
    await b.process(await read_new(client, 0, GROUP, "b"))
    await send(client, 1, session="u")
    report = await a.process(await read_new(client, 0, GROUP, "a"))
    assert report.outcomes == {"applied": 1}
    raw: Any = await client.hget(scope_key, "s")
    assert FakeCore().decode_scope(raw, *SCOPE).log == ("s#1", "t#1", "u#1")


@pytest.mark.redis
@pytest.mark.asyncio
async def test_without_a_cache_every_batch_loads_and_still_applies_once(
    client: redis.asyncio.Redis,
) -> None:
    """R15: cache_size 0 (load every time) gives the same result."""
    store = processor(client, cache_size=0)
    await send(client, 2, 1, 1)
    await store.process(await read_new(client, 0, GROUP, "c"))
    await send(client, 3, 2)
    await store.process(await read_new(client, 0, GROUP, "c"))
    assert await applied(client) == [1, 2, 3]


@given(st.data(), st.integers(min_value=1, max_value=25))
@settings(max_examples=200, deadline=None)
def test_any_delivery_order_with_duplicates_applies_each_seq_once_in_order(
    data: st.DataObject, count: int
) -> None:
    """R15 (gate alone): batches of shuffled, duplicated seqs apply 1..n once, in order."""
    deliveries = list(range(1, count + 1))
    deliveries += data.draw(st.lists(st.integers(1, count), max_size=count), label="duplicates")
    deliveries = data.draw(st.permutations(deliveries), label="order")
    next_seq, parked, applied_seqs = 1, dict[int, ParkedEntry](), []
    while deliveries:
        size = data.draw(st.integers(1, len(deliveries)), label="batch")
        batch, deliveries = deliveries[:size], deliveries[size:]
        plan = plan_session(next_seq, (), parked, [arrival(seq) for seq in batch])
        applied_seqs += [seq for seq, _ in plan.apply]
        for seq in plan.unpark:
            del parked[seq]
        parked.update((seq, ParkedEntry("s", a.entry_id, b"")) for seq, a in plan.park)
        next_seq = plan.next_seq
    assert applied_seqs == list(range(1, count + 1))
    assert not parked
