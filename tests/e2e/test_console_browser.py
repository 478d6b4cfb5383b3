"""`accord console` in a real browser: headless Chromium (Debian's package) via Playwright.

One scope holds a record in every state (pending, open, fulfilled, cancelled, expired),
made by the bundled transcripts through a real worker; the console runs as the
`accord console` command would, and each page is opened, read and photographed.
Set ACCORD_SCREENSHOTS=DIR to keep the screenshots (docs/images/ holds the committed ones).
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import redis
import redis.asyncio

from contracts.streams import DATA_FIELD, stream_name
from tests.support.cli_kit import accord_here
from tests.support.paths import ROOT
from tests.support.worker_kit import worker_env, worker_processes
from worker.gateway import Gateway, load_transcript, rebase

pytestmark = [pytest.mark.redis, pytest.mark.slow, pytest.mark.timeout(300)]

CHROMIUM = "/usr/bin/chromium"
# Flags that work in a container with no display, no GPU and no network of its own.
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
AGENT, USER = "demo-agent", "console-user"
# Two more scopes of the agent, changed before the first: one cancelled its agreement,
# one only chats (no record, so no scope of the scopes list).
OTHER_USER, CHATTY_USER = "console-user-2", "console-user-3"
EARLIER = (("05-cancel.en.jsonl", OTHER_USER), ("03-not-an-agreement.en.jsonl", CHATTY_USER))
TRANSCRIPTS = ROOT / "worker" / "transcripts"
# (transcript, lines to take): what each contributes to the one scope.
SOURCES = (
    # First: "Cancel this agreement" must name the one open agreement of the scope.
    ("05-cancel.en.jsonl", None),  # cancelled
    ("02-user-accepts-first.en.jsonl", None),  # open
    ("06-deadline.en.jsonl", None),  # expired (and a later proposal)
    ("07-todo-delivery.en.jsonl", None),  # fulfilled
    ("01-propose-and-accept.en.jsonl", 1),  # proposed, nobody accepted yet
    ("01-propose-and-accept.zh.jsonl", 1),  # proposed in Chinese
)
# Part of the Chinese proposal's terms, and the font file Debian's fonts-noto-cjk ships.
CHINESE = "先说结论"
CJK_FONT = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"
HOSTILE = "<b>bold</b> & <i>x</i>"


async def _replay(url: str) -> None:
    client = redis.asyncio.Redis.from_url(url)
    try:
        gateway = Gateway(client, 1, timeout_s=120)
        await gateway.mark_start()
        start = datetime.now(UTC).replace(microsecond=0)
        for name, user in EARLIER:
            lines = [{**line, "user_id": user} for line in load_transcript(TRANSCRIPTS / name)]
            await gateway.replay(rebase(lines, start))
        await gateway.wait_processed()
        for name, take in SOURCES:
            lines = [{**line, "user_id": USER} for line in load_transcript(TRANSCRIPTS / name)]
            await gateway.replay(rebase(lines[:take], start))
        hostile = {
            "type": "chat_turn", "agent_id": AGENT, "user_id": USER, "session_id": "hostile",
            "seq": 1, "ts": start.isoformat(), "role": "user", "message_id": "m-hostile-1",
            # In a code span: markup outside code is not what the user sees and never
            # enters the terms (docs/security.md, "Hidden markup"); code keeps it as typed.
            "text": f"Let's agree: we write `{HOSTILE}` in every summary.",
        }  # fmt: skip
        await gateway.replay([hostile])
        await gateway.wait_processed()
        bad = {"type": "chat_turn", "agent_id": AGENT, "user_id": USER, "seq": 0}
        await client.xadd(stream_name("chat-turn", 0), {DATA_FIELD: json.dumps(bad)})
    finally:
        await client.aclose()


@pytest.fixture(scope="module")
def console_url(redis_url: str) -> Iterator[str]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} missing: ./dev test installs Debian's chromium package")
    client = redis.Redis.from_url(redis_url)
    client.flushall()
    with worker_processes(1, worker_env(redis_url)):
        asyncio.run(_replay(redis_url))
        # The worker dead-letters the bad entry: poll for it (a bare loop spun a core).
        deadline = time.monotonic() + 90
        while not client.xlen(stream_name("dead-letters", 0)):
            assert time.monotonic() < deadline, "the bad entry was not dead-lettered in 90 s"
            time.sleep(0.05)
        client.close()
        env = {**worker_env(redis_url), "ACCORD_CONSOLE_TOKEN": ""}
        process = subprocess.Popen(
            [sys.executable, "-c", "from worker.cli import main; main()", "console", "--port", "0"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert process.stdout is not None
            first = process.stdout.readline()
            assert first.startswith("accord console on http://127.0.0.1:"), first
            yield first.split()[3]
        finally:
            process.terminate()
            process.wait(timeout=60)
            if process.stdout is not None:
                process.stdout.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright  # noqa: PLC0415  (heavy; this module only)

    profile = tempfile.mkdtemp(prefix="accord-chromium-")
    try:
        with sync_playwright() as playwright:
            context = playwright.chromium.launch_persistent_context(
                profile,
                executable_path=CHROMIUM,
                headless=True,
                args=CHROMIUM_ARGS,
                viewport={"width": 1280, "height": 900},
            )
            yield context
            context.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def photograph(page: Any, name: str) -> bytes:
    """A full-page PNG of a page that rendered: a real image, wide, not one flat colour."""
    shot: bytes = page.screenshot(full_page=True)
    assert shot[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", shot[16:24])
    assert (width, height >= 200) == (1280, True)
    assert len(shot) > 8_000, "a blank page compresses to almost nothing"
    keep = os.environ.get("ACCORD_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        Path(keep, f"console-{name}.png").write_bytes(shot)
    return shot


def visit(browser: Any, url: str) -> Any:
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: errors.append(message.text))
    response = page.goto(url)
    assert response is not None
    assert response.status == 200, page.content()
    assert errors == [], errors  # no script error, no blocked resource
    return page


def test_scope_page_shows_a_record_in_every_state(console_url: str, browser: Any) -> None:
    """Search by agent and user; current, pending per session and closed records (R6)."""
    page = visit(browser, console_url)
    page.fill("input[name=agent]", AGENT)
    page.fill("input[name=user]", USER)
    page.click("#search button")
    page.wait_for_load_state()
    body = page.inner_text("main")
    for section in ("Current agreements", "Pending proposals, per session", "Closed records"):
        assert section in body
    badges = page.locator("span.state").all_inner_texts()
    for state in ("open", "proposed", "fulfilled", "cancelled", "expired"):
        assert state in badges, (state, badges)
    current = body.split("Current agreements")[1].split("Pending proposals")[0]
    assert "weekly reports use three sections" in current
    # Terms are shown as text: no element injected.
    assert HOSTILE in body
    assert page.locator("main td b, main td i").count() == 0
    # Another zone, same scope: the zone form keeps the page's own query.
    page.select_option("#tz", "Asia/Tokyo")
    page.click("#zone button")
    page.wait_for_load_state()
    assert "Scope demo-agent / console-user" in page.inner_text("h1")
    assert "tz=Asia%2FTokyo" in page.url
    page.select_option("#tz", "UTC")
    page.click("#zone button")
    page.wait_for_load_state()
    photograph(page, "scope")


def test_record_page_shows_every_revision_with_cause_time_and_evidence(
    console_url: str, browser: Any
) -> None:
    """The timeline of a fulfilled record: four revisions, each with its input (R14) and
    evidence where the core recorded it (R16)."""
    page = visit(browser, f"{console_url}?tz=Asia/Shanghai")
    page.fill("input[name=agent]", AGENT)
    page.fill("input[name=user]", USER)
    page.click("#search button")
    page.wait_for_load_state()
    page.click("tr:has(span.fulfilled) a")
    page.wait_for_load_state()
    rows = page.locator("table").nth(1).locator("tr").all_inner_texts()
    assert len(rows) == 5, rows  # header + four revisions
    assert "at (Asia/Shanghai)" in rows[0]
    causes = [row.split("\t")[2] for row in rows[1:]]
    assert causes == ["proposed", "agent_accepted", "user_accepted", "delivery_verified"]
    assert all("stream chat-turn:{0}" in r or "stream tool-" in r for r in rows[1:])
    # The evidence chain (R16): the bound todo's run and the snapshot that completed it.
    delivered = rows[4].split("\t")[5]
    assert "origin_seq" in delivered, rows[4]
    assert "snapshot_seq" in delivered, rows[4]
    photograph(page, "record")


def _listed(page: Any) -> list[str]:
    """The record ids of the records page's rows, in order (each row's record link)."""
    hrefs = page.locator("main table tr td:first-child a").evaluate_all(
        "links => links.map(a => a.getAttribute('href'))"
    )
    return [parse_qs(urlsplit(h).query)["id"][0] for h in hrefs]


def test_records_page_lists_filters_and_pages_every_record(console_url: str, browser: Any) -> None:
    """The records list: every record of the scope, newest change first, a badge each;
    the state filter through the form; next-page links that keep the filter and show
    each record once; a row's links open its record and its scope."""
    page = visit(browser, f"{console_url}records")
    everything = _listed(page)
    assert len(everything) >= 6, everything  # a record in every state, and the hostile one
    badges = page.locator("main table span.state").all_inner_texts()
    assert {"open", "proposed", "fulfilled", "cancelled", "expired"} <= set(badges), badges
    assert HOSTILE in page.inner_text("main")
    assert page.locator("main td b, main td i").count() == 0
    assert "no more records" in page.inner_text("#paging")
    photograph(page, "records")
    page.select_option("#f-state", "proposed")
    page.click("#filters button")
    page.wait_for_load_state()
    proposed = _listed(page)
    assert proposed, "a proposal nobody accepted yet"
    assert set(page.locator("main table span.state").all_inner_texts()) == {"proposed"}
    # One row a page, filter kept: the same proposals, once each, in the same order.
    page = visit(browser, f"{console_url}records?state=proposed&limit=1")
    paged = _listed(page)
    while page.locator("#paging a", has_text="next page").count():
        page.click("#paging a:has-text('next page')")
        page.wait_for_load_state()
        assert "state=proposed" in page.url
        paged += _listed(page)
    assert paged == proposed
    # A row's links: its record, and its scope.
    page = visit(browser, f"{console_url}records?prefix={everything[0][:14]}")
    assert _listed(page) == [everything[0]]
    page.click("main table tr td:first-child a")
    page.wait_for_load_state()
    assert page.inner_text("h1").startswith("Record " + everything[0][:12])
    page.go_back()
    page.click(f"main table a:has-text('{AGENT} / {USER}')")
    page.wait_for_load_state()
    assert page.inner_text("h1") == f"Scope {AGENT} / {USER}"


