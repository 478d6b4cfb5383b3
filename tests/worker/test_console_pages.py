"""The console's pages as pure functions: what any stored text becomes in HTML."""

from __future__ import annotations

from datetime import UTC, datetime

from contracts.common import AgreementState, Cause, Provenance
from contracts.records import AgreementRecord, HistoryEntry
from store.status import ConsumerStatus, FleetStatus
from worker.console.pages import partitions, record, text
from worker.zones import zone


def test_text_escapes_html_and_shows_control_and_bidi_characters() -> None:
    """Markup stays text; ESC, NUL and a right-to-left override are shown as escapes,
    so stored text can neither inject an element nor hide or reorder what follows."""
    assert text('<a href="x">') == "&lt;a href=&quot;x&quot;&gt;"
    assert text("red\x1b[31m") == "red\\x1b[31m"
    assert text("a\x00b") == "a\\x00b"
    assert text("abc\u202edef") == "abc\\u202edef"
    assert text(None) == ""


def test_record_page_shows_times_in_the_chosen_zone_and_escapes_terms() -> None:
    """Every time on the page in one zone (R14: provenance shown, terms as text)."""
    at = datetime(2026, 3, 2, 14, 0, tzinfo=UTC)
    found = AgreementRecord(
        record_id="agr-0123456789abcdef01234567", agent_id="a", user_id="u", session_id="s",
        state=AgreementState.PROPOSED, revision=1, terms="<script>alert(1)</script>",
        created_at=at,
        history=(
            HistoryEntry(
                revision=1, state=AgreementState.PROPOSED, cause=Cause.PROPOSED, at=at,
                provenance=Provenance(stream="chat-turn:{0}", seq=2),
            ),
        ),
    )  # fmt: skip
    page = record(found, zone("Asia/Shanghai"), "Asia/Shanghai")
    assert "<script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "2026-03-02 22:00:00" in page
    assert "at (Asia/Shanghai)" in page


def test_partitions_page_lists_departed_consumers_apart_from_live_ones() -> None:
    """A live member and a heartbeat-only worker under the live heading; a departed
    consumer, with the pending entries it still holds, under its own heading."""
    fleet = FleetStatus("accord", 0, [], [
        ConsumerStatus("w-live", [0, 1], 0, 1200),
        ConsumerStatus("w-manual", [], 0, None),
        ConsumerStatus("w-<gone>", [], 7, None, departed=True),
    ])  # fmt: skip
    page = partitions(fleet, "UTC")
    live, departed = page.split("id=live>", 1)[1].split("id=departed>", 1)
    assert "w-live" in live
    assert "1.2s ago" in live
    assert "w-manual" in live
    assert "heartbeat only" in live
    assert "w-&lt;gone&gt;" in departed
    assert "<td>7</td>" in departed
    assert "gone" not in live
