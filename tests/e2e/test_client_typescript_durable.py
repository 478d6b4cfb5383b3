"""The TypeScript client's durability setting on a real primary and replica
(clients/typescript/test/durable.test.ts; R15, DESIGN 5): an append returns only once the
replica has it, a stopped replica leaves it unconfirmed, and the retry with the same
message id gets the same seq. Node and npm are required: never skipped."""

from __future__ import annotations

import os

import pytest

from tests.support.replica_kit import Pair, pair
from tests.support.typescript_kit import run_in_client

pytestmark = [pytest.mark.redis, pytest.mark.slow, pytest.mark.timeout(300)]
__all__ = ["pair"]  # the fixture, imported for pytest to find


def test_typescript_appends_wait_for_the_replica(built: str, pair: Pair) -> None:
    env = {
        **os.environ,
        "ACCORD_PRIMARY_URL": pair.primary.url,
        "ACCORD_REPLICA_URL": pair.replica.url,
        "ACCORD_REPLICA_PID": str(pair.replica.pid),
    }
    command = [built, "--test", "--test-reporter=tap", "dist/test/durable.test.js"]
    done = run_in_client(command, env)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "# skipped 0" in done.stdout, "no TypeScript test may be skipped here"
    assert "# pass 2" in done.stdout, done.stdout[-2000:]
