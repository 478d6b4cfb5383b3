"""`accord repartition`: a deployment moved from 2 to 3 partitions while gateways write
(store/repartition.py; docs/partitions.md, "Growing"). Real Redis, the real worker, the
real gateway client (R15: every input applied exactly once, in seq order)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import msgspec
import pytest
import redis.asyncio

from accord_client import AccordClient
from contracts.keys import CONFIG_KEY, Layout, layout_key
from contracts.partition import partition_of
from contracts.streams import as_text, stream_name
from store import keys
from store.repartition import (
    Repartition,
    RepartitionError,
    index_partition,
    member_scope,
    moved_name,
    parse_scope_key,
)
from tests.support.input_kit import user_turn
from tests.support.worker_kit import (
    gateway_xadd,
    now_s,
    redis_cluster,
    running_worker,
    wait_for,
    worker_settings,
)

pytestmark = [pytest.mark.redis]

SCOPES = 12
QUIET = 2
SESSIONS_PER_SCOPE = 2
TURNS_BEFORE = 4
TURNS_AFTER = 4


# ------------------------------------------------------------------- key names
@pytest.mark.parametrize(
    ("name", "parsed"),
    [
        ("scope:{3}:5:agent:4:user", ("scope", 3, "agent", "user")),
        ("view:{0}:1:a:6:u:}{:x", ("view", 0, "a", "u:}{:x")),
        ("session:{12}:3:a:b:2:用户:2:s1", ("session", 12, "a:b", "用户")),
        ("gateway-idem:{1}:1:a:1:u:3:s:1", ("gateway-idem", 1, "a", "u")),
        ("parked:{2}:2:ab:1:c:1:s", ("parked", 2, "ab", "c")),
    ],
)
def test_a_scope_key_names_its_partition_and_ids_whatever_they_hold(
    name: str, parsed: tuple[str, int, str, str]
) -> None:
    got = parse_scope_key(name)
    assert got is not None
    assert (got.family, got.partition, got.agent_id, got.user_id) == parsed


@pytest.mark.parametrize(
    "name",
    ["chat-turn:{0}", "lease:{1}", "record:{0}:agr-1", "scope:{x}:1:a:1:u", "scope:{0}:9:a:1:u"],
)
def test_other_keys_are_not_taken_for_a_scope_key(name: str) -> None:
    assert parse_scope_key(name) is None


def test_an_index_member_names_its_scope_with_or_without_a_third_id() -> None:
    assert member_scope('["a","u","agr-1"]') == ("a", "u")
    assert member_scope('["用","u:{1}"]'.encode()) == ("用", "u:{1}")
    assert index_partition("scopes:{3}:open") == ("scopes", 3)


def test_a_moved_name_changes_only_the_partition_tag() -> None:
    assert moved_name("session:{3}:1:a:3:{9}:1:s", 11) == "session:{11}:1:a:3:{9}:1:s"
    assert moved_name("records:{0}:open", 2) == "records:{2}:open"
    assert index_partition("records:{4}:open") == ("records", 4)
    assert index_partition("deadlines:{7}") == ("deadlines", 7)
    assert index_partition("record:{4}:agr") is None


# ------------------------------------------------------------------ the move
def _ids(scope: int, session: int) -> tuple[str, str, str]:
    return f"agent-{scope % 3}", f"user-{scope}", f"s{session}"


async def _write(
    client: AccordClient,
    scope: int,
    session: int,
    turns: range,
    until: asyncio.Task[Any] | None = None,
) -> int:
    """Write `turns` (and, given `until`, more until it is done, then two more): a
    session's next seq each time, 1, 2, 3 ... whatever the layout did meanwhile."""
    agent, user, session_id = _ids(scope, session)
    writer = client.session(agent, user, session_id)
    turn, after = turns.start, 0
    while turn < turns.stop or (until is not None and after < 2):
        if turn % 4 == 1:
            text = f"Let's agree: in session {session_id} we review plan {turn} by tomorrow."
        else:
            text = f"An ordinary turn number {turn} of {session_id}, about the weather."
        appended = await writer.user(
            text, message_id=f"{session_id}-{scope}-{turn}", timezone="Europe/Berlin"
        )
        assert appended.seq == turn + 1, "seqs go on 1, 2, 3 ... across the move"
        turn += 1
        if until is not None and until.done():
            after += 1
    return turn


async def _all_keys(aredis: redis.asyncio.Redis) -> list[str]:
    return [as_text(k) async for k in aredis.scan_iter(count=1000)]


