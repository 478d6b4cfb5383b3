"""A processor's committer, watched: each script call's units and letters, in order.

Tests of how a batch is committed (cut into scripts, one batch at a time) count the
calls the processor makes; `before` runs ahead of each real commit (with its call number
from 1), so a test can hold a commit back while something else races it; `check` sees
each commit's keys first and may raise, as Redis failing that commit would.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from contracts.outputs import DeadLetter
from store.commit import CommitResult
from store.commit_plan import CommitPlan, KeyTable, PlainLane, UnitPlan
from store.ownership import Fence
from store.processor import PartitionProcessor


class CommitSpy:
    def __init__(
        self,
        store: PartitionProcessor[Any, Any],
        before: Callable[[int], Awaitable[None]] | None = None,
        check: Callable[[KeyTable], None] | None = None,
    ) -> None:
        # (units, letters) of each script call; plain units count as units.
        self.calls: list[tuple[int, int]] = []
        self._before = before
        self._check = check
        self._inner = store.committer.commit
        store.committer.commit = self.commit  # type: ignore[method-assign]

    @property
    def units(self) -> list[int]:
        return [units for units, _ in self.calls]

    async def commit(  # noqa: PLR0913, PLR0917  (the committer's own signature)
        self,
        table: KeyTable,
        units: list[UnitPlan],
        token: str,
        letters: Sequence[DeadLetter] = (),
        fence: Fence | None = None,
        plain: PlainLane | None = None,
    ) -> CommitResult:
        if self._check is not None:
            self._check(table)
        self.calls.append((len(units) + (plain.units if plain else 0), len(letters)))
        if self._before is not None:
            await self._before(len(self.calls))
        return await self._inner(table, units, token, letters, fence, plain)


def watched_plans(processor: PartitionProcessor[Any, Any]) -> list[tuple[CommitPlan, list[str]]]:
    """Every commit plan the processor's committer makes from now on, with its KEYS."""
    seen: list[tuple[CommitPlan, list[str]]] = []
    inner = processor.committer.plan

    def plan(table: Any, *args: Any) -> CommitPlan:
        made = inner(table, *args)
        seen.append((made, table.names))
        return made

    processor.committer.plan = plan  # type: ignore[method-assign,assignment]
    return seen
