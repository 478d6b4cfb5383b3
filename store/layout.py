"""The deployment's layout, stored in Redis by the first worker: partition count and group.

Every worker, CLI command and gateway must hash scopes to the same number of
partitions (DESIGN 3, "Partitions"): a worker started with another `ACCORD_PARTITIONS`
would dead-letter good input as `wrong_partition` and leave streams unread. The first
worker to start writes the layout (`SET NX`); every later start compares and refuses a
mismatch with one line naming the setting.
"""

from __future__ import annotations

from typing import Any

import msgspec

from contracts.keys import Layout
from contracts.streams import INPUT_FAMILIES, stream_name
from store import keys
from store.scripts import AnyRedis


class LayoutMismatch(ValueError):  # noqa: N818  (a refusal, read as a sentence)
    """The settings disagree with the layout this Redis was set up with."""


def _refusal(stored: Layout, partitions: int, group: str) -> LayoutMismatch | None:
    if stored.partitions != partitions:
        return LayoutMismatch(
            f"ACCORD_PARTITIONS={partitions}, but this Redis has"
            f" {stored.partitions} partitions ({keys.CONFIG_KEY}): every worker, command and"
            f" gateway must use the same count (leave ACCORD_PARTITIONS unset to take"
            f" Redis's)"
        )
    # The group is kept for operators to read, not enforced: a command may name another
    # group on purpose (a replay that no worker reads, a second consumer group).
    del group
    return None


async def stored_layout(redis: AnyRedis) -> Layout | None:
    raw: Any = await redis.get(keys.CONFIG_KEY)
    return None if raw is None else msgspec.json.decode(raw, type=Layout)


async def check_layout(redis: AnyRedis, partitions: int, group: str) -> None:
    """Raise LayoutMismatch if a stored layout differs (nothing stored: nothing to check)."""
    stored = await stored_layout(redis)
    if stored is not None and (refusal := _refusal(stored, partitions, group)):
        raise refusal


async def claim_layout(redis: AnyRedis, partitions: int, group: str) -> bool:
    """Store the layout if none is; raise LayoutMismatch if another is. True if stored now."""
    wanted = Layout(partitions, group)
    if await redis.set(keys.CONFIG_KEY, msgspec.json.encode(wanted), nx=True):
        return True
    await check_layout(redis, partitions, group)
    return False


# Partitions up to this many past P are probed. No SCAN: it cannot be confined to
# accord's keys, so no accord user holds it, and each refusal would be a line in ACL LOG,
# which holds only real denials (docs/security.md).
PROBED_BEYOND = 1024


async def streams_beyond(redis: AnyRedis, partitions: int) -> list[str]:
    """Input streams of partitions P..P+PROBED_BEYOND-1 (written with a larger count),
    probed by XLEN (0 for a stream that is not there), in one pipeline."""
    names = [
        stream_name(family, p)
        for p in range(partitions, partitions + PROBED_BEYOND)
        for family in INPUT_FAMILIES
    ]
    pipe = redis.pipeline(transaction=False)
    for name in names:
        pipe.xlen(name)
    lengths = await pipe.execute()
    return [name for name, length in zip(names, lengths, strict=True) if length]
