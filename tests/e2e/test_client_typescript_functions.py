"""The TypeScript client's Redis 7 function mode (`new AccordClient(redis, {functions:
true})`) against a real Redis 7 started with deploy/redis/users-redis7.acl, whose
`gateway` user holds `+fcall` and no `+eval +evalsha`.

An operator loads the library (`accord functions load` as `ops`); node's test runner
then runs clients/typescript/test/functions.test.ts as `gateway`: appends by `FCALL
accord_append` store exactly what the EVALSHA path stores, the same client without
`functions` is refused, an append refused by the layout (`ACCORDLAYOUT 3`, after a
repartition) is retried at the scope's new partition, and a missing library is one typed
error after one FCALL.
Node and Debian's redis-server 7 are required: without them this test fails, it is
never skipped (docs/security.md, "Redis 6.2 and Redis 7").
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from tests.support.cli_kit import accord_here, command_env
from tests.support.redis_deploy_kit import ACL7, PASSWORDS, production_redis, redis7_binary
from tests.support.typescript_kit import run_in_client
from worker.connection import quiet_options
from worker.functions import VERSION

pytestmark = [pytest.mark.redis, pytest.mark.slow, pytest.mark.timeout(300)]


def url(port: int, user: str) -> str:
    return f"redis://{user}:{PASSWORDS[user]}@127.0.0.1:{port}/0"


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    with production_redis(binary=redis7_binary(), acl=ACL7) as server_port:
        yield server_port


def test_typescript_gateway_appends_by_fcall_as_the_redis7_gateway_user_r15(
    built: str, port: int
) -> None:
    """R15 in function mode: every test of functions.test.ts passes, none skipped, and
    afterwards the library an operator loaded is still this release's. ACL LOG holds
    only the gateway's script call (ioredis sends EVAL first on a connection, then
    EVALSHA) of the test that leaves `functions` off: function mode needed nothing the
    Redis 7 gateway user lacks."""
    loaded = accord_here("functions", "load", "--json", env=command_env(url(port, "ops")))
    assert loaded.returncode == 0, loaded.stderr
    assert json.loads(loaded.stdout)["version"] == VERSION
    ops = redis.Redis.from_url(url(port, "ops"), **quiet_options())
    try:
        ops.acl_log_reset()
        env = {
            **os.environ,
            "ACCORD_REDIS7_GATEWAY_URL": url(port, "gateway"),
            "ACCORD_REDIS7_OPS_URL": url(port, "ops"),
        }
        done = run_in_client(
            [built, "--test", "--test-reporter=tap", "dist/test/functions.test.js"], env
        )
        assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
        assert "# skipped 0" in done.stdout, "no TypeScript test may be skipped here"
        assert "# pass 4" in done.stdout, done.stdout[-3000:]
        assert ops.fcall("accord_version", 0) == VERSION.encode()
        log: Any = ops.acl_log()
        refused = {(e["username"], e["object"]) for e in log if e["username"] != "probe"}
        assert {user for user, _ in refused} == {"gateway"}
        assert {"eval", "evalsha"} & {command for _, command in refused}
        assert {command for _, command in refused} <= {"eval", "evalsha"}
    finally:
        ops.close()
