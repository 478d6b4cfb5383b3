"""Poison input never stops the worker: each bad entry ends in dead letters with its reason.

The worker runs in this event loop (the same FastStream app as `accord worker`) on a
real Redis with the real store and core; a gateway publishes good sessions beside
the bad entries, and the test checks both the dead letters and that the good
sessions were applied (R15: nothing dropped silently).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from redis.asyncio import Redis

from contracts.codec import Limits
from contracts.inputs import InputEvent
from contracts.outputs import DeadLetter, DeadLetterReason, StateChanged
from contracts.streams import DATA_FIELD, stream_name
from core.lifecycle.state import ScopeState, SessionState
from store import keys
from store.commit_plan import KeyTable
from store.core_port import CoreStep
from store.dead_letters import list_dead_letters
from store.keys import ident
from store.processor import PartitionProcessor
from tests.support.commit_spy import CommitSpy
from tests.support.input_kit import user_turn
from tests.support.worker_kit import now_s, running_worker, wait_for, worker_settings
from worker.app import PartitionPort
from worker.engine import Engine
from worker.gateway import Gateway
from worker.settings import Settings

pytestmark = [pytest.mark.asyncio, pytest.mark.redis, pytest.mark.timeout(240)]

T0 = now_s()


# No consumer group from conftest's `client`: the workers and tests here make their own.
GROUP_PARTITIONS: tuple[int, ...] = ()


def turn(session: str, seq: int, text: str, user: str = "u1") -> dict[str, Any]:
    return user_turn(("a1", user), session, seq, text, T0 + timedelta(seconds=seq))


PROPOSAL = "Let's agree: start every plan with the conclusion."


async def letters(redis: Redis) -> list[DeadLetter]:
    return [letter for _, letter in await list_dead_letters(redis, 0)]


async def proposals(gateway: Gateway, session: str) -> list[StateChanged]:
    await gateway.read_events()
    return [e for e in gateway.events if isinstance(e, StateChanged) and e.session_id == session]


async def test_undecodable_entry_is_dead_lettered_at_once_and_others_proceed(
    client: Redis, redis_url: str
) -> None:
    """Not JSON: dead letter `undecodable` on its first delivery; the good session applies (R15)."""
    async with running_worker(worker_settings(redis_url)):
        gateway = Gateway(client, 1)
        await gateway.mark_start()
        await client.xadd(stream_name("chat-turn", 0), {DATA_FIELD: b"{not json"})
        await client.xadd(stream_name("chat-turn", 0), {b"other": b"no data field"})
        await gateway.publish(turn("good", 1, PROPOSAL))
        await wait_for(lambda: _count(client, 2))
        await gateway.wait_processed()
        found = await letters(client)
        assert {letter.reason for letter in found} == {DeadLetterReason.UNDECODABLE}
        assert all(letter.delivery_count == 1 for letter in found)
        assert [e.to_state.value for e in await proposals(gateway, "good")] == ["proposed"]


async def test_oversize_entry_is_dead_lettered_with_reason_oversize(
    client: Redis, redis_url: str
) -> None:
    """A turn over the configured text limit: dead letter `oversize`; the next session applies."""
    settings = worker_settings(redis_url, limits=Limits(max_text_bytes=200))
    async with running_worker(settings):
        gateway = Gateway(client, 1)
        await gateway.mark_start()
        await gateway.publish(turn("big", 1, "Let's agree: " + "x" * 500))
        await gateway.publish(turn("small", 1, PROPOSAL))
        await gateway.wait_processed()
        found = await letters(client)
        assert [letter.reason for letter in found] == [DeadLetterReason.OVERSIZE]
        assert "200 bytes" in found[0].detail
        assert [e.to_state.value for e in await proposals(gateway, "small")] == ["proposed"]


class ExplodingEngine(Engine):
    """The real core, except that applying any input of one session raises (a bug)."""

    def apply(
        self,
        scope: ScopeState,
        session: SessionState,
        event: InputEvent,
        stream: str,
        entry_id: str,
    ) -> CoreStep[ScopeState, SessionState]:
        if event.session_id == "boom" and event.seq == 1:
            raise RuntimeError("the core failed on this input")
        return super().apply(scope, session, event, stream, entry_id)


def exploding(redis: Any, partition: int, settings: Settings) -> PartitionPort:
    processor: PartitionPort = PartitionProcessor(
        redis, partition, ExplodingEngine(), settings.store
    )
    return processor


async def test_an_input_the_core_fails_on_is_dead_lettered_at_once_and_its_session_goes_on(
    client: Redis, redis_url: str
) -> None:
    """R15: the core raises on one input: it becomes a dead letter `uncommittable` naming
    the error on its first delivery (the core is pure: a retry fails the same way), the
    other sessions of its batch apply, and its session's next seq applies at once."""
    settings = worker_settings(redis_url)
    async with running_worker(settings, exploding):
        gateway = Gateway(client, 1)
        await gateway.mark_start()
        # Other sessions and the bad one, in one burst: they share a batch.
        await gateway.publish(turn("before", 1, PROPOSAL, user="u2"))
        boom = await gateway.publish(turn("boom", 1, PROPOSAL, user="u3"))
        await gateway.publish(turn("after", 1, PROPOSAL, user="u4"))
        await gateway.publish(turn("boom", 2, PROPOSAL, user="u3"))
        await gateway.wait_processed()
        found = await letters(client)
        assert [(letter.reason, letter.entry_id) for letter in found] == [
            (DeadLetterReason.UNCOMMITTABLE, boom)
        ]
        assert found[0].delivery_count == 1
        assert "RuntimeError: the core failed on this input" in found[0].detail
        assert (found[0].session_id, found[0].seq) == ("boom", 1)
        assert await _has_proposal(gateway, "before", "after", "boom")


