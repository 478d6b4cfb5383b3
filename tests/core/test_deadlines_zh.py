"""Chinese deadline phrases: reference time, zone and expected instant (R9, DESIGN section 4).

Same layout as test_deadlines_en.py. ZH day or period + 前/之前/以前/为止 is the END of that
day or period (DESIGN section 4); a clock time with 前 is that instant. 2026-11-27 is
a Friday; Asia/Shanghai has no daylight saving, so the transitions are tested with
Chinese-speaking users in New York, Berlin, Santiago and Havana.
"""

from __future__ import annotations

import pytest

from tests.support.deadline_cases_zh import CASES
from tests.support.deadline_kit import Case, case_id, check_resolves, check_written_in_zone


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
