"""The expiry sweeper: deadlines materialize with no input coming, once, from many workers."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from redis.asyncio import Redis

from contracts.outputs import StateChanged
from tests.support.worker_kit import running_worker, wait_for, worker_settings
from worker.gateway import Gateway

pytestmark = [pytest.mark.asyncio, pytest.mark.redis, pytest.mark.timeout(240)]


# No consumer group from conftest's `client`: the workers and tests here make their own.
GROUP_PARTITIONS: tuple[int, ...] = ()


async def test_two_sweeping_workers_expire_a_past_deadline_exactly_once(
    client: Redis, redis_url: str
) -> None:
    """R9: a proposal whose deadline passed with no later input expires by the sweeper,
    at the deadline (history time), once, though two workers sweep the partition."""
    said = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=10)
    turn = {
        "type": "chat_turn", "agent_id": "a", "user_id": "u", "session_id": "s", "seq": 1,
        "ts": said.isoformat(), "role": "user", "message_id": "m1",
        "text": "Let's agree: send me the summary within 5 minutes.",
    }  # fmt: skip
    gateway = Gateway(client, 1)
    async with (
        running_worker(worker_settings(redis_url, sweep_interval_ms=50)),
        running_worker(worker_settings(redis_url, sweep_interval_ms=50)),
    ):
        await gateway.publish(turn)

        async def expired() -> bool:
            await gateway.read_events()
            return any(
                isinstance(e, StateChanged) and e.to_state.value == "expired"
                for e in gateway.events
            )

        await wait_for(expired)
        # Ten more sweep periods of both workers: a second expiry would be committed now.
        await asyncio.sleep(0.5)
        await gateway.read_events()
    changes = [e for e in gateway.events if isinstance(e, StateChanged)]
    assert [(e.revision, e.to_state.value) for e in changes] == [(1, "proposed"), (2, "expired")]
    expiry = changes[1]
    assert expiry.cause.value == "deadline_reached"
    assert expiry.at == said + timedelta(minutes=5)
    assert expiry.provenance.seq is None
