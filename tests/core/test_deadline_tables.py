"""The deadline tables, English and Chinese: reference time, zone and expected instant
(R9, DESIGN section 4). The tables are in tests/support/deadline_cases_{en,zh}.py.

Expected instants are worked out by hand from DESIGN section 4 and written in the
user's local time with its UTC offset, so a reader can check them against a
calendar. `None` means no deadline: outside the grammar, ambiguous, or already over.
ZH day or period + 前/之前/以前/为止 is the END of that day or period; a clock time
with 前 is that instant.

Calendar notes: 2026-11-27 is a Friday; US daylight saving starts 2026-03-08 02:00
and ends 2026-11-01 02:00; Europe/Berlin jumps on 2026-03-29 and 2026-10-25;
America/Santiago's day 2026-09-06 starts at 01:00 (midnight is skipped);
America/Havana's 2026-03-08 likewise; 2028 is a leap year. Asia/Shanghai has no
daylight saving, so the transitions are tested with Chinese-speaking users in New
York, Berlin, Santiago and Havana.
"""

from __future__ import annotations

import pytest

from tests.support.deadline_cases_all import TABLES
from tests.support.deadline_kit import Case, case_id, check_resolves, check_written_in_zone

CASES = [(language, case) for language, cases in TABLES.items() for case in cases]


def _id(item: tuple[str, Case]) -> str:
    language, case = item
    return f"{language}:{case_id(case)}"


@pytest.mark.parametrize("item", CASES, ids=[_id(item) for item in CASES])
def test_phrase_resolves_to_the_conventions_instant(item: tuple[str, Case]) -> None:
    """R9: the phrase resolves to the exclusive instant DESIGN section 4 gives, or None."""
    check_resolves(item[1])


@pytest.mark.parametrize("item", CASES, ids=[_id(item) for item in CASES])
def test_case_is_written_in_its_zone(item: tuple[str, Case]) -> None:
    """Guards the table: written offsets are the zone's real offsets; deadlines follow ts."""
    check_written_in_zone(item[1])


@pytest.mark.parametrize("language", sorted(TABLES))
def test_table_has_at_least_150_cases_with_both_outcomes(language: str) -> None:
    """R9: at least 150 cases per language, including negatives that give no deadline."""
    cases = TABLES[language]
    assert len(cases) >= 150
    assert sum(case.expected is None for case in cases) >= 25
