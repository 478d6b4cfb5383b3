"""The worker as `accord worker` builds it, run in the calling process (benchmarks/)."""

from __future__ import annotations

from worker import gc_tuning
from worker.app import Worker, build_worker, store_partition
from worker.settings import Settings


def shipped_worker(
    url: str, partitions: int, consumer: str, *, gc_threshold: int | None = None, **changes: object
) -> Worker:
    """Default settings but for `changes` (no metrics port), the collector tuned as
    `accord worker` tunes it (or to `gc_threshold`); not started."""
    settings = Settings(redis_url=url, metrics_port=0, consumer=consumer).replaced(
        partitions=partitions, **changes
    )
    worker = build_worker(settings, store_partition)
    gc_tuning.tune(settings.gc_threshold if gc_threshold is None else gc_threshold)
    return worker
