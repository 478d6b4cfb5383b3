"""Both deadline tables as one: the English and the Chinese cases, and their phrases."""

from __future__ import annotations

from collections.abc import Callable

from tests.support import deadline_cases_en, deadline_cases_zh
from tests.support.deadline_kit import Case

TABLES: dict[str, tuple[Case, ...]] = {
    "en": deadline_cases_en.CASES,
    "zh": deadline_cases_zh.CASES,
}


def phrases(keep: Callable[[Case], bool] = lambda _: True) -> list[str]:
    """The distinct phrases of both tables whose case `keep` keeps, sorted."""
    return sorted({case.phrase for cases in TABLES.values() for case in cases if keep(case)})
