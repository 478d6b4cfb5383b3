"""Retention on a three-master Redis Cluster: the record TTL, the idle index, the
compaction and the trim each touch only keys of the partition's slot (no CROSSSLOT)."""

from __future__ import annotations

from typing import Any

import pytest
from accord_harness.reading import read_new
from accord_harness.store_harness import chat, result
from redis.asyncio import RedisCluster

from contracts.outputs import StateChanged
from contracts.partition import partition_of
from contracts.streams import GROUP
from store import keys
from store.config import StoreConfig
from store.intake import ensure_groups
from store.processor import PartitionProcessor
from store.retention import trim_partition
from tests.support.worker_kit import gateway_xadd, redis_cluster
from worker.engine import Engine

pytestmark = [pytest.mark.redis, pytest.mark.cluster, pytest.mark.asyncio, pytest.mark.slow]

PARTITIONS = 3


async def test_every_retention_step_runs_in_each_partitions_slot_r15() -> None:
    """R15: on every partition (one per shard at most), a proposal and its cancellation
    commit with the record TTL and the idle index; the compaction keeps `n`; the trim
    removes the three applied entries; a dry run after it finds nothing."""
    with redis_cluster() as url:
        client = RedisCluster.from_url(url)
        config = StoreConfig(
            partitions=PARTITIONS,
            record_retention_ms=3_600_000,
            session_retention_ms=1,
            trim_interval_ms=60_000,
        )
        try:
            for partition in range(PARTITIONS):
                await ensure_groups(client, [partition], GROUP)
                scope = next(
                    ("agent", f"user-{i}")
                    for i in range(1000)
                    if partition_of("agent", f"user-{i}", PARTITIONS) == partition
                )
                store = PartitionProcessor(client, partition, Engine(), config)
                documents = [
                    result(scope, "s", 1),
                    chat(scope, "s", 2, "Let's agree: use metric units."),
                    chat(scope, "s", 3, "Cancel this agreement."),
                ]
                for document in documents:
                    await gateway_xadd(client, document, partition)
                report = await store.process(await read_new(client, partition, GROUP, "c"))
                assert report.outcomes == {"applied": 3}
                record = next(e for e in report.events if isinstance(e, StateChanged)).record_id
                assert 0 < await client.pttl(keys.record_key(partition, record)) <= 3_600_000
                done = await store.retain(now_ms=2**50)
                assert (done.compacted, done.trimmed) == (1, 3)
                session: Any = await client.hgetall(keys.session_key(partition, *scope, "s"))
                assert session[b"n"] == b"4"
                assert b"c" not in session
                dry = await trim_partition(client, partition, GROUP, dry_run=True)
                assert sum(t.removed for t in dry) == 0
        finally:
            await client.aclose()
