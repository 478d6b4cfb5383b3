"""The commit mark: a fenced processor commits the scopes and sessions it remembers
without a version read per key, as long as the partition's mark is the one its own last
commit wrote (store/lua/commit.lua, docs/store.md "The commit mark"). Anything else that
committed the partition, and a Redis that lost a commit, moves the mark: the processor
forgets what it remembers and reloads, so every input still applies exactly once (R15).
"""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
import redis.asyncio
from accord_harness.reading import read_new

from contracts.streams import GROUP
from store import keys, scripts
from store.compaction import compact_idle_sessions
from store.ownership import Fence
from store.processor import PartitionProcessor
from store.scripts import LuaScript
from tests.store.test_store_gate import (
    SCOPE,
    applied,
    pending,
    processor,
    roll_back,
    rolled_back,
    send,
)
from tests.support.commit_spy import CommitSpy
from tests.support.fake_core import FakeCore

OWNER = "1:worker"


async def fenced(client: redis.asyncio.Redis, **config: Any) -> PartitionProcessor[Any, Any]:
    """A processor holding partition 0's lease, with a cache that keeps everything."""
    await client.hset(keys.lease_key(0), mapping={"o": OWNER, "e": 2**62})
    store = processor(client, cache_size=2_000, **config)
    store.set_fence(Fence(0, OWNER))
    return store


class Trusted:
    """Which units of each commit were sent as planned from the cache (`t`)."""

    def __init__(self, store: PartitionProcessor[Any, Any]) -> None:
        self.rounds: list[list[bool]] = []
        self.spy = CommitSpy(store)
        inner = self.spy.commit

        async def commit(table: Any, units: Any, token: str, *rest: Any) -> Any:
            plain = rest[2] if len(rest) > 2 else None  # (letters, fence, plain)
            self.rounds.append(
                [unit.trusted for unit in units] + [True] * (plain.units if plain else 0)
            )
            return await inner(table, units, token, *rest)

        store.committer.commit = commit  # type: ignore[method-assign, assignment]


async def batch(client: redis.asyncio.Redis, store: PartitionProcessor[Any, Any]) -> Any:
    return await store.process(await read_new(client, 0, GROUP, "c"))


async def lost_and_sent_again(client: redis.asyncio.Redis) -> Any:
    """Seq 1 and 2 committed by a fenced processor, then Redis loses the commit of seq 2
    (session, scope and the lease as they were after seq 1), and the gateway sends seq 2
    again: that batch's report."""
    store = await fenced(client)
    await send(client, 1)
    await batch(client, store)
    dumps = await rolled_back(
        client, keys.session_key(0, *SCOPE, "s"), keys.scope_key(0, *SCOPE), keys.lease_key(0)
    )
    await send(client, 2)
    await batch(client, store)
    await roll_back(client, dumps)
    assert await applied(client) == [1], "Redis lost the commit of seq 2"
    await send(client, 2)
    return await batch(client, store)


@pytest.mark.redis
@pytest.mark.asyncio
async def test_a_remembered_session_commits_on_the_mark_alone_r15(
    client: redis.asyncio.Redis,
) -> None:
    """R15: the first commit has no mark to rely on and checks versions; the next batch
    of the same session is planned from the cache and sent trusted; both apply once."""
    store = await fenced(client)
    seen = Trusted(store)
    await send(client, 1)
    await batch(client, store)
    await send(client, 2)
    report = await batch(client, store)
    assert seen.rounds == [[False], [True]]
    assert report.outcomes == {"applied": 1}
    assert await applied(client) == [1, 2]
    mark: Any = await client.hget(keys.lease_key(0), "m")
    assert mark.decode() == store.committer.mark


