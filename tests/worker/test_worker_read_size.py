"""A read's COUNT follows the bytes of the entries read lately (worker/read_size.py).

XREADGROUP bounds a read by entries only; at 2,000 entries per stream a backlog of large
tool results would come back as hundreds of MB in one reply. What must hold: reads of
small entries ask for the whole batch size, reads of large ones for as many as fit the
byte budget (never fewer than MIN_COUNT, never more than the batch size), a worker that
starts on large entries reads few first, a larger entry size counts at once and a
smaller one gradually; the merge judges a stream full by the COUNT its read asked with;
and a worker reading that way still commits every input exactly once (R15).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import redis.asyncio
from accord_harness.bench.endtoend import acked, write
from accord_harness.store_harness import chat

from contracts.streams import Entry
from store import keys
from tests.support.worker_kit import wait_for, worker_settings
from worker.app import build_worker, store_partition
from worker.merged_reader import MergedBuffer
from worker.read_size import MIN_COUNT, ReadSize

STREAMS = ("chat-turn:{0}", "tool-call:{0}", "tool-result:{0}")
KIB = 1024
BUDGET = 4 * KIB * KIB


def sized(stream: str, n: int, size: int, first_ms: int = 1) -> list[Entry]:
    return [Entry(stream, f"{first_ms + i}-0", {b"__data__": b"x" * size}) for i in range(n)]


def test_before_any_read_the_entry_limit_is_assumed() -> None:
    """A worker starting on a backlog of entries at the limit reads a few of them first."""
    assert ReadSize(2000, BUDGET, 3, 256 * KIB).count == MIN_COUNT
    assert ReadSize(2000, BUDGET, 3, 1 * KIB).count == BUDGET // (3 * KIB)


def test_small_entries_read_the_whole_batch_size() -> None:
    size = ReadSize(2000, BUDGET, 3, 256 * KIB)
    size.observe(STREAMS[0], sized(STREAMS[0], 10, 300))
    assert size.count == 2000


def test_large_entries_shrink_the_count_at_once_and_small_ones_widen_it_gradually() -> None:
    size = ReadSize(2000, BUDGET, 3, 256 * KIB)
    size.observe(STREAMS[2], sized(STREAMS[2], 10, 300))
    assert size.count == 2000
    size.observe(STREAMS[2], sized(STREAMS[2], 10, 100 * KIB))
    assert size.count == BUDGET // (3 * 100 * KIB)
    counts = []
    for _ in range(40):
        size.observe(STREAMS[2], sized(STREAMS[2], 10, 300))
        counts.append(size.count)
    assert counts[0] < 2 * BUDGET // (3 * 100 * KIB), "one small read does not open it wide"
    assert counts == sorted(counts), "it widens step by step"
    assert counts[-1] == 2000


def test_the_largest_streams_entries_bound_every_streams_count() -> None:
    size = ReadSize(2000, BUDGET, 3, 256 * KIB)
    size.observe(STREAMS[0], sized(STREAMS[0], 10, 300))
    size.observe(STREAMS[2], sized(STREAMS[2], 10, 64 * KIB))
    assert size.count == BUDGET // (3 * 64 * KIB)


def test_a_stream_gone_quiet_stops_keeping_the_reads_small() -> None:
    """One large tool result, then only chat: the tool-result stream's empty reads take
    its estimate down a quarter each, so the reads open again (a buffer as the loop
    drives it: asked streams that came back empty)."""
    buffer = MergedBuffer(STREAMS, 2000, ReadSize(2000, BUDGET, 3, 256 * KIB))
    buffer.add({STREAMS[2]: sized(STREAMS[2], 1, 200 * KIB)}, list(STREAMS))
    assert buffer.count == MIN_COUNT
    counts = []
    for index in range(40):
        chat_turns = sized(STREAMS[0], 5, 300, first_ms=10 + 5 * index)
        buffer.add({STREAMS[0]: chat_turns}, list(STREAMS))
        buffer.take()
        counts.append(buffer.count)
    assert counts == sorted(counts)
    assert counts[-1] == 2000
    # A stream not asked keeps its estimate: nothing was learnt about it.
    size = ReadSize(2000, BUDGET, 3, 256 * KIB)
    size.observe(STREAMS[2], sized(STREAMS[2], 1, 200 * KIB))
    quiet = MergedBuffer(STREAMS, 2000, size)
    for _ in range(20):
        quiet.add({}, [STREAMS[0]])
    assert quiet.count == MIN_COUNT


def test_every_field_counts_and_an_empty_read_changes_nothing() -> None:
    size = ReadSize(2000, BUDGET, 3, 256 * KIB)
    two = [Entry(STREAMS[0], "1-0", {b"__data__": b"x" * 1000, b"other": b"y" * 3000})]
    size.observe(STREAMS[0], two)
    assert size.count == BUDGET // (3 * 4000)
    size.observe(STREAMS[1], [])
    assert size.count == BUDGET // (3 * 4000)


def test_no_budget_is_the_batch_size_and_a_small_batch_size_is_kept() -> None:
    unbounded = ReadSize(2000, 0, 3, 256 * KIB)
    unbounded.observe(STREAMS[0], sized(STREAMS[0], 10, 200 * KIB))
    assert unbounded.count == 2000
    assert ReadSize(5, BUDGET, 3, 256 * KIB).count == 5  # below MIN_COUNT: the setting wins


def test_a_stream_is_full_by_the_count_its_read_asked_for_r15() -> None:
    """A read ahead asked for 10 while the count was 10; it lands after the count grew
    to 2,000. Its 10 entries still mean the stream may hold more, so nothing after the
    last one read is handed over past it (R15: id order across the streams)."""
    buffer = MergedBuffer(STREAMS, 2000, ReadSize(2000, BUDGET, 3, 256 * KIB))
    assert buffer.count == MIN_COUNT
    buffer.add({STREAMS[1]: sized(STREAMS[1], 3, 300, first_ms=1)}, list(STREAMS))
    assert buffer.count == 2000
    chat_turns = sized(STREAMS[0], MIN_COUNT, 300, first_ms=1)
    late_call = sized(STREAMS[1], 1, 300, first_ms=50)
    buffer.add({STREAMS[0]: chat_turns, STREAMS[1]: late_call}, list(STREAMS), MIN_COUNT)
    assert STREAMS[0] in buffer.full
    handed = buffer.take()
    assert all(entry.id().ms < chat_turns[-1].id().ms for entry in handed)
    assert late_call[0] not in handed


@pytest.mark.redis
@pytest.mark.asyncio
async def test_a_worker_reads_large_entries_a_few_at_a_time_and_commits_each_once_r15(
    aredis: redis.asyncio.Redis, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """R15: 40 chat turns of 40 KB, then 200 small ones, one session: the worker's reads
    ask for a few entries while the large ones come (what fits 4 MiB), then for the whole
    batch size; every turn is applied once, in order."""
    scope, session = ("agent", "user-read-size"), "s-read-size"
    large = [chat(scope, session, seq, "x" * (40 * KIB)) for seq in range(1, 41)]
    small = [chat(scope, session, seq, "hello there") for seq in range(41, 241)]
    settings = worker_settings(
        redis_url, partitions=1, batch_size=2000, read_bytes=BUDGET, reclaim_idle_ms=60_000
    )
    worker = build_worker(settings, store_partition)
    counts: list[tuple[int, int]] = []  # (COUNT asked, entries written before the read)
    written = 0
    execute: Any = redis.asyncio.Redis.execute_command  # untyped in redis-py

    async def counted(self: redis.asyncio.Redis, *args: Any, **options: Any) -> Any:
        # Every client's commands pass here, whether the reader sends its XREADGROUP
        # itself (text arguments) or through redis-py's `xreadgroup` (bytes `COUNT`).
        if args[0] == "XREADGROUP":
            at = next(i for i, arg in enumerate(args) if arg in {"COUNT", b"COUNT"})
            counts.append((int(args[at + 1]), written))
        return await execute(self, *args, **options)

    monkeypatch.setattr(redis.asyncio.Redis, "execute_command", counted)
    await worker.start()
    try:
        ids: dict[str, list[tuple[int, int]]] = {}
        for document in large + small:
            for stream, more in (
                await write(aredis, [(STREAMS[0], json.dumps(document).encode())])
            ).items():
                ids.setdefault(stream, []).extend(more)
            written += 1

        async def all_acked() -> bool:
            return await acked(aredis, ids) == len(large) + len(small)

        await wait_for(all_acked, 60)
    finally:
        await worker.stop()
    # Reads issued before the last large entry was written saw only large ones (one issued
    # just after it may already return a small one and have moved the estimate).
    while_large = [count for count, before in counts if before < len(large)]
    assert counts[0][0] == MIN_COUNT, "nothing read yet: entries at the limit assumed"
    assert max(while_large) <= BUDGET // (3 * 40 * KIB)
    assert counts[-1][0] == 2000, "small entries again: the whole batch size"
    # Every turn applied, in order, none dead-lettered: the session expects the next seq.
    next_seq: Any = await aredis.hget(keys.session_key(0, *scope, session), "n")
    assert int(next_seq) == len(large) + len(small) + 1
    assert await aredis.xlen(keys.dead_letters_stream(0)) == 0