def fail_on_boom(table: KeyTable) -> None:
    """Every commit that writes session "boom" fails in Redis, on every try."""
    if any(name.endswith(f":{ident('boom')}") for name in table.names):
        raise ConnectionError("Redis went away during the commit")


def exploding_store(redis: Any, partition: int, settings: Settings) -> PartitionPort:
    processor = PartitionProcessor(redis, partition, Engine(), settings.store)
    CommitSpy(processor, check=fail_on_boom)
    port: PartitionPort = processor
    return port


async def test_entry_failing_every_time_ends_in_dead_letters_at_the_delivery_limit(
    client: Redis, redis_url: str
) -> None:
    """A commit fails on every delivery of a batch holding one bad entry (R15): its batch
    mates fail with it until the delivery limit; past it each is tried alone, the good
    ones commit, and the bad one is dead-lettered after `suspect_attempts` tries alone,
    with its deliveries and tries. Nothing else is lost and the worker serves on."""
    settings = worker_settings(redis_url, delivery_limit=3, reclaim_idle_ms=150)
    assert settings.store.suspect_attempts == 3
    async with running_worker(settings, exploding_store) as worker:
        gateway = Gateway(client, 1)
        await gateway.mark_start()
        # Other sessions and the bad one, in one burst: they share a batch.
        await gateway.publish(turn("before", 1, PROPOSAL, user="u2"))
        boom = await gateway.publish(turn("boom", 1, PROPOSAL, user="u3"))
        await gateway.publish(turn("after", 1, PROPOSAL, user="u4"))
        await wait_for(lambda: _count(client, 1), seconds=60)
        await wait_for(lambda: _has_proposal(gateway, "before", "after"), seconds=30)
        found = await letters(client)
        assert [(letter.reason, letter.entry_id) for letter in found] == [
            (DeadLetterReason.DELIVERY_LIMIT, boom)
        ]
        # Delivered 3 times in batches, then tried alone 3 times (deliveries 4-6); the
        # 7th delivery gives it up.
        assert found[0].delivery_count == 7
        assert "3 tries alone did not commit it" in found[0].detail
        assert worker.metrics.reclaims.labels("chat-turn")._value.get() >= 6
        assert await client.exists(keys.suspects_key(0)) == 0, "no suspect left behind"
        # And the worker still serves new input afterwards.
        await gateway.publish(turn("later", 1, PROPOSAL, user="u5"))
        await gateway.wait_processed()
        assert await proposals(gateway, "later")
        assert await proposals(gateway, "boom") == []


async def _count(redis: Redis, expected: int) -> bool:
    return len(await letters(redis)) >= expected


async def _has_proposal(gateway: Gateway, *sessions: str) -> bool:
    for session in sessions:
        if not await proposals(gateway, session):
            return False
    return True