def _scopes(page: Any) -> list[str]:
    """The users of the scopes page's rows, in order (each row's scope link)."""
    hrefs = page.locator("main table tr td:first-child a").evaluate_all(
        "links => links.map(a => a.getAttribute('href'))"
    )
    return [parse_qs(urlsplit(h).query)["user"][0] for h in hrefs]


def test_scopes_page_lists_filters_pages_and_refreshes_itself(
    console_url: str, browser: Any
) -> None:
    """The scopes list: the scopes whose records changed, newest first (the one that only
    chats is none); the open-agreement filter through the form; a row's link to its
    records; one row a page with auto-refresh on: the next page reloads itself at the
    same address, cursor and all, and still shows the same scope."""
    page = visit(browser, f"{console_url}scopes")
    assert _scopes(page) == [USER, OTHER_USER]
    assert "no more scopes" in page.inner_text("#paging")
    photograph(page, "scopes")
    page.check("#f-open")
    page.click("#filters button")
    page.wait_for_load_state()
    assert "open=1" in page.url
    assert _scopes(page) == [USER]
    page.click("main table a:has-text('its records')")
    page.wait_for_load_state()
    assert page.inner_text("h1") == "Records"
    assert page.locator("#f-user").input_value() == USER
    assert len(_listed(page)) >= 6
    page = visit(browser, f"{console_url}scopes?limit=1&refresh=1")
    page.click("#paging a:has-text('next page')")
    page.wait_for_load_state()
    address = page.url
    assert "cursor=" in address, address
    assert "refresh=1" in address, address
    assert _scopes(page) == [OTHER_USER]
    with page.expect_navigation(timeout=60_000):
        pass  # the page reloads itself within a second
    assert page.url == address
    assert _scopes(page) == [OTHER_USER]


