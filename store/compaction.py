"""Session retention: idle sessions are compacted to their ordering watermark.

With `StoreConfig.session_retention_ms` set, every commit scores the sessions it wrote
in `idle:{p}` with Redis's time. `compact_idle_sessions` (the sweeper, each period)
takes the sessions idle longer than the retention and, through `compact.lua`, drops
their core state (`c`: the todo tracking) and gives them a new version. What stays is
what exactly-once needs: the next expected seq `n` and the skipped ranges `k`. So a
late duplicate of an old seq is still acked as a duplicate, and the session's next seq
is still applied in order, from an empty core state (R15; docs/store.md, "Retention").

A session is not compacted while a record its scope keeps depends on its state (a todo
binding whose delivery R12 verifies there: `CorePort.needs_session`), nor while entries
are parked behind a gap; nor when it committed since its score was set (the commit that
scores a session records the version it wrote, `iv`: a commit made with retention off
moves the version without scoring) or since the read here. A session not compacted is
scored anew and looked at again after another retention. A member whose session hash is
gone (an operator's DEL) or of another type is removed from the index, so it can neither
fail nor hold up the passes after it.
"""

from __future__ import annotations

import secrets
from typing import Any

import msgspec

from store import keys
from store.core_port import CorePort, ScopeT, SessionT
from store.scripts import COMPACT, AnyRedis

# Sessions looked at per sweep: a bounded amount of work per period.
COMPACT_BATCH = 256


class Compaction(msgspec.Struct, frozen=True):
    """One retention pass of a partition: sessions compacted and kept, entries trimmed."""

    compacted: int = 0
    kept: int = 0
    trimmed: int = 0
    # Members of the idle index whose session hash was gone or of another type, or that
    # name no session at all: removed.
    stale: int = 0
    # Final records removed from the records index after their key's TTL ran out.
    unindexed: int = 0
    # Scopes removed from the scopes index once they kept no record for the retention.
    scopes_unindexed: int = 0


async def compact_idle_sessions(
    redis: AnyRedis,
    partition: int,
    core: CorePort[ScopeT, SessionT],
    retention_ms: int,
    now_ms: int,
) -> Compaction:
    """Compact up to COMPACT_BATCH sessions of `partition` idle `retention_ms` at `now_ms`."""
    index = keys.idle_key(partition)
    members: list[Any] = await redis.zrangebyscore(
        index, "-inf", now_ms - retention_ms, start=0, num=COMPACT_BATCH
    )
    if not members:
        return Compaction()
    members, malformed = _well_formed(members)
    if malformed:
        # Not a member accord wrote (a hand edit, a restore gone wrong): removed, so it
        # cannot hold the head of the index and fail every later pass.
        await redis.zrem(index, *malformed)
    if not members:
        return Compaction(stale=len(malformed))
    ids = [keys.parse_member(member) for member in members]
    async with redis.pipeline(transaction=False) as pipe:
        for agent_id, user_id, session_id in ids:
            pipe.hget(keys.session_key(partition, agent_id, user_id, session_id), "v")
            pipe.hget(keys.scope_key(partition, agent_id, user_id), "s")
        replies: list[Any] = await pipe.execute(raise_on_error=False)
    session_keys: list[str] = []
    args: list[Any] = [secrets.token_hex(8) + ".c", now_ms]
    for n, (agent_id, user_id, session_id) in enumerate(ids):
        version, scope_raw = replies[2 * n], replies[2 * n + 1]
        # No session there, or a key of another type: sent with no version read, for
        # the script to remove its member from the index if it is still stale then.
        read = version if isinstance(version, bytes) else b""
        compact = bool(read) and not isinstance(scope_raw, Exception)
        compact = compact and not _needed(core, scope_raw, ids[n])
        session_keys.append(keys.session_key(partition, agent_id, user_id, session_id))
        args += [read, members[n], "1" if compact else "0"]
    compacted, kept, stale = await COMPACT.run(
        redis, [index, *session_keys, keys.lease_key(partition)], args
    )
    return Compaction(int(compacted), int(kept), stale=int(stale) + len(malformed))


def _well_formed(members: list[Any]) -> tuple[list[Any], list[Any]]:
    """(members that name a session, members that do not)."""
    good, bad = [], []
    for member in members:
        try:
            keys.parse_member(member)
        except (ValueError, TypeError, UnicodeDecodeError):
            bad.append(member)
        else:
            good.append(member)
    return good, bad


def _needed(core: CorePort[Any, Any], scope_raw: bytes | None, ids: tuple[str, str, str]) -> bool:
    """Whether the session's state must stay: a kept record depends on it, or the scope's
    state cannot be read (then nothing can be said, so nothing is dropped)."""
    agent_id, user_id, session_id = ids
    try:
        scope = core.decode_scope(scope_raw, agent_id, user_id)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return True
    return core.needs_session(scope, session_id)
