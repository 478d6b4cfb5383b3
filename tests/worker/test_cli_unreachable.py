"""Every command that talks to Redis, against a Redis that is not there or does not
answer: one line, no traceback, a non-zero exit, and never a hang.

Three kinds of absent Redis, all on loopback ports the kernel picks (never a fixed one):
- refused: a port nothing listens on (connect is refused at once);
- blackholed: a listener whose accept queue is full, so the kernel drops further
  connection attempts and connecting itself gets no answer;
- silent: a listener that completes connections but never reads or answers.
Against the last two only `--timeout` ends the wait: the line says it ran out.

The line names the URL with its password redacted (the form `Settings` prints) and the
cause; the exit code is 2 (the command could not do its job), but `accord check` keeps
its probe semantics: unreachable is unhealthy, exit 1. Most commands run in this
process (typer's CliRunner); one runs as a user runs it (a subprocess with REDIS_URL).
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Iterator, MutableMapping
from typing import Any

import pytest
import redis.asyncio

from contracts.streams import AGREEMENT_EVENTS, stream_name
from tests.support.cli_kit import Ran, accord_here, accord_process, command_env
from tests.support.paths import ROOT
from worker.commands import _shared
from worker.commands import events as events_command
from worker.connection import answer_options, with_stored_partitions
from worker.console.server import Access, Console, Page
from worker.settings import Settings

pytestmark = [pytest.mark.timeout(120)]

PASSWORD = "s3cret-pw"  # noqa: S105  (a made-up password the output must not show)
TRANSCRIPT = ROOT / "worker" / "transcripts" / "07-todo-delivery.en.jsonl"
# Short: nothing will ever answer, so any bound is only the time each test waits.
TIMEOUT = "0.3"


def url_of(port: int) -> str:
    return f"redis://:{PASSWORD}@127.0.0.1:{port}/0"


@pytest.fixture(scope="module")
def refused_url() -> str:
    """A loopback port nothing listens on: bound, then released (connect is refused)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return url_of(port)


@pytest.fixture(scope="module")
def blackholed_url() -> Iterator[str]:
    """A listener with a backlog of 0 and one connection waiting in it: its accept queue
    is full, so the kernel drops every further SYN and connecting gets no answer."""
    with socket.create_server(("127.0.0.1", 0), backlog=0) as listener:
        port = listener.getsockname()[1]
        with socket.create_connection(("127.0.0.1", port)):
            yield url_of(port)


@pytest.fixture(scope="module")
def silent_url() -> Iterator[str]:
    """A listener that never accepts: the kernel completes connections (up to the
    backlog), requests are sent, and no answer ever comes."""
    with socket.create_server(("127.0.0.1", 0), backlog=128) as listener:
        yield url_of(listener.getsockname()[1])


# Every command that talks to Redis, with the arguments it needs to get that far.
COMMANDS = [
    ("view", "session-1", "--agent", "a", "--user", "u"),
    ("history", "record-1"),
    ("records", "--state", "open"),
    ("scopes", "--open"),
    ("explain", "record-1"),
    ("events",),
    ("events", "--follow"),
    ("status",),
    ("dlq", "list"),
    ("dlq", "requeue", "1-0"),
    ("replay", str(TRANSCRIPT)),
    ("console", "--port", "0"),
    ("demo", "-s", "01", "-l", "en"),
]
IDS = [" ".join(args[:2]) for args in COMMANDS]


def port_of(url: str) -> str:
    return url.rsplit(":", 1)[1].split("/", maxsplit=1)[0]


def assert_one_line(done: Ran, url: str, code: int = 2) -> str:
    """Exit `code`, one stderr line naming the redacted URL, no traceback or password."""
    lines = done.stderr.splitlines()
    assert done.returncode == code, done.stderr
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr
    prefix = f"accord: cannot reach Redis at redis://:***@127.0.0.1:{port_of(url)}/0: "
    assert lines[0].startswith(prefix), lines[0]
    assert PASSWORD not in done.stderr + done.stdout
    return lines[0]


@pytest.mark.parametrize("args", COMMANDS, ids=IDS)
def test_refused_redis_is_one_line_naming_the_redacted_url_and_the_cause(
    refused_url: str, args: tuple[str, ...]
) -> None:
    """A refused connection: one stderr line with the redacted URL and the refusal, exit 2."""
    line = assert_one_line(accord_here(*args, env=command_env(refused_url)), refused_url)
    assert "111" in line or "refused" in line.lower()


def test_refused_redis_as_a_user_runs_it(refused_url: str) -> None:
    """The same through the real entry point in a subprocess: the shell sees one line on
    stderr and exit 2, nothing on stdout."""
    done = accord_process("view", "s1", "--agent", "a", "--user", "u", env=command_env(refused_url))
    line = assert_one_line(done, refused_url)
    assert "111" in line or "refused" in line.lower()
    assert done.stdout == ""


@pytest.mark.parametrize("args", COMMANDS, ids=IDS)
def test_a_blackholed_redis_times_out_after_timeout_with_one_line(
    blackholed_url: str, args: tuple[str, ...]
) -> None:
    """Connecting gets no answer: `--timeout` ends the wait with one line saying so, exit 2
    (not a hang, not a traceback)."""
    done = accord_here(*args, "--timeout", TIMEOUT, env=command_env(blackholed_url))
    line = assert_one_line(done, blackholed_url)
    assert f"no answer within {TIMEOUT} s (--timeout)" in line


