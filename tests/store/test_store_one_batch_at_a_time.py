"""A partition's batches run one at a time, whoever hands them over (R15).

The worker's reader, its reclaimer, a takeover's claim and the sweeper all hand work to
the same processor. Run together, they commit the same scopes, and the one whose versions
moved under its plan reloads and retries; a large reclaimed batch lost that race round
after round, stayed pending, and was delivered again until its inputs became dead
letters at the delivery limit (the chaos run with kills, at 1,000 entries per read).
Against a real Redis with the store's small fake core.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

import pytest
import redis.asyncio
from accord_harness.reading import read_new
from accord_harness.store_harness import chat

from contracts.streams import DATA_FIELD, GROUP
from store import keys
from store.config import StoreConfig
from store.processor import PartitionProcessor
from tests.support.commit_spy import CommitSpy
from tests.support.fake_core import FakeCore

SCOPES = [("agent", f"user-{index}") for index in range(20)]


async def _write(client: redis.asyncio.Redis, seqs: range) -> None:
    pipe = client.pipeline(transaction=False)
    for seq in seqs:
        for scope in SCOPES:
            pipe.xadd("chat-turn:{0}", {DATA_FIELD: json.dumps(chat(scope, "s", seq, "hi"))})
    await pipe.execute()


@pytest.mark.redis
@pytest.mark.asyncio
async def test_two_batches_of_the_same_scopes_handed_over_together_commit_once_each_r15(
    client: redis.asyncio.Redis,
) -> None:
    """R15: two batches of the same 20 scopes, processed concurrently: one runs after the
    other, so each commits once (no version race, no retry), and every input is applied
    once, in order."""
    store = PartitionProcessor(client, 0, FakeCore(), StoreConfig())
    inner_load = store.state.load
    # The second batch loaded its state: a race, if the first has not committed yet.
    second_loaded = asyncio.Event()
    loads = 0

    async def load(*args: Any) -> Any:
        nonlocal loads
        loads += 1
        if loads == 2:
            second_loaded.set()
        return await inner_load(*args)

    async def hold_the_first(call: int) -> None:
        if call == 1:
            # Give the second batch every chance to load before this commit lands; one
            # at a time, it cannot, and this waits out the timeout.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(second_loaded.wait(), 1.0)

    store.state.load = load  # type: ignore[method-assign,assignment]
    commits = CommitSpy(store, before=hold_the_first)
    await _write(client, range(1, 3))
    first = await read_new(client, 0, GROUP, "c", count=len(SCOPES))
    second = await read_new(client, 0, GROUP, "c", count=len(SCOPES))
    reports = await asyncio.gather(store.process(first), store.process(second))
    assert commits.units == [len(SCOPES), len(SCOPES)], "one commit per batch, none retried"
    assert [report.outcomes["applied"] for report in reports] == [len(SCOPES)] * 2
    for scope in SCOPES:
        raw: Any = await client.hget(keys.session_key(0, *scope, "s"), "c")
        assert list(FakeCore().decode_session(raw, "s").seqs) == [1, 2]
