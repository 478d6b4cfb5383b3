"""A chat turn's intent with its deadline resolved: recognize, then resolve (R1, R9).

The deadline is resolved from the turn's own `ts` in the user's time zone (the turn's
`timezone`, else the configured default, else UTC; DESIGN section 4), never from a clock.
How it was read is kept as evidence (R16). An assistant turn is read for claims the
state must back (R18); it never proposes, accepts or cancels (R1).
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import msgspec

from contracts.common import Role
from contracts.inputs import ChatTurn
from contracts.records import DeadlineEvidence
from core.deadlines.grammar import DeadlineSpec, Edge
from core.deadlines.resolve import parse_deadline, resolve_spec
from core.intents import Amendment, Intent, Proposal
from core.lifecycle.claims import claims_in
from core.recognition.recognizer import recognize

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


def convention(spec: DeadlineSpec) -> str:
    """The DESIGN section 4 convention a reading resolves by, in words (R16)."""
    if spec.within is not None:
        unit = spec.within.unit.value
        if unit in {"second", "minute", "hour"}:
            return f"ts + {spec.within.amount} {unit}(s), exclusive"
        return f"end of the local day on which ts + {spec.within.amount} {unit}(s) falls, exclusive"
    edge = "end" if spec.edge is Edge.END else "start"
    if spec.period is not None:
        return f"{edge} of the named period, exclusive"
    if spec.time is not None and spec.either_half:
        hour, minute = spec.time
        first = 0 if hour == 12 and minute else hour  # "twenty after twelve": 00:20 or 12:20
        readings = f"{first:02d}:{minute:02d} or {first + 12:02d}:{minute:02d}"
        which = "whichever comes next"
        if spec.day is not None:
            which = "the one still to come on the named day"
        return f"the clock time {readings}, {which}, exclusive"
    if spec.time is not None:
        where = "on the named day" if spec.day is not None else "at its next occurrence"
        clock = f"{spec.time[0]:02d}:{spec.time[1]:02d}"
        if spec.seconds:
            clock += f":{spec.seconds:02d}"  # "by 7:56:30pm"
        return f"the clock time {clock} {where}, exclusive"
    return f"{edge} of the named day, exclusive"


def with_deadline(intent: Intent, ts: datetime, zone: ZoneInfo) -> Intent:
    """`intent` with the deadline phrase of its terms resolved as said at `ts` in `zone`."""
    if not isinstance(intent, Proposal | Amendment) or intent.deadline_phrase is None:
        return intent
    # Parsed once: the spec gives both the instant and its convention (the evidence).
    spec = parse_deadline(intent.deadline_phrase)
    deadline_at = None if spec is None else resolve_spec(spec, ts, zone)
    evidence = DeadlineEvidence(
        written=intent.deadline_phrase,
        timezone=zone.key,
        convention=convention(spec) if spec is not None else None,
        resolved=deadline_at,
    )
    return msgspec.structs.replace(intent, deadline_at=deadline_at, deadline=evidence)


def interpret(turn: ChatTurn, default_timezone: str) -> Intent:
    """What the lifecycle acts on for one chat turn."""
    if turn.role == Role.ASSISTANT:
        return claims_in(turn.text)
    intent = recognize(turn.text, turn.role)
    if not isinstance(intent, Proposal | Amendment) or intent.deadline_phrase is None:
        return intent  # nearly every turn: no zone to look up (zone_for has no effects)
    return with_deadline(intent, turn.ts, zone_for(turn.timezone, default_timezone))
