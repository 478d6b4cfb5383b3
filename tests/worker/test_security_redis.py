"""Redis over TLS (`rediss://`) as the deploy ACL's `accord` user (docs/security.md).

The server runs the committed deploy/redis/users.acl. TLS is real: a redis-server built
with TLS when one is installed, else (the embedded servers have no TLS) a TLS terminator
in this process in front of a plain redis-server, as a TLS sidecar or a cloud proxy
would be. Either way the client side, which is what accord owns, is the same: redis-py
from REDIS_URL with the CA given as `?ssl_ca_certs=`, certificates verified.

Checked: the store's client and the worker's FastStream broker both speak TLS and
authenticate as the ACL user; an unverifiable server certificate and a plaintext
connection are refused; a wrong password fails without printing either password; a
worker over TLS processes a turn and logs neither its text nor the password; and
`accord check` over TLS prints no password.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
import redis
import redis.asyncio
from redis.asyncio.connection import SSLConnection
from redis.exceptions import AuthenticationError, NoPermissionError

from contracts.streams import DATA_FIELD, stream_name
from store.embedded import free_port, redis_server_binary
from tests.support.redis_deploy_kit import ACL, PASSWORDS, TEMPLATE, stop_server
from tests.support.worker_kit import running_worker, wait_for, worker_settings
from worker.app import make_broker
from worker.connection import connect
from worker.observability import configure_logging
from worker.settings import Settings

pytestmark = pytest.mark.redis

ACCORD_PASSWORD = PASSWORDS["accord"]
OPS_PASSWORD = PASSWORDS["ops"]
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"


@dataclass(frozen=True)
class TlsRedis:
    port: int
    ca: Path
    # "redis-server" (TLS in the server) or "terminator" (TLS in front of it).
    mode: str

    def url(self, user: str = "accord", password: str = ACCORD_PASSWORD, *, ca: bool = True) -> str:
        query = f"?ssl_ca_certs={self.ca}" if ca else ""
        return f"rediss://{user}:{password}@127.0.0.1:{self.port}/0{query}"


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)  # noqa: S603, S607


def make_certificates(directory: Path) -> None:
    """A throwaway CA and a server certificate for 127.0.0.1 signed by it."""
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out",
             "ca.pem", "-days", "2", "-subj", "/CN=accord-test-ca", cwd=directory)  # fmt: skip
    _openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out",
             "server.csr", "-subj", "/CN=localhost", cwd=directory)  # fmt: skip
    (directory / "san.cnf").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    _openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
             "-CAcreateserial", "-out", "server.pem", "-days", "2",
             "-extfile", "san.cnf", cwd=directory)  # fmt: skip


@contextlib.contextmanager
def redis_server(
    binary: Path, directory: Path, *extra: str, config: Path | None = None
) -> Iterator[subprocess.Popen[bytes]]:
    """A redis-server; yielded once it logs that it accepts connections, or has exited
    (a binary without TLS, a port taken meanwhile): the caller checks `poll()`. The wait
    is generous: a loaded machine starts a server in seconds, not milliseconds."""
    log = directory / f"redis-{time.monotonic_ns()}.log"
    first = [str(config)] if config is not None else []  # a config file must come first
    args = [str(binary), *first, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
            "--aclfile", str(ACL), "--dir", str(directory), "--logfile", str(log),
            *extra]  # fmt: skip
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # noqa: S603
    try:
        deadline = time.monotonic() + 120
        while "Ready to accept" not in (log.read_text() if log.exists() else ""):
            if process.poll() is not None:
                break
            if time.monotonic() > deadline:
                pytest.fail(f"{binary} did not accept connections within 120 s")
            time.sleep(0.02)
        yield process
    finally:
        stop_server(process, timeout=30)


def _pump(source: socket.socket, sink: socket.socket) -> None:
    with contextlib.suppress(OSError):
        while chunk := source.recv(65536):
            sink.sendall(chunk)
    with contextlib.suppress(OSError):
        sink.shutdown(socket.SHUT_WR)


def _relay(client: socket.socket, backend: socket.socket) -> None:
    back = threading.Thread(target=_pump, args=(backend, client), daemon=True)
    back.start()
    _pump(client, backend)
    back.join(timeout=30)
    client.close()
    backend.close()


@contextlib.contextmanager
def tls_terminator(backend_port: int, directory: Path) -> Iterator[int]:
    """Accept TLS on a free port and relay the plaintext to `backend_port`."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(directory / "server.pem", directory / "server.key")
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    stop = threading.Event()

    def serve() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                raw, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            raw.settimeout(None)
            try:
                client = context.wrap_socket(raw, server_side=True)
            except (OSError, ssl.SSLError):
                raw.close()  # a plaintext or unverifying client: no relay
                continue
            backend = socket.create_connection(("127.0.0.1", backend_port))
            threading.Thread(target=_relay, args=(client, backend), daemon=True).start()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield port
    finally:
        stop.set()
        thread.join(timeout=5)
        listener.close()