def test_chinese_terms_render_in_a_cjk_font(console_url: str, browser: Any) -> None:
    """The Chinese proposal's terms are drawn with a CJK font's glyphs, every character
    of them, not the empty boxes of a font without them (Chromium's own account of the
    fonts it rendered the cell with: DevTools' CSS.getPlatformFontsForNode)."""
    if not Path(CJK_FONT).exists():
        pytest.fail(f"{CJK_FONT} missing: ./dev test installs Debian's fonts-noto-cjk package")
    page = visit(browser, f"{console_url}records?state=proposed")
    cell = page.locator(f"main td:has-text('{CHINESE}')")
    assert cell.count() == 1, page.inner_text("main")
    cell.evaluate("cell => { cell.id = 'chinese-terms'; }")
    devtools = page.context.new_cdp_session(page)
    devtools.send("DOM.enable")
    devtools.send("CSS.enable")
    root = devtools.send("DOM.getDocument")["root"]["nodeId"]
    node = devtools.send("DOM.querySelector", {"nodeId": root, "selector": "#chinese-terms"})
    fonts = devtools.send("CSS.getPlatformFontsForNode", {"nodeId": node["nodeId"]})["fonts"]
    chinese = sum(1 for ch in cell.inner_text() if "\u4e00" <= ch <= "\u9fff")
    cjk = sum(f["glyphCount"] for f in fonts if "CJK" in f["familyName"])
    assert chinese >= len(CHINESE)
    assert cjk >= chinese, fonts