@pytest.mark.redis
@pytest.mark.asyncio
async def test_an_unfenced_processor_never_trusts_its_cache_r15(
    client: redis.asyncio.Redis,
) -> None:
    """R15: without a lease nothing says this processor is the partition's only writer,
    so every commit checks versions (its commits still move the mark, for any fenced
    processor of the partition to see)."""
    store = processor(client, cache_size=2_000)
    seen = Trusted(store)
    await send(client, 1)
    await batch(client, store)
    await send(client, 2)
    await batch(client, store)
    assert seen.rounds == [[False], [False]]
    assert store.committer.mark is None
    assert await client.hget(keys.lease_key(0), "m") is not None


@pytest.mark.redis
@pytest.mark.asyncio
async def test_another_writer_moves_the_mark_and_the_cache_is_reloaded_r15(
    client: redis.asyncio.Redis,
) -> None:
    """R15: a second processor commits the session between two batches of the first
    (an overlap the fence rules out in production, as after a takeover): the first's
    trusted unit finds the mark moved, forgets its cache, reloads, and applies seq 3
    after the other's seq 2 instead of writing over it."""
    store = await fenced(client)
    await send(client, 1)
    await batch(client, store)
    other = processor(client)
    await send(client, 2)
    await other.process(await read_new(client, 0, GROUP, "other"))
    seen = Trusted(store)
    await send(client, 3)
    report = await batch(client, store)
    assert seen.rounds == [[True], [False]], "refused trusted, then reloaded and checked"
    assert report.outcomes == {"applied": 1}
    assert await applied(client) == [1, 2, 3]
    assert await pending(client) == 0


@pytest.mark.redis
@pytest.mark.asyncio
async def test_a_commit_redis_lost_brings_an_old_mark_back_and_is_applied_again_r15(
    client: redis.asyncio.Redis,
) -> None:
    """R15 under Redis write loss: Redis loses the commit of seq 2 (session, scope and the
    lease's mark as they were after seq 1); the gateway sends seq 2 again. The cache says
    seq 2 was applied, but the mark is not the one the processor last wrote, so seq 2 is
    reloaded and applied, not acked as a duplicate."""
    report = await lost_and_sent_again(client)
    assert report.outcomes == {"applied": 1}
    assert await applied(client) == [1, 2]
    assert await pending(client) == 0


@pytest.mark.redis
@pytest.mark.asyncio
async def test_a_planted_trust_without_the_mark_is_caught(
    client: redis.asyncio.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rollback test above can fail: a commit script that trusts the cache whatever
    the mark says acks the re-sent seq 2 as a duplicate, and Redis keeps [1]."""
    source = scripts.COMMIT.source
    planted = source.replace(
        "trusted = plan.pm ~= nil and lease[2] == plan.pm", "trusted = plan.pm ~= nil"
    )
    assert planted != source
    sha = hashlib.sha1(planted.encode()).hexdigest()  # noqa: S324  (Redis names scripts by SHA-1)
    monkeypatch.setattr("store.commit.COMMIT", LuaScript("commit", planted, sha))
    report = await lost_and_sent_again(client)
    assert report.outcomes == {"duplicate": 1}
    assert await applied(client) == [1], "the planted bug loses seq 2"


@pytest.mark.redis
@pytest.mark.asyncio
async def test_a_compaction_by_another_pass_moves_the_mark_r15(
    client: redis.asyncio.Redis,
) -> None:
    """R15: a retention pass that is not this processor's (another worker's sweeper, a
    manual one) compacts a session this processor remembers: the pass replaces the mark,
    so the processor's next batch of that session is refused trusted and reloaded from
    what the compaction left, not written over it from the cache."""
    store = await fenced(client, session_retention_ms=1_000)
    await send(client, 1, 2)
    await batch(client, store)
    done = await compact_idle_sessions(client, 0, FakeCore(), 1_000, 2**50)
    assert done.compacted == 1
    assert await client.hget(keys.session_key(0, *SCOPE, "s"), "c") is None
    seen = Trusted(store)
    await send(client, 3)
    report = await batch(client, store)
    assert seen.rounds == [[True], [False]], "refused trusted, then reloaded and checked"
    assert report.outcomes == {"applied": 1}
    assert await applied(client) == [3], "applied to the compacted state, not the cached one"
