"""`accord events --follow` prints events the store commits while it runs.

The command runs as a user would run it (a subprocess with REDIS_URL); the store (a
`PartitionProcessor` with the real core) turns chat turns into agreement events
meanwhile. The first event is written before the command starts (the backlog); once it
is printed the command is in its follow loop, so the second can only come from there.
"""

from __future__ import annotations

import asyncio
import json
import queue
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
import redis.asyncio
from accord_harness.reading import read_new
from accord_harness.store_harness import chat, xadd

from contracts.streams import GROUP
from store.config import StoreConfig
from store.embedded import EmbeddedRedis
from store.intake import ensure_groups
from store.processor import PartitionProcessor
from tests.support.cli_kit import accord_running, command_env, lines_of
from worker.engine import Engine

pytestmark = [pytest.mark.redis, pytest.mark.timeout(300)]

SCOPE = ("agent-1", "user-1")
PROPOSAL = "Let us agree that I send the report by Friday 5pm."
WAIT_S = 90.0  # generous: a busy machine starts a subprocess slowly


async def commit_turn(url: str, session: str, seq: int, text: str) -> None:
    """Write one chat turn and let the store process it: it commits the agreement events."""
    client = redis.asyncio.Redis.from_url(url)
    try:
        await ensure_groups(client, [0], GROUP)
        await xadd(client, chat(SCOPE, session, seq, text), 1)
        processor = PartitionProcessor(client, 0, Engine(), StoreConfig())
        report = await processor.process(await read_new(client, 0, GROUP, "test"))
        assert report.outcomes["applied"] == 1
    finally:
        await client.aclose()


def next_event(lines: queue.Queue[str]) -> dict[str, Any]:
    try:
        return dict(json.loads(lines.get(timeout=WAIT_S)))
    except queue.Empty:
        pytest.fail(f"events --follow printed nothing within {WAIT_S} s")


@pytest.fixture
def follower(redis_client: redis.Redis, redis_url: str) -> Iterator[subprocess.Popen[str]]:  # noqa: ARG001  (asked for: it flushes Redis)
    asyncio.run(commit_turn(redis_url, "s1", 1, PROPOSAL))
    env = command_env(redis_url, ACCORD_PARTITIONS="1")
    with accord_running("events", "--follow", "--json", env=env) as process:
        yield process


def test_events_follow_prints_an_event_committed_while_it_runs(
    follower: subprocess.Popen[str], redis_url: str
) -> None:
    """The backlog first, then an event the store commits later, as one JSON line each."""
    assert follower.stdout is not None
    lines = lines_of(follower.stdout)
    backlog = next_event(lines)
    assert (backlog["session_id"], backlog["to_state"]) == ("s1", "proposed")

    asyncio.run(commit_turn(redis_url, "s2", 1, PROPOSAL))
    followed = next_event(lines)
    assert followed["type"] == "agreement.state_changed"
    assert (followed["session_id"], followed["to_state"]) == ("s2", "proposed")
    assert followed["terms"] == "I send the report by Friday 5pm"
    assert followed["record_id"] != backlog["record_id"]
    assert follower.poll() is None, "--follow keeps running after printing"


def test_events_follow_rides_out_a_redis_restart(tmp_path: Path) -> None:
    """Redis going away does not end `--follow`: one line per retry, then the next event.

    The server is stopped while the command follows, and started again on the same port
    and data directory (as a restarted Redis with AOF); an event committed after the
    restart is printed, and nothing before it twice.
    """
    aof = ("--appendonly", "yes")
    server = EmbeddedRedis(directory=tmp_path, extra_args=aof).start()
    port = server.port
    asyncio.run(commit_turn(server.url, "s1", 1, PROPOSAL))
    env = command_env(server.url, ACCORD_PARTITIONS="1")
    try:
        with accord_running("events", "-f", "--json", env=env) as process:
            assert process.stdout is not None
            assert process.stderr is not None
            lines = lines_of(process.stdout)
            errors = lines_of(process.stderr)
            assert next_event(lines)["session_id"] == "s1"

            server.stop()
            try:
                retry = errors.get(timeout=WAIT_S)
            except queue.Empty:
                pytest.fail(f"events --follow said nothing within {WAIT_S} s of Redis stopping")
            assert "cannot reach Redis" in retry
            assert "following again in" in retry
            assert process.poll() is None, "--follow keeps running while Redis is away"

            server = EmbeddedRedis(port=port, directory=tmp_path, extra_args=aof).start()
            asyncio.run(commit_turn(server.url, "s2", 1, PROPOSAL))
            followed = next_event(lines)
            assert (followed["session_id"], followed["to_state"]) == ("s2", "proposed")
            assert process.poll() is None
    finally:
        server.stop()
