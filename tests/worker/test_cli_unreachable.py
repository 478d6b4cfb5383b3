"""Every command that talks to Redis, against a closed port: one line, no traceback.

Each runs as a user would run it (a subprocess with REDIS_URL). The line names the URL
with its password redacted (the same form `Settings` prints) and the cause; the exit
code is 2 (the command could not do its job), but `accord check` keeps its probe
semantics: unreachable is unhealthy, exit 1.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

from tests.support.worker_kit import ROOT

pytestmark = [pytest.mark.timeout(120)]

PASSWORD = "s3cret-pw"  # noqa: S105  (a made-up password the output must not show)
TRANSCRIPT = ROOT / "worker" / "transcripts" / "07-todo-delivery.en.jsonl"


@pytest.fixture(scope="module")
def closed_url() -> str:
    """A loopback port nothing listens on: bound, then released (connect is refused)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"redis://:{PASSWORD}@127.0.0.1:{port}/0"


def accord(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "REDIS_URL": url, "COLUMNS": "80"}
    return subprocess.run(  # noqa: S603
        [sys.executable, "-c", "from worker.cli import main; main()", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


COMMANDS = [
    ("view", "session-1", "--agent", "a", "--user", "u"),
    ("history", "record-1"),
    ("events",),
    ("events", "--follow"),
    ("dlq", "list"),
    ("dlq", "requeue", "1-0"),
    ("replay", str(TRANSCRIPT)),
]


@pytest.mark.parametrize("args", COMMANDS, ids=lambda args: " ".join(args[:2]))
def test_unreachable_redis_is_one_line_naming_the_redacted_url_and_the_cause(
    closed_url: str, args: tuple[str, ...]
) -> None:
    """One stderr line with the redacted URL and the refusal, exit 2, no password shown."""
    done = accord(closed_url, *args)
    lines = done.stderr.splitlines()
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr
    port = closed_url.rsplit(":", 1)[1].split("/", maxsplit=1)[0]
    assert lines[0].startswith(f"accord: cannot reach Redis at redis://:***@127.0.0.1:{port}/0: ")
    assert "111" in lines[0] or "refused" in lines[0].lower()
    assert PASSWORD not in done.stderr + done.stdout


def test_check_against_unreachable_redis_is_unhealthy_with_one_line(closed_url: str) -> None:
    """`accord check` keeps its 0/1 health semantics: unreachable exits 1, one stderr line."""
    done = accord(closed_url, "check")
    assert done.returncode == 1, done.stderr
    assert done.stdout == ""
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert "cannot reach Redis at redis://:***@" in done.stderr
    assert PASSWORD not in done.stderr


def test_check_json_against_unreachable_redis_reports_it_in_one_document(closed_url: str) -> None:
    """`accord check --json` prints one JSON line with ok false and the redacted cause."""
    done = accord(closed_url, "check", "--json")
    assert done.returncode == 1, done.stderr
    assert len(done.stdout.splitlines()) == 1
    assert '"ok":false' in done.stdout
    assert "cannot reach Redis" in done.stdout
    assert PASSWORD not in done.stdout
