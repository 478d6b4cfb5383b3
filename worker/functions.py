"""The Redis 7 function library: every Lua script of the store and the client's append,
loaded once by an operator (`accord functions load`, FUNCTION LOAD REPLACE) and called
by FCALL, so the worker's and the gateway's Redis users need no EVAL.

The library is generated from the same script files EVALSHA runs (no second copy): each
body becomes the callback of `redis.register_function('accord_<name>', ...)`, with
`KEYS` and `ARGV` as its parameters, so the body runs unchanged. Its version is a digest
of those sources; `accord_version` returns it, and a worker in function mode refuses to
start (exit 2) against a library that is missing or another version.
"""

from __future__ import annotations

import hashlib
from typing import Any

from redis.exceptions import NoPermissionError, ResponseError

from accord_client.scripts import APPEND_FUNCTION, APPEND_SOURCE
from store.scripts import SCRIPTS, AnyRedis, LuaScript

LIBRARY = "accord"
VERSION_FUNCTION = "accord_version"


# A function's flags (Redis 7): what it may do on a full Redis.
NO_WRITES = "no-writes"
ALLOW_OOM = "allow-oom"


def _bodies() -> list[tuple[str, str, tuple[str, ...]]]:
    """(function name, script source, flags) of every script, in a fixed order."""
    store = [(script.function, script.source, _flags(script)) for script in SCRIPTS]
    return [*store, (APPEND_FUNCTION, APPEND_SOURCE, ())]


def _flags(script: LuaScript) -> tuple[str, ...]:
    if script.read_only:
        return (NO_WRITES,)
    return (ALLOW_OOM,) if script.frees_memory else ()


def _registration(name: str, source: str, flags: tuple[str, ...]) -> str:
    listed = ", ".join(f"'{flag}'" for flag in flags)
    # A newline before `end`: a body may end in a comment line.
    return (
        f"redis.register_function{{function_name='{name}', flags={{{listed}}},\n"
        f"callback=function(KEYS, ARGV)\n{source}\nend}}\n"
    )


def _version() -> str:
    """A digest of every registration as loaded (sources and flags alike), so a library
    that differs in anything but its version line is another version."""
    digest = hashlib.sha256()
    for name, source, flags in _bodies():
        digest.update(_registration(name, source, flags).encode())
    return digest.hexdigest()[:16]


VERSION = _version()


def function_names() -> list[str]:
    """Every function the library registers."""
    return [*(name for name, _, _ in _bodies()), VERSION_FUNCTION]


def library_source() -> str:
    """The library's code, as FUNCTION LOAD takes it."""
    parts = [f"#!lua name={LIBRARY}\n"]
    parts += [_registration(n, s, f) for n, s, f in _bodies()]
    parts.append(_registration(VERSION_FUNCTION, f"return '{VERSION}'", (NO_WRITES,)))
    return "".join(parts)


class LibraryMismatch(ValueError):  # noqa: N818  (a refusal, read as a sentence)
    """Function mode is on, but the loaded library is missing or another version."""


LOAD_HINT = "load this release's with `accord functions load` (an operator's Redis user)"


async def loaded_version(redis: AnyRedis) -> str | None:
    """The loaded library's version, or None when no accord library is loaded.

    Raises LibraryMismatch when FCALL itself is refused: a user without `+fcall`, or a
    server without functions (Redis 6.2)."""
    try:
        raw: Any = await redis.fcall(VERSION_FUNCTION, 0)
    except NoPermissionError as error:
        raise LibraryMismatch(
            f"ACCORD_REDIS_FUNCTIONS=1, but this Redis user may not FCALL ({error}): grant"
            " it +fcall (deploy/redis/users-redis7.acl)"
        ) from error
    except ResponseError as error:
        cause = str(error).lower()
        if "function not found" in cause:
            return None
        if "unknown command" in cause:
            raise LibraryMismatch(
                "ACCORD_REDIS_FUNCTIONS=1 needs Redis 7 or later (functions); this server"
                " has none: unset it (scripts then run by EVALSHA)"
            ) from error
        raise
    return raw.decode() if isinstance(raw, bytes) else str(raw)


async def check_library(redis: AnyRedis) -> None:
    """Raise LibraryMismatch unless this release's library is loaded."""
    loaded = await loaded_version(redis)
    if loaded is None:
        raise LibraryMismatch(
            f"ACCORD_REDIS_FUNCTIONS=1, but no accord function library is loaded: {LOAD_HINT}"
        )
    if loaded != VERSION:
        raise LibraryMismatch(
            f"ACCORD_REDIS_FUNCTIONS=1, but the loaded accord function library is version"
            f" {loaded} and this release needs {VERSION}: {LOAD_HINT}"
        )


async def load_library(redis: AnyRedis) -> str:
    """FUNCTION LOAD REPLACE this release's library (every primary of a cluster); its
    version."""
    await redis.function_load(library_source(), replace=True)
    return VERSION
