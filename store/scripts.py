"""The store's Lua scripts: read once from `store/lua/`, run by EVALSHA.

On NOSCRIPT (a restarted or failed-over server, or a cluster node that has not seen
the script yet) the script is sent once with EVAL, which also caches it there.
Every script touches only keys of one partition (tag `{p}`), so it runs on one node
of a cluster and never raises CROSSSLOT.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from importlib import resources
from typing import Any

from redis.asyncio import Redis, RedisCluster
from redis.exceptions import NoScriptError

AnyRedis = Redis | RedisCluster


@dataclass(frozen=True, slots=True)
class LuaScript:
    name: str
    source: str
    sha: str

    @classmethod
    def load(cls, name: str) -> LuaScript:
        source = resources.files("store").joinpath("lua", f"{name}.lua").read_text("utf-8")
        return cls(name, source, hashlib.sha1(source.encode()).hexdigest())  # noqa: S324  (Redis names scripts by SHA-1)

    async def run(self, redis: AnyRedis, keys: list[str], args: list[Any]) -> Any:  # noqa: ANN401  (Lua replies are untyped)
        try:
            return await redis.evalsha(self.sha, len(keys), *keys, *args)
        except NoScriptError:
            return await redis.eval(self.source, len(keys), *keys, *args)


LOAD = LuaScript.load("load")
COMMIT = LuaScript.load("commit")
REQUEUE = LuaScript.load("requeue")
RECLAIM = LuaScript.load("reclaim")
LEASE = LuaScript.load("lease")
MEMBERS = LuaScript.load("members")
COMPACT = LuaScript.load("compact")
