"""A worker process for the crash tests: reads one partition and dies at a named point.

    python -m accord_harness.crash_worker REDIS_URL PARTITIONS CONSUMER CRASH_POINT [cluster]

It reads with XREADGROUP and processes with the real core until its processor reaches
`CRASH_POINT` (`os._exit(137)` there: store/crash.py, `exit_at`), or
until nothing is left to read (exit 0).
"""

from __future__ import annotations

import asyncio
import sys

import redis.asyncio
from redis.asyncio.cluster import RedisCluster

from accord_harness.reading import read_new
from contracts.streams import GROUP
from store.config import StoreConfig
from store.crash import exit_at
from store.processor import PartitionProcessor
from store.scripts import AnyRedis
from worker.engine import Engine


async def main(url: str, partitions: int, consumer: str, crash_at: str, cluster: bool) -> None:  # noqa: FBT001
    client: AnyRedis = RedisCluster.from_url(url) if cluster else redis.asyncio.Redis.from_url(url)
    config = StoreConfig(partitions=partitions, delivery_limit=10_000)
    crash = exit_at(crash_at)
    processors = [PartitionProcessor(client, p, Engine(), config, crash) for p in range(partitions)]
    idle = 0
    while idle < 3:
        idle += 1
        for processor in processors:
            entries = await read_new(client, processor.partition, GROUP, consumer, count=2)
            if entries:
                idle = 0
                await processor.process(entries)
    await client.aclose()


if __name__ == "__main__":
    url, partitions, consumer, crash_at, *rest = sys.argv[1:]
    asyncio.run(main(url, int(partitions), consumer, crash_at, cluster=rest == ["cluster"]))
