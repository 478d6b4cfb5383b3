"""The one fold: committed changes into records, and records into the scope.

`evolve` folds one `StateChanged` into its record; `commit` folds a step's changes
into the scope and returns the records they changed, with their full history, which
is what the store keeps for the `history` read. Nothing else folds events: the
worker hands the store exactly what `commit` returned.
"""

from __future__ import annotations

import msgspec

from contracts.outputs import StateChanged
from contracts.records import AgreementRecord, HistoryEntry
from core.lifecycle.state import CLOSED_KEPT, ClosedRecord, ScopeState
from core.lifecycle.transitions import retained

# record_id -> the record after a step's changes, in the order of its first change.
Changed = dict[str, AgreementRecord]


def evolve(record: AgreementRecord | None, event: StateChanged) -> AgreementRecord:
    """Fold one committed change into its record; every change appends history.

    The entry keeps the terms (deadline, binding) when this change set them, so the
    history holds every version (R17), and the amendment the change concerns.
    """
    version = (event.terms, event.deadline_at, event.binding)
    sets_terms = record is None or version != (record.terms, record.deadline_at, record.binding)
    entry = HistoryEntry(
        revision=event.revision,
        state=event.to_state,
        cause=event.cause,
        at=event.at,
        provenance=event.provenance,
        terms=event.terms if sets_terms else None,
        deadline_at=event.deadline_at if sets_terms else None,
        binding=event.binding if sets_terms else None,
        amendment=event.amendment or event.settled_amendment,
        evidence=event.evidence,
    )
    # Field by field on purpose (CONTRIBUTING.md, "Repeated shapes").
    if record is None:
        return AgreementRecord(
            record_id=event.record_id,
            agent_id=event.agent_id,
            user_id=event.user_id,
            session_id=event.session_id,
            state=event.to_state,
            revision=event.revision,
            terms=event.terms,
            created_at=event.at,
            deadline_at=event.deadline_at,
            acceptances=event.acceptances,
            binding=event.binding,
            history=(entry,),
        )
    return msgspec.structs.replace(
        record,
        state=event.to_state,
        revision=event.revision,
        terms=event.terms,
        deadline_at=event.deadline_at,
        acceptances=event.acceptances,
        binding=event.binding,
        amendment=event.amendment,
        history=(*record.history, entry),
    )


def commit(scope: ScopeState, changes: tuple[StateChanged, ...]) -> tuple[ScopeState, Changed]:
    """The scope after `changes`, and every record they changed.

    Records that leave the live state (see `retained`) join the scope's short closed
    list, so the agent still hears why it cannot accept them.
    """
    if not changes:
        return scope, {}
    records = {record.record_id: record for record in scope.records}
    changed: Changed = {}
    for event in changes:
        folded = evolve(records.get(event.record_id), event)
        records[event.record_id] = changed[event.record_id] = folded
    kept = tuple(record for record in records.values() if retained(record))
    closing = tuple(
        ClosedRecord(r.record_id, r.session_id, r.state, r.revision, r.deadline_at, r.acceptances)
        for r in records.values()
        if not retained(r)
    )
    closed = (*scope.closed, *closing)[-CLOSED_KEPT:]
    return msgspec.structs.replace(scope, records=kept, closed=closed), changed
