"""Input documents as a gateway writes them, for the tests that publish them live."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from accord_harness.documents import envelope


def user_turn(
    scope: tuple[str, str], session: str, seq: int, text: str, at: datetime
) -> dict[str, Any]:
    """A user's chat turn as a gateway writes it, stamped `at` (message `m-<session>-<seq>`)."""
    document = envelope("chat_turn", scope, session, seq, at.isoformat())
    document.update(role="user", text=text, message_id=f"m-{session}-{seq}")
    return document
