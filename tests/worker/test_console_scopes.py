"""The console's scopes page on a real Redis: scopes across partitions from the scopes
index, newest change of their records first, filtered, paged by cursor links that keep
the filters, each row linked to its scope and its records, ids escaped; auto-refresh on
request that keeps the page's cursor; bad filters a clear 400; nothing but GET and HEAD.
"""

from __future__ import annotations

import html
import re
from collections.abc import AsyncIterator, MutableMapping
from typing import Any

import pytest
import pytest_asyncio
import redis.asyncio
from accord_harness.store_harness import chat, conversation

from store.config import StoreConfig
from store.processor import PartitionProcessor
from tests.support.console_kit import console_get, links
from tests.support.worker_kit import gateway_xadd, next_millisecond, process_new
from worker.console.server import Access, Console, Page
from worker.engine import Engine
from worker.settings import Settings

pytestmark = [pytest.mark.redis]

AGENT, OTHER = "agent-<x>", "agent-2"
PROPOSE = "Let's agree: reply in English."


@pytest_asyncio.fixture
async def console(client: redis.asyncio.Redis, redis_url: str) -> AsyncIterator[Console]:  # noqa: ARG001  (client flushes first)
    settings = Settings(redis_url=redis_url).replaced(partitions=1)
    console = Console(settings, Access(None))
    yield console
    await console.close()


async def send(client: redis.asyncio.Redis, *documents: Any) -> None:
    processor = PartitionProcessor(client, 0, Engine(), StoreConfig())
    for document in documents:
        await gateway_xadd(client, document)
    await process_new(client, processor, "c")
    await next_millisecond(client)


async def three_scopes(client: redis.asyncio.Redis) -> list[tuple[str, str]]:
    """An open agreement (R4), then a scope that only chats, then a cancelled proposal
    (R8), then a proposal waiting: the listed scopes, newest change first."""
    await send(client, *conversation((AGENT, "u1"), "s"))
    await send(client, chat((AGENT, "chatty"), "s", 1, "How is the weather?"))
    await send(client, chat((OTHER, "u2"), "s", 1, PROPOSE))
    await send(client, chat((OTHER, "u2"), "s", 2, "Cancel this agreement."))
    await send(client, chat((AGENT, "u3"), "s", 1, PROPOSE))
    return [(AGENT, "u3"), (OTHER, "u2"), (AGENT, "u1")]


def listed(body: str) -> list[tuple[str, str]]:
    return [(q["agent"], q["user"]) for q in links(body, "/scope")]


@pytest.mark.asyncio
async def test_the_scopes_page_lists_newest_first_linking_each_scope_and_its_records(
    client: redis.asyncio.Redis, console: Console
) -> None:
    """Every scope with a record, newest change first (one that only chats is none);
    each row links to its scope page and to the records page filtered to it, shows what
    its view holds, and an id with markup is text, never markup."""
    made = await three_scopes(client)
    status, body = await console_get(console, "/scopes")
    assert status == 200
    assert listed(body) == made
    records = [(q["agent"], q["user"]) for q in links(body, "/records") if "agent" in q]
    assert records == made
    assert "agent-&lt;x&gt;" in body
    assert "<x>" not in body
    assert "no more scopes" in body
    rows = re.findall(r"<tr>(.*?)</tr>", body)[1:]
    assert [re.findall(r"<td>(\d+)</td>", row)[1:] for row in rows] == [
        ["0", "1"],  # u3: a proposal waiting
        ["0", "0"],  # u2: cancelled
        ["1", "0"],  # u1: open
    ]


# Alike the records page's filter table on purpose (CONTRIBUTING.md, "Repeated shapes").
@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("open=1", [2]),
        ("agent=agent-2", [1]),
        ("agent=agent-%3Cx%3E&user=u1", [2]),
        ("user=u3", [0]),
        ("since=1h", [0, 1, 2]),
        ("until=2000-01-01T00:00:00Z", []),
    ],
)
async def test_filters_narrow_the_list(
    client: redis.asyncio.Redis, console: Console, query: str, expected: list[int]
) -> None:
    """Open-agreement, agent, user and time filters show exactly the scopes they select."""
    made = await three_scopes(client)
    status, body = await console_get(console, "/scopes", query)
    assert status == 200
    assert listed(body) == [made[i] for i in expected]