@pytest.mark.asyncio
async def test_a_move_to_three_partitions_under_writes_loses_and_reorders_nothing_r15(
    aredis: redis.asyncio.Redis, redis_url: str
) -> None:
    """R15: 24 sessions' backlog is unread when the move from 2 to 3 partitions starts;
    gateways go on writing while it runs. The mover waits for a worker of the old count
    to apply the backlog; the appends wait for the move; the old worker is then refused
    its leases with the new count and fails; a worker with the new count applies every
    input exactly once, in order: no dead letter (no entry on a wrong partition), no gap
    skipped, every session's applied seq its last, every proposal of every session in its
    view, and no key of a scope left in a partition it no longer maps to."""
    await aredis.set(CONFIG_KEY, msgspec.json.encode(Layout(2, "accord")))
    client = AccordClient(aredis, retry_backoff_s=0.01)
    pairs = [(s, n) for s in range(SCOPES) for n in range(SESSIONS_PER_SCOPE)]
    # The backlog: written before any worker reads.
    await asyncio.gather(*(_write(client, s, n, range(TURNS_BEFORE)) for s, n in pairs))
    lines: list[str] = []
    moving = asyncio.create_task(Repartition(aredis, 3, lines.append, drain_timeout_s=120).run())
    await wait_for(lambda: _frozen(aredis), seconds=30)
    # Writers go on now, during the move and after it: these appends wait for it.
    # (Scopes 0 and 1 write nothing more: what they show comes from the move alone.)
    writing = asyncio.gather(
        *(
            _write(client, s, n, range(TURNS_BEFORE, TURNS_BEFORE + TURNS_AFTER), moving)
            if s >= QUIET
            else _async_int(TURNS_BEFORE)
            for s, n in pairs
        )
    )
    async with running_worker(worker_settings(redis_url, partitions=2)) as worker:
        progress = await asyncio.wait_for(moving, timeout=120)
        # The worker built for 2 partitions is refused its leases now, and fails.
        await wait_for(lambda: _async(worker.exit_code == 1), seconds=60)
        assert "layout changed" in (worker.health.fatal or "")
    assert progress.phases == ["announce", "freeze", "drain", "fence", "copy", "flip", "clean up"]
    assert progress.scopes_moved > 0
    layout = msgspec.json.decode(_bytes(await aredis.get(CONFIG_KEY)), type=Layout)
    assert (layout.partitions, layout.moving_to) == (3, None)
    assert [await aredis.get(layout_key(p)) for p in range(3)] == [b"3"] * 3

    async with running_worker(worker_settings(redis_url, partitions=3)):
        written = await asyncio.wait_for(writing, timeout=120)
        for (scope, session), last in zip(pairs, written, strict=True):
            agent, user, session_id = _ids(scope, session)
            await client.session(agent, user, session_id).wait_applied(last, timeout=60)
    for p in range(3):
        assert await aredis.xlen(stream_name("dead-letters", p)) == 0, "nothing dead-lettered"
        stats: Any = await aredis.hgetall(keys.stats_key(p))
        assert b"gaps_skipped" not in stats, "no gap was skipped"
    for scope, session in pairs:
        agent, user, session_id = _ids(scope, session)
        view = await client.session(agent, user, session_id).view()
        proposed = len([t for t in range(written[pairs.index((scope, session))]) if t % 4 == 1])
        assert len(view.pending_proposals) == proposed, f"proposals of {session_id}, {scope}"
    indexed: set[str] = set()
    for name in await _all_keys(aredis):
        parsed = parse_scope_key(name)
        if parsed is not None:
            home = partition_of(parsed.agent_id, parsed.user_id, 3)
            assert parsed.partition == home, f"{name} is left outside partition {home}"
        if (index := index_partition(name)) is not None:
            indexed.add(index[0])
            members: Any = await aredis.zrange(name, 0, -1)
            for member in members:
                home = partition_of(*member_scope(member), 3)
                assert index[1] == home, f"{member!r} of {name} belongs in partition {home}"
    assert {"records", "scopes", "deadlines"} <= indexed, "the indexes were there to move"


def _bytes(value: Any) -> bytes:
    assert isinstance(value, bytes)
    return value


async def _async_int(value: int) -> int:
    return value


async def _refusals(aredis: redis.asyncio.Redis) -> int:
    """How many appends the append script has refused on this server (ACCORDLAYOUT)."""
    stats: Any = await aredis.info("errorstats")
    return int(stats.get("errorstat_ACCORDLAYOUT", {}).get("count", 0))


async def _frozen(aredis: redis.asyncio.Redis) -> bool:
    """Whether the mover has frozen the partitions (or gone past that already)."""
    return await aredis.get(layout_key(0)) is not None


async def _async(value: bool) -> bool:  # noqa: FBT001  (wait_for's predicate is async)
    return value


