"""The Redis 7 ACL variant (deploy/redis/users-redis7.acl) on a real Redis 7.

Redis 6.2 grants every granted command on a key pattern, so its `gateway` user cannot
read events or views without also being able to write them, and the client library
needs the `subscriber` credential for its reads. A Redis 7 selector (a second set of
commands and keys: `(%R~agreement-events:{*} ... +xread +hget ...)`) lets one `gateway`
user append inputs, wait for the accept tool's outcome and read the view, while an
`XADD` of a forged event, directly or from a script, any write of view or record state
and any read of an input stream are still refused (docs/security.md, "Redis 6.2 and
Redis 7"). Run on Debian's `redis-server` (7.x), which `./dev test` installs; without
it these tests fail with a message saying so, like the TLS tests.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
import redis
import redis.asyncio

from client import AccordClient
from contracts.streams import DATA_FIELD, stream_name
from tests.support.paths import DEPLOY
from tests.support.redis_deploy_kit import ACL, PASSWORDS, assert_refused, production_redis
from tests.support.worker_kit import running_worker, worker_settings
from worker.connection import quiet_options

pytestmark = [pytest.mark.redis, pytest.mark.timeout(180)]

ACL7 = DEPLOY / "redis" / "users-redis7.acl"
EVENTS = stream_name("agreement-events", 0)
CHAT = stream_name("chat-turn", 0)
VIEW = "view:{0}:2:a1:2:u1"
RECORD = "record:{0}:agr-0"
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"


def redis7_binary() -> Path:
    """An installed redis-server of major version 7 or later (the virtualenv's PATH may
    shadow the system's, so system paths are searched too)."""
    found = [shutil.which("redis-server"), shutil.which("redis-server", path=SYSTEM_PATH)]
    for path in dict.fromkeys(p for p in found if p):
        version = subprocess.run(  # noqa: S603  (a path found by which)
            [path, "--version"], capture_output=True, text=True, check=False, timeout=30
        ).stdout
        major = version.split("v=", 1)[1].split(".", 1)[0] if "v=" in version else "0"
        if major.isdigit() and int(major) >= 7:  # Redis 7: ACL selectors
            return Path(path)
    pytest.fail(
        "no redis-server 7.x installed: `./dev test` installs Debian's redis-server as "
        "root (apt-get install redis-server); the Redis 7 ACL variant needs it"
    )


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    with production_redis(binary=redis7_binary(), acl=ACL7) as server_port:
        yield server_port


def url(port: int, user: str) -> str:
    return f"redis://{user}:{PASSWORDS[user]}@127.0.0.1:{port}/0"


@pytest.fixture
def ops(port: int) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(url(port, "ops"), **quiet_options())
    client.flushall()
    client.acl_log_reset()
    yield client
    client.close()


@pytest_asyncio.fixture
async def gateway(port: int, ops: redis.Redis) -> AsyncIterator[AccordClient]:  # noqa: ARG001  (ops flushes first)
    client = AccordClient(redis.asyncio.Redis.from_url(url(port, "gateway"), **quiet_options()))
    yield client
    await client.aclose()


def test_the_variant_differs_from_users_acl_only_by_the_gateways_read_selector() -> None:
    """The two files cannot drift: every user but `gateway` is the same line, and the
    Redis 7 `gateway` is the 6.2 one plus one selector: read-only keys of the events,
    views and records, with only the read commands the client library sends."""
    six = dict(line.split(" ", 2)[1:] for line in ACL.read_text().splitlines() if line)
    seven = dict(line.split(" ", 2)[1:] for line in ACL7.read_text().splitlines() if line)
    assert six.keys() == seven.keys()
    assert {u: r for u, r in six.items() if u != "gateway"} == {
        u: r for u, r in seven.items() if u != "gateway"
    }
    root, selector = seven["gateway"].split(" (", 1)
    assert root == six["gateway"]
    assert selector.rstrip(")").split() == [
        "%R~agreement-events:{*}", "%R~view:{*}:*", "%R~record:{*}:*", "resetchannels",
        "-@all", "+xread", "+hget", "+hmget", "+get",
    ]  # fmt: skip


@pytest.mark.asyncio
async def test_one_gateway_user_appends_waits_for_the_outcome_and_reads_the_view_r3_r6(
    port: int, ops: redis.Redis, gateway: AccordClient
) -> None:
    """With the gateway's one credential: the user's proposal is appended, the agent's
    accept call is appended and its outcome read from the event stream (R3), the view
    read shows the agreement awaiting the user (R6), then open once the user confirms;
    the record's explanation is readable. Nothing was refused (ACL LOG is empty)."""
    session = gateway.session("a1", "u1", "acl7")
    async with running_worker(worker_settings(url(port, "accord"))):
        proposed = await session.user("Let's agree: reply in metric units.")
        await session.wait_applied(proposed.seq, timeout=90)
        [pending] = (await session.view()).pending_proposals
        outcome = await session.accept(pending.record_id, pending.revision, timeout=90)
        assert outcome.accepted
        confirmed = await session.user("I accept this agreement")
        await session.wait_applied(confirmed.seq, timeout=90)
        view = await session.view()
        assert [a.terms for a in view.current_agreements] == ["reply in metric units"]
        explained = await gateway.explain("a1", "u1", pending.record_id)
        assert explained.state == "open"
    log: Any = ops.acl_log()
    assert [(e["username"], e["object"]) for e in log if e["username"] != "probe"] == []


FORGED_EVENT = '{"type": "agreement.state_changed", "record_id": "agr-0", "state": "open"}'

# What the Redis 7 gateway, which may now read events, views and records, must still
# never write, directly or from a script.
FORBIDDEN: list[tuple[str, ...]] = [
    ("XADD", EVENTS, "*", DATA_FIELD, FORGED_EVENT),
    ("EVAL", f"return redis.call('XADD', KEYS[1], '*', '{DATA_FIELD}', 'x')", "1", EVENTS),
    ("XTRIM", EVENTS, "MAXLEN", "0"),
    ("XDEL", EVENTS, "1-0"),
    ("HSET", VIEW, "doc", "{}"),
    ("EVAL", "return redis.call('HSET', KEYS[1], 'doc', '{}')", "1", VIEW),
    ("HDEL", VIEW, "doc"),
    ("SET", RECORD, "forged"),
    ("EVAL", "return redis.call('SET', KEYS[1], 'forged')", "1", RECORD),
    ("XRANGE", CHAT, "-", "+"),
    ("XREAD", "STREAMS", CHAT, "0"),
    ("XTRIM", CHAT, "MAXLEN", "0"),
    ("HSET", "scope:{0}:x", "state", "forged"),
    ("SCAN", "0"),
]


@pytest.mark.parametrize("command", FORBIDDEN, ids=[" ".join(c[:2]) for c in FORBIDDEN])
def test_the_redis7_gateway_still_cannot_write_events_views_or_records(
    port: int, ops: redis.Redis, command: tuple[str, ...]
) -> None:
    """Refused with NOPERM, and nothing changed: the streams keep their entries, the view
    and the record keep their values."""
    ops.xadd(CHAT, {DATA_FIELD: "{}"})
    ops.xadd(EVENTS, {DATA_FIELD: "{}"})
    ops.hset(VIEW, "doc", "kept")
    ops.set(RECORD, "kept")
    client = redis.Redis.from_url(url(port, "gateway"), **quiet_options())
    assert_refused(client, command)
    assert (ops.xlen(CHAT), ops.xlen(EVENTS)) == (1, 1)
    assert (ops.hget(VIEW, "doc"), ops.get(RECORD)) == (b"kept", b"kept")
    assert not ops.exists("scope:{0}:x")
