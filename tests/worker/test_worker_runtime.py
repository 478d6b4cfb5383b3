"""The worker's runtime on a real Redis: groups at 0, reclaim, health, metrics, exit codes."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from datetime import timedelta
from typing import Any

import pytest
import structlog
from redis.asyncio import Redis

from contracts.outputs import StateChanged
from contracts.streams import GROUP, stream_name
from store.embedded import free_port
from store.intake import ensure_groups, missing_groups
from tests.support.input_kit import user_turn
from tests.support.paths import ROOT
from tests.support.worker_kit import (
    http_get,
    now_s,
    running_worker,
    wait_for,
    worker_env,
    worker_processes,
    worker_settings,
)
from worker.gateway import Gateway
from worker.health import Health, Watchdog
from worker.observability import get_logger
from worker.settings import Settings

pytestmark = [pytest.mark.asyncio, pytest.mark.redis, pytest.mark.timeout(240)]

PROPOSAL = "Let's agree: start every plan with the conclusion."


# No consumer group from conftest's `client`: the workers and tests here make their own.
GROUP_PARTITIONS: tuple[int, ...] = ()


def turn(session: str, seq: int, user: str = "u1", text: str = PROPOSAL) -> dict[str, Any]:
    return user_turn(("a1", user), session, seq, text, now_s() + timedelta(seconds=seq))


async def _proposed(gateway: Gateway, session: str) -> bool:
    await gateway.read_events()
    return any(isinstance(e, StateChanged) and e.session_id == session for e in gateway.events)


async def test_entries_written_before_the_group_exists_are_processed(
    client: Redis, redis_url: str
) -> None:
    """Groups are created at id 0, never `$`: input written before any worker is applied."""
    gateway = Gateway(client, 1)
    await gateway.publish(turn("early", 1))
    async with running_worker(worker_settings(redis_url)):
        await gateway.wait_processed()
        assert await _proposed(gateway, "early")


async def test_entries_pending_on_a_dead_consumer_are_reclaimed(
    client: Redis, redis_url: str
) -> None:
    """A consumer that read entries and died: XPENDING/XCLAIM hand them to a live worker."""
    await ensure_groups(client, [0], GROUP)
    gateway = Gateway(client, 1)
    await gateway.publish(turn("orphan", 1))
    stream = stream_name("chat-turn", 0)
    taken: Any = await client.xreadgroup(GROUP, "dead-consumer", {stream: ">"}, count=10)
    assert len(taken[0][1]) == 1
    async with running_worker(worker_settings(redis_url, reclaim_idle_ms=100)) as worker:
        await wait_for(lambda: _proposed(gateway, "orphan"))
        assert worker.metrics.reclaims.labels("chat-turn")._value.get() == 1
        pending: Any = await client.xpending(stream, GROUP)
        assert pending["pending"] == 0


async def test_health_endpoints_and_metrics(client: Redis, redis_url: str) -> None:
    """/healthz and /readyz answer 200 while running; /metrics counts transitions and inputs."""
    port = free_port()
    async with running_worker(worker_settings(redis_url, metrics_port=port)):
        gateway = Gateway(client, 1)
        await gateway.publish(turn("metered", 1))
        await gateway.wait_processed()
        assert (await http_get(port, "/healthz"))[0] == 200
        assert (await http_get(port, "/readyz"))[0] == 200
        status, metrics = await http_get(port, "/metrics")
        assert status == 200
        assert (
            'accord_transitions_total{cause="proposed",from_state="none",to_state="proposed"} 1.0'
            in metrics
        )
        assert 'accord_input_entries_total{outcome="applied",stream="chat-turn"} 1.0' in metrics
        assert "accord_entry_latency_seconds_bucket" in metrics

        async def lag_exported() -> bool:
            # The watchdog measures lag on its own period: the first measurement may come
            # after the first batch is committed.
            return (
                'accord_consumer_lag{stream="chat-turn:{0}"}'
                in (await http_get(port, "/metrics"))[1]
            )

        await wait_for(lag_exported, 10)
        assert (await http_get(port, "/nope"))[0] == 404


async def test_logs_never_carry_the_message_text_at_info(
    client: Redis, redis_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """INFO lines bind session_id, seq and record_id, never the turn's text or terms."""
    from worker.observability import configure_logging  # noqa: PLC0415

    configure_logging("INFO")
    private = "Let's agree: the launch code is swordfish."
    try:
        async with running_worker(worker_settings(redis_url)):
            gateway = Gateway(client, 1)
            await gateway.publish(turn("private", 1, text=private))
            await gateway.wait_processed()
        err = capsys.readouterr().err
    finally:
        structlog.reset_defaults()
    assert '"session_id": "private"' in err
    assert '"record_id": "agr-' in err
    assert "swordfish" not in err


