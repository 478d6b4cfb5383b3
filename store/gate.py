"""The ordering gate of one session: which inputs to apply now, in which order (R15).

Pure planning over what the store loaded; `store/processor.py` turns the plan into
one atomic commit. Per session the store keeps the next expected seq:

- below it: a duplicate (acked, no effect), or, if that seq was skipped, a late
  arrival (dead letter `late_after_gap_skip`);
- equal to it: applied, and then every parked successor that is now contiguous;
- above it: parked (payload kept, entry acked in the same commit) until the gap fills;
- `skip_gap`: the gap before the oldest parked seq is given up (timeout), recorded as
  skipped, and the parked events behind it are drained in order.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import msgspec

from contracts.codec import ContractError, Limits, decode_event
from contracts.inputs import InputEvent
from contracts.outputs import DeadLetter
from contracts.streams import as_text, entry_ms


class Arrival(msgspec.Struct, frozen=True, gc=False):
    """An input entry of the current batch, decoded, for one session.

    This and ParkedEntry are msgspec Structs, not frozen dataclasses, because one is
    built per entry and a Struct is several times cheaper to build. Not tracked by the
    garbage collector (`gc=False`): it holds an immutable event, its bytes and a letter,
    never itself, so it is in no cycle (worker/gc_tuning.py).
    """

    stream: str
    entry_id: str
    # None for a refused input (below).
    event: InputEvent | None
    # The raw `__data__` JSON, kept so the entry can be parked as it came.
    data: bytes
    # Times delivered (XPENDING's count after a reclaim), for a dead letter it becomes.
    delivery_count: int = 1
    # A refused input whose envelope is valid: its seq and its dead letter. It takes
    # its place in the session's order like any input, so the session moves on at once
    # instead of waiting out the gap it would leave; applying it writes the letter.
    refused_seq: int = 0
    letter: DeadLetter | None = None

    @property
    def seq(self) -> int:
        return self.event.seq if self.event is not None else self.refused_seq


class ParkedEntry(msgspec.Struct, frozen=True):
    """An early input kept in `parked:{p}:...` (its stream entry is already acked).

    Empty `data` is a refused input's place: its letter was written when it was parked.
    """

    stream: str
    entry_id: str
    data: bytes


class GatePlan(msgspec.Struct):
    """What to do with one session's inputs in this batch (a Struct: one per session)."""

    # In seq order: (seq, source); a ParkedEntry source is removed from the parked hash.
    apply: list[tuple[int, Arrival | ParkedEntry]] = msgspec.field(default_factory=list)
    duplicates: list[Arrival] = msgspec.field(default_factory=list)
    # Same seq as an entry at hand (this batch or parked) but other content: (the
    # arrival, the kept entry's stream and id). The kept one wins; this one is evidence.
    conflicting: list[tuple[Arrival, str, str]] = msgspec.field(default_factory=list)
    late: list[Arrival] = msgspec.field(default_factory=list)
    park: list[tuple[int, Arrival]] = msgspec.field(default_factory=list)
    next_seq: int = 1
    skipped: tuple[tuple[int, int], ...] = ()
    # The range skipped by this plan, if any (inclusive).
    skipped_now: tuple[int, int] | None = None
    # Entry-id ms of the oldest entry still parked after the plan (None: nothing parked).
    oldest_parked_ms: int | None = None

    @property
    def unpark(self) -> list[int]:
        return [seq for seq, source in self.apply if isinstance(source, ParkedEntry)]


def parse_skipped(text: bytes | str | None) -> tuple[tuple[int, int], ...]:
    """`b"3-5,9-9"` -> ((3, 5), (9, 9))."""
    if not text:
        return ()
    raw = as_text(text)
    ranges: list[tuple[int, int]] = []
    for part in raw.split(","):
        low, high = part.split("-", 1)
        ranges.append((int(low), int(high)))
    return tuple(ranges)


def format_skipped(ranges: Iterable[tuple[int, int]]) -> str:
    return ",".join(f"{low}-{high}" for low, high in ranges)


UNLIMITED = Limits(
    max_entry_bytes=2**62,
    max_text_bytes=2**62,
    max_todos=2**62,
    max_todo_content_bytes=2**62,
    max_argument_bytes=2**62,
    max_ts_behind_s=2**40,
    max_ts_ahead_s=2**40,
)


