"""The merged reader (the one reading path): one partition's streams handed over in XADD order.

Why it is the one: docs/store.md, "Reading the input streams". What must hold: it hands over every
entry exactly once, in entry-id order across the three streams, never past an entry a
stream still holding more might precede; and a worker reading this way commits exactly
what the oracle says, once (R15), without parking inputs that were written in order.
The seed scenarios on worker processes (single Redis and cluster) are in
tests/e2e/test_e2e_scenarios.py.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any
from urllib.parse import urlsplit

import pytest
import redis.asyncio
from accord_harness.bench.endtoend import acked, exactly_once, write
from accord_harness.bench.workload import build, entries
from accord_harness.chaos.proxy import FaultProxy
from hypothesis import given
from hypothesis import strategies as st
from structlog.testing import capture_logs

from contracts.streams import Entry, EntryId, as_text, entries_of, entries_of_reply
from tests.support.worker_kit import (
    running_worker,
    wait_for,
    worker_settings,
)
from worker.merged_reader import STUCK_LIMIT, MergedBuffer, _unparsed_reads

STREAMS = ("chat-turn:{0}", "tool-call:{0}", "tool-result:{0}")


def raw(stream: str, *ids: str) -> list[Entry]:
    return [Entry(stream, entry_id, {}, 1) for entry_id in ids]


def test_caught_up_streams_are_handed_over_whole_in_id_order() -> None:
    buffer = MergedBuffer(STREAMS, count=3)
    read = {STREAMS[0]: raw(STREAMS[0], "1-0", "4-0"), STREAMS[1]: raw(STREAMS[1], "2-0")}
    buffer.add(read, STREAMS)
    assert [e.entry_id for e in buffer.take()] == ["1-0", "2-0", "4-0"]
    assert buffer.empty()


def test_a_stream_that_may_hold_more_bounds_what_is_handed_over() -> None:
    """tool-call returned a full COUNT ending in ms 3: chat turn 5-0 waits (4-0 may follow)."""
    buffer = MergedBuffer(STREAMS, count=3)
    read = {
        STREAMS[0]: raw(STREAMS[0], "1-0", "5-0"),
        STREAMS[1]: raw(STREAMS[1], "2-0", "2-1", "3-0"),
    }
    buffer.add(read, STREAMS)
    # Entries of ms 3 wait too: another stream may hold an unread 3-x written before them.
    assert [e.entry_id for e in buffer.take()] == ["1-0", "2-0", "2-1"]
    buffer.add({STREAMS[1]: raw(STREAMS[1], "4-0")}, STREAMS)
    assert [e.entry_id for e in buffer.take()] == ["3-0", "4-0", "5-0"]
    assert buffer.empty()


def test_count_entries_in_one_millisecond_are_read_past_then_handed_over() -> None:
    buffer = MergedBuffer(STREAMS, count=2)
    buffer.add({STREAMS[0]: raw(STREAMS[0], "7-0", "7-1")}, STREAMS)
    assert buffer.take() == []
    assert buffer.wanted() == list(STREAMS)  # read chat-turn on past its COUNT
    buffer.add({STREAMS[0]: raw(STREAMS[0], "7-2")}, STREAMS)
    assert [e.entry_id for e in buffer.take()] == ["7-0", "7-1", "7-2"]


def test_a_stuck_bound_gives_way_past_the_holding_limit() -> None:
    buffer = MergedBuffer(STREAMS, count=1)
    ids = [f"7-{n}" for n in range(STUCK_LIMIT)]
    buffer.add({STREAMS[0]: raw(STREAMS[0], *ids)}, STREAMS)
    assert [e.entry_id for e in buffer.take()] == ids


def test_a_stream_with_count_entries_waiting_is_not_read_again() -> None:
    buffer = MergedBuffer(STREAMS, count=2)
    read = {STREAMS[0]: raw(STREAMS[0], "3-0", "4-0"), STREAMS[1]: raw(STREAMS[1], "1-0", "2-0")}
    buffer.add(read, STREAMS)
    # Both came back full: ms 2 and later may have unread company in tool-call.
    assert [e.entry_id for e in buffer.take()] == ["1-0"]
    assert buffer.wanted() == [STREAMS[1], STREAMS[2]]
    buffer.add({STREAMS[1]: raw(STREAMS[1], "3-1")}, [STREAMS[1], STREAMS[2]])
    # chat-turn was not read this time: it may have grown, so its 4-0 still bounds.
    assert [e.entry_id for e in buffer.take()] == ["2-0", "3-0", "3-1"]


def test_only_a_stream_that_came_back_full_leaves_the_reader_behind() -> None:
    """A read ahead pays only when some stream may hold more: one that returned COUNT."""
    buffer = MergedBuffer(STREAMS, count=2)
    buffer.add({STREAMS[0]: raw(STREAMS[0], "1-0")}, STREAMS)
    assert not buffer.behind()
    buffer.take()
    buffer.add({STREAMS[1]: raw(STREAMS[1], "2-0", "3-0")}, STREAMS)
    assert buffer.behind()
    # tool-call was not asked this time (two entries still wait): it may have grown.
    buffer.add({}, [STREAMS[0], STREAMS[2]])
    assert buffer.behind()


async def _xreadgroup_calls(client: redis.asyncio.Redis) -> int:
    stats: dict[str, dict[str, int]] = await client.info("commandstats")
    return int(stats.get("cmdstat_xreadgroup", {}).get("calls", 0))


@pytest.mark.asyncio
async def test_a_caught_up_worker_reads_once_per_input_r15(
    aredis: redis.asyncio.Redis, redis_url: str
) -> None:
    """Inputs written one at a time, each after the one before is committed (a steady load
    below the peak): one XREADGROUP per input, not a second read ahead that comes back
    empty (each was a round trip on the way to the next input's commit). The inputs are
    still all committed once, with the oracle's events (R15)."""
    workload = build(sessions=3, blocks=4, partitions=1)
    items = entries(workload)
    # A long block (below the socket timeout): few reads time out with nothing to read,
    # and those are allowed for below.
    block_s = 2.0
    settings = worker_settings(
        redis_url, partitions=1, block_ms=int(block_s * 1000), reclaim_idle_ms=60_000
    )
    async with running_worker(settings):
        ids: dict[str, list[tuple[int, int]]] = {}
        # Counted between two moments the worker is blocked in a read, so the count is the
        # same whether Redis counts a blocked read when it blocks (6.2) or when it
        # returns (7.x, Valkey): one per read that returned an input. Counted
        # from any other moment, a worker slow to issue its next read (a busy machine)
        # left the last read out on 6.2.
        await wait_for(lambda: _blocked_reading(aredis), 30)
        before, started = await _xreadgroup_calls(aredis), time.monotonic()
        for index, item in enumerate(items):
            for stream, written in (await write(aredis, [item])).items():
                ids.setdefault(stream, []).extend(written)

            async def committed(done: int = index + 1) -> bool:
                return await acked(aredis, ids) == done

            await wait_for(committed, 30)
        # Each input: the read that returns it, which is already blocked when it is
        # written. A read ahead doubled this (one that returned nothing per input).
        await wait_for(lambda: _blocked_reading(aredis), 30)
        reads = await _xreadgroup_calls(aredis) - before
        timed_out = (time.monotonic() - started) / block_s + 1
    assert len(items) <= reads <= len(items) + timed_out + 1
    check = await exactly_once(aredis, [workload])
    assert check["ok"], check


async def _blocked_reading(client: redis.asyncio.Redis) -> bool:
    """The worker's read is blocked in Redis, waiting for an input (client flag b)."""
    return any(
        c.get("cmd") == "xreadgroup" and "b" in c.get("flags", "")
        for c in await client.client_list()
    )


@pytest.mark.asyncio
async def test_merged_worker_commits_the_oracles_events_once_without_parking_r15(
    aredis: redis.asyncio.Redis, redis_url: str
) -> None:
    workload = build(sessions=60, blocks=4, partitions=2)
    # The test kit's 300 ms reclaim would take entries the reader holds back while a
    # loaded machine processes the batch before them: slower (they park), not wrong.
    settings = worker_settings(redis_url, partitions=2, batch_size=50, reclaim_idle_ms=60_000)
    async with running_worker(settings) as worker:
        ids = await write(aredis, entries(workload))
        total = len(workload.documents)

        async def all_acked() -> bool:
            return await acked(aredis, ids) == total

        await wait_for(all_acked, 60)
        registry = worker.metrics.registry
        parked = sum(
            registry.get_sample_value(
                "accord_input_entries_total", {"stream": family, "outcome": "parked"}
            )
            or 0
            for family in ("chat-turn", "tool-call", "tool-result")
        )
    check = await exactly_once(aredis, [workload])
    assert check["ok"], check
    assert check["events_committed"] == workload.flows * 4
    assert parked == 0


@pytest.mark.asyncio
async def test_the_merged_reader_reads_on_after_redis_connections_fail_r15(
    aredis: redis.asyncio.Redis, redis_url: str
) -> None:
    """Connections to Redis reset again and again for a second and a half (longer than
    redis-py's own retries): the reading loops log, back off and read on; every input is
    then applied exactly once, and the worker never failed."""
    target = urlsplit(redis_url)
    assert target.hostname, "a TCP Redis"
    assert target.port, "a TCP Redis"
    proxy = FaultProxy(target.hostname, target.port)
    await proxy.start()
    first, second = (build(sessions=20, blocks=2, partitions=2, prefix=p) for p in ("a", "b"))
    settings = worker_settings(proxy.url, partitions=2, reclaim_idle_ms=500)
    try:
        with capture_logs() as logs:
            async with running_worker(settings) as worker:
                ids = await write(aredis, entries(first))

                async def first_acked() -> bool:
                    return await acked(aredis, ids) == len(first.documents)

                await wait_for(first_acked, 60)
                for _ in range(30):
                    proxy.reset_all()
                    await asyncio.sleep(0.05)
                more = await write(aredis, entries(second))

                async def second_acked() -> bool:
                    return await acked(aredis, more) == len(second.documents)

                await wait_for(second_acked, 60)
                assert worker.exit_code == 0
                assert worker.health.fatal is None
    finally:
        await proxy.close()
    assert any(log["event"] == "redis_unavailable" for log in logs), "the resets reached a read"
    check = await exactly_once(aredis, [first, second])
    assert check["ok"], check


@pytest.mark.asyncio
@pytest.mark.usefixtures("redis_client")  # a flushed Redis: no layout of an earlier test
async def test_a_loop_that_ends_before_the_stop_fails_the_worker(redis_url: str) -> None:
    """A reading loop that dies of a bug must not leave a worker up that no longer reads:
    the worker exits 1 and its liveness probe says why."""

    async def broken() -> None:
        raise RuntimeError("a bug")

    async with running_worker(worker_settings(redis_url)) as worker:
        worker.spawn(broken(), "read-9")
        await asyncio.sleep(0.05)
        assert worker.exit_code == 1
        assert worker.health.fatal == "read-9 ended: RuntimeError: a bug"


def _drain(streams: dict[str, list[str]], count: int, rounds: int = 200) -> list[str]:
    """Drive MergedBuffer as merged_loop does, against finite streams (no new writes)."""
    buffer = MergedBuffer(list(streams), count)
    cursor = dict.fromkeys(streams, 0)
    handed: list[str] = []
    for _ in range(rounds):
        asked = buffer.wanted()
        read: dict[str, list[Entry]] = {}
        for stream in asked:
            ids = streams[stream][cursor[stream] : cursor[stream] + count]
            cursor[stream] += len(ids)
            if ids:
                read[stream] = raw(stream, *ids)
        buffer.add(read, asked)
        handed.extend(entry.entry_id for entry in buffer.take())
        if buffer.empty() and all(cursor[s] == len(ids) for s, ids in streams.items()):
            return handed
    raise AssertionError(f"no progress after {rounds} rounds: {len(handed)} handed over")


def test_exhausted_streams_holding_count_entries_in_one_millisecond_are_all_handed_over_r15() -> (
    None
):
    """Regression: every stream holds >= COUNT entries of one millisecond and nothing more
    can be read; the reader used to alternate which streams it read and never cut."""
    streams = {
        STREAMS[0]: ["5-0", "5-1", "5-2", "5-3"],
        STREAMS[1]: ["5-10", "5-11", "5-12"],
        STREAMS[2]: ["6-0", "6-1", "6-2"],
    }
    handed = _drain(streams, count=2)
    assert sorted(handed) == sorted(i for ids in streams.values() for i in ids)


@given(
    lengths=st.lists(st.integers(0, 12), min_size=3, max_size=3),
    spread=st.integers(1, 4),
    count=st.integers(1, 4),
    data=st.data(),
)
def test_any_finite_backlog_is_handed_over_once_and_in_id_order_per_stream_r15(
    lengths: list[int], spread: int, count: int, data: st.DataObject
) -> None:
    """Whatever the shape of a backlog, the merge hands every entry over exactly once,
    each stream's entries in their order, and terminates."""
    streams: dict[str, list[str]] = {}
    for number, (stream, length) in enumerate(zip(STREAMS, lengths, strict=True)):
        ms = sorted(data.draw(st.lists(st.integers(1, spread), min_size=length, max_size=length)))
        streams[stream] = [f"{m}-{number * 100 + i}" for i, m in enumerate(ms)]
    handed = _drain(streams, count)
    assert sorted(handed) == sorted(i for ids in streams.values() for i in ids)
    for ids in streams.values():
        assert [i for i in handed if i in ids] == ids


@pytest.mark.asyncio
@pytest.mark.parametrize("protocol", [2, 3])
async def test_the_readers_unparsed_replies_leave_the_shared_client_parsing_r15(
    aredis: redis.asyncio.Redis, redis_url: str, protocol: int
) -> None:
    """R15 (the merge orders by these ids): the reader builds its entries from XREADGROUP's
    reply as the server sent it (RESP2 or RESP3), on its own view of the worker's
    connections: the entries written, in order, ids parsed; and the worker's client (the
    reclaimer, the CLI) still gets redis-py's parsed replies."""
    stream = "chat-turn:{0}"
    await aredis.xgroup_create(stream, "g", id="0", mkstream=True)
    written = [as_text(await aredis.xadd(stream, {"__data__": f"{n}"})) for n in range(3)]
    client = redis.asyncio.Redis.from_url(redis_url, protocol=protocol)
    try:
        unparsed = _unparsed_reads(client)
        assert unparsed is not None
        execute: Any = unparsed.execute_command  # untyped in redis-py
        reply = await execute("XREADGROUP", "GROUP", "g", "c", "COUNT", 2, "STREAMS", stream, ">")
        assert isinstance(reply, dict if protocol == 3 else list)
        by_stream = entries_of_reply(reply)
        assert [(e.entry_id, e.fields, e.parsed) for e in by_stream[stream]] == [
            (w, {b"__data__": f"{n}".encode()}, EntryId.parse(w)) for n, w in enumerate(written[:2])
        ]
        # The shared client's own XREADGROUP is parsed as redis-py always did: pairs made a
        # dict (a stream's rows under its name with RESP3 asked for, in a list with RESP2).
        parsed: Any = await client.xreadgroup("g", "c", {stream: ">"}, count=2)
        rows = parsed[stream.encode()][0] if protocol == 3 else parsed[0][1]
        assert entries_of(stream, rows) == [
            Entry(stream, written[2], {b"__data__": b"2"}, 1, EntryId.parse(written[2]))
        ]
    finally:
        await client.aclose()
