"""Settings and layout refused at start-up: one line naming the setting(s), exit 2, no
traceback; `accord worker -n N` restarts a dead child and gives up on one that keeps dying.
Real processes against the embedded Redis (R15: a wrong setting must not lose input)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from typing import Any

import msgspec
import pytest
import redis

from contracts.keys import Layout
from store import keys
from tests.support.paths import ROOT
from tests.support.worker_kit import worker_env
from worker.health import Heartbeat

pytestmark = [pytest.mark.redis, pytest.mark.timeout(120)]

ACCORD = [sys.executable, "-c", "from worker.cli import main; main()"]


def _run(
    args: list[str], env: dict[str, str], timeout: float = 90
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(  # noqa: S603  (our own CLI)
        [*ACCORD, *args], env=env, cwd=ROOT, capture_output=True, timeout=timeout, check=False
    )


def _one_line_exit_2(done: subprocess.CompletedProcess[bytes], *names: str) -> None:
    lines = done.stderr.decode().strip().splitlines()
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1, lines
    assert "Traceback" not in done.stderr.decode() + done.stdout.decode()
    for name in names:
        assert name in lines[0], (name, lines[0])


@pytest.mark.parametrize(
    ("setting", "names"),
    [
        ({"ACCORD_PARTITIONS": "0"}, ["ACCORD_PARTITIONS"]),
        ({"ACCORD_PARTITIONS": "2", "ACCORD_SERVE_PARTITIONS": "1,2"}, ["ACCORD_SERVE_PARTITIONS"]),
        ({"ACCORD_DEFAULT_TIMEZONE": "Mars/Olympus"}, ["ACCORD_DEFAULT_TIMEZONE"]),
        ({"REDIS_URL": "localhost:6379"}, ["REDIS_URL"]),
        (
            {"ACCORD_RECLAIM_IDLE_MS": "30000", "ACCORD_GAP_TIMEOUT_MS": "30000"},
            ["ACCORD_RECLAIM_IDLE_MS", "ACCORD_GAP_TIMEOUT_MS"],
        ),
        ({"ACCORD_DELIVERY_LIMIT": "1"}, ["ACCORD_DELIVERY_LIMIT", "ACCORD_RECLAIM_IDLE_MS"]),
        ({"ACCORD_BATCH_SIZE": "lots"}, ["ACCORD_BATCH_SIZE", "integer", "'lots'"]),
        ({"ACCORD_MAX_TEXT_BYTES": "0"}, ["ACCORD_MAX_TEXT_BYTES", "at least 1"]),
        ({"ACCORD_REDIS_CLUSTER": "maybe"}, ["ACCORD_REDIS_CLUSTER", "'maybe'"]),
        ({"ACCORD_READER": "faststream"}, ["ACCORD_READER=faststream", "merged reader"]),
        ({"ACCORD_WAIT_AOF": "1"}, ["ACCORD_WAIT_AOF", "ACCORD_WAIT_REPLICAS"]),
        ({"ACCORD_WAIT_TIMEOUT_MS": "0"}, ["ACCORD_WAIT_TIMEOUT_MS", "at least 1"]),
    ],
)
def test_a_bad_setting_or_a_losing_combination_is_refused_with_one_line_and_exit_2(
    redis_url: str, setting: dict[str, str], names: list[str]
) -> None:
    """R15: the worker never starts on settings that misroute or can lose input (the old
    defaults, reclaim idle equal to the gap timeout, among them): one line naming the
    setting, or both settings of a combination, and exit 2."""
    _one_line_exit_2(_run(["worker"], worker_env(redis_url, **setting)), *names)


def test_wait_aof_where_redis_cannot_wait_for_an_aof_is_refused_with_one_line(
    redis_url: str,
) -> None:
    """R15: ACCORD_WAIT_AOF=1 on a primary that cannot WAITAOF (the embedded server runs
    without AOF; Redis 6.2 and 7.0 have no WAITAOF) is refused at start, before any
    batch is committed whose wait would then fail every time: one line, exit 2."""
    env = worker_env(redis_url, ACCORD_WAIT_REPLICAS="1", ACCORD_WAIT_AOF="1")
    _one_line_exit_2(_run(["worker"], env), "ACCORD_WAIT_AOF=1 needs")


@pytest.mark.timeout(400)
def test_the_layout_is_stored_at_first_start_and_another_partition_count_is_refused(
    redis_client: redis.Redis, redis_url: str
) -> None:
    """R15: the first worker stores the partition count and group in `accord:config`; a
    worker or command started with another ACCORD_PARTITIONS is refused (one line, exit 2);
    `accord check` reports input streams of partitions beyond the count."""
    env = worker_env(redis_url, ACCORD_PARTITIONS="2")
    worker = subprocess.Popen([*ACCORD, "worker"], env=env, cwd=ROOT)  # noqa: S603
    try:
        deadline = time.monotonic() + 60
        while redis_client.get(keys.CONFIG_KEY) is None:
            assert worker.poll() is None, "the worker exited"
            assert time.monotonic() < deadline, "no layout stored"
            time.sleep(0.1)
    finally:
        # How the worker stops is not this test's subject (a loaded machine may take long).
        worker.kill()
        worker.wait()
    raw: Any = redis_client.get(keys.CONFIG_KEY)
    assert msgspec.json.decode(raw, type=Layout) == Layout(2, "accord")
    other = worker_env(redis_url, ACCORD_PARTITIONS="3")
    _one_line_exit_2(_run(["worker"], other), "ACCORD_PARTITIONS=3", "2 partitions")
    _one_line_exit_2(_run(["check"], other), "ACCORD_PARTITIONS=3")
    redis_client.xadd("chat-turn:{5}", {"__data__": "{}"})
    done = _run(["check", "--json"], env)
    assert done.returncode == 1
    report = msgspec.json.decode(done.stdout.splitlines()[-1])
    assert report["streams_beyond_partitions"] == ["chat-turn:{5}"]


def _beating_pids(client: redis.Redis) -> set[int]:
    pids = set()
    for key in client.scan_iter(match=keys.heartbeat_pattern()):
        raw: Any = client.get(key)
        if raw:
            pids.add(int(msgspec.json.decode(raw, type=Heartbeat).consumer.rsplit("-", 1)[1]))
    return pids


@pytest.mark.timeout(400)
def test_a_dead_worker_child_is_restarted_and_logged(
    redis_client: redis.Redis, redis_url: str
) -> None:
    """`accord worker -n 2`: a child SIGKILLed is started again (logged `worker_died`,
    `worker_restarted`), so capacity comes back; SIGTERM still stops all with exit 0."""
    env = worker_env(redis_url, ACCORD_LOG_LEVEL="INFO")
    supervisor = subprocess.Popen(  # noqa: S603  (our own CLI)
        [*ACCORD, "worker", "-n", "2"], env=env, cwd=ROOT,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while len(pids := _beating_pids(redis_client)) < 2:
            assert time.monotonic() < deadline, "workers never beat"
            time.sleep(0.1)
        victim = min(pids)
        os.kill(victim, signal.SIGKILL)
        for key in redis_client.scan_iter(match=keys.heartbeat_pattern()):
            if key.decode().endswith(f"-{victim}"):
                redis_client.delete(key)
        deadline = time.monotonic() + 60
        while len(_beating_pids(redis_client) - {victim}) < 2:
            assert supervisor.poll() is None, "the supervisor gave up on one death"
            assert time.monotonic() < deadline + 60, "the dead child was not restarted"
            time.sleep(0.1)
    finally:
        supervisor.send_signal(signal.SIGTERM)
        output, _ = supervisor.communicate(timeout=180)
    assert supervisor.returncode == 0
    assert b"worker_died" in output
    assert b"worker_restarted" in output


@pytest.mark.timeout(400)
def test_a_child_that_keeps_dying_ends_the_supervisor_non_zero(redis_url: str) -> None:  # noqa: ARG001
    """`accord worker -n 2` whose children cannot start (Redis unreachable) does not idle
    at reduced capacity: after repeated deaths it logs `worker_keeps_dying` and exits 1."""
    env = worker_env("redis://127.0.0.1:1/0", ACCORD_LOG_LEVEL="INFO")
    # Five deaths in a row, each after a start (a few seconds on a busy machine) and pauses.
    done = _run(["worker", "-n", "2"], env, timeout=360)
    assert done.returncode == 1
    assert b"worker_keeps_dying" in done.stdout + done.stderr
