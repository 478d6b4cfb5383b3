"""What a handler works with: the input's context, and what it decides.

`Context` carries what every handler judges an input against (the scope after this
session's expiries, the session, the input's provenance and the scope limits); the
input itself and its intent are the handler's own arguments. `Outcome` is what a
handler decides.
"""

from __future__ import annotations

from dataclasses import dataclass

import msgspec

from contracts.common import Provenance
from contracts.outputs import AgreementEvent, StateChanged
from core.lifecycle.state import ScopeState, SessionState


@dataclass(frozen=True)
class Policy:
    """Limits that keep one scope and one session bounded; a refused proposal creates no
    record."""

    max_records_per_scope: int = 50
    max_terms_chars: int = 1000
    # The session's stored todo tracking, counted by `todo.tracked_bytes`; past it the
    # items no live binding names are left out (`todo.capped`).
    max_todo_state_bytes: int = 64 * 1024


class Context(msgspec.Struct, frozen=True):
    """What one input is judged against; built once per input."""

    scope: ScopeState
    session: SessionState
    provenance: Provenance
    policy: Policy


class Outcome(msgspec.Struct, frozen=True):
    """What a handler decided: record changes, answers, and the session if it changed."""

    changes: tuple[StateChanged, ...] = ()
    answers: tuple[AgreementEvent, ...] = ()
    session: SessionState | None = None


NOTHING = Outcome()