@pytest.mark.asyncio
async def test_a_move_needs_a_layout_and_refuses_a_second_target(
    aredis: redis.asyncio.Redis,
) -> None:
    """A Redis no worker has set up has nothing to move; a move under way to one count
    is finished before another starts (one line each, nothing changed)."""
    with pytest.raises(RepartitionError, match="no layout"):
        await Repartition(aredis, 3, print, drain_timeout_s=1).run()
    moving = Layout(2, "accord", moving_to=4)
    await aredis.set(CONFIG_KEY, msgspec.json.encode(moving))
    with pytest.raises(RepartitionError, match="accord repartition --to 4"):
        await Repartition(aredis, 3, print, drain_timeout_s=1).run()
    assert msgspec.json.decode(_bytes(await aredis.get(CONFIG_KEY)), type=Layout) == moving


@pytest.mark.asyncio
async def test_an_append_during_a_move_waits_and_one_with_the_old_count_moves_on_r15(
    aredis: redis.asyncio.Redis,
) -> None:
    """R15: while the partition's marker says `moving` an append writes nothing and
    waits; once it says another count the client learns it and appends in the new
    partition, with the session's next seq."""
    await aredis.set(CONFIG_KEY, msgspec.json.encode(Layout(2, "accord")))
    client = AccordClient(aredis, retry_backoff_s=0.01)
    session = client.session("agent-mira", "user-alex", "s1")
    first = await session.user("hello", message_id="m1")
    old = partition_of("agent-mira", "user-alex", 2)
    new = partition_of("agent-mira", "user-alex", 5)
    assert old != new
    for p in range(5):
        await aredis.set(layout_key(p), keys.LAYOUT_MOVING)
    # What the mover would have copied: the session's seq counter and idempotency keys.
    for make in (keys.gateway_seq_key, keys.gateway_idem_key):
        name = make(old, "agent-mira", "user-alex", "s1")
        await aredis.restore(
            make(new, "agent-mira", "user-alex", "s1"), 0, _bytes(await aredis.dump(name))
        )
    before = await _refusals(aredis)
    waiting = asyncio.create_task(session.user("still there?", message_id="m2"))
    # Refused (Redis counts the error replies) and still waiting, nothing written.
    deadline = asyncio.get_running_loop().time() + 30
    while await _refusals(aredis) < before + 2:
        assert asyncio.get_running_loop().time() < deadline, "the append was never refused"
        await asyncio.sleep(0.01)
    assert not waiting.done()
    assert await aredis.xlen(stream_name("chat-turn", old)) == 1, "nothing written meanwhile"
    await aredis.set(CONFIG_KEY, msgspec.json.encode(Layout(5, "accord")))
    for p in range(5):
        await aredis.set(layout_key(p), "5")
    second = await asyncio.wait_for(waiting, timeout=30)
    assert (first.seq, second.seq) == (1, 2)
    assert second.stream == stream_name("chat-turn", new)
    # A retry of the first append is answered from its moved key, not written again.
    again = await session.user("hello", message_id="m1")
    assert (again.seq, again.repeated) == (1, True)
    with contextlib.suppress(Exception):
        await client.aclose()


def _scope_moving(source: int, target: int) -> tuple[str, str]:
    """A scope whose partition differs under the two counts."""
    for index in range(1000):
        scope = ("agent-gap", f"user-{index}")
        if partition_of(*scope, source) != partition_of(*scope, target):
            return scope
    raise AssertionError("no scope moves")  # pragma: no cover


@pytest.mark.asyncio
async def test_entries_parked_behind_a_gap_move_with_their_session_and_apply_in_order_r15(
    aredis: redis.asyncio.Redis, redis_url: str
) -> None:
    """R15: seqs 2 and 3 of a session wait behind a missing seq 1 when the move starts.
    They move with their session (the parked hash, the gap index's member, the new
    partition's parked totals); once seq 1 arrives in the new partition, 1, 2, 3 are
    applied in order, and nothing is skipped or dead-lettered."""
    scope = _scope_moving(2, 3)
    old, new = partition_of(*scope, 2), partition_of(*scope, 3)
    at = now_s()
    async with running_worker(worker_settings(redis_url, partitions=2)):
        for seq in (2, 3):
            await gateway_xadd(aredis, user_turn(scope, "s1", seq, f"turn {seq}", at), old)
        # Both parked (they may come in one batch or two).
        await wait_for(lambda: _parked(aredis, old, b"2"), seconds=30)
        assert await aredis.zcard(keys.gaps_key(old)) == 1
        progress = await Repartition(aredis, 3, print, drain_timeout_s=60).run()
        assert progress.scopes_moved == 1
    assert await aredis.zcard(keys.gaps_key(old)) == 0, "the old gap index forgets it"
    assert await aredis.zcard(keys.gaps_key(new)) == 1, "the new one holds it"
    stats_after: Any = await aredis.hgetall(keys.stats_key(new))
    assert stats_after[b"parked_entries"] == b"2"
    assert await aredis.exists(keys.parked_key(old, *scope, "s1")) == 0
    async with running_worker(worker_settings(redis_url, partitions=3)):
        await gateway_xadd(aredis, user_turn(scope, "s1", 1, "turn 1", at), new)
        client = AccordClient(aredis)
        await client.session(*scope, "s1").wait_applied(3, timeout=60)
    stats: Any = await aredis.hgetall(keys.stats_key(new))
    assert b"gaps_skipped" not in stats
    assert b"parked_entries" not in stats, "drained: the totals went back to nothing"
    assert await aredis.xlen(stream_name("dead-letters", new)) == 0


