"""Logs and metrics: structlog JSON lines and Prometheus counters.

Log lines carry `session_id`, `seq` and `record_id` as fields so an operator can
follow one session; the message text (and the terms it produced) never appears at
INFO, because chat text is user data (docs/security.md). Metrics live in their own
registry so tests and several apps in one process never collide.
"""

from __future__ import annotations

import bisect
import logging
import math
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import structlog
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.core import HistogramMetricFamily, Metric
from prometheus_client.utils import floatToGoString

# An import list like contracts/schema.py's, not logic (CONTRIBUTING.md, "Repeated shapes").
from contracts.outputs import (
    ClarificationRequested,
    DeadLetter,
    OutputEvent,
    ProposalRefused,
    StateChanged,
    ToolOutcome,
)


def configure_logging(level: str = "INFO", *, json: bool = True) -> None:
    """structlog to stderr: JSON lines for machines, or console lines for the demo."""
    numeric = logging.getLevelNamesMapping().get(level.upper(), logging.INFO)
    renderer: Any = (
        structlog.processors.JSONRenderer()
        if json
        else structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty())
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        # Looked up when a logger is made, not now: tests swap sys.stderr.
        logger_factory=lambda *_: structlog.PrintLogger(sys.stderr),
        cache_logger_on_first_use=False,
    )
    # FastStream logs through the standard library (connection errors, a subscriber
    # stopping): render those lines with the same processors, as JSON too.
    handler = logging.StreamHandler()
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            processor=renderer,
            foreign_pre_chain=[
                structlog.stdlib.add_log_level,
                structlog.stdlib.ExtraAdder(),
                structlog.processors.TimeStamper(fmt="iso", utc=True),
                structlog.processors.format_exc_info,
            ],
        )
    )
    framework = logging.getLogger(FRAMEWORK_LOGGER)
    framework.handlers[:] = [handler]
    framework.setLevel(numeric)
    framework.propagate = False


# The stdlib logger FastStream writes to (worker/app.py hands it to the broker).
FRAMEWORK_LOGGER = "accord.faststream"


def get_logger(name: str) -> Any:  # noqa: ANN401  (structlog's bound logger is untyped)
    return structlog.get_logger(name)


# Latency buckets in seconds: the targets are p50 <= 2 ms and p99 <= 10 ms (DESIGN 5).
_LATENCY_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0, 5.0)


@dataclass
class Metrics:
    """Every metric the worker exports, registered in one registry."""

    registry: CollectorRegistry = field(default_factory=CollectorRegistry)

    def __post_init__(self) -> None:
        r = self.registry
        self.inputs = Counter(
            "accord_input_entries",
            "Input entries handled, by stream family and outcome.",
            ["stream", "outcome"],
            registry=r,
        )
        self.transitions = Counter(
            "accord_transitions",
            "Committed record state changes, by from and to state and cause.",
            ["from_state", "to_state", "cause"],
            registry=r,
        )
        self.tool_outcomes = Counter(
            "accord_tool_outcomes",
            "Answers to soul_agreement_accept calls, by reason (accepted when it succeeded).",
            ["reason"],
            registry=r,
        )
        self.clarifications = Counter(
            "accord_clarifications",
            "Ambiguous confirmations or cancellations, by kind.",
            ["kind"],
            registry=r,
        )
        self.refusals = Counter(
            "accord_proposal_refusals", "Proposals refused, by reason.", ["reason"], registry=r
        )
        self.dead_letters = Counter(
            "accord_dead_letters", "Input entries sent to dead letters, by reason.", ["reason"],
            registry=r,
        )  # fmt: skip
        self.gap_skips = Counter(
            "accord_gap_skips", "Session seq gaps skipped after the gap timeout.", registry=r
        )
        self.reclaims = Counter(
            "accord_reclaimed_entries",
            "Entries reclaimed from idle consumers (XAUTOCLAIM/XCLAIM).",
            ["stream"],
            registry=r,
        )
        self.expired = Counter(
            "accord_sweeper_expiries", "Records expired by the deadline sweeper.", registry=r
        )
        self.batch_seconds = Histogram(
            "accord_batch_seconds",
            "Time to process one batch of entries (decode, core, commit).",
            buckets=_LATENCY_BUCKETS,
            registry=r,
        )
        self.entry_latency = BatchHistogram(
            "accord_entry_latency_seconds",
            "From the entry's XADD (its id's time) to its commit.",
            _LATENCY_BUCKETS,
        )
        r.register(self.entry_latency)
        self.lag = Gauge(
            "accord_consumer_lag",
            "Entries of a stream not yet delivered to the group plus entries pending.",
            ["stream"],
            registry=r,
        )
        self.removed_unread = Counter(
            "accord_inputs_removed_unread",
            "Removals of input entries before the group read them (store/unread.py).",
            ["stream"],
            registry=r,
        )
        self.errors = Counter(
            "accord_batch_errors", "Batches whose processing raised (entries stay pending).",
            ["stream"], registry=r,
        )  # fmt: skip

    def count_events(self, events: Iterable[OutputEvent]) -> None:
        for event in events:
            if isinstance(event, StateChanged):
                source = event.from_state.value if event.from_state is not None else "none"
                self.transitions.labels(source, event.to_state.value, event.cause.value).inc()
            elif isinstance(event, ToolOutcome):
                reason = "accepted" if event.accepted else str(event.reason or "rejected")
                self.tool_outcomes.labels(reason).inc()
            elif isinstance(event, ClarificationRequested):
                self.clarifications.labels(event.kind.value).inc()
            elif isinstance(event, ProposalRefused):
                self.refusals.labels(event.reason.value).inc()
            elif isinstance(event, DeadLetter):  # pragma: no branch  (the union is closed)
                self.dead_letters.labels(event.reason.value).inc()


