"""Exactly once, in order, against a real Redis and a real Redis Cluster (R15).

Random scopes, sessions (several per scope) and inputs are written shuffled across the
three input streams, with gateway duplicates, while two consumers read them, lose
batches (a crash before the commit) and steal each other's pending entries. The store
and the events stream must equal the oracle: the core applied once per (session, seq)
in seq order.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest
import pytest_asyncio
import redis.asyncio
from accord_harness.documents import Document
from accord_harness.oracle import Outcome, compute, scope_projection
from accord_harness.reading import read_new
from accord_harness.store_harness import (
    chat,
    deliver_and_settle,
    random_workload,
    real_core_workload,
    snapshot,
    xadd,
)
from redis.asyncio.cluster import RedisCluster

from contracts.outputs import described
from contracts.partition import partition_of
from contracts.streams import stream_name
from store.config import StoreConfig
from store.core_port import CorePort
from store.dead_letters import list_dead_letters, requeue
from store.embedded import EmbeddedCluster
from store.intake import ensure_groups
from store.processor import PartitionProcessor
from store.scripts import AnyRedis
from store.watermark import watermark_ms
from tests.support.fake_core import FakeCore, FakeScope
from worker.engine import Engine


def fake_scope_projection(scope: FakeScope) -> Any:
    """Records by id and the applied seqs per session (sessions interleave freely)."""
    per_session: dict[str, list[int]] = {}
    for item in scope.log:
        session, seq = item.rsplit("#", 1)
        per_session.setdefault(session, []).append(int(seq))
    return {
        "records": {r.record_id: r.revision for r in scope.records},
        "applied": per_session,
    }


@pytest.fixture(scope="module")
def cluster_url() -> Iterator[str]:
    with EmbeddedCluster() as cluster:
        yield cluster.url


@pytest_asyncio.fixture(params=["redis", "cluster"])
async def backend(
    request: pytest.FixtureRequest, redis_url: str
) -> AsyncIterator[tuple[AnyRedis, Callable[[], AnyRedis], int]]:
    """(client, client factory, partitions) on one Redis or on a three-master cluster."""
    if request.param == "redis":
        url = redis_url
        factory: Callable[[], AnyRedis] = lambda: redis.asyncio.Redis.from_url(url)  # noqa: E731
        partitions = 2
    else:
        url = request.getfixturevalue("cluster_url")
        factory = lambda: RedisCluster.from_url(url)  # noqa: E731
        partitions = 6  # tags {0}..{5} land on all three shards
    client = factory()
    await client.flushall()
    yield client, factory, partitions
    await client.aclose()


async def _store_equals_oracle(
    backend: tuple[AnyRedis, Callable[[], AnyRedis], int],
    core: CorePort[Any, Any],
    documents: list[Document],
    rng: random.Random,
    project_scope: Callable[[Any], Any],
) -> tuple[Outcome, Outcome]:
    """Deliver `documents` (shuffled, duplicated, concurrent); the store must equal the oracle."""
    client, factory, partitions = backend
    entries = await deliver_and_settle(client, factory, core, documents, partitions, rng)
    expected = compute(core, documents, partitions, project_scope)
    actual = await snapshot(client, core, documents, partitions, entries, project_scope)
    assert actual.sessions == expected.sessions
    assert actual.scopes == expected.scopes
    assert actual.records == expected.records
    assert dict(actual.events) == dict(expected.events)
    return actual, expected


@pytest.mark.redis
@pytest.mark.asyncio
@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_shuffled_duplicated_concurrent_delivery_equals_the_oracle(
    backend: tuple[AnyRedis, Callable[[], AnyRedis], int], seed: int
) -> None:
    """R15: duplicates, shuffled streams, lost batches and two consumers change nothing."""
    rng = random.Random(seed)
    documents = random_workload(rng, scopes=5, sessions=3, length=12)
    actual, _ = await _store_equals_oracle(
        backend, FakeCore(), documents, rng, fake_scope_projection
    )
    event_ids = [e["event_id"] for events in actual.events.values() for e in events]
    assert len(event_ids) == len(set(event_ids)), "an agreement event was published twice"


@pytest.mark.redis
@pytest.mark.asyncio
@pytest.mark.parametrize("seed", [11, 12])
async def test_the_real_reducer_through_the_store_equals_the_oracle(
    backend: tuple[AnyRedis, Callable[[], AnyRedis], int], seed: int
) -> None:
    """R15 with the real core (recognizer, deadlines, reducer): same store, same events."""
    rng = random.Random(seed)
    documents = real_core_workload(rng, scopes=4, sessions=3, blocks=4)
    _, expected = await _store_equals_oracle(backend, Engine(), documents, rng, scope_projection)
    states = {e.get("to_state") for events in expected.events.values() for e in events}
    assert {"open", "fulfilled"} <= states, "the workload reaches open and fulfilled"


@pytest.mark.redis
@pytest.mark.asyncio
async def test_gate_expiry_and_dead_letters_run_on_every_shard(
    backend: tuple[AnyRedis, Callable[[], AnyRedis], int],
) -> None:
    """Every script on every partition's slot, no CROSSSLOT: park, drain, skip, expire, DLQ."""
    client, _, partitions = backend
    core = FakeCore()
    # Text kept: the dead letter below is re-queued, which needs its original fields.
    config = StoreConfig(partitions=partitions, gap_timeout_ms=0, dead_letter_keep_text=True)
    for p in range(partitions):
        scope = next(
            (f"a{i}", "u") for i in range(1000) if partition_of(f"a{i}", "u", partitions) == p
        )
        await ensure_groups(client, [p], "accord")
        processor = PartitionProcessor(client, p, core, config)
        for seq, text in ((3, "hello"), (1, "propose tea deadline=1000")):
            await xadd(client, chat(scope, "s", seq, text), partitions)
        await client.xadd(stream_name("chat-turn", p), {"__data__": "{not json"})
        report = await processor.process(await read_new(client, p, "accord", "c"))
        assert (report.outcomes["applied"], report.outcomes["parked"]) == (1, 1)
        assert await processor.skip_stale_gaps() == 1, "seq 2 never came"
        expired = await processor.sweep_expired()
        assert [described(e.event_id) for e in expired] == ["s/1@2"]
        [(letter_id, _)] = await list_dead_letters(client, p)
        assert await requeue(client, p, letter_id) is not None
        assert await watermark_ms(client, p, "accord") > 0
    if isinstance(client, RedisCluster):
        nodes = [client.get_node_from_key(stream_name("chat-turn", p)) for p in range(partitions)]
        assert len({node.name for node in nodes if node is not None}) == 3, "all three masters"
