"""The store's Lua scripts: read once from `store/lua/`, run by EVALSHA, or by FCALL.

On NOSCRIPT (a restarted or failed-over server, or a cluster node that has not seen
the script yet) the script is sent once with EVAL, which also caches it there.
Every script touches only keys of one partition (tag `{p}`), so it runs on one node
of a cluster and never raises CROSSSLOT.

Function mode (Redis 7, `ACCORD_REDIS_FUNCTIONS=1`): an operator loads every script as
one function library (worker/functions.py, `accord functions load`), and a client marked
by `use_functions` runs each as `FCALL accord_<name>`, so its Redis user needs `+fcall`
and no `+eval`/`+evalsha` (deploy/redis/users-redis7.acl). Unmarked clients pay one set
look-up per call for the choice.
"""

from __future__ import annotations

import hashlib
import weakref
from dataclasses import dataclass
from importlib import resources
from typing import Any

from redis.asyncio import Redis, RedisCluster
from redis.exceptions import NoScriptError

AnyRedis = Redis | RedisCluster

# The clients whose scripts run as loaded functions (weak: a closed client just goes).
_FUNCTION_CLIENTS: weakref.WeakSet[Redis | RedisCluster] = weakref.WeakSet()


def use_functions(redis: AnyRedis) -> AnyRedis:
    """Mark `redis`: every script run through it from now on is an FCALL."""
    _FUNCTION_CLIENTS.add(redis)
    return redis


def uses_functions(redis: AnyRedis) -> bool:
    return redis in _FUNCTION_CLIENTS


@dataclass(frozen=True, slots=True)
class LuaScript:
    name: str
    source: str
    sha: str
    # Only reads: loaded as a `no-writes` function (it runs on a full Redis too).
    read_only: bool = False
    # Its writes free memory overall: loaded as an `allow-oom` function, so it still runs
    # past maxmemory, as the same script does by EVAL (a remedy for a full Redis).
    frees_memory: bool = False

    @classmethod
    def load(cls, name: str, *, read_only: bool = False, frees_memory: bool = False) -> LuaScript:
        source = resources.files("store").joinpath("lua", f"{name}.lua").read_text("utf-8")
        sha = hashlib.sha1(source.encode()).hexdigest()  # noqa: S324  (Redis names scripts by SHA-1)
        return cls(name, source, sha, read_only, frees_memory)

    @property
    def function(self) -> str:
        """Its name in the function library."""
        return f"accord_{self.name}"

    def call(
        self, keys: list[str], args: list[Any], *, functions: bool, by_source: bool = False
    ) -> tuple[Any, ...]:
        """This script's call as `run` sends it, as a command's arguments: FCALL, EVALSHA,
        or EVAL (`by_source`, after a NOSCRIPT)."""
        if functions:
            return ("FCALL", self.function, len(keys), *keys, *args)
        if by_source:
            return ("EVAL", self.source, len(keys), *keys, *args)
        return ("EVALSHA", self.sha, len(keys), *keys, *args)

    async def run(self, redis: AnyRedis, keys: list[str], args: list[Any]) -> Any:  # noqa: ANN401  (Lua replies are untyped)
        functions = uses_functions(redis)
        try:
            return await redis.execute_command(*self.call(keys, args, functions=functions))
        except NoScriptError:
            if functions:
                raise
            return await redis.execute_command(
                *self.call(keys, args, functions=False, by_source=True)
            )


LOAD = LuaScript.load("load", read_only=True)
COMMIT = LuaScript.load("commit")
REQUEUE = LuaScript.load("requeue")
RECLAIM = LuaScript.load("reclaim")
LEASE = LuaScript.load("lease")
MEMBERS = LuaScript.load("members")
COMPACT = LuaScript.load("compact", frees_memory=True)
PUBLISH = LuaScript.load("publish")
UNINDEX = LuaScript.load("unindex")
REINDEX = LuaScript.load("reindex")
# Every script above: the function library is made of these (and the client's append).
SCRIPTS = (LOAD, COMMIT, REQUEUE, RECLAIM, LEASE, MEMBERS, COMPACT, PUBLISH, UNINDEX, REINDEX)
