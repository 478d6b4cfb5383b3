"""Traces across the pipeline (docs/operations.md, "Traces"): the gateway's `traceparent`
goes with its input, a tracing worker continues it in read, apply and commit spans, and
the agreement events carry it on to the subscribers. With OpenTelemetry's in-memory
exporter, against a real Redis and a real worker.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest
import redis.asyncio
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from accord_client import AccordClient, Delivery
from tests.support.paths import ROOT
from tests.support.worker_kit import running_worker, worker_settings
from worker.tracing import traced_factory

_PROPAGATOR = TraceContextTextMapPropagator()


def _current_traceparent() -> str | None:
    """The gateway's side: the W3C context of its current span, as OpenTelemetry writes it."""
    carrier: dict[str, str] = {}
    _PROPAGATOR.inject(carrier)
    return carrier.get("traceparent")


async def _take(client: AccordClient, count: int) -> list[Delivery]:
    got: list[Delivery] = []
    async with client.subscribe("subscriber", block_ms=50) as events:
        async for delivery in events:
            got.append(delivery)
            if len(got) == count:
                break
    return got


def _one(spans: list[ReadableSpan], name: str) -> ReadableSpan:
    [span] = [s for s in spans if s.name == name]
    return span


def _parent_id(span: ReadableSpan) -> int | None:
    return span.parent.span_id if span.parent is not None else None


@pytest.mark.redis
@pytest.mark.asyncio
async def test_one_trace_from_the_gateways_write_to_the_subscribers_read(
    aredis: redis.asyncio.Redis, redis_url: str
) -> None:
    """One trace: the gateway's write span, the worker's read (its child), apply and
    commit (children of the read), and the subscriber's span continued from the event's
    `traceparent` (a child of the commit). An untraced input of the same batch stays
    untraced: no worker span, and its event carries no `traceparent`."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("test.gateway")
    client = AccordClient(aredis, trace_context=_current_traceparent)
    async with running_worker(worker_settings(redis_url), traced_factory(provider)):
        with tracer.start_as_current_span("gateway.write"):
            await client.session("a", "u", "traced").user("Let's agree: start with the conclusion.")
        await client.session("a", "u", "plain").user("Let's agree: offer green tea first.")
        deliveries = await _take(client, 2)
    by_session: dict[str, Any] = {d.event.session_id: d.event for d in deliveries}  # type: ignore[union-attr]
    assert by_session["plain"].traceparent is None
    traced = by_session["traced"].traceparent
    assert traced is not None
    with tracer.start_as_current_span(
        "subscriber.read", context=_PROPAGATOR.extract({"traceparent": traced})
    ):
        pass

    spans = list(exporter.get_finished_spans())
    names = ("gateway.write", "accord.read", "accord.apply", "accord.commit", "subscriber.read")
    gateway, read, apply, commit, subscriber = (_one(spans, name) for name in names)
    assert {s.context.trace_id for s in spans} == {gateway.context.trace_id}, "one trace"
    assert _parent_id(read) == gateway.context.span_id
    assert _parent_id(apply) == read.context.span_id
    assert _parent_id(commit) == read.context.span_id
    assert _parent_id(subscriber) == commit.context.span_id
    assert read.attributes is not None
    assert read.attributes["accord.session_id"] == "traced"
    assert read.start_time is not None
    assert apply.start_time is not None
    assert read.start_time <= apply.start_time, "the read starts when Redis appended the entry"


def test_a_worker_that_does_not_trace_needs_no_opentelemetry() -> None:
    """Off by default: without ACCORD_OTLP_ENDPOINT a worker builds its processors, and
    imports all it runs, with OpenTelemetry not installed (the `otel` extra is optional;
    here any import of it fails) and without loading worker.tracing (no import cost of
    ours, and the untraced core and processor on the hot path)."""
    probe = (
        "import sys\n"
        "class NoOpenTelemetry:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'opentelemetry':\n"
        "            raise ImportError(name)\n"
        "sys.meta_path.insert(0, NoOpenTelemetry())\n"
        "import worker.app, worker.cli, worker.engine, store.processor\n"
        "from worker.settings import Settings\n"
        "from redis.asyncio import Redis\n"
        "port = worker.app.store_partition(Redis(), 0, Settings())\n"
        "assert type(port).__name__ == 'PartitionProcessor', type(port)\n"
        "assert type(port.core).__name__ == 'Engine', type(port.core)\n"
        "ours = ('opentelemetry', 'worker.tracing')\n"
        "loaded = sorted(m for m in sys.modules if m.startswith(ours))\n"
        "assert not loaded, loaded\n"
    )
    done = subprocess.run(  # noqa: S603
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
