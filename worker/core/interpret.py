"""A chat turn's intent with its deadline resolved: recognize, then resolve (R1, R9).

The deadline is resolved from the turn's own `ts` in the user's time zone (the turn's
`timezone`, else the configured default, else UTC; DESIGN section 4), never from a clock.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import msgspec

from contracts.inputs import ChatTurn
from worker.core.deadlines import resolve_deadline
from worker.core.intents import Intent, Proposal
from worker.core.recognizer import recognize

UTC = ZoneInfo("UTC")


def zone_for(timezone: str | None, default_timezone: str | None) -> ZoneInfo:
    """The first of the turn's zone, the default zone and UTC that names a real zone."""
    for name in (timezone, default_timezone):
        if name:
            try:
                return ZoneInfo(name)
            except (ZoneInfoNotFoundError, ValueError):
                continue
    return UTC


def with_deadline(intent: Intent, ts: datetime, zone: ZoneInfo) -> Intent:
    """`intent` with a proposal's deadline phrase resolved as said at `ts` in `zone`."""
    if not isinstance(intent, Proposal) or intent.deadline_phrase is None:
        return intent
    deadline_at = resolve_deadline(intent.deadline_phrase, ts, zone)
    if deadline_at is None:
        return intent
    return msgspec.structs.replace(intent, deadline_at=deadline_at)


def interpret(turn: ChatTurn, default_timezone: str) -> Intent:
    """What the lifecycle acts on for one chat turn."""
    intent = recognize(turn.text, turn.role)
    if not isinstance(intent, Proposal) or intent.deadline_phrase is None:
        return intent  # nearly every turn: no zone to look up (zone_for has no effects)
    return with_deadline(intent, turn.ts, zone_for(turn.timezone, default_timezone))
