"""The TypeScript client (clients/typescript) against a real Redis and a real worker.

Node's test runner runs clients/typescript/test/: partition vectors, 50 concurrent
writers with injected faults, typed bad input, and the seed scenarios (EN and ZH)
written through the TypeScript client only. Then this test checks what the TypeScript
client read (views, applied seqs) against the worker's stored state. Node and npm are
required on the CI machine: without them these tests fail, they are never skipped.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import msgspec
import pytest
import redis

from contracts.partition import partition_of
from contracts.view import SessionView
from core.lifecycle.state import ScopeState
from core.lifecycle.view import session_view
from store import keys
from tests.support.typescript_kit import run_in_client
from tests.support.worker_kit import EXPECTED, flushed, worker_env, worker_processes
from worker.engine import Engine

PARTITIONS = 2

pytestmark = [pytest.mark.redis, pytest.mark.slow, pytest.mark.timeout(300)]


def test_generated_types_and_script_are_current(built: str) -> None:
    """src/generated/ is what scripts/generate.mjs makes from contracts/schemas and
    clients/python/src/accord_client/lua/append.lua now: no type and no script is a
    hand-kept copy."""
    check = run_in_client([built, "scripts/generate.mjs", "--check"])
    assert check.returncode == 0, check.stdout + check.stderr


@pytest.fixture(scope="module")
def worker_url(redis_url: str) -> Iterator[str]:
    with worker_processes(1, worker_env(flushed(redis_url), ACCORD_PARTITIONS=str(PARTITIONS))):
        yield redis_url


def test_typescript_client_plays_the_seed_scenarios_and_reads_the_stored_state(
    built: str, worker_url: str, tmp_path: Path
) -> None:
    """R1-R15 through the TypeScript client: node --test asserts the events it received
    (subscribed, accept outcomes by request/reply); here, every view it read equals the
    core's view of the stored scope state, and every applied seq is the session's last."""
    result_file = tmp_path / "results.json"
    expected = {stem: [events, views] for stem, (events, views) in EXPECTED.items()}
    env = {
        **os.environ,
        "REDIS_URL": worker_url,
        "ACCORD_PARTITIONS": str(PARTITIONS),
        "ACCORD_EXPECTED": json.dumps(expected),
        "ACCORD_RESULT_FILE": str(result_file),
    }
    done = run_in_client([built, "--test", "--test-reporter=tap", "dist/test/client.test.js"], env)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    assert "# skipped 0" in done.stdout, "no TypeScript test may be skipped here"
    results = json.loads(result_file.read_text("utf-8"))
    assert set(results) == {f"{stem}.{lang}" for stem in EXPECTED for lang in ("en", "zh")}
    client = redis.Redis.from_url(worker_url)
    engine = Engine()
    try:
        for name, result in results.items():
            stem = name.split(".")[0]
            assert result["events"] == EXPECTED[stem][0], name
            for session_id, read in result["views"].items():
                view = msgspec.convert(read["view"], SessionView)
                p = partition_of(view.agent_id, view.user_id, PARTITIONS)
                raw = client.hget(keys.scope_key(p, view.agent_id, view.user_id), "s")
                scope: ScopeState = engine.decode_scope(raw, view.agent_id, view.user_id)  # type: ignore[arg-type]
                as_of = datetime.fromisoformat(read["view"]["as_of"])
                assert view == session_view(scope, session_id, as_of), (name, session_id)
                assert read["applied"] == read["last_seq"], (name, session_id)
    finally:
        client.close()
