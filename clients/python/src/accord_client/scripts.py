"""The client's one server-side script, run by EVALSHA with an EVAL fallback, or, in
function mode (Redis 7, `AccordClient(..., functions=True)`), by `FCALL accord_append`
from the library an operator loaded (`accord functions load`)."""

from __future__ import annotations

import hashlib
from importlib import resources
from typing import Any

from redis.asyncio import Redis, RedisCluster
from redis.asyncio.cluster import PipelineCommand
from redis.exceptions import AskError, ClusterDownError, MovedError, NoScriptError, TryAgainError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

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
    redis: AnyRedis,
    keys: list[str],
    args: list[Any],
    *,
    functions: bool,
    replicas: int,
    timeout_ms: int,
) -> tuple[Any, int]:
    """The append and `WAIT replicas timeout_ms` on one connection (WAIT counts the
    replicas that have that connection's writes): (reply, replicas that acknowledged
    it). On Redis Cluster both go to the primary of the session's slot as one batch."""
    for by_source in (False, True):
        if functions:
            call: tuple[Any, ...] = ("FCALL", APPEND_FUNCTION, len(keys), *keys, *args)
        elif by_source:
            call = ("EVAL", APPEND_SOURCE, len(keys), *keys, *args)
        else:
            call = ("EVALSHA", APPEND_SHA, len(keys), *keys, *args)
        try:
            reply, acked = await _on_one_connection(
                redis, keys[0], [call, ("WAIT", replicas, timeout_ms)]
            )
        except NoScriptError:
            if by_source or functions:
                raise
            continue  # a restarted server or a new primary: the same calls, by EVAL
        return reply, int(acked)
    raise AssertionError("unreachable")  # pragma: no cover


# A cluster's answers that mean its layout changed (a failover, a moved slot).
_LAYOUT_CHANGED = (MovedError, AskError, TryAgainError, ClusterDownError)


async def _on_one_connection(
    redis: AnyRedis, route: str, calls: list[tuple[Any, ...]]
) -> list[Any]:
    """`calls` in order on one connection to the primary of `route`'s slot; raises the
    first error among the answers. (The worker's store/durability.py does the same; the
    client imports nothing of the worker's.)"""
    if isinstance(redis, RedisCluster):
        await redis.initialize()
        node = redis.get_node_from_key(route)
        if node is None:
            await redis.nodes_manager.initialize()
            raise ClusterDownError(f"no node serves the slot of {route}")
        commands = [PipelineCommand(i, *call) for i, call in enumerate(calls)]
        try:
            await node.execute_pipeline(commands)
        except (RedisConnectionError, RedisTimeoutError, OSError):
            await redis.nodes_manager.initialize()
            raise
        answers = [command.result for command in commands]
    else:
        pipe = redis.pipeline(transaction=False)
        for call in calls:
            pipe.execute_command(*call)
        answers = await pipe.execute(raise_on_error=False)
    for answer in answers:
        if isinstance(answer, Exception):
            if isinstance(answer, _LAYOUT_CHANGED) and isinstance(redis, RedisCluster):
                await redis.nodes_manager.initialize()
            raise answer
    return answers
