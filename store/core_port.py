"""How the store drives the pure lifecycle core, without importing it.

The store is generic over the core's state types (`ScopeT`, `SessionT`): it keeps
them as opaque bytes, decodes them once per batch and encodes them once per commit.
`worker/engine.py` implements this Protocol with the real reducer; tests may
implement it with a small fake. The step it returns (`CoreStep`) is defined in
`contracts.step`, the one package both the store and the core may import.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from contracts.inputs import InputEvent
from contracts.records import AgreementRecord
from contracts.step import CoreStep, ScopeT, SessionT
from contracts.view import ScopeViewDocument, SessionView

__all__ = ["CorePort", "CoreStep", "ScopeT", "SessionT"]


class CorePort(Protocol[ScopeT, SessionT]):
    def decode_scope(self, data: bytes | None, agent_id: str, user_id: str) -> ScopeT: ...

    def decode_session(self, data: bytes | None, session_id: str) -> SessionT: ...

    def encode_scope(self, scope: ScopeT) -> bytes: ...

    def encode_session(self, session: SessionT) -> bytes: ...

    def apply(
        self, scope: ScopeT, session: SessionT, event: InputEvent, stream: str, entry_id: str
    ) -> CoreStep[ScopeT, SessionT]:
        """Apply one input, in seq order, exactly once (the store guarantees both).

        `stream` and `entry_id` name the input's entry: the core builds its provenance
        (R14, `contracts.step.provenance_of`) only when a change may carry it, which
        most inputs do not make.
        """
        ...

    def expire(self, scope: ScopeT, now: datetime) -> CoreStep[ScopeT, None]:
        """Expire every record whose deadline <= now (history time = the deadline)."""
        ...

    def deadlines(self, scope: ScopeT) -> Sequence[tuple[str, datetime]]:
        """(record_id, deadline_at) of the scope's records that can still expire."""
        ...

    def view(
        self, scope: ScopeT, session_id: str, as_of: datetime, *, now: bool = False
    ) -> SessionView:
        """The session view (R6) as of an instant (`now`: the reader's present, every
        committed entry whatever its `since`)."""
        ...

    def scope_view(self, scope: ScopeT) -> ScopeViewDocument:
        """Every record some session's view can show, unfiltered by deadline (R6).

        The commit writes it for readers in any language, who filter by deadline at
        their read time (`contracts.view.session_view_as_of`).
        """
        ...

    def keeps(self, record: AgreementRecord) -> bool:
        """Whether the record stays in the scope's state, where a later input or sweep
        may still change it. One it does not keep is final: with record retention on,
        its `record:` key is removed after the retention (docs/store.md, "Retention")."""
        ...

    def holds_records(self, scope: ScopeT) -> bool:
        """Whether the scope keeps any record (one `keeps` says a later input or sweep
        may still change). A scope that keeps none has only final records, whose keys the
        record retention removes: the scopes index lets it go with them."""
        ...

    def needs_session(self, scope: ScopeT, session_id: str) -> bool:
        """Whether a record the scope keeps depends on the session's core state (a todo
        binding of that session, whose delivery R12 checks there); such a session keeps
        its state however long it is idle."""
        ...