async def _parked(aredis: redis.asyncio.Redis, partition: int, count: bytes) -> bool:
    return await aredis.hget(keys.stats_key(partition), "parked_entries") == count


@pytest.mark.asyncio
async def test_a_move_on_a_redis_cluster_carries_keys_across_slots_r15() -> None:
    """R15 on a three-master Cluster: the moved scopes' keys change slots (and nodes) by
    DUMP and RESTORE, and a worker of the new count applies the next input of every
    session in order."""
    with redis_cluster() as url:
        cluster = redis.asyncio.RedisCluster.from_url(url)
        async with AccordClient(cluster) as client:
            await _move_on_cluster(url, cluster, client)


async def _move_on_cluster(
    url: str, cluster: redis.asyncio.RedisCluster, client: AccordClient
) -> None:
    pairs = [(s, 0) for s in range(6)]
    settings = worker_settings(url, partitions=2, redis_cluster=True)
    async with running_worker(settings):
        await asyncio.gather(*(_write(client, s, n, range(TURNS_BEFORE)) for s, n in pairs))
        for s, n in pairs:
            await client.session(*_ids(s, n)).wait_applied(TURNS_BEFORE, timeout=60)
        progress = await Repartition(cluster, 4, print, drain_timeout_s=60).run()
    assert progress.scopes_moved > 0
    async with running_worker(worker_settings(url, partitions=4, redis_cluster=True)):
        for s, n in pairs:
            await _write(client, s, n, range(TURNS_BEFORE, TURNS_BEFORE + 1))
            await client.session(*_ids(s, n)).wait_applied(TURNS_BEFORE + 1, timeout=60)
            view = await client.session(*_ids(s, n)).view()
            assert len(view.pending_proposals) == 1
    for p in range(4):
        assert await cluster.xlen(stream_name("dead-letters", p)) == 0


@pytest.mark.asyncio
async def test_a_shrink_retires_partitions_and_a_cut_clean_up_is_finished_by_a_rerun_r15(
    aredis: redis.asyncio.Redis, redis_url: str
) -> None:
    """R15: 3 -> 2 partitions: partition 2's input streams go (all applied), its scopes
    live in 0 and 1, and sessions go on there in order. A clean-up cut short (the
    layout still names the count moved from) is finished by running the command again,
    whatever count it is given next."""
    client = AccordClient(aredis)
    pairs = [(s, 0) for s in range(8)]
    async with running_worker(worker_settings(redis_url, partitions=3)):
        await asyncio.gather(*(_write(client, s, n, range(TURNS_BEFORE)) for s, n in pairs))
        for s, n in pairs:
            await client.session(*_ids(s, n)).wait_applied(TURNS_BEFORE, timeout=60)
        progress = await Repartition(aredis, 2, print, drain_timeout_s=60).run()
    assert progress.streams_retired == 3, "partition 2's three input streams"
    assert await aredis.exists(stream_name("chat-turn", 2)) == 0
    layout = msgspec.json.decode(_bytes(await aredis.get(CONFIG_KEY)), type=Layout)
    assert layout == Layout(2, "accord")
    # A clean-up cut short: a leftover in the retired partition, the source still named.
    leftover = keys.scope_key(2, "agent-x", "user-left")
    await aredis.hset(leftover, "v", "1")
    await aredis.set(CONFIG_KEY, msgspec.json.encode(Layout(2, "accord", moved_from=3)))
    again = await Repartition(aredis, 2, print, drain_timeout_s=60).run()
    assert again.keys_removed == 1
    assert await aredis.exists(leftover) == 0
    layout = msgspec.json.decode(_bytes(await aredis.get(CONFIG_KEY)), type=Layout)
    assert layout == Layout(2, "accord")
    async with running_worker(worker_settings(redis_url, partitions=2)):
        for s, n in pairs:
            await _write(client, s, n, range(TURNS_BEFORE, TURNS_BEFORE + 1))
            await client.session(*_ids(s, n)).wait_applied(TURNS_BEFORE + 1, timeout=60)
    for p in range(2):
        assert await aredis.xlen(stream_name("dead-letters", p)) == 0
