"""The console's dead-letters page on a real Redis: letters of every partition newest
first, filtered by reason and partition, each linked to its scope where its input names
one; stored text escaped; a bad filter a clear 400."""

from __future__ import annotations

import html
import json
import re
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import msgspec
import pytest
import pytest_asyncio
import redis.asyncio

from contracts.outputs import DeadLetter, DeadLetterReason
from contracts.streams import DATA_FIELD
from store import keys
from tests.support.console_kit import console_get
from worker.console.server import Access, Console
from worker.settings import Settings

pytestmark = [pytest.mark.redis, pytest.mark.asyncio]

GROUP_PARTITIONS = (0, 1)


def letter(entry_id: str, reason: DeadLetterReason, data: str, minute: int) -> DeadLetter:
    return DeadLetter(
        event_id=f"dlq:chat-turn:{entry_id}", stream="chat-turn:{0}", entry_id=entry_id,
        reason=reason, detail="<b>why</b>", delivery_count=1,
        at=datetime(2026, 3, 2, 10, minute, tzinfo=UTC), fields={DATA_FIELD: data},
    )  # fmt: skip


@pytest_asyncio.fixture
async def console(client: redis.asyncio.Redis, redis_url: str) -> AsyncIterator[Console]:
    """Three letters: two in partition 0 (one names its scope), one in partition 1."""
    named = json.dumps({"type": "chat_turn", "agent_id": "a<1>", "user_id": "u", "seq": 0})
    for partition, found in [
        (0, letter("1-1", DeadLetterReason.CONTRACT_VIOLATION, named, 1)),
        (0, letter("2-1", DeadLetterReason.UNDECODABLE, "{not json", 2)),
        (1, letter("3-1", DeadLetterReason.UNDECODABLE, "[]", 3)),
    ]:
        stream = keys.dead_letters_stream(partition)
        await client.xadd(stream, {DATA_FIELD: msgspec.json.encode(found)})
    console = Console(Settings(redis_url=redis_url).replaced(partitions=2), Access(None))
    yield console
    await console.close()


def shown(body: str) -> list[str]:
    """The entry ids of the letters' inputs on the page, in order."""
    return re.findall(r"<td>chat-turn:\{0\} (\d+-\d+)</td>", body)


async def test_every_letter_newest_first_with_its_scope_linked_where_known(
    console: Console,
) -> None:
    """All partitions, newest first; counts by reason link to their letters; the letter
    whose input names agent and user links to that scope, escaped; others show none."""
    status, body = await console_get(console, "/dead-letters")
    assert status == 200
    assert shown(body) == ["3-1", "2-1", "1-1"]
    targets = [html.unescape(h) for h in re.findall(r'href="([^"]*)"', body)]
    assert [t for t in targets if t.startswith("/scope?")] == [
        "/scope?agent=a%3C1%3E&user=u&tz=UTC"
    ]
    assert "/dead-letters?reason=undecodable&tz=UTC" in targets
    assert "a&lt;1&gt; / u" in body
    assert "<b>why</b>" not in body


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("", 3),
        ("reason=undecodable", 2),
        ("reason=contract_violation", 1),
        ("partition=1", 1),
        ("reason=undecodable&partition=0", 1),
        ("reason=oversize", 0),
    ],
)
async def test_filters_by_reason_and_partition(console: Console, query: str, expected: int) -> None:
    """Reason and partition each narrow the letters to exactly those they name."""
    status, body = await console_get(console, "/dead-letters", query)
    assert status == 200
    assert len(shown(body)) == expected


@pytest.mark.parametrize(
    ("query", "said"),
    [("reason=lost", "reason: no reason 'lost'"), ("partition=2", "partition: a number")],
)
async def test_a_bad_filter_is_a_400_that_says_which(
    console: Console, query: str, said: str
) -> None:
    """An unknown reason or a partition the deployment lacks: 400, one line saying which."""
    status, body = await console_get(console, "/dead-letters", query)
    assert status == 400
    assert said in html.unescape(body)
