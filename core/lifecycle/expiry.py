"""Deadline expiry (R9): what is due, in deadline order, with the deadline as history time.

An input expires its own session's due records before it acts (`reducer.apply_input`);
the sweeper's `expire_due` expires the rest once the watermark passed them (DESIGN 3).
Either way history time is the deadline, so a late sweep and a replay agree.
"""

from __future__ import annotations

from datetime import datetime

from contracts.common import Cause, Provenance
from contracts.outputs import StateChanged, sealed
from contracts.records import Evidence, PassedBy
from contracts.step import CoreStep
from core.lifecycle.acceptance import past_deadline
from core.lifecycle.changes import Grounds, closing
from core.lifecycle.fold import commit
from core.lifecycle.state import ScopeState
from core.lifecycle.transitions import LIVE


def expired(
    scope: ScopeState, now: datetime, *, session_id: str | None = None
) -> tuple[StateChanged, ...]:
    """Expiry of every live record whose deadline is at or before `now`, in deadline order.

    With `session_id`, only the records proposed in that session.
    """
    due = [
        record
        for record in scope.records
        if record.state in LIVE
        and past_deadline(record, now)
        and (session_id is None or record.session_id == session_id)
    ]
    if not due:
        return ()  # the usual case, before every input: skip the sort and the tuple
    due.sort(key=lambda record: record.deadline_at or now)
    passed: PassedBy = "watermark" if session_id is None else "input"
    evidence = Evidence(passed=passed, passed_at=now)
    return tuple(
        expiry
        for record in due
        for expiry in closing(
            record,
            Cause.DEADLINE_REACHED,
            Grounds(record.deadline_at or now, Provenance(session_id=record.session_id), evidence),
        )
    )


def expire_due(scope: ScopeState, now: datetime) -> CoreStep[ScopeState, None]:
    """The sweeper's step: expire what is due at `now`; no session is involved."""
    changes = expired(scope, now)
    after, changed = commit(scope, changes)
    return CoreStep(
        scope=after,
        session=None,
        events=tuple(map(sealed, changes)),
        records=tuple(changed.values()),
        scope_changed=bool(changes),
        session_changed=False,
    )


def deadline_entries(scope: ScopeState) -> tuple[tuple[str, datetime], ...]:
    """(record_id, deadline_at) of the records that can still expire, for the store's index."""
    return tuple(
        (record.record_id, record.deadline_at)
        for record in scope.records
        if record.deadline_at is not None and record.state in LIVE
    )
