"""Serving one console page in this process, as `accord console` would (its ASGI route,
GET), for tests of what a page answers without a browser."""

from __future__ import annotations

import html
import re
from collections.abc import MutableMapping
from typing import Any
from urllib.parse import parse_qs, urlsplit

from worker.console.server import Console, Page


async def console_get(console: Console, route: str, query: str = "") -> tuple[int, str]:
    """(status, body) of one console page."""
    page = Page(console, getattr(console, route.strip("/").replace("-", "_") or "home"))
    sent: list[MutableMapping[str, Any]] = []

    async def receive() -> MutableMapping[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "GET", "path": route, "headers": [],
             "query_string": query.encode()}  # fmt: skip
    await page(scope, receive, send)
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return int(sent[0]["status"]), body.decode()


def links(body: str, path: str) -> list[dict[str, str]]:
    """The query of every link to `path` on the page, in order."""
    found = []
    for href in re.findall(r'href="([^"]*)"', body):
        target = urlsplit(html.unescape(href))
        if target.path == path:
            found.append({k: v[-1] for k, v in parse_qs(target.query).items()})
    return found