def _server_binaries() -> list[Path]:
    """redis-server binaries to try with TLS: the embedded one and any installed one
    (the virtualenv's PATH entry may shadow the system's, so system paths are searched)."""
    found = [shutil.which("redis-server"), shutil.which("redis-server", path=SYSTEM_PATH)]
    candidates = [redis_server_binary(), *(Path(path) for path in found if path)]
    return list(dict.fromkeys(candidates))


@pytest.fixture(scope="module")
def tls_redis() -> Iterator[TlsRedis]:
    with tempfile.TemporaryDirectory(prefix="accord-tls-") as name:
        directory = Path(name)
        make_certificates(directory)
        tls_args = ("--tls-cert-file", str(directory / "server.pem"),
                    "--tls-key-file", str(directory / "server.key"),
                    "--tls-ca-cert-file", str(directory / "ca.pem"),
                    "--tls-auth-clients", "no")  # fmt: skip
        for binary in _server_binaries():
            # A free port can be taken by another process before the server binds it:
            # then the server exits, and another port is tried (never a fixed one).
            for _attempt in range(3):
                port = free_port()
                with redis_server(binary, directory, "--port", "0", "--tls-port", str(port),
                                  *tls_args) as process:  # fmt: skip
                    if process.poll() is None:
                        yield TlsRedis(port, directory / "ca.pem", "redis-server")
                        return
        backend = free_port()
        with (
            redis_server(redis_server_binary(), directory, "--port", str(backend)),
            tls_terminator(backend, directory) as port,
        ):
            yield TlsRedis(port, directory / "ca.pem", "terminator")


@pytest_asyncio.fixture
async def ops(tls_redis: TlsRedis) -> AsyncIterator[redis.asyncio.Redis]:
    """The ops user over TLS: a gateway's writes and the test's reads."""
    client = redis.asyncio.Redis.from_url(tls_redis.url("ops", OPS_PASSWORD))
    await client.flushall()
    yield client
    await client.aclose()


@pytest.mark.asyncio
async def test_rediss_url_gives_a_verified_tls_client_as_the_acl_user(
    tls_redis: TlsRedis,
    ops: redis.asyncio.Redis,  # noqa: ARG001  (flushes first)
) -> None:
    """REDIS_URL=rediss://accord:…@host/0?ssl_ca_certs=… : the store's client speaks TLS,
    verifies the server against the CA, authenticates as `accord`, and the ACL holds
    (its streams writable, another application's key refused)."""
    settings = Settings.from_env({"REDIS_URL": tls_redis.url()})
    client = connect(settings)
    try:
        assert isinstance(client, redis.asyncio.Redis)
        assert client.connection_pool.connection_class is SSLConnection
        assert await client.ping()
        await client.xadd(stream_name("chat-turn", 0), {DATA_FIELD: "{}"})
        with pytest.raises(NoPermissionError):
            await client.set("billing:invoice:1", "x")
    finally:
        await client.aclose()


@pytest.fixture
def collects_refused_sockets() -> Iterator[None]:
    """redis-py leaves the socket of a refused TLS handshake or a timed-out plaintext
    connect for the garbage collector. Collected here, its ResourceWarning lands on the
    test that provoked it (which ignores it) instead of on whichever test runs when the
    collector happens to run: that made a later TLS test fail on a loaded machine."""
    yield
    gc.collect()


@pytest.mark.asyncio
@pytest.mark.usefixtures("collects_refused_sockets")
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
async def test_an_unverifiable_certificate_and_plaintext_are_refused(tls_redis: TlsRedis) -> None:
    """Without the CA the server's certificate cannot be verified and no command is
    sent; a `redis://` client on the TLS port gets no answer. Verification is redis-py's
    default (`ssl_cert_reqs=required`), which accord never turns off."""
    unverified = connect(Settings.from_env({"REDIS_URL": tls_redis.url(ca=False)}))
    try:
        with pytest.raises(redis.exceptions.ConnectionError, match="CERTIFICATE_VERIFY_FAILED"):
            await unverified.ping()
    finally:
        await unverified.aclose()
    plain_url = tls_redis.url().replace("rediss://", "redis://").split("?")[0]
    plain = redis.asyncio.Redis.from_url(plain_url, socket_timeout=1, socket_connect_timeout=1)
    try:
        with pytest.raises((redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)):
            await plain.ping()
    finally:
        await plain.aclose()


