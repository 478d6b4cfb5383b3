"""Suspects (docs/store.md, "Suspects"): an entry past the delivery limit is tried alone
before it may become a dead letter, so workers dying for other reasons never make good
input a dead letter (R15: each input takes effect once, whatever the delivery)."""

from __future__ import annotations

from typing import Any

import pytest
import redis.asyncio
from accord_harness.reading import read_new
from accord_harness.store_harness import chat, xadd

from contracts.outputs import DeadLetterReason
from contracts.streams import GROUP, Entry
from store import keys, suspects
from store.config import StoreConfig
from store.crash import CrashHook, CrashPoint
from store.dead_letters import list_dead_letters
from store.intake import reclaim_pending
from store.processor import PartitionProcessor
from tests.support.fake_core import FakeCore

SCOPE = ("agent", "user")
GROUP_PARTITIONS = (0,)


class DiedError(Exception):
    """Stands for the worker's death at a commit (the try is counted, nothing written)."""


class DiesAtFirstCommit:
    """A crash hook that kills the first commit of its processor."""

    def __init__(self) -> None:
        self.fired = False

    def __call__(self, point: CrashPoint) -> None:
        if point == "before_commit" and not self.fired:
            self.fired = True
            raise DiedError


async def past_the_limit(client: redis.asyncio.Redis, deliveries: int) -> list[Entry]:
    """The pending entries of chat-turn:{0}, delivered `deliveries` times: read once by a
    consumer that died, then claimed by one new owner after another."""
    await read_new(client, 0, GROUP, "first")
    entries: list[Entry] = []
    for claim in range(deliveries - 1):
        entries = (await reclaim_pending(client, 0, GROUP, f"owner-{claim}", min_idle_ms=0)).entries
    return entries


async def pending(client: redis.asyncio.Redis) -> int:
    summary: Any = await client.xpending("chat-turn:{0}", GROUP)
    return int(summary["pending"])


@pytest.mark.redis
@pytest.mark.asyncio
async def test_good_entries_past_the_delivery_limit_are_applied_not_dead_lettered(
    client: redis.asyncio.Redis,
) -> None:
    """Eleven owners died holding two good entries: the twelfth applies both, each in a
    commit of its own, and leaves no letter and no suspect behind (R15)."""
    await xadd(client, chat(SCOPE, "s", 1, "hello"), 1)
    await xadd(client, chat(SCOPE, "t", 1, "hi"), 1)
    entries = await past_the_limit(client, 12)
    assert [e.delivery_count for e in entries] == [12, 12]
    report = await PartitionProcessor(client, 0, FakeCore(), StoreConfig()).process(entries)
    assert report.outcomes["applied"] == 2
    assert report.outcomes["dead_letter"] == 0
    assert sorted(report.suspects.values()) == [1, 1]
    assert await list_dead_letters(client, 0) == []
    assert await pending(client) == 0
    assert await client.exists(keys.suspects_key(0)) == 0


@pytest.mark.redis
@pytest.mark.asyncio
async def test_ordinary_entries_commit_before_the_suspects_of_their_batch(
    client: redis.asyncio.Redis,
) -> None:
    """A batch of an ordinary entry and a suspect: the ordinary one commits even when the
    suspect's try dies (the rest of the batch never waits on a suspect)."""
    await xadd(client, chat(SCOPE, "old", 1, "hello"), 1)
    [suspect] = await past_the_limit(client, 11)
    await xadd(client, chat(SCOPE, "new", 1, "hi"), 1)
    [ordinary] = await read_new(client, 0, GROUP, "owner")
    # The ordinary entries' commit passes; the suspect's try, the second commit, dies.
    processor = PartitionProcessor(client, 0, FakeCore(), StoreConfig(), _second_commit_dies())
    with pytest.raises(DiedError):
        await processor.process([suspect, ordinary])
    assert await pending(client) == 1, "the ordinary entry was committed"
    assert await suspects.tries(client, 0, [suspect]) == [1]


def _second_commit_dies() -> CrashHook:
    commits = 0

    def hook(point: CrashPoint) -> None:
        nonlocal commits
        if point == "before_commit":
            commits += 1
            if commits == 2:
                raise DiedError

    return hook


@pytest.mark.redis
@pytest.mark.asyncio
async def test_deaths_spread_over_the_suspects_fewest_tries_first(
    client: redis.asyncio.Redis,
) -> None:
    """Four owners in a row die at their first commit, a try alone of one of two good
    suspects: fewest tries first, the deaths land on both (two tries each), so neither
    reaches `suspect_attempts` (3) and the fifth owner applies both. Tried in plain
    order, the first suspect would carry all four deaths and become a dead letter."""
    await xadd(client, chat(SCOPE, "a", 1, "hello"), 1)
    await xadd(client, chat(SCOPE, "b", 1, "hi"), 1)
    entries = await past_the_limit(client, 11)
    for _ in range(4):
        crash = DiesAtFirstCommit()
        processor = PartitionProcessor(client, 0, FakeCore(), StoreConfig(), crash)
        with pytest.raises(DiedError):
            await processor.process(entries)
    assert await suspects.tries(client, 0, entries) == [2, 2]
    report = await PartitionProcessor(client, 0, FakeCore(), StoreConfig()).process(entries)
    assert report.outcomes["applied"] == 2
    assert await list_dead_letters(client, 0) == []
    assert await pending(client) == 0


@pytest.mark.redis
@pytest.mark.asyncio
async def test_a_suspect_whose_every_try_dies_is_given_up_once(
    client: redis.asyncio.Redis,
) -> None:
    """One suspect, and every try alone dies: after `suspect_attempts` tries the next
    delivery writes its dead letter (`delivery_limit`, deliveries and tries in the
    detail, session and seq kept), acks it and forgets it; a second pass writes nothing."""
    await xadd(client, chat(SCOPE, "s", 1, "hello"), 1)
    entries = await past_the_limit(client, 11)
    config = StoreConfig(suspect_attempts=3)
    for _ in range(3):
        processor = PartitionProcessor(client, 0, FakeCore(), config, DiesAtFirstCommit())
        with pytest.raises(DiedError):
            await processor.process(entries)
    report = await PartitionProcessor(client, 0, FakeCore(), config).process(entries)
    assert report.outcomes["dead_letter"] == 1
    [(_, letter)] = await list_dead_letters(client, 0)
    assert letter.reason is DeadLetterReason.DELIVERY_LIMIT
    assert letter.detail == "delivered 11 times (limit 10); 3 tries alone did not commit it"
    assert (letter.session_id, letter.seq) == ("s", 1)
    assert await pending(client) == 0
    assert await client.exists(keys.suspects_key(0)) == 0
    await PartitionProcessor(client, 0, FakeCore(), config).process(entries)
    assert len(await list_dead_letters(client, 0)) == 1


def test_fewest_tries_first_keeps_the_given_order_among_equals() -> None:
    """The order of tries alone: fewest first, ties as read (in id order)."""
    entries = [Entry("chat-turn:{0}", f"{i}-0", {}, 11) for i in range(4)]
    ordered = suspects.fewest_tries_first(entries, [2, 0, 1, 0])
    assert [e.entry_id for e in ordered] == ["1-0", "3-0", "2-0", "0-0"]
