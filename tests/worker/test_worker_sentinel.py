"""A worker and the Python client on Redis under Sentinel: a primary, a replica and three
sentinels on loopback (tests/support/sentinel_kit.py), everything given only the
redis+sentinel:// URL. Inputs are applied before a failover, and inputs appended after
one (SENTINEL FAILOVER, then kill -9 of the primary) are applied by the same worker
process through the same client, each exactly once and in order (R15)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
import redis.asyncio
from faststream.redis import RedisSentinelBroker

from accord_client import AccordClient, InvalidInputError
from store.embedded import free_port
from tests.support.cli_kit import accord_here, command_env
from tests.support.sentinel_kit import SentinelTopology, sentinel_topology
from tests.support.worker_kit import worker_env, worker_processes
from worker.app import make_broker
from worker.connection import connect
from worker.settings import Settings

pytestmark = [pytest.mark.redis, pytest.mark.slow, pytest.mark.timeout(300)]

# Generous: a failover, the worker's backoff and a busy machine all come before the apply.
APPLIED_S = 90.0


@pytest.fixture(scope="module")
def topology() -> Iterator[SentinelTopology]:
    with sentinel_topology(replicas=1) as running:
        yield running


@pytest.fixture(scope="module")
def worker(topology: SentinelTopology) -> Iterator[None]:
    # Ready once its heartbeat is on the primary, read there directly.
    probe = topology.node_url(topology.primary())
    with worker_processes(1, worker_env(topology.url()), probe_url=probe) as procs:
        yield
        assert procs[0].poll() is None, "the worker exited during the failovers"


async def _agreement_opened(client: AccordClient, session_id: str) -> None:
    """A proposal, the agent's and the user's acceptances: three inputs in order, applied
    (R2-R5): the session's one agreement is then open."""
    session = client.session("agent-s", "user-s", session_id)
    proposal = await session.user("Let's agree: start every plan with the conclusion.")
    await session.wait_applied(proposal.seq, timeout=APPLIED_S)
    pending = (await session.view()).pending_proposals
    assert len(pending) == 1
    await session.accept(pending[0].record_id, pending[0].revision, timeout=APPLIED_S)
    confirmed = await session.user("I accept this agreement")
    await session.wait_applied(confirmed.seq, timeout=APPLIED_S)
    view = await session.view()
    assert [a.terms for a in view.current_agreements if a.record_id == pending[0].record_id] == [
        "start every plan with the conclusion"
    ]


@pytest.mark.asyncio
@pytest.mark.usefixtures("worker")
async def test_worker_and_client_carry_on_after_a_sentinel_failover(
    topology: SentinelTopology,
) -> None:
    """R15: with only the Sentinel URL, the worker applies a session's inputs; after
    SENTINEL FAILOVER promotes the replica, the same worker and the same client apply a
    new session's inputs on the new primary (the client's stale connection is dropped
    and the sentinels asked again)."""
    client = AccordClient.from_url(topology.url())
    try:
        await _agreement_opened(client, "before-failover")
        old = await asyncio.to_thread(topology.failover)
        assert topology.primary() != old
        await _agreement_opened(client, "after-failover")
    finally:
        await client.aclose()


@pytest.mark.asyncio
@pytest.mark.usefixtures("worker")
async def test_worker_and_client_carry_on_after_the_primary_is_killed(
    topology: SentinelTopology,
) -> None:
    """R15: kill -9 of the primary; once the sentinels promote the replica, the worker
    (which lost its connections mid-read) and the client apply new inputs there."""
    await asyncio.to_thread(topology.wait_ready)
    client = AccordClient.from_url(topology.url())
    try:
        await _agreement_opened(client, "before-kill")
        await asyncio.to_thread(topology.kill_primary)
        await _agreement_opened(client, "after-kill")
    finally:
        await client.aclose()


@pytest.mark.usefixtures("worker")
def test_cli_commands_read_through_the_sentinel_url(topology: SentinelTopology) -> None:
    """`accord check` and `accord status` on the Sentinel URL read the primary the
    sentinels name: the worker's heartbeat is there, so the check passes."""
    env = command_env(topology.url())
    check = accord_here("check", "--timeout", "10", env=env)
    assert check.returncode == 0, check
    status = accord_here("status", "--json", "--timeout", "10", env=env)
    assert status.returncode == 0, status
    assert '"partitions"' in status.stdout


def test_cli_says_in_one_line_that_no_sentinel_answers_or_none_knows_the_service(
    topology: SentinelTopology,
) -> None:
    """No sentinel reachable, or sentinels with no such service: one line naming the
    URL (its password redacted) and the cause, and the exit code of any unreachable
    Redis (2; `accord check` 1)."""
    unused_port = free_port()  # nothing listens there: connecting is refused at once
    cases = {
        f"redis+sentinel://:pw-s3cret@127.0.0.1:{unused_port}/accord/0": "no sentinel reachable",
        topology.url()
        .replace("/accord/", "/no-such-service/")
        .replace(
            "redis+sentinel://", "redis+sentinel://:pw-s3cret@"
        ): "name no primary for the service 'no-such-service'",
    }
    for url, cause in cases.items():
        for command, code in (("view", 2), ("check", 1)):
            args = ("s1", "--agent", "a", "--user", "u") if command == "view" else ()
            ran = accord_here(command, *args, "--timeout", "2", env=command_env(url))
            lines = [line for line in ran.stderr.splitlines() if line.strip()]
            assert ran.returncode == code, ran
            assert len(lines) == 1, ran
            assert "accord: cannot reach Redis at redis+sentinel://:***@127.0.0.1:" in lines[0]
            assert cause in lines[0]
            assert "pw-s3cret" not in ran.stderr + ran.stdout


@pytest.mark.asyncio
async def test_the_worker_clients_reach_the_primary_quietly(topology: SentinelTopology) -> None:
    """The store's client (worker/connection.connect) and FastStream's Sentinel broker
    (worker/app.make_broker) reach the primary through the sentinels, and neither sends a
    CLIENT command there (the deploy ACL's users have none: docs/security.md)."""
    primary = redis.asyncio.Redis.from_url(topology.node_url(topology.primary()))
    await primary.config_resetstat()
    settings = Settings.from_env({"REDIS_URL": topology.url()})
    store_client = connect(settings)
    broker = make_broker(settings)
    assert isinstance(broker, RedisSentinelBroker)
    try:
        assert await store_client.ping()
        await broker.connect()
        assert await broker.ping(timeout=10)
        stats = await primary.info("commandstats")
        assert stats.get("cmdstat_ping", {}).get("calls", 0) >= 2
        assert not [name for name in stats if name.startswith("cmdstat_client")], stats
    finally:
        await broker.stop()
        await store_client.aclose()
        await primary.aclose()


def test_the_python_client_refuses_a_sentinel_url_for_a_cluster() -> None:
    """A Redis Cluster is not run under Sentinel: `from_url` says so before connecting,
    as the worker's settings do (ACCORD_REDIS_CLUSTER with a Sentinel URL)."""
    with pytest.raises(InvalidInputError, match="cluster: a Sentinel URL names no Redis Cluster"):
        AccordClient.from_url("redis+sentinel://127.0.0.1/accord", cluster=True)
