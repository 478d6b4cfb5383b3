"""Reads for the CLI and other services: the session view (R6) and a record's history."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec

from contracts.partition import partition_of
from contracts.records import AgreementRecord
from contracts.view import SessionView
from store import keys
from store.core_port import CorePort, ScopeT, SessionT
from store.scripts import AnyRedis

_RECORD = msgspec.json.Decoder(AgreementRecord)


async def session_view(  # noqa: PLR0913  (the view's coordinates)
    redis: AnyRedis,
    core: CorePort[ScopeT, SessionT],
    partitions: int,
    *,
    agent_id: str,
    user_id: str,
    session_id: str,
    as_of: datetime,
    now: bool = False,
) -> SessionView:
    """The scope's current agreement memory and this session's pending proposals.

    The core filters by deadline itself, so a sweep that has not run yet never shows an
    expired agreement as current. `now`: `as_of` is the reader's present (the CLI without
    --as-of), so every committed entry shows whatever its `since`.
    """
    partition = partition_of(agent_id, user_id, partitions)
    raw: Any = await redis.hget(keys.scope_key(partition, agent_id, user_id), "s")
    scope = core.decode_scope(raw, agent_id, user_id)
    return core.view(scope, session_id, as_of, now=now)


async def record_history(redis: AnyRedis, partition: int, record_id: str) -> AgreementRecord | None:
    """The record's latest state with its full history (terminal records included)."""
    raw: Any = await redis.get(keys.record_key(partition, record_id))
    return None if raw is None else _RECORD.decode(raw)
