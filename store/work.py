"""What one batch, gap skip or sweep has to do, per scope (the processor's units of work)."""

from __future__ import annotations

import msgspec

from store.gate import Arrival

ScopeId = tuple[str, str]
SessionId = tuple[str, str, str]


# A msgspec Struct, not a dataclass: each batch builds one per scope, and a Struct is
# several times cheaper to build.
class ScopeWork(msgspec.Struct):
    """The inputs of one scope in this batch: arrivals per session, sessions to unblock."""

    arrivals: dict[str, list[Arrival]] = msgspec.field(default_factory=dict)
    # Sessions the gap skipper looks at, and the latest observation time (Redis ms) at
    # which a gap may be skipped now (docs/store.md, "Gap skipping").
    skip_gap: set[str] = msgspec.field(default_factory=set)
    skip_seen_by: int = -1

    def sessions(self) -> set[str]:
        return {*self.arrivals, *self.skip_gap}

    def add(self, session_id: str, arrival: Arrival) -> None:
        self.arrivals.setdefault(session_id, []).append(arrival)

    def entries(self) -> int:
        return sum(map(len, self.arrivals.values()))
