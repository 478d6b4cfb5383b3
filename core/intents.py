"""What the recognizer reads in one turn: at most one intent (R1, R4, R8, R11, R17, R18).

Each intent from a phrase of the grammar carries the phrase's rule id and its
character span in the original text (R16): evidence, never the text itself (R14).
"""

from __future__ import annotations

from datetime import datetime

import msgspec

from contracts.outputs import ClaimKind
from contracts.records import DeadlineEvidence


class _Matched(msgspec.Struct, frozen=True, kw_only=True):
    """Where the phrase was: its grammar rule id and [start, end) in the original text."""

    rule: str | None = None
    span: tuple[int, int] | None = None


class _Targeted(_Matched, frozen=True, kw_only=True):
    """A phrase that names its record by a quoted hint (or by being the only candidate)."""

    target_hint: str | None = None
    hint_span: tuple[int, int] | None = None


class _Terms(_Matched, frozen=True, kw_only=True):
    """Terms stated by the user, with their deadline and todo target.

    `terms` is clean prose (trigger, wrapping quotes and trailing punctuation removed):
    it becomes the memory prose (R14). `deadline_phrase` is the deadline wording found
    inside the terms, `deadline_at` its resolution (None when there is none, or when it
    is outside the grammar), `deadline` how it was read (R16). `todo_target` is the exact
    todo content when the terms ask to *mark* a named todo as completed (R11).
    """

    terms: str
    deadline_phrase: str | None = None
    deadline_at: datetime | None = None
    deadline: DeadlineEvidence | None = None
    todo_target: str | None = None


class Proposal(_Terms, frozen=True, kw_only=True, tag="proposal"):
    """An explicit proposal phrase in a user turn (R1, R2)."""


class Acceptance(_Targeted, frozen=True, kw_only=True, tag="acceptance"):
    """The user's explicit confirmation; `target_hint` is quoted terms, if any (R4)."""


class Cancellation(_Targeted, frozen=True, kw_only=True, tag="cancellation"):
    """The user's explicit cancellation; `target_hint` is quoted terms, if any (R8)."""


class Amendment(_Terms, frozen=True, kw_only=True, tag="amendment"):
    """The user's explicit amendment of an open agreement: its new terms (R17).

    `target_hint` (quoted terms of the agreement meant) is None when the user relies on
    there being a single open agreement.
    """

    target_hint: str | None = None
    hint_span: tuple[int, int] | None = None


class AmendmentCancellation(_Targeted, frozen=True, kw_only=True, tag="amendment_cancellation"):
    """The user withdraws a pending amendment ("cancel the change"); the agreement stays (R17)."""


class Claim(msgspec.Struct, frozen=True, kw_only=True):
    """One claim in an assistant turn (R18): its kind, [start, end) and its subject.

    `subject` is the quoted or named subject of an agreement claim (None: any open
    agreement backs it); for a delivery claim, its whole sentence, matched against
    the contents of bound todos. Checked at once, never stored (R14).
    """

    kind: ClaimKind
    span: tuple[int, int]
    subject: str | None = None


class Claims(msgspec.Struct, frozen=True, kw_only=True, tag="claims"):
    """The agreement and delivery claims of one assistant turn, checked, never acted on (R18)."""

    claims: tuple[Claim, ...]


class NoIntent(msgspec.Struct, frozen=True, tag="none"):
    """Nothing the lifecycle acts on."""


Intent = (
    Proposal | Acceptance | Cancellation | Amendment | AmendmentCancellation | Claims | NoIntent
)

NO_INTENT = NoIntent()


def without_evidence(intent: Intent) -> Intent:
    """`intent` with its R16 evidence (rule, spans, deadline reading) cleared.

    For comparing what was recognized regardless of where in the text it was.
    """
    if isinstance(intent, _Matched):
        intent = msgspec.structs.replace(intent, rule=None, span=None)
    if isinstance(intent, _Targeted | Amendment):
        intent = msgspec.structs.replace(intent, hint_span=None)
    if isinstance(intent, _Terms):
        intent = msgspec.structs.replace(intent, deadline=None)
    return intent
