"""What the console's pages show, read from Redis: reads only, never a write."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import msgspec

from contracts.outputs import DeadLetter
from contracts.partition import partition_of
from contracts.records import AgreementRecord
from contracts.streams import DATA_FIELD, as_text
from core.lifecycle import state as core_state
from core.lifecycle.view import session_view
from store import keys
from store.reads import record_history
from store.scripts import AnyRedis

_DEAD = msgspec.json.Decoder(DeadLetter)
_DATA = DATA_FIELD.encode()


@dataclass(frozen=True)
class ScopePage:
    agent_id: str
    user_id: str
    partition: int
    known: bool
    current: tuple[AgreementRecord, ...] = ()
    # session id -> its proposals still waiting, as the session view shows them.
    pending: dict[str, tuple[AgreementRecord, ...]] = field(default_factory=dict)
    # Live records that are neither current nor pending: past their deadline, not swept.
    overdue: tuple[AgreementRecord, ...] = ()
    # The closed records the scope remembers (the last few), newest first.
    closed: tuple[AgreementRecord, ...] = ()


async def scope_page(
    redis: AnyRedis, partitions: int, agent_id: str, user_id: str, now: datetime
) -> ScopePage:
    """The scope's current agreements, pending proposals per session, closed records."""
    partition = partition_of(agent_id, user_id, partitions)
    raw: Any = await redis.hget(keys.scope_key(partition, agent_id, user_id), "s")
    if not raw:
        return ScopePage(agent_id, user_id, partition, known=False)
    scope = core_state.decode_scope(raw)
    sessions = list(dict.fromkeys(record.session_id for record in scope.records))
    by_id = {record.record_id: record for record in scope.records}
    current_ids = [c.record_id for c in session_view(scope, "", now, now=True).current_agreements]
    pending: dict[str, tuple[AgreementRecord, ...]] = {}
    for session in sessions:
        waiting = session_view(scope, session, now, now=True).pending_proposals
        if waiting:
            pending[session] = tuple(by_id[p.record_id] for p in waiting)
    shown = set(current_ids) | {r.record_id for group in pending.values() for r in group}
    closed: list[AgreementRecord] = []
    for gone in reversed(scope.closed):
        record = await record_history(redis, partition, gone.record_id)
        if record is not None:
            closed.append(record)
    return ScopePage(
        agent_id,
        user_id,
        partition,
        known=True,
        current=tuple(by_id[i] for i in current_ids),
        pending=pending,
        overdue=tuple(r for r in scope.records if r.record_id not in shown),
        closed=tuple(closed),
    )


@dataclass(frozen=True)
class DeadLetters:
    # Counts by reason of the letters read (the partition filter applied, not the reason's).
    by_reason: Counter[str]
    letters: list[tuple[int, str, DeadLetter]]


async def dead_letters(
    redis: AnyRedis,
    partitions: int,
    count: int = 200,
    *,
    reason: str | None = None,
    partition: int | None = None,
) -> DeadLetters:
    """The newest dead letters of every partition, or of `partition` (at most `count`
    each), newest first; counted by reason, then those of `reason` kept."""
    letters: list[tuple[int, str, DeadLetter]] = []
    for p in range(partitions) if partition is None else (partition,):
        reply: Any = await redis.xrevrange(keys.dead_letters_stream(p), count=count)
        letters += [(p, as_text(i), _DEAD.decode(f[_DATA])) for i, f in reply]
    letters.sort(key=lambda row: row[2].at, reverse=True)
    counts = Counter(letter.reason.value for _, _, letter in letters)
    if reason is not None:
        letters = [row for row in letters if row[2].reason.value == reason]
    return DeadLetters(counts, letters)


def letter_scope(letter: DeadLetter) -> tuple[str, str] | None:
    """(agent, user) of the input a letter holds, when its envelope names them (the ids
    are kept even where the text is redacted); None for an entry that never decoded."""
    try:
        document = json.loads(letter.fields.get(DATA_FIELD, ""))
    except ValueError:
        return None
    if not isinstance(document, dict):
        return None
    agent, user = document.get("agent_id"), document.get("user_id")
    if isinstance(agent, str) and isinstance(user, str) and agent and user:
        return agent, user
    return None
