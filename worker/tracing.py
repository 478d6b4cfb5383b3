"""Traces: the worker continues a gateway's W3C trace context (docs/operations.md, "Traces").

Imported only when tracing is on (`ACCORD_OTLP_ENDPOINT`, or a test's factory): a worker
that does not trace never imports OpenTelemetry and runs the untraced processor and
core, so its hot path pays nothing. The core never sees a span either: the spans are
opened here, in the shell, around the store's and the core's own calls.

For each input that carries a `traceparent`, on the partition that reads it:

- `accord.read` (consumer): from the entry's stream id (when Redis appended it) to the
  batch reaching the store, a child of the gateway's span: the time it waited.
- `accord.apply`: the core's step for the input, a child of its read.
- `accord.commit`: from the end of its apply to the end of its batch's commit (one Lua
  script writes the whole batch), a child of its read. The input's agreement events
  carry this span's context as their `traceparent`, so a subscriber's span continues
  the trace.

An input applied outside a read of this batch (a parked entry drained later) gets no
read span: its apply and commit are children of the gateway's span.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

import msgspec
from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.trace import Span, SpanKind, Status, StatusCode, Tracer
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from contracts.inputs import InputEvent
from contracts.step import CoreStep
from contracts.streams import Entry
from core.lifecycle.state import ScopeState, SessionState
from store.processor import BatchReport, PartitionProcessor
from store.scripts import AnyRedis
from worker.engine import Engine
from worker.settings import Settings

_PROPAGATOR = TraceContextTextMapPropagator()
_DATA = b"__data__"
TRACER_NAME = "accord.worker"
_T = TypeVar("_T")


class _Traced(msgspec.Struct, gc=False):
    """Just the trace context of an input entry, and what names it in a span."""

    traceparent: str | None = None
    session_id: str | None = None
    seq: int | None = None


_PROBE = msgspec.json.Decoder(_Traced)


def remote(traceparent: str) -> Context:
    """The context a `traceparent` names (an invalid one names none: a new trace)."""
    return _PROPAGATOR.extract({"traceparent": traceparent})


def traceparent_of(span: Span) -> str | None:
    carrier: dict[str, str] = {}
    _PROPAGATOR.inject(carrier, context=trace.set_span_in_context(span))
    return carrier.get("traceparent")


@dataclass
class PartitionTraces:
    """One partition's tracer and the spans of its batch in flight (a partition runs
    one batch at a time, so these never mix two batches)."""

    tracer: Tracer
    partition: int
    # The read span's context of each traced input of the batch, by its traceparent.
    reads: dict[str, Context] = field(default_factory=dict)
    commits: list[Span] = field(default_factory=list)

    def read(self, entries: Sequence[Entry]) -> None:
        """One `accord.read` span per traced entry, from its append to now."""
        for entry in entries:
            raw = entry.fields.get(_DATA)
            if raw is None or b"traceparent" not in raw:
                continue  # untraced: a scan of the bytes is cheaper than a decode
            try:
                probe = _PROBE.decode(raw)
            except msgspec.DecodeError:
                continue  # the store dead-letters it; there is no trace to continue
            if probe.traceparent is None:
                continue
            span = self.tracer.start_span(
                "accord.read",
                context=remote(probe.traceparent),
                kind=SpanKind.CONSUMER,
                start_time=entry.id().ms * 1_000_000,
                attributes={
                    "messaging.system": "redis",
                    "messaging.destination.name": entry.stream,
                    "messaging.message.id": entry.entry_id,
                    "accord.partition": self.partition,
                    "accord.session_id": probe.session_id or "",
                    "accord.seq": probe.seq or 0,
                },
            )
            span.end()
            self.reads[probe.traceparent] = trace.set_span_in_context(span)

    def parent(self, traceparent: str) -> Context:
        return self.reads.get(traceparent) or remote(traceparent)

    def committed(self, error: BaseException | None) -> None:
        """End the batch's commit spans: its commit is done (or failed with `error`)."""
        for span in self.commits:
            if error is not None:
                span.record_exception(error)
                span.set_status(Status(StatusCode.ERROR, type(error).__name__))
            span.end()
        self.commits.clear()
        self.reads.clear()


@dataclass(frozen=True, kw_only=True)
class TracedEngine(Engine):
    """The core with an `accord.apply` span around each traced input's step, whose
    events carry the context of the input's `accord.commit` span."""

    traces: PartitionTraces

    def apply(
        self,
        scope: ScopeState,
        session: SessionState,
        event: InputEvent,
        stream: str,
        entry_id: str,
    ) -> CoreStep[ScopeState, SessionState]:
        if event.traceparent is None:
            return super().apply(scope, session, event, stream, entry_id)
        traces = self.traces
        parent = traces.parent(event.traceparent)
        with traces.tracer.start_as_current_span(
            "accord.apply",
            context=parent,
            attributes={"accord.session_id": event.session_id, "accord.seq": event.seq},
        ):
            step = super().apply(scope, session, event, stream, entry_id)
        commit = traces.tracer.start_span("accord.commit", context=parent)
        traces.commits.append(commit)
        carried = traceparent_of(commit)
        if not step.events or carried is None:
            return step
        events = tuple(msgspec.structs.replace(e, traceparent=carried) for e in step.events)
        return msgspec.structs.replace(step, events=events)


class TracedPartition(PartitionProcessor[ScopeState, SessionState]):
    """The store's processor with the batch's reads and commits traced."""

    def __init__(
        self, redis: AnyRedis, partition: int, settings: Settings, traces: PartitionTraces
    ) -> None:
        core = TracedEngine(
            default_timezone=settings.default_timezone, policy=settings.policy, traces=traces
        )
        super().__init__(redis, partition, core, settings.store)
        self.traces = traces

    # The store's own steps that apply inputs, overridden under its lock (`_turn`): a
    # partition runs one at a time, so the spans of two batches (the reader's and the
    # reclaimer's, or a gap skip's drain) never mix.
    async def _process(self, entries: Sequence[Entry]) -> BatchReport:
        self.traces.read(entries)
        return await self._committing(super()._process(entries))

    async def _skip_stale_gaps(self, now_ms: int | None) -> int:
        return await self._committing(super()._skip_stale_gaps(now_ms))

    async def _committing(self, work: Awaitable[_T]) -> _T:
        try:
            done = await work
        except BaseException as error:
            self.traces.committed(error)
            raise
        self.traces.committed(None)
        return done


def traced_factory(
    provider: TracerProvider,
) -> Callable[[AnyRedis, int, Settings], TracedPartition]:
    """A PartitionFactory whose processors trace to `provider`."""
    tracer = provider.get_tracer(TRACER_NAME)

    def factory(redis: AnyRedis, partition: int, settings: Settings) -> TracedPartition:
        return TracedPartition(redis, partition, settings, PartitionTraces(tracer, partition))

    return factory


_PROVIDERS: dict[str, TracerProvider] = {}


def otlp_provider(endpoint: str) -> TracerProvider:
    """One provider per endpoint and process, exporting by OTLP over HTTP in batches (off
    the hot path: the exporter's thread sends them)."""
    provider = _PROVIDERS.get(endpoint)
    if provider is None:
        # Imported here: the exporter brings protobuf, which a test's provider never needs.
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import (  # noqa: PLC0415
            OTLPSpanExporter,
        )

        provider = TracerProvider(resource=Resource.create({"service.name": "accord-worker"}))
        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=endpoint)))
        _PROVIDERS[endpoint] = provider
    return provider
