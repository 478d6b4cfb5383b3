"""The case record and the two checks shared by the English and Chinese deadline tables,
and the reference times of the deadline property tests."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import NamedTuple, Protocol
from zoneinfo import ZoneInfo

from hypothesis import strategies as st

from core.deadlines.resolve import resolve_deadline

# When a turn was said, for the property tests: any UTC instant of 2000-2090.
REFERENCE_TIMES = st.datetimes(
    min_value=datetime(2000, 1, 1),  # noqa: DTZ001  # hypothesis bounds are naive by contract
    max_value=datetime(2090, 12, 31),  # noqa: DTZ001
    timezones=st.just(UTC),
)


class Case(NamedTuple):
    phrase: str
    expected: str | None
    said: str
    zone: str


class DeadlineCase(Protocol):
    """Any table row: the English table's Case has defaults, the Chinese one uses this one."""

    @property
    def phrase(self) -> str: ...
    @property
    def expected(self) -> str | None: ...
    @property
    def said(self) -> str: ...
    @property
    def zone(self) -> str: ...


def case_id(case: DeadlineCase) -> str:
    return f"{case.phrase or '<empty>'}@{case.said}[{case.zone}]"


def check_resolves(case: DeadlineCase) -> None:
    """R9: the phrase resolves to the exclusive instant DESIGN section 4 gives, or None."""
    said = datetime.fromisoformat(case.said)
    got = resolve_deadline(case.phrase, said, ZoneInfo(case.zone))
    if case.expected is None:
        assert got is None
        return
    assert got == datetime.fromisoformat(case.expected)
    assert got.tzinfo is UTC


def check_written_in_zone(case: DeadlineCase) -> None:
    """Guards a table: written offsets are the zone's real offsets; deadlines follow ts."""
    said = datetime.fromisoformat(case.said)
    zone = ZoneInfo(case.zone)
    assert said.utcoffset() == said.astimezone(zone).utcoffset()
    if case.expected is not None:
        expected = datetime.fromisoformat(case.expected)
        assert expected.utcoffset() == expected.astimezone(zone).utcoffset()
        assert expected > said
