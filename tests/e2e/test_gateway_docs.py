"""docs/gateway.md's examples run as written, against a real Redis and a real worker.

The turn example (Python and TypeScript, and the model's side through `accord mcp`)
proposes, accepts through the tool and by the user, and must end with the agreement in
current memory (R3, R5, R6); the subscriber example must follow the events to the
opening revision.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.gateway_docs_kit import assert_subscriber_ran, assert_turn_ran, blocks
from tests.support.paths import ROOT
from tests.support.typescript_kit import TS_DIR, run_in_client
from tests.support.worker_kit import flushed, worker_env, worker_processes

PARTITIONS = 2

pytestmark = [pytest.mark.redis, pytest.mark.slow, pytest.mark.timeout(240)]


@pytest.fixture(scope="module")
def worker_url(redis_url: str) -> Iterator[str]:
    with worker_processes(1, worker_env(flushed(redis_url), ACCORD_PARTITIONS=str(PARTITIONS))):
        yield redis_url


def _env(url: str) -> dict[str, str]:
    return {
        **os.environ,
        "REDIS_URL": url,
        "ACCORD_PARTITIONS": str(PARTITIONS),
        "RUN_ID": uuid.uuid4().hex[:8],
    }


def _python(code: str, url: str, tmp_path: Path) -> str:
    script = tmp_path / "example.py"
    script.write_text(code, "utf-8")
    done = subprocess.run(  # noqa: S603
        [sys.executable, str(script)],
        cwd=ROOT,
        env={**_env(url), "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_the_python_turn_and_subscriber_examples_run(worker_url: str, tmp_path: Path) -> None:
    """R3, R5, R6: the documented turn accepts through the tool and the user's
    confirmation, and the agreement is then current memory; the subscriber sees it open."""
    turn, _, subscriber = blocks("python")
    assert_turn_ran(_python(turn, worker_url, tmp_path))
    assert_subscriber_ran(_python(subscriber, worker_url, tmp_path))


def test_the_mcp_client_example_runs(worker_url: str, tmp_path: Path) -> None:
    """R3, R6 through `accord mcp`: the SDK's client reads the pending proposal from the
    view resource, accepts it with the tool, and after the user's confirmation the view
    lists it as current memory."""
    _, mcp_turn, _ = blocks("python")
    out = _python(mcp_turn, worker_url, tmp_path)
    assert "tool result: Accepted: " in out
    assert "current: ['always offer green tea first']" in out


def test_the_typescript_turn_example_runs(built: str, worker_url: str) -> None:
    """The same turn through the TypeScript client: accepted, then current memory (R6)."""
    [code] = blocks("js")
    script = TS_DIR / f".docs-example-{uuid.uuid4().hex[:8]}.mjs"
    script.write_text(code, "utf-8")
    try:
        done = run_in_client([built, script.name], _env(worker_url))
    finally:
        script.unlink()
    assert done.returncode == 0, done.stdout + done.stderr
    assert "tool result: Accepted: " in done.stdout
    assert "current: [ 'always offer green tea first' ]" in done.stdout
