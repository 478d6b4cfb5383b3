"""Running `accord` commands in tests: in this process, or as a user runs them.

`accord_here` runs the command line in this process (`worker.cli.run`, the entry
point's own dispatch, inside click's test isolation): no interpreter start and no
imports per call, which made each call cost seconds of CPU on a loaded machine.
`accord_process` runs `python -c "from worker.cli import main; main()"` in a subprocess:
the entry point, exit code and streams exactly as a shell sees them. Both answer with
`returncode`, `stdout` and `stderr`, so a test reads the same either way.

Keep at least one `accord_process` test per command family; the rest may run here.
`lines_of` reads a running command's output line by line, for waits with a timeout.
"""

from __future__ import annotations

import contextlib
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import IO
from unittest import mock

from typer.testing import CliRunner

from tests.support.paths import ROOT
from worker.cli import INTERNAL_ERROR, application, run
from worker.commands import _shared

ENTRY = [sys.executable, "-c", "from worker.cli import main; main()"]


@dataclass(frozen=True)
class Ran:
    """What a command did: its exit code and what it printed on each stream."""

    returncode: int
    stdout: str
    stderr: str


def command_env(url: str | None, **extra: str) -> dict[str, str]:
    """This process's environment without ACCORD_* settings, with REDIS_URL and `extra`
    (no REDIS_URL at all for `url=None`: the command starts its embedded server)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACCORD_") and k != "REDIS_URL"}
    if url is not None:
        env["REDIS_URL"] = url
    return env | extra


def accord_here(
    *args: str, env: Mapping[str, str], columns: int = 200, stdin: str | None = None
) -> Ran:
    """Run `accord ARGS` in this process with `env` as the whole environment.

    An internal error (an exception no command turned into an answer: one line, exit 1,
    as a shell would see it) fails the test here, so a test never mistakes it for an
    answer.
    """
    runner = CliRunner()
    unset: dict[str, str | None] = {k: None for k in os.environ if k not in env}
    # Rich reads the width once when it can: pin it as COLUMNS would in a subprocess.
    with (
        mock.patch.object(_shared.console, "_width", columns),
        mock.patch.object(_shared.err_console, "_width", columns),
        runner.isolation(input=stdin, env={**unset, **env}) as (out, err, _),
    ):
        try:
            code = run(application(), list(args))
        except SystemExit as stop:  # a command that exits the process itself
            code = stop.code if isinstance(stop.code, int) else 1
        sys.stdout.flush()  # the isolation's text wrappers buffer
        sys.stderr.flush()
        stdout, stderr = out.getvalue().decode(), err.getvalue().decode("utf-8", "replace")
    if INTERNAL_ERROR in stderr:
        # A bug the command did not foresee: fail the test with it, never read it as an answer.
        raise AssertionError(stderr)
    return Ran(code, stdout, stderr)


def accord_process(
    *args: str, env: Mapping[str, str], columns: int = 200, timeout: float = 90
) -> Ran:
    """Run `accord ARGS` as a subprocess with `env` (and COLUMNS) as its environment."""
    done = subprocess.run(  # noqa: S603  (our own CLI)
        [*ENTRY, *args],
        cwd=ROOT,
        env={**env, "COLUMNS": str(columns)},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    return Ran(done.returncode, done.stdout, done.stderr)


@contextlib.contextmanager
def accord_running(
    *args: str, env: Mapping[str, str], merged: bool = False
) -> Iterator[subprocess.Popen[str]]:
    """`accord ARGS` as a subprocess left running (`events --follow`, `mcp`), its streams
    piped as text (`merged`: stderr into stdout, one stream in order); stopped with
    SIGTERM and its pipes closed at the end."""
    process = subprocess.Popen(  # noqa: S603  (our own CLI)
        [*ENTRY, *args],
        cwd=ROOT,
        env=dict(env),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT if merged else subprocess.PIPE,
        text=True,
    )
    try:
        yield process
    finally:
        process.terminate()
        process.wait(timeout=90)
        for pipe in (process.stdout, process.stderr):
            if pipe is not None:
                pipe.close()


def lines_of(stream: IO[str]) -> queue.Queue[str]:
    """The stream's lines, read by a thread, so the test can wait with a timeout."""
    lines: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        for line in stream:
            lines.put(line)

    threading.Thread(target=pump, daemon=True).start()
    return lines
