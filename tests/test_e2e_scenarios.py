"""End to end through the streams: the seed scenarios, EN and ZH, on two worker processes.

A gateway (worker/gateway.py, as any producer would) XADDs every bundled transcript
to the input streams; two `accord worker` processes in one consumer group apply
them; the test reads `agreement-events:{p}` and the session views and checks every
event and view against the rules (tests/worker_kit.py, EXPECTED). The same suite
runs against a three-master Redis Cluster started by the test.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import datetime

import pytest
from redis.asyncio import Redis, RedisCluster
from worker_kit import (
    EXPECTED,
    now_s,
    redis_cluster,
    summarize,
    summarize_view,
    worker_env,
    worker_processes,
)

from store.embedded import EmbeddedRedis
from store.reads import session_view
from worker.app import core_for
from worker.demo import LANGUAGES, TRANSCRIPTS
from worker.gateway import Gateway, load_transcript, rebase, suffix_ids
from worker.settings import Settings

PARTITIONS = 4

pytestmark = [pytest.mark.asyncio, pytest.mark.redis, pytest.mark.slow, pytest.mark.timeout(180)]


async def _play_all(client: Redis | RedisCluster, run: str) -> dict[str, object]:
    """Replay every transcript; per (scenario, language): (event summaries, views)."""
    gateway = Gateway(client, PARTITIONS)
    await gateway.mark_start()
    results: dict[str, object] = {}
    for stem in EXPECTED:
        for language in LANGUAGES:
            lines = load_transcript(TRANSCRIPTS / f"{stem}.{language}.jsonl")
            lines = suffix_ids(rebase(lines, now_s()), run)
            sent = [line for line, _ in await gateway.replay(lines)]
            await gateway.wait_processed(timeout_s=30)
            await gateway.read_events()
            sessions = list(dict.fromkeys(line["session_id"] for line in sent))
            events = [summarize(e) for e in gateway.events if e.session_id in sessions]
            last = {line["session_id"]: line for line in sent}
            views = {}
            for session_id in sessions:
                line = last[session_id]
                view = await session_view(
                    client,
                    core_for(Settings()),
                    PARTITIONS,
                    agent_id=line["agent_id"],
                    user_id=line["user_id"],
                    session_id=session_id,
                    as_of=datetime.fromisoformat(line["ts"]),
                )
                views[session_id.split("~")[0].rsplit("-", 1)[-1]] = summarize_view(view)
            results[f"{stem}.{language}"] = (events, views)
    return results


def _check(results: dict[str, object]) -> None:
    for stem, (events, views) in EXPECTED.items():
        for language in LANGUAGES:
            assert results[f"{stem}.{language}"] == (events, views), f"{stem} ({language})"


@pytest.fixture(scope="module")
def single_redis() -> Iterator[str]:
    with EmbeddedRedis() as server:
        yield server.url


async def test_seed_scenarios_on_two_worker_processes(single_redis: str) -> None:
    """R1-R15 end to end: every seed scenario, EN and ZH, two workers, four partitions."""
    # The FastStream subscribers here; tests/test_worker_merged_reader.py plays the same
    # scenarios with the merged reader (the default).
    env = worker_env(single_redis, ACCORD_PARTITIONS=str(PARTITIONS), ACCORD_READER="faststream")
    with worker_processes(2, env):
        client = Redis.from_url(single_redis)
        try:
            results = await _play_all(client, f"~{uuid.uuid4().hex[:6]}")
        finally:
            await client.aclose()
    _check(results)


@pytest.mark.cluster
async def test_seed_scenarios_on_a_three_master_cluster() -> None:
    """The same suite on Redis Cluster: partitions spread over the shards by hash tag."""
    with redis_cluster() as url:
        env = worker_env(
            url,
            ACCORD_PARTITIONS=str(PARTITIONS),
            ACCORD_REDIS_CLUSTER="1",
            ACCORD_READER="faststream",
        )
        with worker_processes(2, env):
            client = RedisCluster.from_url(url)
            try:
                results = await _play_all(client, f"~{uuid.uuid4().hex[:6]}")
                streams = [f"chat-turn:{{{p}}}" for p in range(PARTITIONS)]
                slots = {await client.cluster_keyslot(stream) for stream in streams}
                nodes = [client.get_node_from_key(stream) for stream in streams]
                shards = {node.name for node in nodes if node is not None}
            finally:
                await client.aclose()
    _check(results)
    # Four partitions, four slots, on all three masters (slots 1584, 5649, 9842, 13907).
    assert len(slots) == PARTITIONS
    assert len(shards) == 3