@pytest.mark.asyncio
@pytest.mark.usefixtures("collects_refused_sockets")
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
async def test_a_wrong_password_fails_without_echoing_a_password(tls_redis: TlsRedis) -> None:
    """The authentication error names neither the password tried nor the real one."""
    wrong = "not-it-123"
    client = connect(Settings.from_env({"REDIS_URL": tls_redis.url(password=wrong)}))
    try:
        with pytest.raises(AuthenticationError) as failed:
            await client.ping()
    finally:
        await client.aclose()
    assert wrong not in str(failed.value)
    assert ACCORD_PASSWORD not in str(failed.value)


@pytest.mark.asyncio
async def test_the_worker_broker_connects_over_tls_as_the_acl_user(tls_redis: TlsRedis) -> None:
    """FastStream's broker is built from the same URL (worker.app.make_broker): TLS, the
    CA and the ACL user reach its connection too."""
    broker = make_broker(Settings.from_env({"REDIS_URL": tls_redis.url()}))
    try:
        await broker.connect()
        assert await broker.ping(timeout=5)
    finally:
        await broker.stop()


@pytest.mark.asyncio
async def test_a_worker_over_tls_applies_a_turn_and_logs_no_text_or_password(
    tls_redis: TlsRedis, ops: redis.asyncio.Redis, capsys: pytest.CaptureFixture[str]
) -> None:
    """A whole worker (subscribers, reclaimer, sweeper, watchdog) on rediss:// as the
    `accord` user applies a proposal; its INFO log lines name the session and record
    but never the turn's text, the terms or the password."""
    configure_logging("INFO")
    private = "Let's agree: the vault code is swordfish-7."
    turn = {
        "type": "chat_turn", "agent_id": "agent-1", "user_id": "user-1",
        "session_id": "tls-1", "seq": 1, "ts": "2027-01-01T09:00:00Z",
        "role": "user", "text": private, "message_id": "m-1",
    }  # fmt: skip
    events = stream_name("agreement-events", 0)
    async with running_worker(worker_settings(tls_redis.url())):
        await ops.xadd(stream_name("chat-turn", 0), {DATA_FIELD: json.dumps(turn)})

        async def applied() -> bool:
            return bool(await ops.xlen(events))

        await wait_for(applied, seconds=120)
    published: Any = await ops.xrange(events)
    [(_, fields)] = published
    assert json.loads(fields[DATA_FIELD.encode()])["terms"] == "the vault code is swordfish-7"
    err = capsys.readouterr().err
    assert '"session_id": "tls-1"' in err
    assert "swordfish" not in err
    assert ACCORD_PASSWORD not in err


