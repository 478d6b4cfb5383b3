"""Dead letters: bad input never stops the worker, is kept with its reason and fields,
and can be re-queued (DESIGN section 3, "Pending reclaim and poison input")."""

from __future__ import annotations

import json
from typing import Any

import pytest
import redis.asyncio
from accord_harness.reading import read_new
from accord_harness.store_harness import chat, xadd

from contracts.outputs import DeadLetterReason
from contracts.partition import partition_of
from contracts.streams import GROUP
from store import keys
from store.config import StoreConfig
from store.dead_letters import RequeueError, list_dead_letters, requeue
from store.intake import reclaim_pending
from store.processor import PartitionProcessor
from tests.support.fake_core import FakeCore

SCOPE = ("agent", "user")


# The consumer group on these partitions (tests/store/conftest.py makes it).
GROUP_PARTITIONS = (0, 1)


def store(client: redis.asyncio.Redis, **config: Any) -> PartitionProcessor[Any, Any]:
    return PartitionProcessor(client, 0, FakeCore(), StoreConfig(**config))


async def pending(client: redis.asyncio.Redis, stream: str = "chat-turn:{0}") -> int:
    summary: Any = await client.xpending(stream, GROUP)
    return int(summary["pending"])


@pytest.mark.redis
@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"__data__": "{not json"}, DeadLetterReason.UNDECODABLE),
        ({"other": "x"}, DeadLetterReason.UNDECODABLE),
        (
            {"__data__": json.dumps({**chat(SCOPE, "s", 1, "hi"), "seq": 0})},
            DeadLetterReason.CONTRACT_VIOLATION,
        ),
        ({"__data__": json.dumps(chat(SCOPE, "s", 1, "x" * 70_000))}, DeadLetterReason.OVERSIZE),
    ],
)
async def test_bad_entries_become_dead_letters_with_reason_and_fields(
    client: redis.asyncio.Redis, fields: dict[str, str], reason: DeadLetterReason
) -> None:
    """An entry that cannot be applied is acked and kept, with its reason and fields (text
    kept because this store is configured to keep it)."""
    await client.xadd("chat-turn:{0}", fields)  # type: ignore[arg-type]
    report = await store(client, dead_letter_keep_text=True).process(
        await read_new(client, 0, GROUP, "c")
    )
    assert report.outcomes["dead_letter"] == 1
    assert await pending(client) == 0
    [(_, letter)] = await list_dead_letters(client, 0)
    assert letter.reason is reason
    assert letter.fields == fields
    assert letter.delivery_count == 1


@pytest.mark.redis
@pytest.mark.asyncio
async def test_an_entry_of_another_partition_is_a_dead_letter(client: redis.asyncio.Redis) -> None:
    """A scope hashing to partition 1 written to partition 0's stream is refused."""
    scope = next((f"a{i}", "u") for i in range(100) if partition_of(f"a{i}", "u", 2) == 1)
    await client.xadd("chat-turn:{0}", {"__data__": json.dumps(chat(scope, "s", 1, "hi"))})
    report = await store(client, partitions=2).process(await read_new(client, 0, GROUP, "c"))
    assert report.outcomes["dead_letter"] == 1
    [(_, letter)] = await list_dead_letters(client, 0)
    assert letter.reason is DeadLetterReason.WRONG_PARTITION


@pytest.mark.redis
@pytest.mark.asyncio
async def test_an_entry_past_the_delivery_limit_is_dead_lettered_once(
    client: redis.asyncio.Redis,
) -> None:
    """Reclaimed past the limit, with no tries alone allowed: dead letter with the
    delivery count, written once (the tries alone: tests/store/test_store_suspects.py)."""
    await xadd(client, chat(SCOPE, "s", 1, "hi"), 1)
    await read_new(client, 0, GROUP, "c1")  # c1 dies without processing
    entries = []
    for _ in range(3):
        entries = (await reclaim_pending(client, 0, GROUP, "c2", min_idle_ms=0)).entries
    assert entries[0].delivery_count == 4
    processor = store(client, delivery_limit=3, suspect_attempts=0)
    await processor.process(entries)
    await processor.process(entries)  # the same delivery handled twice
    letters = await list_dead_letters(client, 0)
    assert [letter.reason for _, letter in letters] == [DeadLetterReason.DELIVERY_LIMIT]
    assert letters[0][1].delivery_count == 4
    assert await pending(client) == 0
    stats: Any = await client.hgetall(keys.stats_key(0))
    assert stats[b"dead_letters"] == b"1"
    assert await client.exists(keys.suspects_key(0)) == 0, "nothing left behind"


@pytest.mark.redis
@pytest.mark.asyncio
async def test_requeue_replays_the_original_fields_once(client: redis.asyncio.Redis) -> None:
    """A re-queued letter goes back to its stream as it came and leaves the dead letters."""
    await xadd(client, chat(SCOPE, "s", 1, "hi"), 1)
    processor = store(client, delivery_limit=0, suspect_attempts=0, dead_letter_keep_text=True)
    await processor.process(await read_new(client, 0, GROUP, "c"))
    [(letter_id, letter)] = await list_dead_letters(client, 0)
    new_id = await requeue(client, 0, letter_id)
    assert new_id is not None
    assert await requeue(client, 0, letter_id) is None, "a letter is re-queued once"
    assert await list_dead_letters(client, 0) == []
    replayed: Any = await client.xrange("chat-turn:{0}", new_id, new_id)
    assert {k.decode(): v.decode() for k, v in replayed[0][1].items()} == letter.fields
    report = await store(client).process(await read_new(client, 0, GROUP, "c"))
    assert report.outcomes["applied"] == 1


@pytest.mark.redis
@pytest.mark.asyncio
async def test_redacted_letters_keep_no_text_and_are_not_requeued(
    client: redis.asyncio.Redis,
) -> None:
    """By default (dead_letter_keep_text off, as the worker's setting), chat text is
    replaced by its size: a store keeps user text only where configured to."""
    assert StoreConfig().dead_letter_keep_text is False
    await xadd(client, chat(SCOPE, "s", 1, "secret words"), 1)
    await store(client, delivery_limit=0, suspect_attempts=0).process(
        await read_new(client, 0, GROUP, "c")
    )
    [(letter_id, letter)] = await list_dead_letters(client, 0)
    assert "secret" not in letter.fields["__data__"]
    assert json.loads(letter.fields["__data__"])["seq"] == 1, "metadata is kept"
    with pytest.raises(RequeueError):
        await requeue(client, 0, letter_id)
    assert await client.xlen(keys.dead_letters_stream(0)) == 1
