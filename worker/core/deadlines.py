"""Deadline resolution (R9, DESIGN section 4): placeholder interface.

Being written under issue 4; until then no phrase is found and nothing resolves,
which is the safe direction (no deadline is never a wrong expiry).
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo


def find_deadline_phrase(terms: str) -> str | None:
    """The deadline wording inside proposal terms, or None."""
    del terms
    return None


def resolve_deadline(phrase: str, ts: datetime, zone: ZoneInfo) -> datetime | None:
    """The exclusive UTC instant `phrase` names, said at `ts` in `zone`, or None."""
    del phrase, ts, zone
    return None
