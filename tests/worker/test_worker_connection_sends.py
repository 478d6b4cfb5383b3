"""The worker's connections bound a send by `asyncio.timeout` (worker/connection.py, TimedSends).

What redis-py's own send guarantees must hold: a send that cannot finish within the
socket timeout (a server that stopped reading, its buffers full) fails with redis-py's
TimeoutError and drops the connection, so the command is never half on the wire of a
connection used again; one to a server that went away fails with its ConnectionError;
and commands go through unchanged (R15: a commit is sent whole or not at all).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from worker.connection import QuietConnection


async def _stalled_server(
    accepted: asyncio.Event | None = None,
) -> tuple[asyncio.Server, int, list[asyncio.StreamWriter]]:
    """A server that accepts and never reads: a client's send fills the buffers, then waits."""
    held: list[asyncio.StreamWriter] = []

    async def accept(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)
        if accepted is not None:
            accepted.set()

    server = await asyncio.start_server(accept, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1], held


@contextlib.asynccontextmanager
async def _connected_to_stalled(
    socket_timeout: float, accepted: asyncio.Event | None = None
) -> AsyncIterator[tuple[QuietConnection, asyncio.StreamWriter, list[asyncio.StreamWriter]]]:
    """A worker connection wired by hand to `_stalled_server` (the handshake would wait
    on the same silent server): the connection, its writer, the server's ends."""
    server, port, held = await _stalled_server(accepted)
    connection = QuietConnection(host="127.0.0.1", port=port, socket_timeout=socket_timeout)
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        connection._reader, connection._writer = reader, writer
        yield connection, writer, held
    finally:
        for held_writer in held:
            held_writer.close()
            # Waited for, so no transport outlives the test's loop (a ResourceWarning
            # raised in whichever test runs when it is collected).
            with contextlib.suppress(Exception):
                await held_writer.wait_closed()
        server.close()
        with contextlib.suppress(Exception):
            await server.wait_closed()


@pytest.mark.asyncio
async def test_a_send_the_server_does_not_take_times_out_and_drops_the_connection_r15() -> None:
    async with _connected_to_stalled(0.5) as (connection, _, _):
        started = time.monotonic()
        with pytest.raises(RedisTimeoutError, match="Timeout writing to socket"):
            # Bounded here too: a send that ignored its timeout fails the test, not hangs it.
            await asyncio.wait_for(
                connection.send_packed_command([b"x" * 64 * 2**20], check_health=False), 30
            )
        assert 0.4 < time.monotonic() - started < 30
        assert not connection.is_connected, "a send cut short leaves no connection to reuse"


@pytest.mark.asyncio
async def test_a_cancelled_send_stays_a_cancellation_and_drops_the_connection() -> None:
    """A worker stopping (its task cancelled) mid-send: the cancellation goes on as one,
    not as a timeout, and the connection, with part of a command on it, is dropped."""
    async with _connected_to_stalled(60) as (connection, writer, _):
        send = asyncio.create_task(
            connection.send_packed_command([b"x" * 64 * 2**20], check_health=False)
        )
        while writer.transport.get_write_buffer_size() == 0 and not send.done():  # noqa: ASYNC110  (the transport has no event for it)
            await asyncio.sleep(0.01)
        send.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(send, 30)
        assert not connection.is_connected


@pytest.mark.asyncio
async def test_a_send_to_a_server_that_went_away_is_a_connection_error() -> None:
    """The peer closed its end: the send fails as redis-py's ConnectionError (the reading
    loop backs off on it, worker/outage.py) and the connection is dropped."""
    accepted = asyncio.Event()
    async with _connected_to_stalled(5, accepted) as (connection, _, held):
        await asyncio.wait_for(accepted.wait(), 30)
        # The peer closes: the next send or two meet the reset, as a killed Redis gives.
        held[0].transport.abort()
        failed: Exception | None = None
        for _ in range(1000):  # the reset reaches this side after a send or two
            try:
                await connection.send_packed_command([b"*1\r\n$4\r\nPING\r\n"], check_health=False)
            except RedisConnectionError as error:
                failed = error
                break
            await asyncio.sleep(0.01)
        assert isinstance(failed, RedisConnectionError), "the send to a reset peer must fail"
        assert not connection.is_connected


@pytest.mark.redis
@pytest.mark.asyncio
async def test_commands_go_through_the_timed_sends_unchanged_r15(redis_url: str) -> None:
    client = Redis.from_url(redis_url, connection_class=QuietConnection, socket_timeout=5)
    try:
        await client.set("timed-sends", "x" * 100_000)
        assert await client.get("timed-sends") == b"x" * 100_000
        assert await client.ping()
    finally:
        await client.aclose()
