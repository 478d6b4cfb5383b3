"""`accord dev`: an embedded Redis, a worker and the console from one command, as a new
user starts them; what it prints is enough to use them, and Ctrl-C stops all three."""

from __future__ import annotations

import asyncio
import queue
import signal
import subprocess
import urllib.request
from datetime import UTC, datetime

import pytest
import redis
import redis.asyncio

from tests.support.cli_kit import ENTRY, command_env, lines_of
from tests.support.input_kit import user_turn
from tests.support.paths import ROOT
from worker.gateway import Gateway

pytestmark = [pytest.mark.timeout(240)]

WAIT_S = 90.0  # generous: a busy machine starts a subprocess slowly


def printed_until(lines: queue.Queue[str], marker: str) -> list[str]:
    """The lines printed up to and including the first holding `marker`."""
    seen: list[str] = []
    while not any(marker in line for line in seen):
        try:
            seen.append(lines.get(timeout=WAIT_S))
        except queue.Empty:
            pytest.fail(f"accord dev printed no {marker!r} within {WAIT_S} s: {seen}")
    return seen


async def propose(url: str) -> list[object]:
    """A proposal through the printed REDIS_URL, processed by the dev worker (R2)."""
    client = redis.asyncio.Redis.from_url(url)
    try:
        gateway = Gateway(client, 1, timeout_s=WAIT_S)
        await gateway.mark_start()
        proposal = "Let's agree: every plan starts with the goal."
        await gateway.publish(user_turn(("agent", "user"), "s1", 1, proposal, datetime.now(UTC)))
        await gateway.wait_processed(WAIT_S)
        await gateway.read_events()
        return list(gateway.events)
    finally:
        await client.aclose()


def test_dev_starts_redis_worker_and_console_and_ctrl_c_stops_them() -> None:
    """The export line names a Redis the worker serves (a proposal gets its event), the
    console answers at the printed address, and SIGINT ends all of it with exit 0."""
    env = {**command_env(None), "COLUMNS": "200"}
    process = subprocess.Popen(  # noqa: S603  (our own CLI)
        [*ENTRY, "dev", "--port", "0"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert process.stdout is not None
        lines = lines_of(process.stdout)
        printed = printed_until(lines, "Ctrl-C stops")
        [export] = [line for line in printed if "export REDIS_URL=" in line]
        url = export.split("REDIS_URL=", 1)[1].strip()
        [address] = [
            line.split("console: ", 1)[1].strip() for line in printed if "console: " in line
        ]
        events = asyncio.run(propose(url))
        assert [type(event).__name__ for event in events] == ["StateChanged"]
        with urllib.request.urlopen(address.strip(), timeout=WAIT_S) as page:  # noqa: S310  (loopback)
            assert page.status == 200
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=WAIT_S) == 0
        assert "accord dev: stopped" in "".join(printed_until(lines, "stopped"))
        with pytest.raises(redis.ConnectionError):
            redis.Redis.from_url(url, socket_connect_timeout=5).ping()
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=WAIT_S)
        if process.stdout is not None:
            process.stdout.close()