def test_accord_check_over_tls_reports_redis_ok_and_prints_no_password(
    tls_redis: TlsRedis,
) -> None:
    """`accord check` (the Kubernetes probe) over rediss:// as the accord user."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACCORD_")}
    env["REDIS_URL"] = tls_redis.url()
    command = [sys.executable, "-c", "from worker.cli import main; main()", "check", "--json"]
    result = subprocess.run(  # noqa: S603  (our own CLI, fixed arguments)
        command, env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert json.loads(result.stdout)["redis"] == "ok"
    assert ACCORD_PASSWORD not in result.stdout + result.stderr


def accord_acl_rule() -> list[str]:
    line = next(x for x in ACL.read_text().splitlines() if x.startswith("user accord "))
    return line.split()


def test_the_accord_user_is_granted_commands_by_name_not_by_category() -> None:
    """Least privilege: after `-@all` the accord user gets only named commands (a
    category such as @write or @scripting would add DEL, RENAME, XGROUP DESTROY/SETID,
    SCRIPT FLUSH, FUNCTION FLUSH, ... with every Redis release)."""
    rule = accord_acl_rule()
    grants = [word for word in rule if word.startswith(("+", "-"))]
    assert grants[0] == "-@all"
    assert not [word for word in grants[1:] if "@" in word or word.startswith("-")]
    assert "+xgroup|create" in grants
    assert "+xgroup" not in grants


@pytest.mark.parametrize(
    "command",
    [
        # Would break exactly-once (R15): rewind or drop the consumer group.
        ("XGROUP", "SETID", "chat-turn:{0}", "accord", "0"),
        ("XGROUP", "DESTROY", "chat-turn:{0}", "accord"),
        ("XGROUP", "DELCONSUMER", "chat-turn:{0}", "accord", "w1"),
        # Would drop or move state the store never deletes.
        ("DEL", "scope:{0}:x"),
        ("UNLINK", "gaps:{0}"),
        ("RENAME", "scope:{0}:x", "scope:{0}:y"),
        ("HSETNX", "stats:{0}", "x", "1"),
        # Would reach other applications sharing the server.
        ("SCRIPT", "FLUSH"),
        ("SCRIPT", "KILL"),
        ("FLUSHALL",),
        ("KEYS", "*"),
        ("CONFIG", "GET", "requirepass"),
        ("PUBLISH", "channel", "x"),
        ("CLIENT", "LIST"),
        ("ACL", "LIST"),
    ],
    ids=lambda command: " ".join(command[:2]),
)
@pytest.mark.asyncio
async def test_the_accord_user_is_refused_what_the_worker_never_runs(
    tls_redis: TlsRedis,
    ops: redis.asyncio.Redis,  # noqa: ARG001  (flushes first)
    command: tuple[str, ...],
) -> None:
    """Commands accord never sends are refused to its user, even on its own keys."""
    client = connect(Settings.from_env({"REDIS_URL": tls_redis.url()}))
    try:
        with pytest.raises(NoPermissionError):
            await client.execute_command(*command)
    finally:
        await client.aclose()


def _accord_check(url: str, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACCORD_")}
    env.update({"REDIS_URL": url, **extra})
    command = [sys.executable, "-c", "from worker.cli import main; main()", "check", "--json"]
    return subprocess.run(  # noqa: S603  (our own CLI, fixed arguments)
        command, env=env, capture_output=True, text=True, timeout=120, check=False
    )


@pytest.mark.parametrize("query", ["ssl_cert_reqs=none", "ssl_check_hostname=false"])
def test_a_url_that_turns_verification_off_is_refused_unless_insecure_is_set(
    tls_redis: TlsRedis, query: str
) -> None:
    """`?ssl_cert_reqs=none` (or no host-name check) would accept any server, a
    man in the middle included: a configuration error (one line, exit 2) unless
    ACCORD_REDIS_INSECURE_TLS=1 says so; then it connects (here without the CA)."""
    url = f"{tls_redis.url(ca=False)}?{query}"
    refused = _accord_check(url)
    assert refused.returncode == 2
    lines = [line for line in refused.stderr.splitlines() if line.strip()]
    assert len(lines) == 1
    assert query in lines[0]
    assert "ACCORD_REDIS_INSECURE_TLS=1" in lines[0]
    assert ACCORD_PASSWORD not in refused.stdout + refused.stderr
    if query.startswith("ssl_cert_reqs"):
        allowed = _accord_check(url, ACCORD_REDIS_INSECURE_TLS="1")
        assert json.loads(allowed.stdout)["redis"] == "ok", allowed.stderr
    with pytest.raises(ValueError, match="ACCORD_REDIS_INSECURE_TLS"):
        Settings.from_env({"REDIS_URL": url.replace("rediss://", "redis://")})


@pytest.mark.asyncio
async def test_the_metrics_endpoint_binds_loopback_unless_told_otherwise(
    tls_redis: TlsRedis,
    ops: redis.asyncio.Redis,  # noqa: ARG001  (flushes first)
) -> None:
    """A worker (over TLS) serves /metrics on 127.0.0.1 by default; ACCORD_METRICS_HOST
    changes the address (the Kubernetes ConfigMap sets 0.0.0.0 for the kubelet)."""
    defaults = Settings.from_env({"REDIS_URL": tls_redis.url()})
    assert defaults.metrics_host == "127.0.0.1"
    assert Settings.from_env({"ACCORD_METRICS_HOST": "0.0.0.0"}).metrics_host == "0.0.0.0"  # noqa: S104
    settings = worker_settings(tls_redis.url(), metrics_port=free_port())
    async with running_worker(settings) as worker:
        assert worker.http is not None
        bound = {sock.getsockname()[0] for sock in worker.http.sockets}
    assert bound == {"127.0.0.1"}


DEPLOY = TEMPLATE.parent.parent
TLS_CONF = DEPLOY / "redis" / "redis-tls.conf"


def _tls_port_of_shipped_conf() -> int:
    lines = [line.split() for line in TLS_CONF.read_text().splitlines() if line.strip()]
    return int(next(words[1] for words in lines if words[0] == "tls-port"))


def test_the_tls_overlay_agrees_on_the_port_and_verifies_the_server() -> None:
    """The shipped TLS pieces name one port and never turn verification off: redis-tls.conf
    (TLS only: `port 0`), the NetworkPolicy, the compose overlay's URL and mapping, the
    Kubernetes Secret example, and KEDA's TLS authentication (`tls`, `ca`)."""
    import yaml  # noqa: PLC0415

    port = _tls_port_of_shipped_conf()
    assert "\nport 0\n" in TLS_CONF.read_text()
    policy = yaml.safe_load((DEPLOY / "k8s" / "networkpolicy.yaml").read_text())
    redis_ports = {p["port"] for rule in policy["spec"]["egress"] for p in rule.get("ports", [])}
    assert port in redis_ports
    compose = yaml.safe_load((DEPLOY / "compose.tls.yaml").read_text())
    url = compose["services"]["worker"]["environment"]["REDIS_URL"]
    assert url.startswith("rediss://")
    assert f":{port}/" in url
    assert "ssl_ca_certs=" in url
    assert f"127.0.0.1:{port}:{port}" in compose["services"]["redis"]["ports"]
    secrets = list(
        yaml.safe_load_all((DEPLOY / "k8s" / "examples" / "tls" / "secrets.yaml").read_text())
    )
    worker_url = secrets[0]["stringData"]["REDIS_URL"]
    assert worker_url.startswith("rediss://")
    assert f":{port}/" in worker_url
    for shipped in (url, worker_url):
        Settings.from_env({"REDIS_URL": shipped})  # verification stays on: accepted
    keda = yaml.safe_load((DEPLOY / "keda" / "tls" / "triggerauthentication.yaml").read_text())
    assert {"tls", "ca"} <= {ref["parameter"] for ref in keda["spec"]["secretTargetRef"]}


