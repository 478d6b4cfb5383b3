"""Committing units: one `commit.lua` call, and the one retry loop around it.

Batches, gap skips and sweeps all commit the same way: plan the units of the scopes
still to do, run one EVALSHA, keep what passed and retry the units whose versions moved
(another worker, the sweeper or the gap skipper committed since the load), reloaded,
with a short backoff, up to `commit_retries` times.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TypeVar

from redis.exceptions import ResponseError

from contracts.common import AgreementState
from contracts.outputs import DeadLetter
from contracts.streams import as_text, input_streams
from store import keys
from store.admission import REASON_CHARS, error_text
from store.commit_plan import (
    CommitPlan,
    KeyTable,
    PlainLane,
    UnitPlan,
    index_records,
    script_args,
)
from store.config import StoreConfig
from store.durability import Replication
from store.ownership import FENCED_ERROR, Fence, LeaseLost
from store.scripts import COMMIT, AnyRedis
from store.work import ScopeId, ScopeWork

T = TypeVar("T")


class CommitResult:
    """Which units of one commit did not pass: their versions moved, or refused with why;
    and whether a unit planned from the cache found the commit mark moved (`distrusted`:
    the cache must be dropped)."""

    __slots__ = ("distrusted", "moved", "refused")

    def __init__(self, moved: set[int], refused: dict[int, str], distrusted: bool = False) -> None:  # noqa: FBT001, FBT002
        self.moved = moved
        self.refused = refused
        self.distrusted = distrusted

    def passed(self, index: int) -> bool:
        return index not in self.moved and index not in self.refused


class Committer:
    """Runs one partition's commits (fenced by its lease when the processor is)."""

    def __init__(self, redis: AnyRedis, partition: int, config: StoreConfig) -> None:
        self.redis = redis
        self.partition = partition
        self.config = config
        self.input_streams = sorted(input_streams(partition))
        self.replication = Replication(redis, partition, config)
        # The commit mark this committer's last fenced commit wrote to the lease (None:
        # unknown). Units planned from the cache pass unchecked only while Redis holds it.
        self.mark: str | None = None

    def forget_mark(self) -> None:
        """Trust nothing remembered until the next commit has written a mark."""
        self.mark = None

    def plan(  # noqa: PLR0913, PLR0917  (the parts of one commit)
        self,
        table: KeyTable,
        units: list[UnitPlan],
        token: str,
        letters: Sequence[DeadLetter],
        fence: Fence | None,
        plain: PlainLane | None = None,
    ) -> CommitPlan:
        p = self.partition
        indexed = index_records(table, units)
        plan = CommitPlan(
            group=self.config.group,
            events_key=table(keys.events_stream(p)),
            events_maxlen=self.config.events_maxlen,
            letters_key=table(keys.dead_letters_stream(p)),
            letters_maxlen=self.config.dead_letters_maxlen,
            stats_key=table(keys.stats_key(p)),
            gaps_key=table(keys.gaps_key(p)),
            deadlines_key=table(keys.deadlines_key(p)),
            input_keys=[table(stream) for stream in self.input_streams],
            units=units,
            letters=[table.letter(letter) for letter in letters],
            lease_key=table(keys.lease_key(p)),
            new_mark=token,
            lease_token=None if fence is None else fence.token,
            previous_mark=None if fence is None else self.mark,
            record_ttl_ms=self.config.record_retention_ms,
            idle_key=table(keys.idle_key(p)) if self.config.session_retention_ms else None,
        )
        if plain is not None and plain.units:
            plan.plain, plan.plain_acks = plain.entries, plain.acks
        if indexed:
            plan.records_key = table(keys.records_key(p))
            plan.state_keys = [
                x
                for state in AgreementState
                for x in (state.value, table(keys.records_state_key(p, state.value)))
            ]
            if self.config.record_retention_ms:
                plan.records_ttl_key = table(keys.records_ttl_key(p))
        if any(unit.scope_member is not None for unit in units):
            plan.scopes_key = table(keys.scopes_key(p))
            plan.scopes_open_key = table(keys.scopes_open_key(p))
            if self.config.record_retention_ms:
                plan.scopes_ttl_key = table(keys.scopes_ttl_key(p))
        return plan

    async def commit(  # noqa: PLR0913, PLR0917  (the parts of one commit)
        self,
        table: KeyTable,
        units: list[UnitPlan],
        token: str,
        letters: Sequence[DeadLetter] = (),
        fence: Fence | None = None,
        plain: PlainLane | None = None,
    ) -> CommitResult:
        """Run commit.lua over `units` (and admission's `letters`, and the `plain` units,
        numbered after `units` in the result); `token` is the commit's version token,
        written as the partition's commit mark when fenced.

        Raises LeaseLost, with nothing written, when `fence` is set and the partition's
        lease no longer holds its token.
        """
        plan = self.plan(table, units, token, letters, fence, plain)
        durable = self.config.wait_replicas > 0
        if durable:
            plan.outbox_key = table(keys.outbox_stream(self.partition))
        # Unknown until the script answers: one that failed half-way has written its mark.
        self.mark = None
        try:
            if durable:
                # Done only once replicas have it; its events wait in the outbox until then.
                reply = await self.replication.run_then_wait(
                    COMMIT, table.names, script_args(table, plan)
                )
            else:
                reply = await COMMIT.run(self.redis, table.names, script_args(table, plan))
        except ResponseError as error:
            if FENCED_ERROR in str(error):
                raise LeaseLost(self.partition, str(error)) from error
            raise
        moved, refused, distrusted, held = reply
        self.mark = plan.new_mark if fence is not None else None
        if int(held):
            await self.replication.publish(fence)
        reasons = {
            int(refused[i]): as_text(refused[i + 1])[:REASON_CHARS]
            for i in range(0, len(refused), 2)
        }
        return CommitResult({int(index) for index in moved}, reasons, bool(int(distrusted)))


async def commit_with_retry(
    todo: list[ScopeId],
    commit_round: Callable[[list[ScopeId], int], Awaitable[list[ScopeId]]],
    retries: int,
) -> list[ScopeId]:
    """Run `commit_round(todo, attempt)` until it leaves nothing to retry, or `retries`
    retries have passed; returns the scopes still to do (contended: left pending)."""
    for attempt in range(retries + 1):
        todo = await commit_round(todo, attempt)
        if not todo:
            break
        await asyncio.sleep(min(0.001 * 2**attempt, 0.1))
    return todo


def commit_chunks(work: Mapping[ScopeId, ScopeWork], entries: int) -> list[list[ScopeId]]:
    """The scopes of `work` in order, cut into commits of about `entries` input entries.

    One script holds Redis for its whole run, so a large batch in one commit would make
    every other client (gateways writing, views read) wait for all of it. A scope is never
    cut: its unit is one commit, however many entries it drains. Always at least one
    chunk, so that admission's letters are committed even when no scope has work.
    """
    chunks: list[list[ScopeId]] = [[]]
    size = 0
    for scope_id in sorted(work):
        if size >= entries and chunks[-1]:
            chunks.append([])
            size = 0
        chunks[-1].append(scope_id)
        size += work[scope_id].entries()
    return chunks


def planned(table: KeyTable, plan: Callable[[], T]) -> T | str:
    """`plan()`, or why it failed: one unit's failure stays in its unit.

    Blobs a failed plan added to `table` are never referenced; they are dropped.
    """
    mark = len(table.blobs)
    try:
        return plan()
    except Exception as error:  # noqa: BLE001  (any failure of one unit is isolated)
        del table.blobs[mark:]
        return error_text(error)
