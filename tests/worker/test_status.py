"""`accord status` and `store.status.fleet_status` on a real Redis with real workers.

Partitions with owner, lag, pending, parked gaps and dead letters by reason; consumers
with their partitions, pending entries and heartbeat age (docs/operations.md).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from redis.asyncio import Redis

from contracts.partition import partition_of
from contracts.streams import GROUP, stream_name
from store.durability import SHORT_WAITS
from store.keys import heartbeat_key, heartbeats_key, outbox_stream, stats_key
from store.status import fleet_status
from tests.support.cli_kit import Ran, accord_process, command_env
from tests.support.input_kit import user_turn
from tests.support.worker_kit import now_s, running_worker, wait_for, worker_settings
from worker.gateway import Gateway

pytestmark = [pytest.mark.asyncio, pytest.mark.redis, pytest.mark.timeout(120)]

PARTITIONS = 4
LEASE_MS = 5_000


# No consumer group from conftest's `client`: the workers and tests here make their own.
GROUP_PARTITIONS: tuple[int, ...] = ()


def turn(user: str, seq: int) -> dict[str, Any]:
    return user_turn(("agent", user), f"s-{user}", seq, "hello there", now_s())


def accord_status(url: str, *args: str) -> Ran:
    env = command_env(url, ACCORD_PARTITIONS=str(PARTITIONS), ACCORD_LEASE_MS=str(LEASE_MS))
    return accord_process("status", *args, env=env, timeout=60)


async def test_status_names_owners_backlog_gaps_dead_letters_and_consumers(
    client: Redis, redis_url: str
) -> None:
    """Two live workers own two partitions each (heartbeats fresh); a parked gap and a
    dead letter show on their partition; after a clean stop the partitions have no
    owner, and a dead consumer's pending entry and the backlog show up; the dead
    consumer is departed, and so is a stopped worker once its heartbeat key is gone."""
    gateway = Gateway(client, PARTITIONS)
    gapped = "user-gap"
    gap_partition = partition_of("agent", gapped, PARTITIONS)
    settings = {"partitions": PARTITIONS, "lease_ms": LEASE_MS, "reclaim_idle_ms": 60_000}
    async with (
        running_worker(worker_settings(redis_url, consumer="w-a", **settings)),
        running_worker(worker_settings(redis_url, consumer="w-b", **settings)),
    ):

        async def balanced() -> bool:
            status = await fleet_status(client, PARTITIONS, GROUP, live_ms=LEASE_MS)
            return [row.owner for row in status.partitions] == ["w-a", "w-b", "w-a", "w-b"]

        await wait_for(balanced, seconds=30)
        await gateway.publish(turn(gapped, 2))  # seq 1 missing: parked behind a gap
        broken = stream_name("chat-turn", 1)
        await client.xadd(broken, {"__data__": b"{not json"})
        gateway.written.setdefault(broken, []).append("0-0")
        await gateway.wait_processed()

        status = await fleet_status(client, PARTITIONS, GROUP, live_ms=LEASE_MS)
        rows = {row.partition: row for row in status.partitions}
        assert rows[gap_partition].parked_gaps == 1
        assert rows[1].dead_letters == {"undecodable": 1}
        assert rows[1].dead_letters_total == 1
        assert all(row.lag == 0 and row.pending == 0 for row in status.partitions)
        assert all(row.lease_ms_left is not None for row in status.partitions)
        consumers = {c.consumer: c for c in status.consumers}
        assert consumers["w-a"].partitions == [0, 2]
        assert consumers["w-b"].partitions == [1, 3]
        for name in ("w-a", "w-b"):
            age = consumers[name].heartbeat_age_ms
            assert age is not None
            assert 0 <= age <= LEASE_MS
            assert not consumers[name].departed

        done = await asyncio.to_thread(accord_status, redis_url, "--json")
        assert done.returncode == 0, done.stderr
        document = json.loads(done.stdout)
        assert [p["owner"] for p in document["partitions"]] == ["w-a", "w-b", "w-a", "w-b"]
        assert document["partitions"][1]["dead_letters"] == {"undecodable": 1}
        human = await asyncio.to_thread(accord_status, redis_url)
        assert human.returncode == 0, human.stderr
        assert "w-a" in human.stdout
        assert "undecodable" in human.stdout

    # Both stopped cleanly: no owner, no live member. A consumer that read and died:
    await gateway.publish(turn("user-late", 1))
    late_stream = stream_name("chat-turn", partition_of("agent", "user-late", PARTITIONS))
    await client.xreadgroup(GROUP, "ghost", {late_stream: ">"}, count=10)
    await gateway.publish(turn("user-later", 1))
    status = await fleet_status(client, PARTITIONS, GROUP, live_ms=LEASE_MS)
    assert [row.owner for row in status.partitions] == [None] * PARTITIONS
    assert sum(row.pending for row in status.partitions) == 1
    assert sorted(row.lag for row in status.partitions if row.lag is not None) == [0] * (
        PARTITIONS - 1
    ) + [1]
    consumers = {c.consumer: c for c in status.consumers}
    ghost = consumers["ghost"]
    assert (ghost.pending, ghost.heartbeat_age_ms, ghost.partitions) == (1, None, [])
    assert ghost.departed, "no member beat, no heartbeat: departed"
    await stopped_workers_depart(client)


async def stopped_workers_depart(client: Redis) -> None:
    """The cleanly stopped workers: no member any more, still named by the heartbeats set,
    holding nothing, and departed at once: a clean stop takes its heartbeat key with it
    instead of leaving it live until its TTL runs out."""
    status = await fleet_status(client, PARTITIONS, GROUP, live_ms=LEASE_MS)
    consumers = {c.consumer: c for c in status.consumers}
    for name in ("w-a", "w-b"):
        assert (consumers[name].partitions, consumers[name].pending) == ([], 0)
        assert consumers[name].heartbeat_age_ms is None
        assert consumers[name].departed, name
        assert not await client.exists(heartbeat_key(name))
    named: Any = await client.zrange(heartbeats_key(), 0, -1)
    assert {b"w-a", b"w-b"} <= set(named), "listed as departed for a minute more"


async def test_status_without_workers_or_streams_is_empty_not_an_error(client: Redis) -> None:
    """A fresh Redis: every partition listed with zeros, no consumers."""
    status = await fleet_status(client, 2, GROUP, live_ms=LEASE_MS)
    assert [(r.partition, r.owner, r.lag, r.pending, r.parked_gaps) for r in status.partitions] == [
        (0, None, 0, 0, 0),
        (1, None, 0, 0, 0),
    ]
    assert status.consumers == []


async def test_status_shows_events_held_for_replicas_and_short_waits(
    client: Redis, redis_url: str
) -> None:
    """With the durability setting, a partition's events held in `outbox:{p}` (not yet
    on a replica) and the WAITs that came back short are shown, in the table and JSON:
    the first thing an operator asks when lag grows on a replicated deployment."""
    await client.xadd(outbox_stream(2), {"t": "e", "__data__": "{}"})
    await client.hincrby(stats_key(2), SHORT_WAITS, 3)
    status = await fleet_status(client, PARTITIONS, GROUP, live_ms=LEASE_MS)
    assert [(row.held, row.short_waits) for row in status.partitions] == [
        (0, 0), (0, 0), (1, 3), (0, 0)
    ]  # fmt: skip
    shown = accord_status(redis_url)
    assert shown.returncode == 0, shown.stderr
    assert "1 (3 short waits)" in shown.stdout
    rows = json.loads(accord_status(redis_url, "--json").stdout)["partitions"]
    (row,) = [r for r in rows if r["partition"] == 2]
    assert (row["held"], row["short_waits"]) == (1, 3)
