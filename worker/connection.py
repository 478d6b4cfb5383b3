"""The store's Redis client from settings: one Redis, or Redis Cluster when configured.

Kept apart from the composition root so CLI reads (check, view, events) do not pay
for importing FastStream.
"""

from __future__ import annotations

from redis.asyncio import Redis, RedisCluster

from worker.consumer import AnyRedis
from worker.settings import Settings

DEFAULT_URL = "redis://127.0.0.1:6379/0"


def connect(settings: Settings) -> AnyRedis:
    url = settings.redis_url or DEFAULT_URL
    if settings.redis_cluster:
        return RedisCluster.from_url(url)
    return Redis.from_url(url)
