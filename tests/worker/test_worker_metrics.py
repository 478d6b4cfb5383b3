"""The batch-observed latency histogram is exposed exactly like prometheus_client's."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Histogram, generate_latest

from worker.observability import BatchHistogram, Metrics

BUCKETS = (0.0005, 0.001, 0.002, 0.005, 1.0)
VALUES = (0.0, 0.0003, 0.0005, 0.0007, 0.001, 0.003, 0.9, 1.0, 7.5)


def exposition(registry: CollectorRegistry) -> list[str]:
    text = generate_latest(registry).decode()
    return [line for line in text.splitlines() if "_created" not in line]


def test_batch_histogram_exposes_the_same_buckets_count_and_sum_as_histogram() -> None:
    """Same values, same text: bucket bounds inclusive (le), cumulative, +Inf, sum."""
    reference_registry, batch_registry = CollectorRegistry(), CollectorRegistry()
    reference = Histogram("lat_seconds", "doc", buckets=BUCKETS, registry=reference_registry)
    batch = BatchHistogram("lat_seconds", "doc", BUCKETS)
    batch_registry.register(batch)
    for value in VALUES:
        reference.observe(value)
    batch.observe_many(VALUES[:4])
    for value in VALUES[4:]:
        batch.observe(value)
    assert exposition(batch_registry) == exposition(reference_registry)
    assert 'lat_seconds_bucket{le="0.0005"} 3.0' in exposition(batch_registry)


def test_the_worker_registry_exposes_entry_latency() -> None:
    metrics = Metrics()
    metrics.entry_latency.observe_many([0.001, 0.02])
    text = generate_latest(metrics.registry).decode()
    assert "accord_entry_latency_seconds_count 2.0" in text
    assert 'accord_entry_latency_seconds_bucket{le="0.025"} 2.0' in text


def test_observe_ages_counts_as_observe_counts_each_age() -> None:
    """Ages in whole ms (future stamps age 0), at and around every bucket's bound: the
    same counts and sum as observing each age in seconds one by one."""
    buckets = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.1, 0.3, 1.0, 2.5)
    now = 1_700_000_000_000
    ages = [-5, 0, 1, 2, 3, 4, 5, 9, 10, 11, 99, 100, 101, 299, 300, 301, 999, 1000, 1001]
    ages += [2499, 2500, 2501, 7_000, 123_456]
    one, batch = BatchHistogram("a", "doc", buckets), BatchHistogram("b", "doc", buckets)
    for age in ages:
        one.observe(max(0, age) / 1000)
    batch.observe_ages(now, [now - age for age in reversed(ages)])
    assert batch.counts == one.counts
    assert abs(batch.sum - one.sum) < 1e-9
