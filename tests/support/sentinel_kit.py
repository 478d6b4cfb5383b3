"""A primary, its replicas and three sentinels on loopback, for tests of failover.

    with sentinel_topology() as topology:
        url = topology.url()              # redis+sentinel://127.0.0.1:P1,...:P3/accord/0
        old = topology.failover()         # SENTINEL FAILOVER: the gentle, deterministic one
        old = topology.kill_primary()     # kill -9 of the primary: the real one
        old = topology.pause_primary()    # SIGSTOP until a replica is promoted (then resume)

Each server is a real `redis-server` (the suite's binary, store/embedded.py) with a free
port and a temporary directory of its own; the sentinels run the same binary with
`--sentinel` (quorum 2, the primary down after 1 s of silence, a short failover
timeout). Every wait is for a condition, with a generous bound for a busy machine.
Self-contained: it shares no code with the harness's replicated chaos.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import redis

from store.embedded import EmbeddedRedis, free_port, redis_server_binary
from tests.support.redis_deploy_kit import stop_server

SERVICE = "accord"
QUORUM = 2
DOWN_AFTER_MS = 1000
FAILOVER_TIMEOUT_MS = 3000
# Generous: a failover takes about DOWN_AFTER_MS plus an election, and the machine is shared.
WAIT_S = 60.0

T = TypeVar("T")


@dataclass
class SentinelTopology:
    """The running servers: data nodes by port, sentinels by port."""

    directory: Path
    nodes: dict[int, EmbeddedRedis] = field(default_factory=dict)
    sentinels: dict[int, subprocess.Popen[bytes]] = field(default_factory=dict)
    killed: set[int] = field(default_factory=set)
    paused: set[int] = field(default_factory=set)

    def url(self, db: int = 0, *, scheme: str = "redis+sentinel") -> str:
        hosts = ",".join(f"127.0.0.1:{port}" for port in self.sentinels)
        return f"{scheme}://{hosts}/{SERVICE}/{db}"

    def node_url(self, port: int, db: int = 0) -> str:
        return f"redis://127.0.0.1:{port}/{db}"

    def primary(self) -> int:
        """The primary's port, as the first sentinel that answers names it."""
        for port in self.sentinels:
            if (named := self._named_by(port)) is not None:
                return named
        raise AssertionError("no sentinel names a primary")

    def failover(self) -> int:
        """`SENTINEL FAILOVER`: a replica is promoted and the primary demoted; returns the
        old primary's port once every sentinel names the new one and it takes writes."""
        old = self.primary()
        _ask(next(iter(self.sentinels)), "SENTINEL", "FAILOVER", SERVICE)
        self.wait_new_primary(old)
        return old

    def kill_primary(self) -> int:
        """kill -9 of the primary; returns its port once the sentinels promoted a replica."""
        old = self.primary()
        # The kit owns the server it kills.
        process = self.nodes[old]._process
        assert process is not None
        process.send_signal(signal.SIGKILL)
        process.wait()
        self.killed.add(old)
        self.wait_new_primary(old)
        return old

    def pause_primary(self) -> int:
        """SIGSTOP of the primary (a hung host, a long GC-like stall); returns its port once
        the sentinels promoted a replica. The old primary stays paused until `resume`: it
        then comes back still a primary, taking writes, until Sentinel demotes it."""
        old = self.primary()
        self.paused.add(old)
        os.kill(self._pid(old), signal.SIGSTOP)
        self.wait_new_primary(old)
        return old

    def resume(self, port: int) -> None:
        """SIGCONT of a node `pause_primary` paused."""
        os.kill(self._pid(port), signal.SIGCONT)
        self.paused.discard(port)

    def role(self, port: int) -> str:
        """The node's own idea of its role: `master` or `slave`."""
        return str(_ask(port, "ROLE")[0].decode())

    def wait_demoted(self, port: int) -> None:
        """Until Sentinel has made the node a replica again and its link is up."""
        _wait(
            lambda: _info(port).get("master_link_status") == "up" or None,
            f"{port} was not demoted to a replica",
        )

    def wait_blocked(self, port: int) -> None:
        """Until the node holds a client blocked on a read (BLPOP, XREADGROUP BLOCK)."""
        _wait(
            lambda: int(_info(port, "clients").get("blocked_clients", 0)) >= 1 or None,
            f"no client blocked on {port}",
        )

    def _pid(self, port: int) -> int:
        pid = self.nodes[port].pid
        assert pid is not None, f"{port} is not running"
        return pid

    def wait_new_primary(self, old: int) -> int:
        """Until every sentinel names one primary other than `old`, and it is one: the
        port of the new primary."""

        def promoted() -> int | None:
            named = {self._named_by(port) for port in self.sentinels}
            if len(named) != 1 or None in named or old in named:
                return None
            (new,) = named
            assert new is not None
            role = _ask(new, "ROLE")
            return new if role and role[0] == b"master" else None

        return _wait(promoted, f"no new primary after {old}")

    def wait_ready(self) -> None:
        """Until each sentinel sees the primary, every live replica and the other two
        sentinels, and every replica has its link up: a failover can then elect."""
        replicas = len(self.nodes) - len(self.killed) - 1

        def ready() -> bool | None:
            for port in self.sentinels:
                state = _pairs(_ask(port, "SENTINEL", "MASTER", SERVICE))
                if int(state["num-slaves"]) < replicas or int(state["num-other-sentinels"]) < 2:
                    return None
            for port in self.nodes:
                if port in self.killed:
                    continue
                info = _info(port)
                if info.get("role") == "slave" and info.get("master_link_status") != "up":
                    return None
            return True

        _wait(ready, "the sentinels did not see the whole topology")

    def _named_by(self, sentinel: int) -> int | None:
        with contextlib.suppress(redis.ConnectionError, redis.TimeoutError):
            host_port = _ask(sentinel, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", SERVICE)
            return int(host_port[1]) if host_port else None
        return None


@contextlib.contextmanager
def sentinel_topology(replicas: int = 1) -> Iterator[SentinelTopology]:
    """A primary, `replicas` replicas (`--replicaof`) and three sentinels, all stopped at
    the end."""
    with tempfile.TemporaryDirectory(prefix="accord-sentinel-") as directory:
        topology = SentinelTopology(Path(directory))
        try:
            primary = _node(topology, ())
            for _ in range(replicas):
                _node(topology, ("--replicaof", "127.0.0.1", str(primary)))
            for _ in range(3):
                _sentinel(topology, primary)
            topology.wait_ready()
            yield topology
        finally:
            for port in tuple(topology.paused):  # a stopped process ignores SIGTERM
                topology.resume(port)
            for process in topology.sentinels.values():
                stop_server(process, timeout=10)
            for node in topology.nodes.values():
                node.stop()  # a killed one too: its pipe is closed there


def _node(topology: SentinelTopology, extra: tuple[str, ...]) -> int:
    port = free_port()
    node_dir = topology.directory / f"node-{port}"
    node_dir.mkdir()
    # A replica serves nothing stale as if current; the kit's clients write to the primary.
    node = EmbeddedRedis(port=port, directory=node_dir, extra_args=extra).start()
    topology.nodes[port] = node
    return port


def _sentinel(topology: SentinelTopology, primary: int) -> None:
    port = free_port()
    conf = topology.directory / f"sentinel-{port}.conf"
    # The sentinel rewrites its file (epochs, the replicas and sentinels it found).
    conf.write_text(
        f"port {port}\nbind 127.0.0.1\ndaemonize no\n"
        f"dir {topology.directory}\nlogfile {topology.directory / f'sentinel-{port}.log'}\n"
        f"sentinel monitor {SERVICE} 127.0.0.1 {primary} {QUORUM}\n"
        f"sentinel down-after-milliseconds {SERVICE} {DOWN_AFTER_MS}\n"
        f"sentinel failover-timeout {SERVICE} {FAILOVER_TIMEOUT_MS}\n"
        f"sentinel parallel-syncs {SERVICE} 1\n"
    )
    process = subprocess.Popen(  # noqa: S603  (the suite's own server binary)
        [str(redis_server_binary()), str(conf), "--sentinel"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    topology.sentinels[port] = process

    def answers() -> bool | None:
        if process.poll() is not None:
            log = topology.directory / f"sentinel-{port}.log"
            text = log.read_text(errors="replace") if log.exists() else ""
            raise AssertionError(f"sentinel on {port} exited: {text[-2000:]}")
        with contextlib.suppress(redis.ConnectionError, redis.TimeoutError):
            return bool(_ask(port, "PING"))
        return None

    _wait(answers, f"sentinel on {port} did not answer")


def _ask(port: int, *command: str) -> Any:
    client = redis.Redis(port=port, socket_timeout=5, socket_connect_timeout=5)
    try:
        # Raw replies: redis-py parses SENTINEL's only through its Sentinel class.
        return client.execute_command(*command)  # type: ignore[no-untyped-call]
    finally:
        client.close()


def _pairs(reply: object) -> dict[str, str]:
    """A field-value reply as text: a map (RESP3) or a flat list (RESP2)."""

    def text(value: object) -> str:
        return value.decode() if isinstance(value, bytes) else str(value)

    if isinstance(reply, dict):
        return {text(k): text(v) for k, v in reply.items()}
    items = [text(v) for v in reply] if isinstance(reply, list) else []
    return dict(zip(items[::2], items[1::2], strict=True))


def _info(port: int, section: str = "replication") -> dict[str, str]:
    client = redis.Redis(
        port=port, socket_timeout=5, socket_connect_timeout=5, decode_responses=True
    )
    try:
        return {k: str(v) for k, v in client.info(section).items()}
    finally:
        client.close()


def _wait(condition: Callable[[], T | None], failure: str) -> T:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"{failure} within {WAIT_S:g} s")