def _shipped_tls_conf(directory: Path) -> Path:
    """redis-tls.conf with its mount paths pointed at this checkout and the test's certs."""
    text = TLS_CONF.read_text()
    text = text.replace("/usr/local/etc/redis/redis.conf", str(DEPLOY / "redis" / "redis.conf"))
    text = text.replace("/usr/local/etc/redis/tls/tls.crt", str(directory / "server.pem"))
    text = text.replace("/usr/local/etc/redis/tls/tls.key", str(directory / "server.key"))
    text = text.replace("/usr/local/etc/redis/tls/ca.crt", str(directory / "ca.pem"))
    conf = directory / "redis-tls.conf"
    conf.write_text(text)
    return conf


def test_the_shipped_tls_configuration_serves_verified_tls_only(tls_redis: TlsRedis) -> None:
    """redis-tls.conf as shipped (paths aside) on a TLS-capable redis-server: the accord
    user gets a verified TLS connection, plaintext gets nothing. Needs a redis-server
    built with TLS (Debian's, the official image's); the embedded ones have none, so
    without one this fails (never skips): `./dev test` installs Debian's redis-server."""
    if tls_redis.mode != "redis-server":
        pytest.fail(
            "no TLS-capable redis-server found (tried "
            f"{', '.join(map(str, _server_binaries()))}; the embedded ones have no TLS): "
            "install Debian's redis-server (`./dev test` does so as root: "
            "apt-get install redis-server)"
        )
    directory = tls_redis.ca.parent
    conf = _shipped_tls_conf(directory)
    for binary in _server_binaries():
        for _attempt in range(3):
            port = free_port()
            extra = ("--tls-port", str(port), "--aclfile", str(ACL), "--appendonly", "no")
            with redis_server(binary, directory, *extra, config=conf) as process:
                if process.poll() is not None:
                    continue
                shipped = TlsRedis(port, tls_redis.ca, "redis-server")
                client = redis.Redis.from_url(shipped.url())
                try:
                    assert client.ping()
                    assert client.connection_pool.connection_class is redis.SSLConnection
                finally:
                    client.close()
                plain = redis.Redis(port=port, socket_timeout=2, socket_connect_timeout=2)
                try:
                    with pytest.raises((redis.ConnectionError, redis.TimeoutError)):
                        plain.ping()
                finally:
                    plain.close()
                return
    pytest.fail("no TLS-capable redis-server accepted the shipped redis-tls.conf")
