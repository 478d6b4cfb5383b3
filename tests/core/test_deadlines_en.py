"""English deadline phrases: reference time, zone and expected instant (R9, DESIGN section 4).

Expected instants are worked out by hand from DESIGN section 4 and written in the
user's local time with its UTC offset, so a reader can check them against a
calendar. `None` means no deadline: outside the grammar, ambiguous, or already over.

Calendar notes: 2026-11-27 is a Friday; US daylight saving starts 2026-03-08 02:00
and ends 2026-11-01 02:00; Europe/Berlin jumps on 2026-03-29 and 2026-10-25;
America/Santiago's day 2026-09-06 starts at 01:00 (midnight is skipped);
America/Havana's 2026-03-08 likewise; 2028 is a leap year.
"""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from core.deadlines.resolve import resolve_deadline
from tests.support.deadline_cases_en import CASES, Case
from tests.support.deadline_kit import case_id, check_resolves, check_written_in_zone


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_phrase_resolves_to_the_conventions_instant(case: Case) -> None:
    """R9: the phrase resolves to the exclusive instant DESIGN section 4 gives, or None."""
    check_resolves(case)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_case_is_written_in_its_zone(case: Case) -> None:
    """Guards the table: written offsets are the zone's real offsets; deadlines follow ts."""
    check_written_in_zone(case)


def test_table_has_at_least_150_cases_with_both_outcomes() -> None:
    """R9: at least 150 cases per language, including negatives that give no deadline."""
    assert len(CASES) >= 150
    assert sum(case.expected is None for case in CASES) >= 25


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
