"""What the recognizer reads in one turn: at most one intent (R1, R4, R8, R11)."""

from __future__ import annotations

from datetime import datetime

import msgspec


class Proposal(msgspec.Struct, frozen=True, kw_only=True, tag="proposal"):
    """An explicit proposal phrase in a user turn.

    `terms` is clean prose (trigger, wrapping quotes and trailing punctuation removed):
    it becomes the memory prose (R14). `deadline_phrase` is the deadline wording found
    inside the terms, `deadline_at` its resolution (None when there is none, or when it
    is outside the grammar). `todo_target` is the exact todo content when the terms ask
    to *mark* a named todo as completed (R11).
    """

    terms: str
    deadline_phrase: str | None = None
    deadline_at: datetime | None = None
    todo_target: str | None = None


class Acceptance(msgspec.Struct, frozen=True, kw_only=True, tag="acceptance"):
    """The user's explicit confirmation; `target_hint` is quoted terms, if any (R4)."""

    target_hint: str | None = None


class Cancellation(msgspec.Struct, frozen=True, kw_only=True, tag="cancellation"):
    """The user's explicit cancellation; `target_hint` is quoted terms, if any (R8)."""

    target_hint: str | None = None


class NoIntent(msgspec.Struct, frozen=True, tag="none"):
    """Nothing the lifecycle acts on."""


Intent = Proposal | Acceptance | Cancellation | NoIntent

NO_INTENT = NoIntent()
