"""A small asyncio TCP fault proxy between the workers and Redis (toxiproxy's job).

Workers connect to the proxy; it forwards bytes both ways and, when told, adds latency
to every chunk, stalls all traffic for a while (bytes wait, nothing is lost), or resets
every open connection with a TCP RST (SO_LINGER 0), which a client sees as
`Connection reset by peer` in the middle of whatever it was doing: a blocked
XREADGROUP, a commit script whose reply never arrives.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
from dataclasses import dataclass, field
from typing import cast

CHUNK = 64 * 1024


@dataclass
class FaultProxy:
    target_host: str
    target_port: int
    latency_s: float = 0.0
    port: int = 0
    resets: int = 0
    stalls: int = 0
    connections: int = 0
    _flowing: asyncio.Event = field(default_factory=asyncio.Event)
    _open: set[tuple[asyncio.StreamWriter, asyncio.StreamWriter]] = field(default_factory=set)
    _server: asyncio.Server | None = None
    # The connections' handler tasks, waited for by `close` (`_close_handlers`).
    _handlers: set[asyncio.Task[None]] = field(default_factory=set)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    async def start(self) -> None:
        self._flowing.set()
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", self.port)
        self.port = self._server.sockets[0].getsockname()[1]

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        self.reset_all(count=False)
        if self._server is not None:
            await self._server.wait_closed()
        await _close_handlers(self._handlers)

    async def stall(self, seconds: float) -> None:
        """Hold every byte in both directions for `seconds`, then let them through."""
        self.stalls += 1
        self._flowing.clear()
        try:
            await asyncio.sleep(seconds)
        finally:
            self._flowing.set()

    def reset_all(self, *, count: bool = True) -> int:
        """Abort every open connection with a TCP RST; returns how many."""
        pairs = list(self._open)
        self._open.clear()
        for client, upstream in pairs:
            _rst(client)
            _rst(upstream)
        if count:
            self.resets += len(pairs)
        return len(pairs)

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        _track(self._handlers)
        try:
            up_reader, up_writer = await asyncio.open_connection(self.target_host, self.target_port)
        except OSError:
            _rst(writer)  # Redis is down: the client sees a reset, as it would without us
            return
        self.connections += 1
        pair = (writer, up_writer)
        self._open.add(pair)
        try:
            await asyncio.gather(self._pump(reader, up_writer), self._pump(up_reader, writer))
        finally:
            self._open.discard(pair)
            for end in pair:
                end.close()

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError, asyncio.IncompleteReadError):
            while data := await reader.read(CHUNK):
                if self.latency_s:
                    await asyncio.sleep(self.latency_s)
                await self._flowing.wait()
                writer.write(data)
                await writer.drain()
        # One side ended: end the other, so neither end waits on a half-open pair.
        with contextlib.suppress(OSError, RuntimeError):
            writer.close()


def _track(handlers: set[asyncio.Task[None]]) -> None:
    """Keep the running connection handler in `handlers` until it is done."""
    task = cast("asyncio.Task[None] | None", asyncio.current_task())
    if task is not None:
        handlers.add(task)
        task.add_done_callback(handlers.discard)


async def _close_handlers(handlers: set[asyncio.Task[None]]) -> None:
    """Wait for the handlers (cancel what is left after 10 s): a server's `wait_closed`
    does not (Python 3.11), and a handler left pending when its loop ends is collected
    later as an error raised in whatever runs then."""
    waiting = set(handlers)
    if not waiting:
        return
    _, pending = await asyncio.wait(waiting, timeout=10)
    for task in pending:
        task.cancel()
    await asyncio.gather(*waiting, return_exceptions=True)


def _rst(writer: asyncio.StreamWriter) -> None:
    sock = writer.get_extra_info("socket")
    with contextlib.suppress(OSError, AttributeError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


# The commands a replica sends on its link to a primary (Redis's replication handshake:
# PING, AUTH, REPLCONF listening-port/capa, then PSYNC; SYNC on old servers), and the
# ones that may come before them without deciding anything.
REPLICATION_COMMANDS = frozenset({b"REPLCONF", b"PSYNC", b"SYNC"})
HANDSHAKE_PREFIX = frozenset({b"PING", b"AUTH"})
# A handshake that has not named a replication command within this many bytes is a
# client's connection (the replica's own handshake is a few hundred bytes).
DECIDE_WITHIN = 4096


def command_names(data: bytes) -> tuple[list[bytes], bool]:
    """The command names (upper case) of the complete commands at the start of `data`,
    and whether `data` ends inside a command (more bytes are needed to read the next)."""
    names: list[bytes] = []
    at = 0
    while at < len(data):
        if data[at : at + 1] != b"*":  # an inline command: the words of one line
            end = data.find(b"\r\n", at)
            if end < 0:
                return names, True
            words = data[at:end].split()
            if words:
                names.append(words[0].upper())
            at = end + 2
            continue
        parsed = _array(data, at)
        if parsed is None:
            return names, True
        first, at = parsed
        if first is not None:
            names.append(first.upper())
    return names, False


def _array(data: bytes, at: int) -> tuple[bytes | None, int] | None:
    """One RESP array of bulk strings at `at`: its first element and where it ends."""
    end = data.find(b"\r\n", at)
    if end < 0:
        return None
    count = int(data[at + 1 : end])
    at, first = end + 2, None
    for index in range(count):
        end = data.find(b"\r\n", at)
        if end < 0 or data[at : at + 1] != b"$":
            return None
        length = int(data[at + 1 : end])
        if len(data) < end + 2 + length + 2:
            return None
        if index == 0:
            first = data[end + 2 : end + 2 + length]
        at = end + 2 + length + 2
    return first, at


def is_replication_link(prefix: bytes) -> bool | None:
    """Whether a connection whose client sent `prefix` so far is a replica's link to its
    primary: True, False, or None while undecided (only PING/AUTH so far)."""
    try:
        names, _ = command_names(prefix)
    except ValueError:  # not RESP: nobody's replication link
        return False
    for name in names:
        if name in REPLICATION_COMMANDS:
            return True
        if name not in HANDSHAKE_PREFIX:
            return False
    return None if len(prefix) < DECIDE_WITHIN else False


@dataclass
class LagProxy:
    """A node's front door: every client of the node connects here. Connections that turn
    out to be a replica's link to this node (`is_replication_link`) are delayed by
    `delay_s` in each direction, as across a network, so a primary acknowledges writes
    its replicas do not have yet; every other connection passes at once.

    Every node announces its LagProxy's port (`replica-announce-port`) and Sentinel
    monitors proxy ports, so the links a failover makes also run through the proxies.
    Delay does not limit throughput: each chunk is stamped on arrival and forwarded at
    its stamp plus `delay_s`, in order, however many are in flight.

    The delay stands for the node's own host (its egress queue, as `tc netem` on it), so
    what is in flight shares the node's fate: `hold` keeps it while the node is paused (a
    frozen VM sends nothing), `reset_all` drops it with every connection when the node
    dies (a crashed host's queues die with it).
    """

    target_port: int
    delay_s: float
    port: int = 0
    replication_links: int = 0
    _server: asyncio.Server | None = None
    _open: set[asyncio.StreamWriter] = field(default_factory=set)
    _flowing: asyncio.Event = field(default_factory=asyncio.Event)
    # The connections' handler tasks, waited for by `close` (`_close_handlers`).
    _handlers: set[asyncio.Task[None]] = field(default_factory=set)

    async def start(self) -> None:
        self._flowing.set()
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", self.port)
        self.port = self._server.sockets[0].getsockname()[1]

    def hold(self) -> None:
        """Keep every byte on replication links where it is, until `release`."""
        self._flowing.clear()

    def release(self) -> None:
        self._flowing.set()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        self.release()  # a held sender would keep its connection's task waiting forever
        self.reset_all()
        if self._server is not None:
            await self._server.wait_closed()
        await _close_handlers(self._handlers)

    def reset_all(self) -> None:
        """Abort every open connection (the node behind died: its peers see a reset)."""
        for writer in list(self._open):
            _rst(writer)
        self._open.clear()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        _track(self._handlers)
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            _rst(writer)
            return
        self._open.update((writer, up_writer))
        link = _Link()
        try:
            await asyncio.gather(
                self._pump(reader, up_writer, link, client_side=True),
                self._pump(up_reader, writer, link, client_side=False),
            )
        finally:
            for end in (writer, up_writer):
                self._open.discard(end)
                end.close()

    async def _pump(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, link: _Link,
        *, client_side: bool,
    ) -> None:  # fmt: skip
        queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()
        sender = asyncio.create_task(self._send(queue, writer, link))
        loop = asyncio.get_running_loop()
        try:
            with contextlib.suppress(OSError, asyncio.IncompleteReadError):
                while data := await reader.read(CHUNK):
                    if client_side and link.replication is None:
                        link.prefix += data
                        link.replication = is_replication_link(link.prefix)
                        if link.replication:
                            self.replication_links += 1
                    delay = self.delay_s if link.replication else 0.0
                    queue.put_nowait((loop.time() + delay, data))
            queue.put_nowait((0.0, b""))  # the end, after what is still in flight
            await sender
        finally:
            sender.cancel()
            # Done before this pump is, so no sender outlives the loop.
            await asyncio.gather(sender, return_exceptions=True)

    async def _send(
        self, queue: asyncio.Queue[tuple[float, bytes]], writer: asyncio.StreamWriter, link: _Link
    ) -> None:
        loop = asyncio.get_running_loop()
        with contextlib.suppress(OSError, RuntimeError):
            while True:
                due, data = await queue.get()
                if not data:
                    break
                if (wait := due - loop.time()) > 0:
                    await asyncio.sleep(wait)
                if link.replication:
                    await self._flowing.wait()
                writer.write(data)
                await writer.drain()
        with contextlib.suppress(OSError, RuntimeError):
            writer.close()


@dataclass
class _Link:
    prefix: bytes = b""
    replication: bool | None = None
