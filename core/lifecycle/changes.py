"""Deciding one change of an existing record: its next revision, per the table.

Every handler that moves a record builds its `StateChanged` here, so revision,
event id, state after (`transitions.after`) and the amendment rules (R17) are
decided in one place. What a change is made at, from and on (`Grounds`) travels as
one value from the handler that judged the input.
"""

from __future__ import annotations

from datetime import datetime

import msgspec

from contracts.common import Cause, Provenance
from contracts.outputs import StateChanged, state_changed_event_id
from contracts.records import Acceptances, AgreementRecord, Amendment, Evidence
from core.lifecycle.fold import evolve
from core.lifecycle.transitions import after


class Grounds(msgspec.Struct, frozen=True):
    """When a change happens, the input it comes from (R14) and what it rests on (R16)."""

    at: datetime
    provenance: Provenance
    evidence: Evidence


def change(  # noqa: PLR0913 - one change and everything it may carry
    record: AgreementRecord,
    cause: Cause,
    grounds: Grounds,
    acceptances: Acceptances | None = None,
    *,
    amendment: Amendment | msgspec.UnsetType | None = msgspec.UNSET,
    settled: Amendment | None = None,
) -> StateChanged:
    """The next revision of `record` by `cause`.

    `amendment` is the pending amendment after the change (unset: unchanged);
    `settled` an amendment that stops being pending here: when it has both
    acceptances its terms, deadline and binding replace the current ones (R17).
    """
    accepted = record.acceptances if acceptances is None else acceptances
    pending = record.amendment if isinstance(amendment, msgspec.UnsetType) else amendment
    terms, deadline_at, binding = record.terms, record.deadline_at, record.binding
    if settled is not None and settled.acceptances.agent and settled.acceptances.user:
        terms, deadline_at, binding = settled.terms, settled.deadline_at, settled.binding
    # Field by field on purpose (CONTRIBUTING.md, "Repeated shapes").
    revision = record.revision + 1
    return StateChanged(
        event_id=state_changed_event_id(record.record_id, revision),
        record_id=record.record_id,
        agent_id=record.agent_id,
        user_id=record.user_id,
        session_id=record.session_id,
        revision=revision,
        from_state=record.state,
        to_state=after(record.state, cause, accepted),
        cause=cause,
        terms=terms,
        at=grounds.at,
        provenance=grounds.provenance,
        deadline_at=deadline_at,
        acceptances=accepted,
        binding=binding,
        amendment=pending,
        settled_amendment=settled,
        evidence=grounds.evidence,
    )


def closing(record: AgreementRecord, cause: Cause, grounds: Grounds) -> tuple[StateChanged, ...]:
    """A closing change, after the lapse of a pending amendment when there is one (R17)."""
    if record.amendment is None:
        return (change(record, cause, grounds),)
    lapse = change(
        record, Cause.AMENDMENT_LAPSED, grounds, amendment=None, settled=record.amendment
    )
    return lapse, change(evolve(record, lapse), cause, grounds)