def test_partitions_page_shows_owner_lag_pending_and_gaps(console_url: str, browser: Any) -> None:
    """Partition 0 with its lease holder, nothing behind, no parked gap; the consumer."""
    page = visit(browser, f"{console_url}partitions")
    rows = page.locator("table").first.locator("tr").all_inner_texts()
    assert len(rows) == 2, rows  # header + partition 0
    cells = rows[1].split("\t")
    assert cells[0] == "0"
    assert cells[1] != "no owner", cells  # the lease holder
    assert cells[3:6] == ["0", "0", "0"]  # lag, pending, parked gaps once caught up
    assert cells[6] == "1"  # the contract violation
    consumers = page.locator("table").nth(1).locator("tr").all_inner_texts()
    assert any(row.split("\t")[0] == cells[1] for row in consumers[1:]), consumers
    photograph(page, "partitions")


def test_dead_letters_page_groups_by_reason_with_detail(console_url: str, browser: Any) -> None:
    """The contract violation is counted under its reason and shown with its detail;
    the count filters the letters by reason, and the letter links to its scope."""
    page = visit(browser, f"{console_url}dead-letters")
    summary = page.locator("table").first.locator("tr").all_inner_texts()
    assert summary[1:] == ["contract_violation\t1"]
    detail = page.locator("table").nth(1).inner_text()
    assert "$.seq: Expected `int` >= 1" in detail
    photograph(page, "dead-letters")
    # Its reason's count links to its letters; its input names the scope it came from.
    page.click("table >> nth=0 >> a:has-text('contract_violation')")
    page.wait_for_load_state()
    assert "reason=contract_violation" in page.url
    assert page.locator("#f-reason").input_value() == "contract_violation"
    page.click(f"table >> nth=1 >> a:has-text('{AGENT} / {USER}')")
    page.wait_for_load_state()
    assert page.inner_text("h1") == f"Scope {AGENT} / {USER}"


