"""Input documents for the security tests: one scope, one clock, a gateway's envelope."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

SCOPE = ("agent-1", "user-1")
BASE = datetime(2027, 1, 1, 9, tzinfo=UTC)


def envelope(session: str, seq: int = 1, scope: tuple[str, str] = SCOPE) -> dict[str, Any]:
    """The fields every input shares, stamped `seq` minutes after BASE; the input's type
    and its own fields are added by the caller."""
    return {
        "agent_id": scope[0],
        "user_id": scope[1],
        "session_id": session,
        "seq": seq,
        "ts": (BASE + timedelta(minutes=seq)).isoformat(),
    }
