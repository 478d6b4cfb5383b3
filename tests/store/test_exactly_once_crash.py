"""A crash between any two steps of processing loses nothing and duplicates nothing (R15).

A worker subprocess dies with `os._exit(137)` at a named point of the processor
(store/crash.py), twice in a row; another consumer then reclaims what it left pending
(XAUTOCLAIM), reads the rest, and the store and events must equal the oracle.
"""

from __future__ import annotations

import asyncio
import random
import subprocess
import sys

import pytest
import redis.asyncio
from accord_harness.oracle import compute, scope_projection
from accord_harness.reading import read_new
from accord_harness.store_harness import real_core_workload, settled, snapshot, xadd

from contracts.streams import GROUP
from store.config import StoreConfig
from store.crash import CRASH_POINTS
from store.intake import reclaim_pending
from store.processor import PartitionProcessor
from worker.engine import Engine

PARTITIONS = 2
WORKER_MODULE = "accord_harness.crash_worker"


# The consumer group on these partitions (tests/store/conftest.py makes it).
GROUP_PARTITIONS = tuple(range(PARTITIONS))


def crash_worker(redis_url: str, consumer: str, point: str) -> int:
    command = [sys.executable, "-m", WORKER_MODULE, redis_url, str(PARTITIONS), consumer, point]
    return subprocess.run(command, check=False, timeout=60).returncode  # noqa: S603


async def recover(client: redis.asyncio.Redis) -> None:
    """Another consumer: reclaim everything pending, read the rest, until settled."""
    config = StoreConfig(partitions=PARTITIONS, delivery_limit=10_000)
    processors = [PartitionProcessor(client, p, Engine(), config) for p in range(PARTITIONS)]
    async with asyncio.timeout(60):
        while not await settled(client, PARTITIONS):
            for processor in processors:
                p = processor.partition
                entries = (
                    await reclaim_pending(client, p, GROUP, "rescuer", min_idle_ms=0)
                ).entries
                entries += await read_new(client, p, GROUP, "rescuer", count=7)
                if entries:
                    await processor.process(entries)


@pytest.mark.redis
@pytest.mark.slow
@pytest.mark.asyncio
@pytest.mark.parametrize("point", CRASH_POINTS)
async def test_a_crash_at_any_point_loses_and_duplicates_nothing(
    client: redis.asyncio.Redis, redis_url: str, point: str
) -> None:
    """R15: die at `point` twice, recover from another consumer, compare with the oracle."""
    rng = random.Random(point)
    documents = real_core_workload(rng, scopes=4, sessions=2, blocks=3)
    order = documents + [d for d in documents if rng.random() < 0.2]
    rng.shuffle(order)
    entries: dict[tuple[str, str], tuple[str, int]] = {}
    for document in order:
        entries[await xadd(client, document, PARTITIONS)] = (
            document["session_id"],
            document["seq"],
        )
    assert crash_worker(redis_url, "doomed-1", point) == 137
    assert crash_worker(redis_url, "doomed-2", point) == 137
    sessions = [key async for key in client.scan_iter(match="session:*")]
    if point == "after_commit":
        assert sessions, "the batch before the crash was committed"
    else:
        assert not sessions, "nothing is written before the commit"
    await recover(client)
    core = Engine()
    expected = compute(core, documents, PARTITIONS)
    actual = await snapshot(client, core, documents, PARTITIONS, entries, scope_projection)
    assert actual.sessions == expected.sessions
    assert actual.scopes == expected.scopes
    assert actual.records == expected.records
    assert dict(actual.events) == dict(expected.events)
