"""A large batch commits in several scripts, each holding whole scopes (R15).

One script holds Redis for its whole run, so a batch of thousands of entries in one
commit would make every other client wait for all of it. The processor cuts a batch's
scopes into commits of about `StoreConfig.commit_entries` input entries; a scope (its
unit: every session of it, every drain) is never cut, so each unit stays atomic, and
admission's dead letters are written once, with the first commit. The cut itself is
pure; the batches run against a real Redis with the store's small fake core.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import redis.asyncio
from accord_harness.reading import read_new
from accord_harness.store_harness import chat

from contracts.streams import DATA_FIELD, GROUP
from store import keys
from store.commit import commit_chunks
from store.config import StoreConfig
from store.gate import Arrival
from store.ownership import Fence, LeaseLost
from store.processor import PartitionProcessor
from store.work import ScopeId, ScopeWork
from tests.support.commit_spy import CommitSpy
from tests.support.fake_core import FakeCore


def _work(sizes: dict[str, int]) -> dict[ScopeId, ScopeWork]:
    """A batch's work: scope ("agent", name) with that many arrivals (of one session)."""
    work: dict[ScopeId, ScopeWork] = {}
    for name, size in sizes.items():
        unit = work[("agent", name)] = ScopeWork()
        unit.arrivals["s"] = [
            Arrival("chat-turn:{0}", f"{n + 1}-0", None, b"") for n in range(size)
        ]
    return work


def test_scopes_are_cut_by_entries_in_order_and_never_split() -> None:
    """R15: in scope order, a chunk closes once it holds `entries` inputs; one scope of
    more than that is a chunk of its own, whole."""
    work = _work({"d": 1, "a": 3, "c": 12, "b": 2})
    chunks = commit_chunks(work, 5)
    assert chunks == [[("agent", "a"), ("agent", "b")], [("agent", "c")], [("agent", "d")]]
    assert commit_chunks(work, 1_000) == [sorted(work)]


def test_a_batch_with_no_scope_still_has_one_commit_for_its_letters() -> None:
    """R15: a batch of dead letters only is committed (and acked) once, not dropped."""
    assert commit_chunks({}, 5) == [[]]


async def _write(client: redis.asyncio.Redis, scopes: int, seqs: int) -> None:
    pipe = client.pipeline(transaction=False)
    for seq in range(1, seqs + 1):
        for index in range(scopes):
            document = chat(("agent", f"user-{index:02d}"), "s", seq, f"turn {seq}")
            pipe.xadd("chat-turn:{0}", {DATA_FIELD: json.dumps(document)})
    pipe.xadd("chat-turn:{0}", {DATA_FIELD: b"not json"})
    await pipe.execute()


async def _applied(client: redis.asyncio.Redis, scope: tuple[str, str]) -> list[int]:
    raw: Any = await client.hget(keys.session_key(0, *scope, "s"), "c")
    return list(FakeCore().decode_session(raw, "s").seqs) if raw else []


@pytest.mark.redis
@pytest.mark.asyncio
async def test_a_large_batch_commits_in_scripts_of_whole_scopes_r15(
    client: redis.asyncio.Redis,
) -> None:
    """R15: 30 inputs of 10 scopes and one undecodable entry, read as one batch, with
    commits of 6 entries: five scripts of two scopes each, the letter in the first only;
    every input applied once, in order, and nothing left pending."""
    store = PartitionProcessor(client, 0, FakeCore(), StoreConfig(commit_entries=6))
    counted = CommitSpy(store)
    await _write(client, scopes=10, seqs=3)
    entries = await read_new(client, 0, GROUP, "c", count=100)
    assert len(entries) == 31, "one batch"
    report = await store.process(entries)
    assert counted.calls == [(2, 1), (2, 0), (2, 0), (2, 0), (2, 0)]
    assert report.outcomes["applied"] == 30
    assert report.outcomes["dead_letter"] == 1
    assert await client.xlen(keys.dead_letters_stream(0)) == 1
    for index in range(10):
        assert await _applied(client, ("agent", f"user-{index:02d}")) == [1, 2, 3]
    summary: Any = await client.xpending("chat-turn:{0}", GROUP)
    assert summary["pending"] == 0


@pytest.mark.redis
@pytest.mark.asyncio
async def test_a_scope_larger_than_a_commit_is_committed_whole_r15(
    client: redis.asyncio.Redis,
) -> None:
    """R15: one scope's 12 inputs with commits of 5 entries: one script, all applied."""
    store = PartitionProcessor(client, 0, FakeCore(), StoreConfig(commit_entries=5))
    counted = CommitSpy(store)
    await _write(client, scopes=1, seqs=12)
    report = await store.process(await read_new(client, 0, GROUP, "c", count=100))
    assert counted.calls == [(1, 1)]
    assert report.outcomes["applied"] == 12
    assert await _applied(client, ("agent", "user-00")) == list(range(1, 13))


@pytest.mark.redis
@pytest.mark.asyncio
async def test_a_lease_lost_between_two_commits_keeps_the_first_and_writes_nothing_after(
    client: redis.asyncio.Redis,
) -> None:
    """R15: the partition's lease is taken over after the first of a batch's scripts:
    that script's scopes stay committed (whole), the next script is refused before any
    write (LeaseLost), and its entries stay pending for the new owner."""
    lease = keys.lease_key(0)
    await client.hset(lease, mapping={"o": "1:old", "e": 2**62})
    store = PartitionProcessor(client, 0, FakeCore(), StoreConfig(commit_entries=3))
    store.set_fence(Fence(0, "1:old"))

    async def taken_over_after_first(call: int) -> None:
        if call == 2:
            await client.hset(lease, "o", "2:new")

    counted = CommitSpy(store, before=taken_over_after_first)
    await _write(client, scopes=2, seqs=3)
    with pytest.raises(LeaseLost):
        await store.process(await read_new(client, 0, GROUP, "c", count=100))
    assert counted.calls == [(1, 1), (1, 0)]
    assert await _applied(client, ("agent", "user-00")) == [1, 2, 3]
    assert await _applied(client, ("agent", "user-01")) == []
    summary: Any = await client.xpending("chat-turn:{0}", GROUP)
    assert summary["pending"] == 3, "the second scope's entries wait for the new owner"
