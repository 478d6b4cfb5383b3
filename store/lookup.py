"""Operator look-ups: which records an id prefix names, whether a scope or session exists.

Every output shows a record by its first 12 characters (`agr-d241f48f`), so a person
types that back. A record id does not name its partition, so a prefix is looked up in
each (P is small) by SCAN MATCH over `record:{p}:<prefix>*`, with the glob characters
of the prefix escaped; the full id is tried first with one GET per partition.
"""

from __future__ import annotations

import re
from typing import Any

from redis.exceptions import NoPermissionError

from contracts.records import AgreementRecord
from contracts.streams import as_text
from store import keys
from store.reads import record_history
from store.scripts import AnyRedis

# Enough to show a person what an ambiguous prefix matches; more is never useful.
MAX_MATCHES = 20
_GLOB = re.compile(r"([*?\[\]\\])")


class PrefixLookupError(RuntimeError):
    """The Redis user may not SCAN (the worker's least-privilege user): give a full id."""


def _glob_escape(text: str) -> str:
    return _GLOB.sub(r"\\\1", text)


async def records_named(
    redis: AnyRedis, partitions: int, prefix: str, limit: int = MAX_MATCHES
) -> list[tuple[int, str]]:
    """(partition, full record id) of the records whose id is or starts with `prefix`.

    An exact id wins over longer ids that start with it; at most `limit` matches.
    """
    if not prefix:
        return []
    for partition in range(partitions):
        raw: Any = await redis.get(keys.record_key(partition, prefix))
        if raw is not None:
            return [(partition, prefix)]
    found: list[tuple[int, str]] = []
    try:
        for partition in range(partitions):
            head = keys.record_key(partition, "")
            pattern = _glob_escape(head) + _glob_escape(prefix) + "*"
            async for name in redis.scan_iter(match=pattern, count=1000):
                found.append((partition, as_text(name)[len(head) :]))
                if len(found) >= limit:
                    return sorted(found)
    except NoPermissionError as error:
        message = (
            f"no record {prefix!r}, and this Redis user may not SCAN to look up a shorter "
            "id: give the full record id, or use an operator's user"
        )
        raise PrefixLookupError(message) from error
    return sorted(found)


async def scope_exists(redis: AnyRedis, partition: int, agent_id: str, user_id: str) -> bool:
    """True once any input of the scope was committed (its hash has a version)."""
    raw: Any = await redis.hget(keys.scope_key(partition, agent_id, user_id), "v")
    return raw is not None


async def session_exists(
    redis: AnyRedis, partition: int, agent_id: str, user_id: str, session_id: str
) -> bool:
    """True once any input of the session was committed (its next expected seq is set)."""
    raw: Any = await redis.hget(keys.session_key(partition, agent_id, user_id, session_id), "n")
    return raw is not None


async def one_record_named(
    redis: AnyRedis, partitions: int, name: str
) -> AgreementRecord | list[str]:
    """The one record `name` (a full id or its start) names, with its revisions; else the
    ids it names: several (ambiguous) or none. Raises what `records_named` raises."""
    matches = await records_named(redis, partitions, name)
    if len(matches) != 1:
        return [record_id for _, record_id in matches]
    found = await record_history(redis, *matches[0])
    return [] if found is None else found
