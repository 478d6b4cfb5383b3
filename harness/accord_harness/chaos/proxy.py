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


def _rst(writer: asyncio.StreamWriter) -> None:
    sock = writer.get_extra_info("socket")
    with contextlib.suppress(OSError, AttributeError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()
