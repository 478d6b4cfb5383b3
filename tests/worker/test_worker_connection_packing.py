"""The worker's connections pack commands with hiredis (worker/connection.py, HiredisPacking).

The bytes must be redis-py's own for every argument redis-py accepts, what hiredis
refuses must take redis-py's path (bytearray converted, bool refused with its DataError),
and the store's client as `connect` builds it must use the class: that is where a commit
script's thousands of arguments are packed. R15: a commit whose arguments were packed
differently would write something else than the plan.
"""

from __future__ import annotations

import pytest
from redis.asyncio import Redis
from redis.asyncio.connection import Connection
from redis.exceptions import DataError
from redis.typing import EncodableT

from worker.connection import QuietConnection, QuietSSLConnection, connect
from worker.settings import Settings

SAMPLES: list[tuple[EncodableT, ...]] = [
    ("EVALSHA", "a" * 40, 2, b"k1", b"k2", "é中", 0, -7, 10**20, 0.1 + 0.2, 1e-7, b""),
    (b"XADD", b"chat-turn:{0}", b"*", b"__data__", b'{"text": "\\u00e9"}'),
    ("CONFIG GET", "maxmemory"),  # a command name with a space is split, as redis-py does
    (b"OBJECT ENCODING", b"key"),
    ("XACK", "s", "g", *(f"{i}-0" for i in range(3000))),
]


@pytest.mark.parametrize("args", SAMPLES, ids=lambda a: str(a[0]))
def test_hiredis_packing_sends_the_bytes_redis_py_sends_r15(args: tuple[EncodableT, ...]) -> None:
    ours = b"".join(QuietConnection().pack_command(*args))
    assert ours == b"".join(Connection().pack_command(*args))
    assert len(QuietConnection().pack_command(*args)) == 1  # one buffer, packed in C


def test_what_hiredis_refuses_takes_redis_pys_path_r15() -> None:
    mixed = (b"SET", bytearray(b"key"), memoryview(b"value"))
    assert b"".join(QuietConnection().pack_command(*mixed)) == b"".join(
        Connection().pack_command(*mixed)
    )
    with pytest.raises(DataError, match="bool"):
        QuietConnection().pack_command(b"SET", b"key", True)  # noqa: FBT003  (the refused type)


def test_another_encoding_is_packed_by_redis_py_r15() -> None:
    latin = QuietConnection(encoding="latin-1")
    assert b"".join(latin.pack_command(b"SET", "é")) == b"*2\r\n$3\r\nSET\r\n$1\r\n\xe9\r\n"


def test_lenient_encoding_errors_are_packed_by_redis_py_r15() -> None:
    """`?encoding_errors=replace` in the URL: a lone surrogate becomes `?`, as redis-py
    writes it, where hiredis would raise."""
    lenient = QuietConnection(encoding_errors="replace")
    assert b"".join(lenient.pack_command(b"SET", "a\ud800")) == b"".join(
        Connection(encoding_errors="replace").pack_command(b"SET", "a\ud800")
    )


def test_the_tls_connection_packs_with_hiredis_too() -> None:
    assert QuietSSLConnection.pack_command is QuietConnection.pack_command


@pytest.mark.redis
@pytest.mark.asyncio
async def test_the_store_client_uses_the_packing_and_round_trips_r15(redis_url: str) -> None:
    redis = connect(Settings(redis_url=redis_url))
    assert isinstance(redis, Redis)
    try:
        pool = redis.connection_pool
        assert issubclass(pool.connection_class, QuietConnection)
        values = [f"{i}: é中 {'x' * (i % 50)}".encode() for i in range(2000)]
        await redis.delete("packing:list")
        await redis.rpush("packing:list", *values)
        assert await redis.lrange("packing:list", 0, -1) == values
    finally:
        await redis.delete("packing:list")
        await redis.aclose()