@pytest.mark.parametrize(
    "args",
    [
        ("view", "session-1", "--agent", "a", "--user", "u"),
        ("events", "--follow"),
        ("replay", str(TRANSCRIPT)),
    ],
    ids=["view", "events --follow", "replay"],
)
def test_a_silent_redis_times_out_after_timeout_with_one_line(
    silent_url: str, args: tuple[str, ...]
) -> None:
    """Connected, but no answer ever comes: the read gives up after `--timeout`."""
    done = accord_here(*args, "--timeout", TIMEOUT, env=command_env(silent_url))
    line = assert_one_line(done, silent_url)
    assert f"no answer within {TIMEOUT} s (--timeout)" in line


def test_a_silent_redis_times_out_as_a_user_runs_it(silent_url: str) -> None:
    """Through the real entry point: a silent Redis ends `history` after `--timeout`."""
    done = accord_process("history", "record-1", "--timeout", TIMEOUT, env=command_env(silent_url))
    line = assert_one_line(done, silent_url)
    assert f"no answer within {TIMEOUT} s (--timeout)" in line


@pytest.mark.parametrize(("given", "bound"), [("0.5", 0.5), ("10", 3.0)])
def test_the_partition_count_is_read_within_the_commands_timeout(
    silent_url: str, monkeypatch: pytest.MonkeyPatch, given: str, bound: float
) -> None:
    """A command reads Redis's partition count before its work (ACCORD_PARTITIONS unset);
    that read waits at most the command's `--timeout` (and 3 s), so a silent Redis holds
    `status --timeout 0.5` about half a second there, not three."""
    waited: list[float] = []
    real = with_stored_partitions

    async def recorded(settings: Settings, *, timeout_s: float = 3.0) -> Settings:
        waited.append(timeout_s)
        return await real(settings, timeout_s=timeout_s)

    monkeypatch.setattr(_shared, "with_stored_partitions", recorded)
    done = accord_here("status", "--timeout", given, env=command_env(silent_url))
    assert_one_line(done, silent_url)
    assert waited == [bound]


@pytest.mark.parametrize("kind", ["refused_url", "blackholed_url", "silent_url"])
def test_check_against_absent_redis_is_unhealthy_with_one_line(
    kind: str, request: pytest.FixtureRequest
) -> None:
    """`accord check` keeps its 0/1 health semantics: unreachable or silent exits 1, one
    stderr line, nothing on stdout."""
    url: str = request.getfixturevalue(kind)
    done = accord_here("check", "--timeout", TIMEOUT, env=command_env(url))
    assert_one_line(done, url, code=1)
    assert done.stdout == ""


@pytest.mark.parametrize("kind", ["refused_url", "silent_url"])
def test_check_json_against_absent_redis_reports_it_in_one_document(
    kind: str, request: pytest.FixtureRequest
) -> None:
    """`accord check --json` prints one JSON line with ok false and the redacted cause."""
    url: str = request.getfixturevalue(kind)
    done = accord_here("check", "--json", "--timeout", TIMEOUT, env=command_env(url))
    assert done.returncode == 1, done.stderr
    [document] = [json.loads(line) for line in done.stdout.splitlines()]
    assert document["ok"] is False
    assert document["redis"] == "unreachable"
    assert "cannot reach Redis at redis://:***@" in document["error"]
    assert PASSWORD not in done.stdout + done.stderr


@pytest.mark.parametrize("timeout", ["0", "-1"])
def test_a_timeout_that_is_not_positive_is_a_usage_error(refused_url: str, timeout: str) -> None:
    """`--timeout 0` would mean "wait forever" to redis-py: refused as a usage error."""
    done = accord_here("status", "--timeout", timeout, env=command_env(refused_url))
    assert done.returncode == 2
    assert "--timeout" in done.stderr


@pytest.mark.redis
def test_following_a_quiet_stream_with_a_short_timeout_is_not_a_timeout(redis_url: str) -> None:
    """`events --follow` blocks each XREAD for at most half of `--timeout` (and 500 ms),
    so a stream with nothing new is an empty answer, not "Redis did not answer". (A
    timeout of 2 s leaves the 500 ms read 1.5 s of room on a loaded machine; 0.2 s left
    0.1 s and failed under load.)"""
    timeout_s = 2.0
    stream = stream_name(AGREEMENT_EVENTS, 0)

    async def follow_once() -> dict[str, str]:
        client = redis.asyncio.Redis.from_url(redis_url, **answer_options(timeout_s))
        cursors = {stream: "$"}
        try:
            await events_command._follow_once(
                client, cursors, print, events_command._block_ms(timeout_s)
            )
        finally:
            await client.aclose()
        return cursors

    assert events_command._block_ms(0.2) == 100
    assert events_command._block_ms(timeout_s) == events_command._block_ms(30.0) == 500
    assert asyncio.run(follow_once()) == {stream: "$"}


@pytest.mark.parametrize("kind", ["refused_url", "silent_url"])
def test_a_console_page_whose_redis_fails_says_so_with_503(
    kind: str, request: pytest.FixtureRequest
) -> None:
    """Redis gone after the console started: the page answers 503 naming the cause (and,
    when silent, the timeout that ran out), not an error without a reason."""
    url: str = request.getfixturevalue(kind)
    console = Console(Settings.from_env({"REDIS_URL": url}), Access(None), timeout_s=0.3)
    page = Page(console, console.scope)
    sent: list[MutableMapping[str, Any]] = []

    async def receive() -> MutableMapping[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(message)

    async def get() -> None:
        scope = {"type": "http", "method": "GET", "path": "/scope", "headers": [],
                 "query_string": b"agent=a&user=u"}  # fmt: skip
        try:
            await page(scope, receive, send)
        finally:
            await console.close()

    asyncio.run(get())
    start = next(m for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    assert start["status"] == 503
    assert "Redis cannot be reached" in body.decode()
    if kind == "silent_url":
        assert "no answer within 0.3 s" in body.decode()
    assert PASSWORD not in body.decode()
