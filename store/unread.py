"""Inputs removed before the consumer group read them: noticed, never silent.

No Redis ACL can stop a user who may `XADD` from passing `MAXLEN 0` or `MINID` (an
argument), and such an `XADD` removes entries no worker has read: the turns are gone and
their sessions never learn of them. accord itself only ever removes what every group
finished (`store/retention.py`), at or below each group's last-delivered id, so a
removal above it is someone else's. How it is seen:

- Redis 7: entries added to the stream minus entries the group read (`entries-added`,
  `entries-read`) says how many undelivered entries there should be; when fewer are
  there (counted, up to `CAP`), the rest were trimmed away. An `XDEL` above the
  last-delivered id shows as the stream's `max-deleted-entry-id`.
- Redis 6.2 keeps neither: only a removal that left none of the undelivered entries is
  seen (the stream generated ids past the last-delivered one and holds none of them).
"""

from __future__ import annotations

from typing import Any

import msgspec

from contracts.streams import EntryId, as_text
from store.scripts import AnyRedis

# Undelivered entries counted at most (one bounded XRANGE): past it the group is far
# behind anyway, and the next passes look again as it catches up.
CAP = 1000


class RemovedUnread(msgspec.Struct, frozen=True):
    """Entries of `stream` removed above what `group` was delivered (`delivered`), and what
    shows it (`evidence`, the same while nothing more is removed)."""

    stream: str
    group: str
    delivered: str
    evidence: str


async def removed_unread(
    redis: AnyRedis, stream: str, group: str, info_of_group: dict[str, Any] | None = None
) -> RemovedUnread | None:
    """Whether entries of `stream` were removed before `group` read them (see module).
    `info_of_group`: the group's XINFO GROUPS entry when the caller has just read it."""
    found = info_of_group
    if found is None:
        groups: Any = await redis.xinfo_groups(stream)
        found = next((g for g in groups if as_text(g["name"]) == group), None)
    if found is None:
        return None
    delivered = EntryId.parse(found["last-delivered-id"])
    info: Any = await redis.xinfo_stream(stream)
    evidence = await _evidence(redis, stream, found, info, delivered)
    return None if evidence is None else RemovedUnread(stream, group, str(delivered), evidence)


async def _evidence(
    redis: AnyRedis,
    stream: str,
    group: dict[str, Any],
    info: dict[str, Any],
    delivered: EntryId,
) -> str | None:
    deleted = info.get("max-deleted-entry-id")
    if deleted is None:  # Redis 6.2
        generated = EntryId.parse(info["last-generated-id"])
        last = info.get("last-entry")
        if generated > delivered and (not last or EntryId.parse(last[0]) <= delivered):
            return f"no entry left of those generated up to {generated}"
        return None
    if EntryId.parse(deleted) > delivered:
        return f"max-deleted-entry-id {as_text(deleted)}"
    read = group.get("entries-read")
    if read is None and delivered == EntryId(0, 0):
        read = 0  # a group that never read: Redis leaves the count unset
    if read is None:
        return None  # unknown after some deletions: the XDEL rule above still holds
    expected = int(info["entries-added"]) - int(read)
    if not 0 < expected <= CAP:
        return None
    after: Any = await redis.xrange(stream, min=f"({delivered}", count=expected)
    missing = expected - len(after)
    return f"{missing} undelivered entries missing" if missing > 0 else None
