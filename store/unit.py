"""One scope's unit: what its planning builds (`UnitBuild`) and what it hands to the
commit (`Unit`), with the events and outcomes to report if the commit passes.
"""

from __future__ import annotations

from typing import Generic

import msgspec

from contracts.inputs import InputEvent
from contracts.outputs import AgreementEvent, DeadLetter
from contracts.records import AgreementRecord
from store.commit_plan import KeyTable, UnitPlan
from store.core_port import CoreStep, ScopeT, SessionT
from store.gate import Arrival
from store.state_cache import ScopeSnapshot, SessionSnapshot
from store.work import ScopeId

Event = AgreementEvent | DeadLetter


# Unit and UnitBuild are msgspec Structs, not dataclasses: each batch builds one of each
# per scope, and a Struct is several times cheaper to build.
class Unit(msgspec.Struct, Generic[ScopeT, SessionT]):
    """One scope's planned commit, with what to report and remember if it passes."""

    scope_id: ScopeId
    plan: UnitPlan
    outcomes: dict[str, int]
    events: list[Event]
    scope_after: ScopeSnapshot[ScopeT] | None = None
    sessions_after: dict[str, SessionSnapshot[SessionT]] = msgspec.field(default_factory=dict)


# One session of a plain unit moved on (`StateCache.advance`): its snapshot, the cache's
# own object, which takes the rest in place once the commit passed: the next seq, and
# the core state after as stored (encoded), decoded while it was never stored, and its
# size as stored.
SessionMove = tuple[SessionSnapshot[SessionT], int, bytes | None, SessionT | None, int]


class PlainUnit(msgspec.Struct, Generic[ScopeT, SessionT]):
    """A plain unit (store/commit_plan.py, `PlainLane`): its part of the commit is in the
    lane; what to remember if it passes is here (`scope_after` None: the scope as it was).

    Its sessions are moved on in place (`moves`) rather than remembered anew: at one
    entry per session a new snapshot and its weighing per session was a tenth of the
    lane's cost, and the snapshot is the cache's own, which nothing else reads."""

    scope_id: ScopeId
    applied: int
    moves: list[SessionMove[SessionT]]
    scope_after: ScopeSnapshot[ScopeT] | None = None


class UnitBuild(msgspec.Struct, Generic[ScopeT, SessionT]):
    """One unit while it is being planned: the scope threaded through its sessions."""

    scope: ScopeT
    table: KeyTable
    plan: UnitPlan
    scope_changed: bool = False
    applied_any: bool = False
    records: dict[str, AgreementRecord] = msgspec.field(default_factory=dict)
    events: list[Event] = msgspec.field(default_factory=list)
    sessions_after: dict[str, SessionSnapshot[SessionT]] = msgspec.field(default_factory=dict)
    outcomes: dict[str, int] = msgspec.field(default_factory=dict)
    # The plain lane's last step at this scope, to take instead of applying the core to
    # the same input again (`UnitPlanner._replay`).
    replay: tuple[InputEvent, ScopeT, SessionT, CoreStep[ScopeT, SessionT]] | None = None

    def count(self, name: str, by: int = 1) -> None:
        if by:
            self.outcomes[name] = self.outcomes.get(name, 0) + by

    def ack(self, arrival: Arrival) -> None:
        self.plan.acks += (self.table(arrival.stream), arrival.entry_id)

    def letter(self, letter: DeadLetter) -> None:
        """XACK the letter's entry and write the letter (late, refused or isolated)."""
        self.plan.letters.append(self.table.letter(letter))
        self.events.append(letter)
