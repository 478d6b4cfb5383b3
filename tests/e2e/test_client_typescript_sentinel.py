"""The TypeScript client under Sentinel: `sentinelOptions` turns the redis+sentinel://
URL into ioredis's Sentinel options (checked against contracts/vectors/sentinel_url.json
in clients/typescript/test/sentinel.test.ts), and a client built from them appends and
reads back on the primary the sentinels name, before and after a failover
(tests/support/sentinel_kit.py). Node and npm are required: never skipped."""

from __future__ import annotations

import os

import pytest

from tests.support.sentinel_kit import sentinel_topology
from tests.support.typescript_kit import run_in_client

pytestmark = [pytest.mark.redis, pytest.mark.slow, pytest.mark.timeout(300)]


def test_typescript_client_appends_through_the_sentinels_before_and_after_a_failover(
    built: str,
) -> None:
    """R15's first half, the gateway's: the append script allocates seq 1 and XADDs on
    the primary, found through the sentinels; after SENTINEL FAILOVER a new process finds
    the promoted replica the same way."""
    with sentinel_topology(replicas=1) as topology:
        env = {**os.environ, "ACCORD_SENTINEL_URL": topology.url()}
        command = [built, "--test", "--test-reporter=tap", "dist/test/sentinel.test.js"]
        for failover in (None, topology.failover):
            if failover is not None:
                failover()
            done = run_in_client(command, env)
            assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
            assert "# skipped 0" in done.stdout, "no TypeScript test may be skipped here"
