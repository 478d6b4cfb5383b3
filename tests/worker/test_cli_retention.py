"""Retention as an operator meets it: `accord trim` per partition, dry run first, clear
refusals; `history` and `explain` of a record removed by the record retention.

The streams are written and read with plain redis-py (the group acks what it read, as
the worker's commit does); the commands run in this process (tests/support/cli_kit.py)
and once as a subprocess, as a shell runs it.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest
import redis
import redis.asyncio
from accord_harness.reading import read_new
from accord_harness.store_harness import chat

from contracts.outputs import StateChanged
from contracts.streams import GROUP
from store import keys
from store.config import StoreConfig
from store.intake import ensure_groups
from store.processor import PartitionProcessor
from tests.support.cli_kit import accord_here, accord_process, command_env
from worker.engine import Engine

pytestmark = [pytest.mark.redis, pytest.mark.timeout(120)]


def applied(client: redis.Redis, stream: str, count: int) -> None:
    """`count` entries written to `stream`, read by accord's group and acked."""
    client.xgroup_create(stream, GROUP, id="0", mkstream=True)
    for n in range(count):
        client.xadd(stream, {"__data__": json.dumps({"n": n})})
    read: Any = client.xreadgroup(GROUP, "c", {stream: ">"})
    client.xack(stream, GROUP, *[entry_id for entry_id, _ in read[0][1]])


def lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_a_dry_run_counts_per_partition_and_the_trim_removes_that(
    redis_client: redis.Redis, redis_url: str
) -> None:
    """R15: `--dry-run --json` prints one document per partition with what would go and
    removes nothing; `accord trim` then removes exactly that, printing each partition."""
    applied(redis_client, "chat-turn:{0}", 5)
    applied(redis_client, "chat-turn:{1}", 3)
    env = command_env(redis_url, ACCORD_PARTITIONS="2")
    dry = accord_here("trim", "--dry-run", "--json", env=env)
    assert dry.returncode == 0, dry.stderr
    found = lines(dry.stdout)
    assert [d["partition"] for d in found] == [0, 1]
    removed = {t["stream"]: t["removed"] for d in found for t in d["streams"]}
    assert removed["chat-turn:{0}"] == 5
    assert removed["chat-turn:{1}"] == 3
    assert removed["tool-call:{0}"] == 0
    assert all(d["dry_run"] for d in found)
    assert redis_client.xlen("chat-turn:{0}") == 5
    done = accord_here("trim", env=env)
    assert done.returncode == 0, done.stderr
    shown = done.stdout.splitlines()
    assert shown[0].startswith("partition 0: chat-turn:{0} removed 5")
    assert shown[1].startswith("partition 1: chat-turn:{1} removed 3")
    assert "tool-call:{1} nothing applied yet" in shown[1]
    assert redis_client.xlen("chat-turn:{0}") == 0
    assert redis_client.xlen("chat-turn:{1}") == 0


def test_a_partition_that_cannot_be_trimmed_is_reported_and_the_others_are_trimmed(
    redis_client: redis.Redis, redis_url: str
) -> None:
    """Partition 1's input stream is a key of another type: its line says it failed
    (exit 1), partition 0 is trimmed all the same."""
    applied(redis_client, "chat-turn:{0}", 4)
    redis_client.set("chat-turn:{1}", b"not a stream")
    done = accord_here("trim", "--json", env=command_env(redis_url, ACCORD_PARTITIONS="2"))
    assert done.returncode == 1, done.stderr
    first, second = lines(done.stdout)
    assert {t["stream"]: t["removed"] for t in first["streams"]}["chat-turn:{0}"] == 4
    assert second["partition"] == 1
    assert "WRONGTYPE" in second["error"]
    assert redis_client.xlen("chat-turn:{0}") == 0


def test_a_user_that_may_not_trim_gets_one_line_and_exit_2(
    redis_client: redis.Redis, redis_url: str
) -> None:
    """A Redis user without XTRIM is told what the command needs; nothing is removed."""
    applied(redis_client, "chat-turn:{0}", 2)
    redis_client.acl_setuser(
        "notrim", enabled=True, passwords=["+pw"], keys=["*"], commands=["+@all", "-xtrim"]
    )
    parts = urlsplit(redis_url)
    url = urlunsplit(parts._replace(netloc=f"notrim:pw@{parts.netloc.rpartition('@')[2]}"))
    try:
        done = accord_process("trim", env=command_env(url))
    finally:
        redis_client.acl_deluser("notrim")
    assert done.returncode == 2, done.stdout
    assert "may not trim" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert redis_client.xlen("chat-turn:{0}") == 2


async def _cancelled_record(url: str, retention_ms: int) -> str:
    """A proposal then its cancellation, committed with the record retention on."""
    client = redis.asyncio.Redis.from_url(url)
    try:
        await ensure_groups(client, (0,), GROUP)
        processor = PartitionProcessor(
            client, 0, Engine(), StoreConfig(record_retention_ms=retention_ms)
        )
        scope = ("agent", "user")
        for seq, text in ((1, "Let's agree: use metric units."), (2, "Cancel this agreement.")):
            await client.xadd(
                "chat-turn:{0}", {"__data__": json.dumps(chat(scope, "s", seq, text))}
            )
        report = await processor.process(await read_new(client, 0, GROUP, "c"))
        return next(e.record_id for e in report.events if isinstance(e, StateChanged))
    finally:
        await client.aclose()


def test_history_and_explain_of_a_retained_out_record_say_so(
    redis_client: redis.Redis, redis_url: str
) -> None:
    """R16: a closed record removed by ACCORD_RECORD_RETENTION_MS is not an error of the
    tool: `history` and `explain` exit 1 with one line saying it may have been retained
    out; without the setting the line is the plain miss."""
    record = asyncio.run(_cancelled_record(redis_url, 200))
    deadline = time.monotonic() + 30
    while redis_client.exists(keys.record_key(0, record)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not redis_client.exists(keys.record_key(0, record))
    env = command_env(redis_url, ACCORD_RECORD_RETENTION_MS="200")
    for command in ("history", "explain"):
        done = accord_here(command, record, env=env)
        assert done.returncode == 1, done.stdout
        assert "retained out" in done.stderr
        assert "ACCORD_RECORD_RETENTION_MS" in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1
    plain = accord_here("history", record, env=command_env(redis_url))
    assert plain.returncode == 1
    assert "retained out" not in plain.stderr