def _sort_arrivals(
    plan: GatePlan, waiting: dict[int, Arrival | ParkedEntry], arrivals: Sequence[Arrival]
) -> None:
    """Late, duplicate, conflicting, or waiting to be applied (in `waiting`, by seq)."""
    for arrival in sorted(arrivals, key=lambda a: a.seq):
        seq = arrival.seq
        if seq < plan.next_seq:
            (plan.late if _was_skipped(seq, plan.skipped) else plan.duplicates).append(arrival)
        elif seq in waiting and not _same_input(arrival, waiting[seq]):
            kept = waiting[seq]
            plan.conflicting.append((arrival, kept.stream, kept.entry_id))
        elif seq in waiting:
            # Same seq twice (a gateway retry, or a redelivery of a parked entry).
            plan.duplicates.append(arrival)
        else:
            waiting[seq] = arrival


def _same_input(arrival: Arrival, kept: Arrival | ParkedEntry) -> bool:
    """Whether two entries of one (session, seq) carry the same input.

    A refused entry (no event) is never called conflicting: its letter says what it is.
    """
    if arrival.entry_id == kept.entry_id and arrival.stream == kept.stream:
        return True  # one entry delivered twice
    if arrival.event is None:
        return True
    if isinstance(kept, Arrival):
        return kept.event is None or arrival.event == kept.event
    if not kept.data or arrival.data == kept.data:
        return True
    try:
        return arrival.event == decode_event(kept.data, UNLIMITED)
    except ContractError:  # kept under older limits or rules: not comparable, keep it
        return True


def _was_skipped(seq: int, ranges: Sequence[tuple[int, int]]) -> bool:
    return any(low <= seq <= high for low, high in ranges)


def plan_session(
    next_seq: int,
    skipped: tuple[tuple[int, int], ...],
    parked: dict[int, ParkedEntry],
    arrivals: Sequence[Arrival],
    *,
    skip_gap: bool = False,
) -> GatePlan:
    """Plan one session: `arrivals` in any order, `parked` as loaded from the store."""
    if not parked and not skip_gap and in_order_from(next_seq, arrivals):
        # The common case, a conversation going on: its next seqs in order (the merged
        # reader hands them over in XADD order), nothing waiting. `_plan_any` would
        # sort them and apply each in turn to the same plan.
        return GatePlan(
            apply=list(enumerate(arrivals, next_seq)),
            next_seq=next_seq + len(arrivals),
            skipped=skipped,
        )
    return _plan_any(next_seq, skipped, parked, arrivals, skip_gap=skip_gap)


def in_order_from(next_seq: int, arrivals: Sequence[Arrival]) -> bool:
    """Whether `arrivals` hold exactly the seqs from `next_seq` on, in order."""
    expected = next_seq
    for arrival in arrivals:
        if arrival.seq != expected:
            return False
        expected += 1
    return True


def _plan_any(
    next_seq: int,
    skipped: tuple[tuple[int, int], ...],
    parked: dict[int, ParkedEntry],
    arrivals: Sequence[Arrival],
    *,
    skip_gap: bool,
) -> GatePlan:
    plan = GatePlan(next_seq=next_seq, skipped=skipped)
    waiting: dict[int, Arrival | ParkedEntry] = dict(parked)
    _sort_arrivals(plan, waiting, arrivals)
    cursor = next_seq
    while waiting:
        if cursor in waiting:
            plan.apply.append((cursor, waiting.pop(cursor)))
            cursor += 1
        elif skip_gap:
            # Give up one gap only: later gaps have their own, younger, timers.
            skip_gap = False
            resume = min(waiting)
            plan.skipped_now = (cursor, resume - 1)
            plan.skipped = (*plan.skipped, plan.skipped_now)
            cursor = resume
        else:
            break
    plan.next_seq = cursor
    for seq, source in sorted(waiting.items()):
        if isinstance(source, Arrival):
            plan.park.append((seq, source))
    if waiting:
        plan.oldest_parked_ms = min(entry_ms(source.entry_id) for source in waiting.values())
    return plan