@pytest.mark.asyncio
async def test_paging_and_auto_refresh_keep_the_filters_and_the_cursor(
    client: redis.asyncio.Redis, console: Console
) -> None:
    """One row a page with auto-refresh on: each page refreshes itself (the same URL, so
    the same cursor), its next link carries the cursor, the filter and the refresh, and
    following them lists the agent's scopes once each, then stops. Without `refresh` no
    page reloads itself, and the offered choices turn it on for this very page."""
    made = await three_scopes(client)
    query, seen = f"agent={AGENT}&limit=1&refresh=5", []
    for _ in range(5):
        status, body = await console_get(console, "/scopes", query)
        assert status == 200
        assert '<meta http-equiv=refresh content="5">' in body
        seen += listed(body)
        if "no more scopes" in body:
            break
        step = next(q for q in links(body, "/scopes") if q.get("cursor"))
        assert (step["agent"], step["limit"], step["refresh"]) == (AGENT, "1", "5")
        query = "&".join(f"{k}={v}" for k, v in step.items() if k != "agent") + "&agent=" + AGENT
    assert seen == [s for s in made if s[0] == AGENT]
    status, body = await console_get(console, "/scopes", "limit=1")
    assert "http-equiv=refresh" not in body
    offered = [q for q in links(body, "/scopes") if "refresh" in q]
    assert [q["refresh"] for q in offered] == ["5", "30"]
    assert all(q["limit"] == "1" for q in offered)


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("route", "query", "said"),
    [
        ("/scopes", "since=yesterday", "since: not a time"),
        ("/scopes", "limit=0", "limit: a number of rows"),
        ("/scopes", "cursor=bogus", "not a cursor"),
        ("/scopes", "state=open", "state: not a filter of this page"),
        ("/records", "open=1", "open: not a filter of this page"),
        ("/scopes", "refresh=0", "refresh: a number of seconds"),
        ("/partitions", "refresh=soon", "refresh: a number of seconds"),
    ],
)
async def test_a_bad_filter_is_a_400_that_says_which(
    console: Console, route: str, query: str, said: str
) -> None:
    """A filter the page cannot use, or does not have, answers 400 with one error line."""
    status, body = await console_get(console, route, query)
    assert status == 400
    assert said in html.unescape(body)
    assert "Traceback" not in body


async def every_key(client: redis.asyncio.Redis) -> dict[bytes, bytes | None]:
    names: Any = await client.keys("*")
    return {name: await client.dump(name) for name in sorted(names)}


@pytest.mark.asyncio
async def test_the_list_pages_answer_no_write_method_and_change_no_key(
    client: redis.asyncio.Redis, console: Console
) -> None:
    """POST, PUT, PATCH and DELETE on every list page answer 405 and change no key."""
    await three_scopes(client)
    before = await every_key(client)
    for route in ("/scopes", "/records", "/partitions", "/dead-letters"):
        page = Page(console, getattr(console, route.strip("/").replace("-", "_")))
        for method in ("POST", "PUT", "PATCH", "DELETE"):
            sent: list[MutableMapping[str, Any]] = []

            async def receive() -> MutableMapping[str, Any]:
                return {"type": "http.request", "body": b"open=1", "more_body": False}

            async def send_(message: MutableMapping[str, Any], into: Any = sent) -> None:
                into.append(message)

            scope: dict[str, Any] = {"type": "http", "method": method, "path": route,
                                     "headers": [], "query_string": b"refresh=5"}  # fmt: skip
            await page(scope, receive, send_)
            assert sent[0]["status"] == 405, (route, method)
    assert await every_key(client) == before