_go_float: Callable[[float], str] = floatToGoString  # untyped in prometheus_client


def _whole_ms_within(bound: float) -> int:
    """The largest n >= -1 with n / 1000 <= bound: an age of n whole ms lands in the
    bucket `observe` puts n / 1000 in (the same float division, so no rounding differs)."""
    n = max(-1, math.floor(bound * 1000))
    while (n + 1) / 1000 <= bound:
        n += 1
    while n >= 0 and n / 1000 > bound:
        n -= 1
    return n


class BatchHistogram:
    """A Prometheus histogram observed a batch at a time (exposed like `Histogram`).

    `prometheus_client.Histogram.observe` costs about 1.5 us (a lock and a bucket scan
    per value); the worker observes every entry's latency, so that was 3% of its CPU per
    entry. Here a value is one bisect and one list increment, and the registry's scrape
    (another thread) reads a copy of the counts.
    """

    def __init__(self, name: str, documentation: str, buckets: Iterable[float]) -> None:
        self.name = name
        self.documentation = documentation
        self.bounds = tuple(sorted(buckets))
        # The `le` labels as prometheus_client writes them ("0.0005", "1.0", "+Inf").
        self.labels: tuple[str, ...] = tuple(map(_go_float, (*self.bounds, float("inf"))))
        self.counts = [0] * (len(self.bounds) + 1)  # the last one is +Inf
        self.sum = 0.0
        # Per bound, the largest whole number of ms whose seconds it holds (`observe_ages`).
        self._bound_ms = tuple(map(_whole_ms_within, self.bounds))

    def observe(self, value: float) -> None:
        self.counts[bisect.bisect_left(self.bounds, value)] += 1
        self.sum += value

    def observe_many(self, values: Iterable[float]) -> None:
        counts, bounds, total = self.counts, self.bounds, 0.0
        for value in values:
            counts[bisect.bisect_left(bounds, value)] += 1
            total += value
        self.sum += total

    def observe_ages(self, now_ms: int, stamps_ms: list[int]) -> None:
        """Observe `now_ms - stamp` in seconds (0 for a stamp after `now_ms`) for each of
        `stamps_ms`, which this sorts: the counts as `observe` would count them, found by
        one bisect per bucket instead of one per value (an entry's latency, for every
        entry the worker reads)."""
        stamps_ms.sort()
        total = len(stamps_ms)
        counts, below = self.counts, 0
        for index, bound in enumerate(self._bound_ms):
            # Ages within the bound: the stamps at or after `now_ms - bound`.
            within = total - bisect.bisect_left(stamps_ms, now_ms - bound)
            counts[index] += within - below
            below = within
        counts[-1] += total - below
        past = bisect.bisect_right(stamps_ms, now_ms)  # stamps with an age of 0 or more
        self.sum += (past * now_ms - sum(stamps_ms[:past])) / 1000

    def collect(self) -> Iterator[Metric]:
        counts, cumulative, buckets = list(self.counts), 0, []
        for label, count in zip(self.labels, counts, strict=True):
            cumulative += count
            buckets.append((label, cumulative))
        family = HistogramMetricFamily(self.name, self.documentation)
        family.add_metric([], buckets, self.sum)
        yield family


# Characters of an unverified id that reach a log line.
_ID_HEAD = 64


def _head(value: str | None) -> str | None:
    if value is None or len(value) <= _ID_HEAD:
        return value
    return value[:_ID_HEAD] + f"…(+{len(value) - _ID_HEAD})"


def log_events(log: Any, events: Iterable[OutputEvent]) -> None:  # noqa: ANN401
    """One INFO line per published event, with ids and states but never text or terms."""
    # One call per event type, each naming its fields one by one on purpose: the list of
    # what may reach a log is reviewed for user data there (docs/security.md), and a table
    # of field names would hide the exceptions (a provenance's seq, a rejected id's head)
    # (CONTRIBUTING.md, "Repeated shapes").
    for event in events:
        if isinstance(event, StateChanged):
            log.info(
                "state_changed",
                record_id=event.record_id,
                session_id=event.session_id,
                seq=event.provenance.seq,
                revision=event.revision,
                from_state=event.from_state,
                to_state=event.to_state,
                cause=event.cause,
            )
        elif isinstance(event, ToolOutcome):
            log.info(
                "tool_outcome",
                # A rejected call's record id is the model's own text (up to the argument
                # limit): only its head is logged.
                record_id=event.record_id if event.accepted else _head(event.record_id),
                session_id=event.session_id,
                seq=event.seq,
                call_id=event.call_id,
                accepted=event.accepted,
                reason=event.reason,
            )
        elif isinstance(event, ClarificationRequested):
            log.info(
                "clarification_requested",
                session_id=event.session_id,
                seq=event.seq,
                kind=event.kind,
                candidates=[c.record_id for c in event.candidates],
            )
        elif isinstance(event, ProposalRefused):
            log.info(
                "proposal_refused", session_id=event.session_id, seq=event.seq, reason=event.reason
            )
        elif isinstance(event, DeadLetter):  # pragma: no branch
            log.warning(
                "dead_letter",
                stream=event.stream,
                entry_id=event.entry_id,
                session_id=event.session_id,
                seq=event.seq,
                reason=event.reason,
                delivery_count=event.delivery_count,
            )
