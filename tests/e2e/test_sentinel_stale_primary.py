"""After a Sentinel failover, nothing keeps talking to the old primary.

A paused primary (SIGSTOP: a hung host, a long stall) is failed over; when it resumes it
still believes it is the primary, takes writes and answers reads, until Sentinel demotes
it (about 10 s later: the sentinels look at it again on their INFO period). redis-py's
asyncio Sentinel pool asks the sentinels only when it opens a connection, and keeps a
connection it already had: without accord_client.sentinel's pool, the same client was
answered by the old primary through that window, and a read blocked on it when it paused
returned that primary's entries after the promotion. Both clients built from a
redis+sentinel:// URL are checked: the gateway's (accord_client.sentinel) and the worker's
and CLI's (worker/connection.py), on real servers (tests/support/sentinel_kit.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator

import pytest
import pytest_asyncio
import redis
import redis.asyncio

from accord_client.sentinel import sentinel_redis
from tests.support.sentinel_kit import SentinelTopology, sentinel_topology
from worker.connection import connect
from worker.settings import Settings

pytestmark = [pytest.mark.redis, pytest.mark.slow, pytest.mark.timeout(300)]

# Generous: a blocked read's answer comes after a failover and a retry on a busy machine.
ANSWER_S = 60.0

Factory = Callable[[str], redis.asyncio.Redis]


def _gateway_client(url: str) -> redis.asyncio.Redis:
    return sentinel_redis(url)


def _worker_client(url: str) -> redis.asyncio.Redis:
    client = connect(Settings(redis_url=url))
    assert isinstance(client, redis.asyncio.Redis)
    return client


@pytest.fixture(scope="module")
def topology() -> Iterator[SentinelTopology]:
    with sentinel_topology(replicas=1) as running:
        yield running


@pytest.fixture
def healed(topology: SentinelTopology) -> Iterator[SentinelTopology]:
    """The topology, and after the test every node back in it: a paused primary resumed
    and demoted, so that the next test has a replica to promote."""
    yield topology
    for port in tuple(topology.paused):
        topology.resume(port)
    for port in topology.nodes:
        if port != topology.primary():
            topology.wait_demoted(port)
    topology.wait_ready()


@pytest_asyncio.fixture(
    params=[pytest.param(_gateway_client, id="gateway"), pytest.param(_worker_client, id="worker")]
)
async def client(
    healed: SentinelTopology, request: pytest.FixtureRequest
) -> AsyncIterator[redis.asyncio.Redis]:
    """Each client built from the URL: the gateway's and the worker's."""
    make: Factory = request.param
    built = make(healed.url())
    yield built
    await built.aclose()


def _node(port: int) -> redis.Redis:
    return redis.Redis(port=port, socket_timeout=10, socket_connect_timeout=10)


async def _failed_over_by_a_pause(topology: SentinelTopology) -> tuple[int, int]:
    """Pause the primary until a replica is promoted, then resume it: (old, new). The old
    one is checked to still take writes as a primary, the window the tests need."""
    old = await asyncio.to_thread(topology.pause_primary)
    new = topology.primary()
    topology.resume(old)
    assert topology.role(old) == "master", "Sentinel demoted the old primary at once"
    return old, new


@pytest.mark.asyncio
async def test_a_pooled_connection_to_the_old_primary_is_not_used_after_a_failover(
    healed: SentinelTopology, client: redis.asyncio.Redis
) -> None:
    """R15's premise: every read and write goes to the one primary the sentinels name.
    A client whose pool holds a connection to the primary from before a failover reads and
    writes the promoted replica right after, while the old primary, resumed, still calls
    itself the primary and would answer (its own value of a key, a write it would keep
    until Sentinel demotes it and it drops it)."""
    await client.set("marker", "before")  # a connection to the primary, back in the pool
    old, new = await _failed_over_by_a_pause(healed)
    with _node(old) as old_node, _node(new) as new_node:
        old_node.set("marker", "old")
        new_node.set("marker", "new")
        assert await client.get("marker") == b"new"
        await client.set("written-after", "1")
        assert new_node.exists("written-after") == 1


async def _popped(client: redis.asyncio.Redis) -> list[bytes]:
    answer = await client.blpop(["inputs"], timeout=ANSWER_S)
    assert answer is not None, "nothing popped"
    return [bytes(item) if isinstance(item, bytes) else item.encode() for item in answer]


@pytest.mark.asyncio
async def test_a_read_blocked_on_the_old_primary_does_not_return_its_entries(
    healed: SentinelTopology, client: redis.asyncio.Redis
) -> None:
    """R15: a worker reads the entries it applies from the primary the sentinels name. A
    blocking read sent to the primary before it paused is answered by that primary when it
    resumes, after the promotion, with an entry only it holds (one a gateway's timed-out
    append left there, which the demotion drops): that answer is refused, and the read is
    answered by the promoted replica instead."""
    topology = healed
    await client.delete("inputs")  # (a test before may have left one behind)
    blocked = asyncio.create_task(_popped(client))
    # Until the server holds the read: a paused server would otherwise get it later.
    await asyncio.to_thread(topology.wait_blocked, topology.primary())
    old = await asyncio.to_thread(topology.pause_primary)
    new = topology.primary()
    # Any command after the promotion: the client's other connection finds the new one.
    await client.set("after-promotion", "1")
    with _node(new) as new_node, _node(old) as old_node:
        new_node.lpush("inputs", "from-the-new-primary")
        topology.resume(old)
        assert topology.role(old) == "master", "Sentinel demoted the old primary at once"
        old_node.lpush("inputs", "from-the-old-primary")
    try:
        answer = await asyncio.wait_for(blocked, ANSWER_S)
    except redis.ConnectionError:
        # As a failover's connection loss: the caller reads again (the worker's loops do).
        answer = await _popped(client)
    assert answer == [b"inputs", b"from-the-new-primary"]
