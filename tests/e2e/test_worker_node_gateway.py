"""A gateway written in Node.js (ioredis) drives the worker: the wire contract needs no Python.

Node is required (it is on the CI machine): without it these tests fail loudly,
they are never skipped. `npm ci` installs the locked packages on first use.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.paths import ROOT
from tests.support.worker_kit import EXPECTED, flushed, worker_env, worker_processes

NODE_DIR = ROOT / "harness" / "node"

pytestmark = [pytest.mark.redis, pytest.mark.slow, pytest.mark.timeout(180)]


def _node() -> str:
    node = shutil.which("node")
    npm = shutil.which("npm")
    if node is None or npm is None:
        pytest.fail("node and npm are required for the Node.js gateway test (install Node >= 18)")
    if not (NODE_DIR / "node_modules" / "ioredis").is_dir():
        subprocess.run(  # noqa: S603
            [npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts"],
            cwd=NODE_DIR,
            check=True,
            capture_output=True,
            timeout=300,
        )
    return node


@pytest.fixture(scope="module")
def one_worker(redis_url: str) -> Iterator[str]:
    """One `accord worker` process (two partitions) for the module; the gateway is Node."""
    with worker_processes(1, worker_env(flushed(redis_url), ACCORD_PARTITIONS="2")):
        yield redis_url


@pytest.mark.parametrize("stem", ["02-user-accepts-first", "07-todo-delivery", "08-late-delivery"])
@pytest.mark.parametrize("language", ["en", "zh"])
def test_node_gateway_plays_a_scenario(
    one_worker: str, redis_url: str, stem: str, language: str
) -> None:
    """Node XADDs a seed scenario and reads the agreement events it expects (R3, R5, R11-R13)."""
    node = _node()
    transcript = ROOT / "worker" / "transcripts" / f"{stem}.{language}.jsonl"
    expected = EXPECTED[stem][0]
    done = subprocess.run(  # noqa: S603
        [node, "gateway.mjs", str(transcript), json.dumps(expected), "2"],
        cwd=NODE_DIR,
        env=worker_env(redis_url),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert one_worker
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["events"] == expected


def test_asyncapi_document_is_valid_for_the_official_parser() -> None:
    """docs/asyncapi.json passes @asyncapi/parser (errors fail; the 3.1 hint does not)."""
    node = _node()
    done = subprocess.run(  # noqa: S603
        [node, "validate-asyncapi.mjs", str(ROOT / "docs" / "asyncapi.json")],
        cwd=NODE_DIR,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_committed_asyncapi_document_is_current() -> None:
    """The committed document is exactly what `accord asyncapi` generates from the contracts."""
    from worker.asyncapi import render  # noqa: PLC0415

    assert Path(ROOT / "docs" / "asyncapi.json").read_text(encoding="utf-8") == render()
