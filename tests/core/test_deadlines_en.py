"""English deadline phrases beyond the table: a naive ts, dates past the calendar's end.

The English and Chinese tables (reference time, zone and expected instant) are checked
in test_deadline_tables.py, with the calendar notes.
"""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from core.deadlines.resolve import resolve_deadline


def test_naive_reference_time_is_taken_as_utc() -> None:
    """A naive ts (the contracts never produce one) is read as UTC rather than refused."""
    naive = datetime(2026, 11, 27, 10, 0)  # noqa: DTZ001  # the point of the test
    got = resolve_deadline("within 1 hour", naive, ZoneInfo("UTC"))
    assert got == datetime(2026, 11, 27, 11, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("phrase", "said"),
    [
        ("by December 31, 9999", "2026-11-27T10:00:00+00:00"),
        ("by tomorrow", "9999-12-31T12:00:00+00:00"),
        ("by December 9999", "2026-11-27T10:00:00+00:00"),
        ("by the end of 9999", "2026-11-27T10:00:00+00:00"),
    ],
)
def test_a_deadline_past_the_calendar_end_is_none_not_a_crash(phrase: str, said: str) -> None:
    """Robustness: dates past year 9999 give no deadline instead of raising."""
    assert resolve_deadline(phrase, datetime.fromisoformat(said), ZoneInfo("UTC")) is None
