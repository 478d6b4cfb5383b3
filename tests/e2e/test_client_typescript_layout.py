"""The TypeScript client under `accord repartition` (store/repartition.py), against a real
Redis with no worker: node's test runner runs clients/typescript/test/layout.test.ts, which
plays the mover's part (`accord:config`, the partitions' `layout:{p}` markers, a session's
keys copied to its new partition). The client learns the partition count from Redis; an
append refused with `ACCORDLAYOUT <count>` is retried at once at the scope's new partition
with the session's next seq; during a move it waits; a subscription that follows the layout
hands out a scope's events from before a growth before its events in a new partition.
Node and npm are required: never skipped."""

from __future__ import annotations

import os

import pytest

from tests.support.typescript_kit import run_in_client
from tests.support.worker_kit import flushed

pytestmark = [pytest.mark.redis, pytest.mark.slow, pytest.mark.timeout(300)]


def test_typescript_client_follows_a_repartition_in_seq_and_event_order_r15(
    built: str, redis_url: str
) -> None:
    """R15 across a repartition: every test of layout.test.ts passes, none skipped; the
    seqs of a moved session go on with no gap and no duplicate, nothing is written while
    the partition moves, and a subscriber sees a scope's events in order across the move."""
    env = {**os.environ, "REDIS_URL": flushed(redis_url)}
    done = run_in_client([built, "--test", "--test-reporter=tap", "dist/test/layout.test.js"], env)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    assert "# skipped 0" in done.stdout, "no TypeScript test may be skipped here"
    assert "# pass 9" in done.stdout, done.stdout[-3000:]
