"""The console's records page on a real Redis: records across partitions from the records
index, newest change first, filtered, paged by cursor links that keep the filters, each
row linked to its record and scope, stored text escaped; bad filters a clear 400."""

from __future__ import annotations

import html
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
import redis.asyncio
from accord_harness.store_harness import chat

from contracts.outputs import StateChanged
from store.config import StoreConfig
from store.processor import PartitionProcessor
from tests.support.console_kit import console_get, links
from tests.support.worker_kit import gateway_xadd, next_millisecond, process_new
from worker.console.server import Access, Console
from worker.engine import Engine
from worker.settings import Settings

pytestmark = [pytest.mark.redis]

HOSTILE = "<b>bold</b> & <i>x</i>"
# In a code span: shown as written, so kept in the terms (bare tags are markup a chat
# client renders, which the recognizer leaves out of the terms).
PROPOSE = f"Let's agree: we write `{HOSTILE}` in every summary."
AGENT, OTHER = "agent-<x>", "agent-2"


@pytest_asyncio.fixture
async def console(client: redis.asyncio.Redis, redis_url: str) -> AsyncIterator[Console]:  # noqa: ARG001  (client flushes first)
    settings = Settings(redis_url=redis_url).replaced(partitions=1)
    console = Console(settings, Access(None))
    yield console
    await console.close()


async def send(client: redis.asyncio.Redis, *documents: Any) -> list[str]:
    """Apply `documents` on partition 0; the ids of the records they changed."""
    processor = PartitionProcessor(client, 0, Engine(), StoreConfig())
    for document in documents:
        await gateway_xadd(client, document)
    events = await process_new(client, processor, "c")
    await next_millisecond(client)  # the next commit lists after this one, not tied
    return [e.record_id for e in events if isinstance(e, StateChanged)]


async def three_records(client: redis.asyncio.Redis) -> list[str]:
    """A cancelled record, then a proposal of another agent, then one more of the first
    agent: oldest change first."""
    first = await send(client, chat((AGENT, "u"), "s", 1, PROPOSE))
    await send(client, chat((AGENT, "u"), "s", 2, "Cancel this agreement."))
    second = await send(client, chat((OTHER, "u"), "s", 1, "Let's agree: reply in English."))
    third = await send(client, chat((AGENT, "u"), "s", 3, PROPOSE))
    return [*first, *second, *third]


def listed(body: str) -> list[str]:
    return [q["id"] for q in links(body, "/record")]


@pytest.mark.asyncio
async def test_the_records_page_lists_newest_first_linking_each_record_and_scope(
    client: redis.asyncio.Redis, console: Console
) -> None:
    """Every record, newest change first; each row links to its record page and its
    scope; hostile terms and ids are text, never markup."""
    cancelled, other, newest = await three_records(client)
    status, body = await console_get(console, "/records")
    assert status == 200
    assert listed(body) == [newest, other, cancelled]
    scopes = links(body, "/scope")
    assert [(q["agent"], q["user"]) for q in scopes] == [(AGENT, "u"), (OTHER, "u"), (AGENT, "u")]
    assert "<b>bold" not in body
    assert html.escape(HOSTILE) in body
    assert "agent-&lt;x&gt;" in body
    assert "no more records" in body


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("state=cancelled", [0]),
        ("state=proposed", [2, 1]),
        ("state=fulfilled", []),
        ("agent=agent-2", [1]),
        ("agent=agent-%3Cx%3E&user=u", [2, 0]),
        ("since=1h", [2, 1, 0]),
        ("until=2000-01-01T00:00:00Z", []),
    ],
)
async def test_filters_narrow_the_list(
    client: redis.asyncio.Redis, console: Console, query: str, expected: list[int]
) -> None:
    """State, scope and time filters show exactly the records they select."""
    made = await three_records(client)
    status, body = await console_get(console, "/records", query)
    assert status == 200
    assert listed(body) == [made[i] for i in expected]


@pytest.mark.asyncio
async def test_paging_follows_next_links_that_keep_the_filters(
    client: redis.asyncio.Redis, console: Console
) -> None:
    """One row a page: each page's next link carries a cursor and the filters, and
    following them lists the agent's records once each, newest first, then stops; a
    prefix filter finds one record by the start of its id."""
    cancelled, _, newest = await three_records(client)
    query, seen = f"agent={AGENT}&limit=1", []
    for _ in range(5):
        status, body = await console_get(console, "/records", query)
        assert status == 200
        seen += listed(body)
        following = [q for q in links(body, "/records") if "cursor" in q]
        nexts = [q for q in following if q["cursor"] and "next page" in body]
        if "no more records" in body:
            break
        step = nexts[-1]
        assert (step["agent"], step["limit"]) == (AGENT, "1")
        query = "&".join(f"{k}={v}" for k, v in step.items() if k != "agent") + "&agent=" + AGENT
    assert seen == [newest, cancelled]
    status, body = await console_get(console, "/records", f"prefix={newest[:14]}")
    assert listed(body) == [newest]


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("query", "said"),
    [
        ("since=yesterday", "since: not a time"),
        ("state=lost", "state: no state"),
        ("limit=0", "limit: a number of rows"),
        ("cursor=bogus", "not a cursor"),
    ],
)
async def test_a_bad_filter_is_a_400_that_says_which(
    console: Console, query: str, said: str
) -> None:
    """A filter the page cannot use answers 400 with the form and one error line."""
    status, body = await console_get(console, "/records", query)
    assert status == 400
    assert said in html.unescape(body)
    assert "id=filters" in body


@pytest.mark.asyncio
async def test_the_record_page_facts_table_has_no_empty_header_row(
    client: redis.asyncio.Redis, console: Console
) -> None:
    """The record's facts are a table of named rows, with no header row of empty cells."""
    record_id = (await send(client, chat((AGENT, "u"), "s", 1, PROPOSE)))[0]
    status, body = await console_get(console, "/record", f"id={record_id}")
    assert status == 200
    facts = body.split("<table", 2)[1]
    assert "<th" not in facts.split("</table>")[0]
    assert "<th></th>" not in body
