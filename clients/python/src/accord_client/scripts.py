"""The client's one server-side script, run by EVALSHA with an EVAL fallback, or, in
function mode (Redis 7, `AccordClient(..., functions=True)`), by `FCALL accord_append`
from the library an operator loaded (`accord functions load`)."""

from __future__ import annotations

import hashlib
from importlib import resources
from typing import Any

from redis.asyncio import Redis, RedisCluster
from redis.exceptions import NoScriptError

# The client needs only redis-py, msgspec and contracts (an import contract), so it keeps
# this alias of its own; the worker and the store share store/scripts.py's.
AnyRedis = Redis | RedisCluster

APPEND_SOURCE = resources.files("accord_client").joinpath("lua", "append.lua").read_text("utf-8")
APPEND_SHA = hashlib.sha1(APPEND_SOURCE.encode()).hexdigest()  # noqa: S324  (Redis names scripts by SHA-1)
# Its name in the function library (worker/functions.py builds the library).
APPEND_FUNCTION = "accord_append"


async def run_append(
    redis: AnyRedis,
    keys: list[str],
    args: list[Any],
    *,
    functions: bool = False,
) -> Any:  # noqa: ANN401  (Lua replies are untyped)
    """FCALL in function mode; else EVALSHA, and on NOSCRIPT (a restarted server, a new
    cluster node) EVAL, which caches it."""
    if functions:
        return await redis.fcall(APPEND_FUNCTION, len(keys), *keys, *args)
    try:
        return await redis.evalsha(APPEND_SHA, len(keys), *keys, *args)
    except NoScriptError:
        return await redis.eval(APPEND_SOURCE, len(keys), *keys, *args)


async def run_append_waiting(  # noqa: PLR0913  (the call and the wait's two knobs)
    redis: Redis,
    keys: list[str],
    args: list[Any],
    *,
    functions: bool,
    replicas: int,
    timeout_ms: int,
) -> tuple[Any, int]:
    """The append and `WAIT replicas timeout_ms` in one pipeline, so on one connection
    (WAIT counts the replicas that have that connection's writes): (reply, replicas
    that acknowledged it)."""
    for by_source in (False, True):
        pipe = redis.pipeline(transaction=False)
        if functions:
            pipe.fcall(APPEND_FUNCTION, len(keys), *keys, *args)
        elif by_source:
            pipe.eval(APPEND_SOURCE, len(keys), *keys, *args)
        else:
            pipe.evalsha(APPEND_SHA, len(keys), *keys, *args)
        pipe.execute_command("WAIT", replicas, timeout_ms)
        try:
            reply, acked = await pipe.execute()
        except NoScriptError:
            if by_source or functions:
                raise
            continue  # a restarted server: the same pipeline, by EVAL
        return reply, int(acked)
    raise AssertionError("unreachable")  # pragma: no cover
