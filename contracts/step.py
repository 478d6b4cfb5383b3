"""The step: what the core hands the store for one input or one expiry pass.

Not a wire type: it crosses the seam between the pure core and the store, which may
not import each other (import-linter), so it lives in the one package both import.
The core builds it (`core.lifecycle.reducer`), `store.core_port.CorePort` returns
it, and the store commits it as it is: nothing downstream folds the events again.
`provenance_of` is here too: the core's port builds an input's provenance only for a
step that may carry it, and tools building it themselves (the oracle) need the same.
"""

from __future__ import annotations

from typing import Generic, TypeVar

import msgspec

from contracts.common import Provenance
from contracts.inputs import ChatTurn, InputEvent, ToolCall, ToolResult
from contracts.outputs import AgreementEvent
from contracts.records import AgreementRecord

ScopeT = TypeVar("ScopeT")
SessionT = TypeVar("SessionT")


class CoreStep(msgspec.Struct, Generic[ScopeT, SessionT], frozen=True, gc=False):
    """What one input (or one expiry pass) did to a scope and a session.

    A msgspec Struct because one is built per input (a frozen dataclass cost ~1 us), and
    not tracked by the garbage collector (`gc=False`): it holds immutable states and
    events, never itself, so it is in no cycle (worker/gc_tuning.py).

    `records` are the full, latest `AgreementRecord`s (with history) of every record the
    step changed, terminal ones included, in the order of their first change: the store
    keeps them for the `history` read. `session` is None for an expiry pass, which
    concerns no session.
    """

    scope: ScopeT
    session: SessionT
    events: tuple[AgreementEvent, ...]
    records: tuple[AgreementRecord, ...]
    scope_changed: bool
    session_changed: bool


def provenance_of(stream: str, entry_id: str, event: InputEvent) -> Provenance:
    """Where an input came from (R14): stream, entry id, session seq, message or call id."""
    message_id = event.message_id if isinstance(event, ChatTurn) else None
    call_id = event.call_id if isinstance(event, ToolCall | ToolResult) else None
    # Field by field on purpose (CONTRIBUTING.md, "Repeated shapes").
    return Provenance(
        stream=stream,
        entry_id=entry_id,
        session_id=event.session_id,
        seq=event.seq,
        message_id=message_id,
        call_id=call_id,
    )
