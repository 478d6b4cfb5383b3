"""Graceful shutdown leaves nothing half-applied: SIGTERM mid-stream, restart, exactly once.

A worker process is stopped with SIGTERM while a backlog is being applied; a second
worker takes over. Every session must end with exactly its three state changes,
revisions 1, 2, 3 in order: nothing lost, nothing applied twice (R15).
"""

from __future__ import annotations

import json
import signal
import time
from collections import defaultdict
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
import redis

from contracts.outputs import StateChanged
from contracts.streams import DATA_FIELD, GROUP, stream_name
from store.keys import heartbeat_key, heartbeats_key
from tests.support.worker_kit import now_s, worker_env, worker_processes
from worker.gateway import decode_event

pytestmark = [pytest.mark.redis, pytest.mark.slow, pytest.mark.timeout(180)]

SESSIONS = 400
TEXTS = (
    "Let's agree: keep answers under five sentences.",
    "I accept this agreement.",
    "Cancel this agreement.",
)


def _backlog(client: redis.Redis) -> None:
    t0 = now_s()
    pipe = client.pipeline(transaction=False)
    for n in range(SESSIONS):
        for seq, text in enumerate(TEXTS, 1):
            turn = {
                "type": "chat_turn", "agent_id": "a", "user_id": f"u{n}", "session_id": f"s{n}",
                "seq": seq, "ts": (t0 + timedelta(seconds=seq)).isoformat(), "role": "user",
                "text": text, "message_id": f"m{n}-{seq}",
            }  # fmt: skip
            pipe.xadd(stream_name("chat-turn", 0), {DATA_FIELD: json.dumps(turn)})
    pipe.execute()


def _events(client: redis.Redis) -> list[StateChanged]:
    entries: Any = client.xrange(stream_name("agreement-events", 0))
    decoded = [decode_event(fields[DATA_FIELD.encode()]) for _, fields in entries]
    return [e for e in decoded if isinstance(e, StateChanged)]


def _wait(predicate: Callable[[], bool], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.02)
    raise AssertionError("condition not reached in time")


def test_sigterm_mid_backlog_then_restart_applies_everything_exactly_once(redis_url: str) -> None:
    """R15: a graceful stop mid-stream and a restart leave every session exactly applied."""
    client = redis.Redis.from_url(redis_url)
    client.flushall()
    env = worker_env(redis_url, ACCORD_BATCH_SIZE="5")
    with worker_processes(1, env) as (first,):
        _backlog(client)
        _wait(lambda: len(_events(client)) > 0, 30)
        first.send_signal(signal.SIGTERM)
        assert first.wait(timeout=30) == 0
    # The clean stop said it departed: its heartbeat key is gone at once (not at the end
    # of its TTL), its name left for the status and the console to show it departed.
    names: Any = client.zrange(heartbeats_key(), 0, -1)
    assert len(names) == 1, names
    assert not client.exists(heartbeat_key(names[0].decode()))
    partial = len(_events(client))
    assert partial < SESSIONS * len(TEXTS), "the backlog finished before the stop: no test"
    with worker_processes(1, env):
        _wait(lambda: len(_events(client)) >= SESSIONS * len(TEXTS), 60)
        time.sleep(0.3)  # anything applied twice would show up now
    by_session: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for event in _events(client):
        by_session[event.session_id].append((event.revision, event.to_state.value))
    expected = [(1, "proposed"), (2, "proposed"), (3, "cancelled")]
    assert len(by_session) == SESSIONS
    assert all(changes == expected for changes in by_session.values())
    pending = client.xpending(stream_name("chat-turn", 0), GROUP)
    assert pending["pending"] == 0
    client.close()
