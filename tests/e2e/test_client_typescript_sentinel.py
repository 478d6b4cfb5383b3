"""The TypeScript client under Sentinel: `sentinelOptions` turns the redis+sentinel://
URL into ioredis's Sentinel options (checked against contracts/vectors/sentinel_url.json
in clients/typescript/test/sentinel.test.ts), and a client built from them appends and
reads back on the primary the sentinels name, before and after a failover
(tests/support/sentinel_kit.py), and no longer talks to a primary that was failed over
and came back. Node and npm are required: never skipped."""

from __future__ import annotations

import os
import subprocess

import pytest
import redis

from tests.support.sentinel_kit import sentinel_topology
from tests.support.typescript_kit import TS_DIR, run_in_client

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


# A client of the built package on stdin and stdout: "ready" once it wrote through the
# sentinels' primary, then the value of `marker` for each line "get".
_HELD_CLIENT = """
import { createInterface } from "node:readline";
import { Redis } from "ioredis";
import { sentinelOptions } from "./dist/src/index.js";
const redis = new Redis(sentinelOptions(process.env.ACCORD_SENTINEL_URL));
await redis.set("marker", "before");
console.log("ready");
for await (const line of createInterface({ input: process.stdin })) {
  if (line !== "get") break;
  console.log(String(await redis.get("marker")));
}
redis.disconnect();
"""


def test_typescript_client_leaves_a_primary_failed_over_while_paused(built: str) -> None:
    """R15's premise, the gateway's: appends and reads go to the primary the sentinels name.
    A client connected before its primary was paused and failed over reads the promoted
    replica right after, though the old primary, resumed, still calls itself the primary
    and answers with its own value (ioredis keeps its connection unless subscribed to the
    sentinels' +switch-master: `failoverDetector` in sentinelOptions)."""
    with sentinel_topology(replicas=1) as topology:
        env = {**os.environ, "ACCORD_SENTINEL_URL": topology.url()}
        with subprocess.Popen(  # noqa: S603  (the suite's node on the built client)
            [built, "--input-type=module", "-e", _HELD_CLIENT],
            cwd=TS_DIR, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        ) as client:  # fmt: skip
            assert client.stdin is not None
            assert client.stdout is not None
            assert client.stdout.readline().strip() == "ready"
            old = topology.pause_primary()
            new = topology.primary()
            topology.resume(old)
            assert topology.role(old) == "master", "Sentinel demoted the old primary at once"
            for port, value in ((old, "old"), (new, "new")):
                with redis.Redis(port=port, socket_timeout=10) as node:
                    node.set("marker", value)
            client.stdin.write("get\n")
            client.stdin.flush()
            answer = client.stdout.readline().strip()
            client.stdin.close()
            client.wait(timeout=60)
        assert answer == "new"
