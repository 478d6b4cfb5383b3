"""`accord repartition` as an operator runs it, and the commands after it (docs/cli.md)."""

from __future__ import annotations

import asyncio
import json
import time

import pytest
import redis
import redis.asyncio

from accord_client import AccordClient
from tests.support.cli_kit import accord_here, accord_process, command_env
from tests.support.worker_kit import running_worker, worker_env, worker_processes, worker_settings

pytestmark = [pytest.mark.redis]

SCOPES = 6


async def _populate(url: str) -> None:
    """Six scopes with a proposal each, applied by a worker of 2 partitions."""
    async with (
        AccordClient(redis.asyncio.Redis.from_url(url)) as client,
        running_worker(worker_settings(url, partitions=2)),
    ):
        for scope in range(SCOPES):
            session = client.session("agent", f"user-{scope}", "s1")
            appended = await session.user(f"Let's agree: scope {scope} writes in metric units.")
            await session.wait_applied(appended.seq, timeout=60)


@pytest.fixture
def populated(redis_client: redis.Redis, redis_url: str) -> str:  # noqa: ARG001  (flushes first)
    asyncio.run(_populate(redis_url))
    return redis_url


def test_a_move_reports_its_phases_and_commands_after_it_take_the_new_count(
    populated: str,
) -> None:
    """R6: after `accord repartition --to 3 --json` every scope's view is where the new
    count puts it, and `accord view` with ACCORD_PARTITIONS unset reads it there; a
    command pinned to the old count refuses with one line saying what to do."""
    moved = accord_here("repartition", "--to", "3", "--json", env=command_env(populated))
    assert moved.returncode == 0, moved.stderr
    report = json.loads(moved.stdout)
    assert report["partitions"] == 3
    assert report["phases"][-1] == "clean up"
    assert report["scopes_moved"] > 0
    for scope in range(SCOPES):
        shown = accord_here(
            "view", "s1", "--agent", "agent", "--user", f"user-{scope}", "--json",
            env=command_env(populated),
        )  # fmt: skip
        assert shown.returncode == 0, shown.stderr
        assert f"scope {scope} writes in metric units" in shown.stdout
    pinned = accord_here(
        "view", "s1", "--agent", "agent", "--user", "user-0",
        env=command_env(populated, ACCORD_PARTITIONS="2"),
    )  # fmt: skip
    assert pinned.returncode == 2
    assert "leave ACCORD_PARTITIONS unset" in pinned.stderr
    assert "Traceback" not in pinned.stderr
    again = accord_here("repartition", "--to", "3", env=command_env(populated))
    assert again.returncode == 0
    assert "already 3 partitions" in again.stderr


def test_the_move_says_each_phase_on_stderr_as_a_shell_sees_it(populated: str) -> None:
    """Progress for a long move: one line per phase and the counts at the end."""
    ran = accord_process("repartition", "--to", "4", env=command_env(populated))
    assert ran.returncode == 0, ran.stderr
    for phase in ("announce", "freeze", "drain", "fence", "copy", "flip", "clean up"):
        assert f"repartition: {phase}: done in" in ran.stderr
    assert "repartition: done: 4 partitions" in ran.stderr


@pytest.mark.parametrize("to", ["0", "16385", "many"])
def test_a_bad_count_is_one_line_and_exit_2(
    redis_client: redis.Redis,  # noqa: ARG001  (flushes first)
    redis_url: str,
    to: str,
) -> None:
    ran = accord_here("repartition", "--to", to, env=command_env(redis_url))
    assert ran.returncode == 2
    assert "--to" in ran.stderr
    assert "Traceback" not in ran.stderr


def test_nothing_to_move_is_one_line_and_exit_1(redis_client: redis.Redis, redis_url: str) -> None:
    """A Redis no worker has set up: nothing is written, the line says what to do."""
    ran = accord_here("repartition", "--to", "3", env=command_env(redis_url))
    assert ran.returncode == 1
    assert "no layout" in ran.stderr
    assert redis_client.keys("*") == []


def test_a_worker_started_after_the_move_serves_the_new_count_unless_pinned(
    populated: str, redis_client: redis.Redis
) -> None:
    """With ACCORD_PARTITIONS unset a worker takes Redis's count: after the move to 3 it
    holds partition 2's lease (granted only to a worker of 3 partitions). Pinned to the
    old count it refuses to start, with one line and exit 2."""
    moved = accord_here("repartition", "--to", "3", env=command_env(populated))
    assert moved.returncode == 0, moved.stderr
    with worker_processes(1, worker_env(populated)):
        deadline = time.monotonic() + 60
        owner = None
        while time.monotonic() < deadline:
            owner = redis_client.hget("lease:{2}", "o")
            if owner:
                break
            time.sleep(0.05)
        assert owner, "the worker holds partition 2"
    pinned = accord_process("worker", env=worker_env(populated, ACCORD_PARTITIONS="2"))
    assert pinned.returncode == 2
    assert "leave ACCORD_PARTITIONS unset" in pinned.stderr