async def test_worker_exits_non_zero_when_its_stream_vanishes(
    client: Redis, redis_url: str
) -> None:
    """Deleting an input stream (and its group) makes `accord worker` say so and exit 1."""
    env = worker_env(redis_url, ACCORD_LOG_LEVEL="INFO")
    with worker_processes(1, env) as (proc,):
        await client.delete(stream_name("tool-call", 0))
        code = await asyncio.to_thread(proc.wait, 20)
        assert code == 1


async def test_check_command_reports_missing_groups_then_healthy(
    client: Redis, redis_url: str
) -> None:
    """`accord check` exits 1 while the groups are missing, 0 once they exist."""
    env = {**os.environ, "REDIS_URL": redis_url}
    command = [sys.executable, "-c", "from worker.cli import main; main()", "check", "--json"]
    before = await _run(command, env)
    assert before.returncode == 1
    assert b'"missing_groups":["chat-turn:{0}"' in before.stdout
    await ensure_groups(client, [0], GROUP)
    assert await missing_groups(client, [0], GROUP) == []
    after = await _run(command, env)
    assert after.returncode == 0, after.stdout + after.stderr
    strict = [*command, "--require-worker"]
    no_worker = await _run(strict, env)
    assert no_worker.returncode == 1


async def _run(command: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    return await asyncio.to_thread(
        subprocess.run, command, env=env, cwd=ROOT, capture_output=True, check=False
    )


async def test_idle_consumers_without_pending_entries_are_pruned(client: Redis) -> None:
    """Consumers of dead processes leave the group; one with pending entries stays."""
    await ensure_groups(client, [0], GROUP)
    stream = stream_name("chat-turn", 0)
    gateway = Gateway(client, 1)
    await gateway.publish(turn("held", 1))
    done = await gateway.publish(turn("done", 1, user="u2"))
    await client.xreadgroup(GROUP, "dead-with-pending", {stream: ">"}, count=1)
    await client.xreadgroup(GROUP, "dead-and-empty", {stream: ">"}, count=1)
    await client.xack(stream, GROUP, done)
    await asyncio.sleep(0.05)
    watchdog = Watchdog(
        client, Health(), "me", GROUP, [0], on_fatal=print, log=get_logger("t"),
        prune_idle_ms=20,
    )  # fmt: skip
    assert await watchdog.prune_consumers() == [f"{stream}/dead-and-empty"]
    left: Any = await client.xinfo_consumers(stream, GROUP)
    assert [c["name"] for c in left] == [b"dead-with-pending"]


async def test_consumer_pruning_is_off_by_default_and_sends_no_acl_withheld_command(
    client: Redis,
) -> None:
    """The default worker never runs XINFO CONSUMERS or XGROUP DELCONSUMER: the production
    ACL withholds them (deploy/redis/users.acl), so a default worker logs no NOPERM."""
    await ensure_groups(client, [0], GROUP)
    stream = stream_name("chat-turn", 0)
    done = await Gateway(client, 1).publish(turn("done", 1))
    await client.xreadgroup(GROUP, "dead-and-empty", {stream: ">"}, count=1)
    await client.xack(stream, GROUP, done)
    assert Settings.from_env({}).prune_idle_ms == 0
    watchdog = Watchdog(client, Health(), "me", GROUP, [0], on_fatal=print, log=get_logger("t"))
    assert await watchdog.prune_consumers() == []
    left: Any = await client.xinfo_consumers(stream, GROUP)
    assert [c["name"] for c in left] == [b"dead-and-empty"]