def _get(url: str, headers: dict[str, str] | None = None, method: str = "GET") -> int:
    request = urllib.request.Request(url, headers=headers or {}, method=method)  # noqa: S310
    try:
        with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310
            return int(response.status)
    except urllib.error.HTTPError as error:
        return error.code


def _stored(url: str) -> dict[bytes, bytes | None]:
    """What the pages show, as Redis holds it: records, scopes, views and both indexes
    (the worker's own beats and leases change by themselves meanwhile)."""
    client = redis.Redis.from_url(url)
    try:
        names = [
            name
            for pattern in ("record*", "scope*", "view:*", "dead-letters:*")
            for name in client.scan_iter(match=pattern)
        ]
        return {name: client.dump(name) for name in sorted(names)}
    finally:
        client.close()


def test_the_console_is_read_only_and_rejects_bad_input(console_url: str, redis_url: str) -> None:
    """No write method exists: POST, PUT, PATCH and DELETE on every page answer 405 and
    change no key; an unknown zone, a bad filter or refresh is a clear 400, never a
    traceback."""
    before = _stored(redis_url)
    for path in ("", "scopes", "records", "partitions", "dead-letters", "scope", "record"):
        for method in ("POST", "PUT", "PATCH", "DELETE"):
            assert _get(f"{console_url}{path}?refresh=5", method=method) == 405, (path, method)
    assert _stored(redis_url) == before
    assert _get(f"{console_url}scope?agent=a&user=u&tz=Mars/Olympus") == 400
    assert _get(f"{console_url}record?id=agr-ffff0000") == 404
    assert _get(f"{console_url}records?since=soon") == 400
    assert _get(f"{console_url}scopes?cursor=bogus") == 400
    assert _get(f"{console_url}scopes?state=open") == 400
    assert _get(f"{console_url}partitions?refresh=-1") == 400


def test_off_loopback_the_console_needs_a_token(redis_url: str) -> None:
    """Without ACCORD_CONSOLE_TOKEN it refuses to listen off loopback; with it, asks for it."""
    command = [sys.executable, "-c", "from worker.cli import main; main()", "console"]
    env = {**worker_env(redis_url), "ACCORD_CONSOLE_TOKEN": ""}
    # Refused before it listens: in this process (typer's CliRunner) is enough.
    refused = accord_here("console", "--host", "0.0.0.0", "--port", "0", env=env)  # noqa: S104
    assert refused.returncode == 2
    assert "ACCORD_CONSOLE_TOKEN" in refused.stderr
    env["ACCORD_CONSOLE_TOKEN"] = "s3cret-token"  # noqa: S105
    process = subprocess.Popen(  # noqa: S603
        [*command, "--host", "0.0.0.0", "--port", "0"],  # noqa: S104
        cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        assert "token required" in first, first
        url = first.split()[3].replace("0.0.0.0", "127.0.0.1")  # noqa: S104
        assert _get(url) == 401
        assert _get(url, {"Authorization": "Bearer wrong"}) == 401
        assert _get(url, {"Authorization": "Bearer s3cret-token"}) == 200
        basic = base64.b64encode(b"ops:s3cret-token").decode()
        assert _get(url, {"Authorization": f"Basic {basic}"}) == 200
    finally:
        process.terminate()
        process.wait(timeout=60)
        if process.stdout is not None:
            process.stdout.close()
