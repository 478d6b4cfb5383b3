"""Inputs removed before any worker read them are noticed (docs/operations.md, "Inputs
removed unread"): a leaked gateway credential's `XADD ... MAXLEN 0` is an argument no ACL
forbids, so the watchdog sees it, logs it once and counts it for the alert (R15: an
input never vanishes silently). Run as the worker's own ACL user on Redis 6.2, Redis 7 and
Valkey, each with its shipped ACL file (Valkey answers as Redis 7 does)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import pytest_asyncio
import redis
import redis.asyncio
from structlog.testing import capture_logs

from contracts.streams import DATA_FIELD, GROUP, stream_name
from store.intake import ensure_groups
from tests.support.redis_deploy_kit import PASSWORDS, SERVERS, acl_of, binary_of, production_redis
from worker.connection import quiet_options
from worker.health import Health, Watchdog
from worker.observability import Metrics, get_logger

pytestmark = [pytest.mark.redis, pytest.mark.asyncio, pytest.mark.timeout(180)]

CHAT = stream_name("chat-turn", 0)


@pytest.fixture(scope="module", params=SERVERS)
def server(request: pytest.FixtureRequest) -> Iterator[tuple[str, int]]:
    """(server, port) of a production-configured Redis 6.2, Redis 7 or Valkey."""
    name: str = request.param
    with production_redis(binary=binary_of(name), acl=acl_of(name)) as port:
        yield name, port


def client(port: int, user: str) -> redis.asyncio.Redis:
    url = f"redis://{user}:{PASSWORDS[user]}@127.0.0.1:{port}/0"
    return redis.asyncio.Redis.from_url(url, **quiet_options())


@pytest_asyncio.fixture
async def accord(server: tuple[str, int]) -> AsyncIterator[redis.asyncio.Redis]:
    ops = client(server[1], "ops")
    await ops.flushall()
    await ops.acl_log_reset()
    await ops.aclose()
    worker = client(server[1], "accord")
    await ensure_groups(worker, [0], GROUP)
    yield worker
    await worker.aclose()


def watchdog(redis_client: redis.asyncio.Redis) -> tuple[Watchdog, Metrics]:
    metrics = Metrics()
    dog = Watchdog(
        redis_client, Health(), "w", GROUP, [0], on_fatal=print, log=get_logger("t"),
        metrics=metrics,
    )  # fmt: skip
    return dog, metrics


def removals(metrics: Metrics) -> float:
    return float(metrics.removed_unread.labels(CHAT)._value.get())


async def test_a_gateway_trim_of_every_unread_entry_is_logged_once_and_counted(
    server: tuple[str, int], accord: redis.asyncio.Redis
) -> None:
    """Delivered entries, then unread ones the gateway's own credential trims away with
    `XADD ... MAXLEN 0`: one `inputs_removed_unread` error and one count, on every server;
    a second pass reports nothing new; no refusal in ACL LOG (the check runs as the
    worker's user)."""
    gateway = client(server[1], "gateway")
    try:
        await gateway.xadd(CHAT, {DATA_FIELD: "{}"})
        await accord.xreadgroup(GROUP, "w", {CHAT: ">"})  # delivered
        dog, metrics = watchdog(accord)
        assert await dog.check_removed_unread() == []
        await gateway.xadd(CHAT, {DATA_FIELD: "{}"})
        await gateway.xadd(CHAT, {DATA_FIELD: "{}"}, maxlen=0)  # unread, then all gone
        with capture_logs() as logs:
            [found] = await dog.check_removed_unread()
            assert await dog.check_removed_unread() == []
        assert found.stream == CHAT
        assert [entry["event"] for entry in logs] == ["inputs_removed_unread"]
        assert logs[0]["log_level"] == "error"
        assert removals(metrics) == 1
    finally:
        await gateway.aclose()
    ops = client(server[1], "ops")
    try:
        log: Any = await ops.acl_log()
        assert [e for e in log if e["username"] == b"accord" or e["username"] == "accord"] == []
    finally:
        await ops.aclose()


async def test_redis7_sees_a_partial_trim_that_leaves_unread_entries(
    server: tuple[str, int], accord: redis.asyncio.Redis
) -> None:
    """`XADD ... MAXLEN 1` drops the older unread entries but keeps the newest: Redis 7's
    `max-deleted-entry-id` shows it; on 6.2 it cannot be seen (documented)."""
    for _ in range(3):
        await accord.xadd(CHAT, {DATA_FIELD: "{}"})
    await accord.xadd(CHAT, {DATA_FIELD: "{}"}, maxlen=1, approximate=False)
    dog, metrics = watchdog(accord)
    found = await dog.check_removed_unread()
    assert len(found) == (0 if server[0] == "6.2" else 1)
    assert removals(metrics) == (0 if server[0] == "6.2" else 1)


async def test_accords_own_retention_trim_is_not_a_removal(
    accord: redis.asyncio.Redis,
) -> None:
    """Entries the group read and finished, trimmed below: nothing reported."""
    for _ in range(3):
        await accord.xadd(CHAT, {DATA_FIELD: "{}"})
    read: Any = await accord.xreadgroup(GROUP, "w", {CHAT: ">"})
    ids = [entry_id for entry_id, _ in read[0][1]]
    await accord.xack(CHAT, GROUP, *ids)
    await accord.xtrim(CHAT, minid=ids[-1])  # what store/retention.py does
    dog, metrics = watchdog(accord)
    assert await dog.check_removed_unread() == []
    assert removals(metrics) == 0


async def test_a_watchdog_pass_reads_each_streams_groups_once_and_still_sees_a_removal(
    server: tuple[str, int], accord: redis.asyncio.Redis
) -> None:
    """One pass of the watchdog (vanished streams, heartbeat, lag, removed inputs,
    pruning) asks XINFO GROUPS once per input stream, not once per check; the lag gauge
    and the removal it finds come from that one read."""
    gateway = client(server[1], "gateway")
    ops = client(server[1], "ops")
    try:
        await gateway.xadd(CHAT, {DATA_FIELD: "{}"})
        await accord.xreadgroup(GROUP, "w", {CHAT: ">"})  # delivered
        await gateway.xadd(CHAT, {DATA_FIELD: "{}"})
        await gateway.xadd(CHAT, {DATA_FIELD: "{}"}, maxlen=0, approximate=False)
        dog, metrics = watchdog(accord)
        stop = asyncio.Event()

        async def last_step() -> list[str]:
            stop.set()  # one pass only
            return []

        dog.prune_consumers = last_step  # type: ignore[method-assign]
        await ops.config_resetstat()
        with capture_logs() as logs:
            await asyncio.wait_for(dog.run(stop, interval_s=0.01), timeout=60)
        stats: Any = await ops.info("commandstats")
    finally:
        await gateway.aclose()
        await ops.aclose()
    if server[0] == "6.2":  # XINFO is one command there: GROUPS, and STREAM for the removal
        assert stats["cmdstat_xinfo"]["calls"] == 3 + 3
    else:  # chat-turn, tool-call, tool-result
        assert stats["cmdstat_xinfo|groups"]["calls"] == 3
    assert removals(metrics) == 1
    assert [entry["event"] for entry in logs if entry["log_level"] == "error"] == [
        "inputs_removed_unread"
    ]
    # Set from the same read: the pending entry, and on Redis 7 and Valkey the two
    # trimmed unread (6.2 counts what is left to read: none).
    assert metrics.lag.labels(CHAT)._value.get() == (1 if server[0] == "6.2" else 3)
