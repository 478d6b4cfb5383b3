"""Least privilege on a real Redis with the committed deploy/redis/redis.conf and users.acl.

Each identity gets its own user (docs/security.md, "Who writes what"): the worker runs as
`accord`, a chat gateway writes as `gateway`, a subscriber reads as `subscriber`, KEDA
counts as `keda`. A whole worker applies a proposal the gateway wrote and the subscriber
reads the event, each on its own credentials, and then every operation each identity
must never do is tried and refused: forging agreement events, overwriting scope state,
trimming an input stream, running a script, enumerating keys, reading chat text.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from datetime import timedelta
from typing import Any

import pytest
import pytest_asyncio
import redis
import redis.asyncio
from accord_harness.reading import read_new
from accord_harness.store_harness import chat, result
from redis.exceptions import NoPermissionError

from contracts.streams import DATA_FIELD, stream_name
from store import keys
from store.config import StoreConfig
from store.intake import ensure_groups
from store.processor import PartitionProcessor
from tests.support.cli_kit import accord_here, accord_process, command_env
from tests.support.console_kit import console_get
from tests.support.redis_deploy_kit import PASSWORDS, assert_refused, production_redis
from tests.support.worker_kit import (
    gateway_xadd,
    now_s,
    running_worker,
    wait_for,
    worker_env,
    worker_settings,
)
from worker.connection import quiet_options
from worker.console.server import Access, Console
from worker.engine import Engine
from worker.health import Health, Watchdog, live_workers
from worker.observability import get_logger
from worker.settings import Settings

pytestmark = [pytest.mark.redis, pytest.mark.timeout(120)]

EVENTS = stream_name("agreement-events", 0)
CHAT = stream_name("chat-turn", 0)


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    with production_redis() as server_port:
        yield server_port


def url(port: int, user: str) -> str:
    return f"redis://{user}:{PASSWORDS[user]}@127.0.0.1:{port}/0"


def as_user(port: int, user: str) -> redis.Redis:
    """A synchronous client that sends no CLIENT command on connect (SETINFO, and the
    sync client's RESP3 maintenance-notifications handshake): no user in the deploy ACL
    may run CLIENT, so ACL LOG holds only what the test provokes (worker/connection.py)."""
    return redis.Redis.from_url(url(port, user), **quiet_options())


@pytest.fixture
def ops(port: int) -> Iterator[redis.Redis]:
    client = as_user(port, "ops")
    client.flushall()
    client.acl_log_reset()
    yield client
    client.close()


@pytest_asyncio.fixture
async def gateway(port: int, ops: redis.Redis) -> AsyncIterator[redis.asyncio.Redis]:  # noqa: ARG001  (ops flushes first)
    client = redis.asyncio.Redis.from_url(url(port, "gateway"), **quiet_options())
    yield client
    await client.aclose()


def proposal(session: str, seq: int) -> dict[str, Any]:
    return {
        "type": "chat_turn", "agent_id": "a1", "user_id": "u1", "session_id": session,
        "seq": seq, "ts": (now_s() + timedelta(seconds=seq)).isoformat(), "role": "user",
        "text": "Let's agree: reply in metric units.", "message_id": f"m-{session}-{seq}",
    }  # fmt: skip


@pytest.mark.asyncio
async def test_worker_gateway_and_subscriber_each_on_their_own_user_r15(
    port: int, ops: redis.Redis, gateway: redis.asyncio.Redis
) -> None:
    """The worker applies, as `accord`, a turn the gateway appended as `gateway`; the
    subscriber reads the event as `subscriber`; `accord check`'s worker list works without
    SCAN; and not one command of the three was refused (ACL LOG is empty: in particular
    no CLIENT SETINFO, which redis-py and FastStream send by default) (R15: applied once)."""
    subscriber = as_user(port, "subscriber")
    try:
        async with running_worker(worker_settings(url(port, "accord"))) as worker:
            await gateway.xadd(CHAT, {DATA_FIELD: json.dumps(proposal("acl-1", 1))})

            async def published() -> bool:
                return bool(subscriber.xread({EVENTS: "0"}, count=10))

            await wait_for(published, seconds=60)

            async def beating() -> bool:
                names = [w.consumer for w in await live_workers(worker.redis)]
                return worker.settings.consumer in names

            await wait_for(beating, seconds=60)
        read: Any = subscriber.xread({EVENTS: "0"}, count=10)
        [[_stream, entries]] = read
        event = json.loads(entries[0][1][DATA_FIELD.encode()])
        assert (event["type"], event["session_id"]) == ("agreement.state_changed", "acl-1")
    finally:
        subscriber.close()
    log: Any = ops.acl_log()
    assert [(e["username"], e["object"]) for e in log if e["username"] != "probe"] == []


FORGED_EVENT = json.dumps(
    {"type": "agreement.state_changed", "record_id": "agr-0", "state": "open"}
)

# A gateway's append script in miniature: allocate the session's seq, append the input.
APPEND_TO = (
    "redis.call('INCR', KEYS[2] or 'gateway-seq:{0}:1:s') "
    "return redis.call('XADD', KEYS[1], '*', '__data__', '{}')"
)

# (identity, command): what each identity must never be able to do.
FORBIDDEN: list[tuple[str, tuple[str, ...]]] = [
    # The gateway appends inputs, nothing else: no forged outputs, no state, no trimming,
    # no reading other users' chat, no scripts, no key enumeration.
    ("gateway", ("XADD", EVENTS, "*", DATA_FIELD, FORGED_EVENT)),
    ("gateway", ("HSET", "scope:{0}:x", "state", "forged")),
    ("gateway", ("SET", "record:{0}:agr-0", "forged")),
    ("gateway", ("XTRIM", CHAT, "MAXLEN", "0")),
    ("gateway", ("XDEL", CHAT, "1-0")),
    ("gateway", ("XRANGE", CHAT, "-", "+")),
    ("gateway", ("XREADGROUP", "GROUP", "accord", "g", "STREAMS", CHAT, ">")),
    ("gateway", ("XACK", CHAT, "accord", "1-0")),
    ("gateway", ("XGROUP", "SETID", CHAT, "accord", "$")),
    ("gateway", ("EVAL", APPEND_TO, "1", EVENTS)),
    ("gateway", ("EVAL", "return redis.call('HSET', KEYS[1], 's', 'x')", "1", "scope:{0}:x")),
    ("gateway", ("EVAL", "return redis.call('XTRIM', KEYS[1], 'MAXLEN', 0)", "1", CHAT)),
    ("gateway", ("EVAL", "return redis.call('DEL', KEYS[1])", "1", CHAT)),
    ("gateway", ("SCAN", "0")),
    ("gateway", ("KEYS", "*")),
    ("gateway", ("DEL", CHAT)),
    ("gateway", ("CLIENT", "LIST")),
    # The subscriber reads events: it can neither write them nor read the inputs.
    ("subscriber", ("XADD", EVENTS, "*", DATA_FIELD, FORGED_EVENT)),
    ("subscriber", ("XTRIM", EVENTS, "MAXLEN", "0")),
    ("subscriber", ("XDEL", EVENTS, "1-0")),
    ("subscriber", ("XGROUP", "DESTROY", EVENTS, "accord")),
    ("subscriber", ("HSET", "view:{0}:2:a1:2:u1", "doc", "{}")),
    ("subscriber", ("HSET", "scope:{0}:x", "state", "forged")),
    ("subscriber", ("XRANGE", CHAT, "-", "+")),
    ("subscriber", ("XREAD", "STREAMS", CHAT, "0")),
    ("subscriber", ("EVAL", "return 1", "0")),
    ("subscriber", ("SCAN", "0")),
    ("subscriber", ("DEL", EVENTS)),
    # KEDA counts: no entry contents (XINFO STREAM returns the first and last entries,
    # FULL returns them all), no writes, no scripts.
    ("keda", ("XINFO", "STREAM", CHAT)),
    ("keda", ("XINFO", "STREAM", CHAT, "FULL")),
    ("keda", ("XRANGE", CHAT, "-", "+")),
    ("keda", ("XREAD", "STREAMS", CHAT, "0")),
    ("keda", ("XADD", CHAT, "*", DATA_FIELD, "{}")),
    ("keda", ("EVAL", "return 1", "0")),
    ("keda", ("SCAN", "0")),
    # The worker's own credential cannot enumerate the server's keys (SCAN cannot be
    # confined to a key pattern; live workers are listed from a sorted set instead).
    ("accord", ("SCAN", "0")),
    ("accord", ("SCAN", "0", "MATCH", "other-app:*")),
    ("accord", ("KEYS", "*")),
]


@pytest.mark.parametrize(
    ("user", "command"), FORBIDDEN, ids=[f"{u}-{' '.join(c[:2])}" for u, c in FORBIDDEN]
)
def test_each_identity_is_refused_what_it_must_never_do(
    port: int, ops: redis.Redis, user: str, command: tuple[str, ...]
) -> None:
    """Refused with NOPERM, and nothing changed: the streams keep their entries."""
    ops.xgroup_create(CHAT, "accord", id="0", mkstream=True)
    ops.xadd(CHAT, {DATA_FIELD: "{}"})
    ops.xadd(EVENTS, {DATA_FIELD: "{}"})
    client = as_user(port, user)
    assert_refused(client, command)
    assert (ops.xlen(CHAT), ops.xlen(EVENTS)) == (1, 1)
    assert not ops.exists("scope:{0}:x", "record:{0}:agr-0")


def test_the_gateway_appends_to_every_input_family_and_keda_still_counts(
    port: int, ops: redis.Redis
) -> None:
    """What the gateway and KEDA need is granted: XADD on the three input families of any
    partition, and a script that allocates a seq and appends (the client library's);
    XLEN, XPENDING and XINFO GROUPS (lag and pending counts)."""
    gateway = as_user(port, "gateway")
    keda = as_user(port, "keda")
    try:
        for family in ("chat-turn", "tool-call", "tool-result"):
            for partition in (0, 7):
                stream = stream_name(family, partition)
                ops.xgroup_create(stream, "accord", id="0", mkstream=True)
                assert gateway.xadd(stream, {DATA_FIELD: "{}"})
                assert keda.xlen(stream) == 1
                assert keda.xpending(stream, "accord")["pending"] == 0
                assert keda.xinfo_groups(stream)[0]["name"] == b"accord"
        seq_key = "gateway-seq:{0}:2:a1:2:u1:2:s1"
        assert gateway.eval(APPEND_TO, 2, CHAT, seq_key)
        assert ops.get(seq_key) == b"1"
        with pytest.raises(NoPermissionError):
            gateway.xadd("chat-turn:0", {DATA_FIELD: "{}"})  # not the hash-tagged family
    finally:
        gateway.close()
        keda.close()
    log: Any = ops.acl_log()
    denials = [(e["username"], e["object"]) for e in log if e["username"] != "probe"]
    assert denials == [("gateway", "chat-turn:0")]


@pytest.mark.asyncio
async def test_heartbeats_are_listed_from_their_set_and_gone_workers_pruned(
    port: int,
    ops: redis.Redis,
) -> None:
    """As the `accord` user: a beat writes the worker's key and names it in the heartbeats
    set, drops names long expired, and `live_workers` lists the live one (no SCAN)."""
    ops.zadd(keys.heartbeats_key(), {"gone": 1, "expired": 2})
    accord = redis.asyncio.Redis.from_url(url(port, "accord"), **quiet_options())
    try:
        watchdog = Watchdog(
            accord, Health(), "w-live", "accord", [0], on_fatal=print, log=get_logger("t")
        )
        await watchdog.beat(10_000)
        assert [w.consumer for w in await live_workers(accord)] == ["w-live"]
    finally:
        await accord.aclose()
    assert ops.zrange(keys.heartbeats_key(), 0, -1) == [b"w-live"]
    log: Any = ops.acl_log()
    assert [(e["username"], e["object"]) for e in log if e["username"] != "probe"] == []


@pytest.mark.asyncio
async def test_the_client_library_appends_as_gateway_and_reads_as_subscriber_r15(
    port: int, ops: redis.Redis
) -> None:
    """The gateway client library (client/) on the committed ACL: its append script runs
    as `gateway` (a user turn, a retried one answered from its idempotency key, a tool
    call and result), the worker applies them as `accord`, and the session's view and
    applied seq are read as `subscriber`. ACL LOG stays empty (R15: each input once)."""
    from accord_client import AccordClient  # noqa: PLC0415

    writer = redis.asyncio.Redis.from_url(url(port, "gateway"), **quiet_options())
    reader = redis.asyncio.Redis.from_url(url(port, "subscriber"), **quiet_options())
    try:
        appends = AccordClient(writer).session("a1", "u1", "s-client")
        reads = AccordClient(reader).session("a1", "u1", "s-client")
        async with running_worker(worker_settings(url(port, "accord"), partitions=1)):
            first = await appends.user("Let's agree: reply in metric units.", message_id="m-1")
            again = await appends.user("Let's agree: reply in metric units.", message_id="m-1")
            call = await appends.tool_call("todo_write", {"todos": []}, call_id="c-1")
            await appends.tool_result("c-1", ok=True, todos=[])
            assert (first.seq, again.seq, again.repeated, call.seq) == (1, 1, True, 2)
            await reads.wait_applied(3, timeout=120)
            view = await reads.view()
        assert [p.terms for p in view.pending_proposals] == ["reply in metric units"]
    finally:
        await writer.aclose()
        await reader.aclose()
    log: Any = ops.acl_log()
    assert [(e["username"], e["object"]) for e in log if e["username"] != "probe"] == []


@pytest.mark.asyncio
async def test_the_worker_user_may_run_every_retention_step_r15(
    port: int,
    ops: redis.Redis,
) -> None:
    """As the `accord` user, with every retention setting on: the commit sets a closed
    record's time to live and keeps the idle index, the sweeper's compaction and input
    trim run, and `ACL LOG` stays empty (no grant is missing)."""
    accord = redis.asyncio.Redis.from_url(url(port, "accord"), **quiet_options())
    config = StoreConfig(
        record_retention_ms=3_600_000, session_retention_ms=1, trim_interval_ms=60_000
    )
    try:
        await ensure_groups(accord, [0], "accord")
        store = PartitionProcessor(accord, 0, Engine(), config)
        scope = ("agent", "user")
        documents = [
            result(scope, "s", 1),
            chat(scope, "s", 2, "Let's agree: use metric units."),
            chat(scope, "s", 3, "Cancel this agreement."),
        ]
        for document in documents:
            await gateway_xadd(accord, document)
        await store.process(await read_new(accord, 0, "accord", "c"))
        done = await store.retain(now_ms=2**50)
    finally:
        await accord.aclose()
    assert (done.compacted, done.trimmed) == (1, 3)
    records = list(ops.scan_iter(match="record:*"))
    assert len(records) == 1
    assert 0 < ops.pttl(records[0]) <= 3_600_000
    log: Any = ops.acl_log()
    assert [(e["username"], e["object"]) for e in log if e["username"] != "probe"] == []


# Function mode on 6.2, which has no functions: users.acl (+eval +evalsha) is the
# fallback (docs/security.md, "Redis 6.2 and Redis 7"), and turning function mode on
# here is a configuration error said in one line, never a worker failing every call.


def _lines(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.strip()]


def test_functions_load_on_redis_62_is_refused_in_one_line(port: int) -> None:
    """`accord functions load`, even as `ops`: exit 2, one line saying functions need
    Redis 7."""
    done = accord_here("functions", "load", env=command_env(url(port, "ops")))
    assert done.returncode == 2
    [line] = _lines(done.stderr)
    assert "functions need Redis 7" in line


def test_a_worker_in_function_mode_on_redis_62_refuses_to_start(port: int) -> None:
    """ACCORD_REDIS_FUNCTIONS=1 on 6.2: one line naming the setting and Redis 7, exit 2."""
    env = worker_env(url(port, "accord"), ACCORD_REDIS_FUNCTIONS="1")
    done = accord_process("worker", env=env, timeout=120)
    lines = _lines(done.stdout + done.stderr)
    assert done.returncode == 2, lines
    [line] = lines
    assert "ACCORD_REDIS_FUNCTIONS=1 needs Redis 7" in line


def test_check_and_status_as_the_worker_user_leave_acl_log_empty(
    port: int, ops: redis.Redis
) -> None:
    """`accord check` (its probe of partitions past P included) and `accord status` run
    as `accord` send nothing the ACL refuses: ACL LOG keeps only real denials."""
    ops.xadd("chat-turn:{9}", {"__data__": "{}"})  # a stream past P = 4
    env = command_env(url(port, "accord"), ACCORD_PARTITIONS="4")
    check = accord_here("check", "--json", env=env)
    assert check.returncode == 1, check.stderr
    report = json.loads(check.stdout.splitlines()[-1])
    assert report["streams_beyond_partitions"] == ["chat-turn:{9}"]
    status = accord_here("status", "--json", env=env)
    assert status.returncode == 0, status.stderr
    log: Any = ops.acl_log()
    assert [(e["username"], e["object"]) for e in log if e["username"] != "probe"] == []


async def _proposal_as_worker(port: int) -> None:
    """A proposal committed by the worker's user (its indexes with it)."""
    accord = redis.asyncio.Redis.from_url(url(port, "accord"), **quiet_options())
    try:
        await ensure_groups(accord, [0], "accord")
        store = PartitionProcessor(accord, 0, Engine(), StoreConfig())
        await gateway_xadd(accord, chat(("agent", "user"), "s", 1, "Let's agree: metric units."))
        await store.process(await read_new(accord, 0, "accord", "c"))
    finally:
        await accord.aclose()


def test_reindex_runs_as_ops_and_is_refused_in_one_line_as_worker_or_console(
    port: int, ops: redis.Redis
) -> None:
    """`accord reindex` needs the operator's user: as `accord` (no SCAN) and as `console`
    (no write) it stops with one line naming the refusal, exit 2, nothing written; as
    `ops` it indexes the proposal the worker's commit made before the index existed."""
    asyncio.run(_proposal_as_worker(port))
    for name in ops.keys("records:*") + ops.keys("scopes:*"):
        ops.delete(name)
    for user in ("accord", "console"):
        done = accord_here("reindex", env=command_env(url(port, user)))
        assert done.returncode == 2, (user, done.stdout, done.stderr)
        assert len(_lines(done.stderr)) == 1, done.stderr
        assert "NOPERM" in done.stderr or "permission" in done.stderr.lower(), done.stderr
        assert not ops.keys("records:*")
        assert not ops.keys("scopes:*")
    done = accord_here("reindex", "--json", env=command_env(url(port, "ops")))
    assert done.returncode == 0, done.stderr
    added = json.loads(done.stdout)
    assert (added["records"]["added"], added["scopes"]["added"]) == (1, 1)


@pytest.mark.asyncio
async def test_the_console_user_serves_every_page_and_may_write_nothing(
    port: int, ops: redis.Redis, gateway: redis.asyncio.Redis
) -> None:
    """`accord console` as the read-only `console` user: the scope, the record found by
    its short id (SCAN, which this user may run), the partitions, the dead letters and
    the records and scopes lists (the indexes, Redis's TIME for `since`) answer 200 with
    nothing in ACL LOG; writes of every kind are refused."""
    async with running_worker(worker_settings(url(port, "accord"))):
        await gateway.xadd(CHAT, {DATA_FIELD: json.dumps(proposal("console-1", 1))})
        await gateway.xadd(CHAT, {DATA_FIELD: "{not json"})

        async def settled() -> bool:
            return ops.xlen(EVENTS) >= 1 and ops.xlen(stream_name("dead-letters", 0)) >= 1

        await wait_for(settled, seconds=60)
    first: Any = ops.xrange(EVENTS, count=1)
    record_id = json.loads(first[0][1][DATA_FIELD.encode()])["record_id"]
    console = Console(Settings.from_env({"REDIS_URL": url(port, "console")}), Access(None))
    try:
        for route, query in [
            ("/", ""),
            ("/scope", "agent=a1&user=u1"),
            ("/record", f"id={record_id[:12]}"),
            ("/partitions", ""),
            ("/dead-letters", ""),
            ("/records", ""),
            ("/records", "state=proposed&since=1h&agent=a1"),
            ("/scopes", "refresh=5"),
            ("/scopes", "open=1&since=1h&agent=a1&user=u1"),
        ]:
            status, body = await console_get(console, route, query)
            assert status == 200, route
            if route == "/scopes" and "open" not in query:
                assert "a1 / u1" in body, "the proposal's scope is listed"
    finally:
        await console.close()
    log: Any = ops.acl_log()
    assert [(e["username"], e["object"]) for e in log if e["username"] != "probe"] == []
    for command in [
        ("XADD", CHAT, "*", DATA_FIELD, "{}"),
        ("SET", f"record:{{0}}:{record_id}", "x"),
        ("HSET", "view:{0}:2:a1:2:u1", "doc", "{}"),
        ("XACK", CHAT, "accord", "0-1"),
        ("XGROUP", "SETID", CHAT, "accord", "$"),
        ("EVAL", "return 1", "0"),
        ("ZADD", "records:{0}", "1", "forged"),
        ("ZADD", "scopes:{0}", "1", "forged"),
        ("ZREM", "scopes:{0}:open", "forged"),
    ]:
        assert_refused(as_user(port, "console"), command)
