"""The list pages' filters, read from their query string (and given back to their forms
and links, so paging and auto-refresh keep them)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import TypeVar

from contracts.common import AgreementState
from store.index_pages import MAX_LIMIT, decode_cursor
from store.record_index import RecordQuery
from store.scope_index import ScopeQuery
from worker.zones import time_bound

# Rows a page shows unless the query asks for another count.
PAGE_ROWS = 50
# Auto-refresh: a list page reloads itself (the same filters and cursor) every so many
# seconds when its query asks (`refresh=N`); these are the choices its links offer.
REFRESH_CHOICES = ("5", "30")
MAX_REFRESH_S = 3600

F = TypeVar("F", bound="ListFilters")


@dataclass(frozen=True)
class ListFilters:
    """What every list filters and pages by, as typed (text, shown back in the form)."""

    since: str = ""
    until: str = ""
    agent: str = ""
    user: str = ""
    limit: str = ""
    cursor: str = ""
    refresh: str = ""

    def bounds(self, now_ms: int) -> tuple[int | None, int | None]:
        """(since, until) in Redis ms at Redis's `now` (a span such as `1h` counts back)."""
        return (
            time_bound(self.since, now_ms) if self.since else None,
            time_bound(self.until, now_ms) if self.until else None,
        )

    @property
    def rows(self) -> int:
        return int(self.limit) if self.limit else PAGE_ROWS

    @property
    def timed(self) -> bool:
        return bool(self.since or self.until)

    def kept(self, **changed: str) -> dict[str, str]:
        """The filters that are set, as query parameters, with `changed` applied."""
        return {name: value for name, value in (asdict(self) | changed).items() if value}


@dataclass(frozen=True)
class RecordFilters(ListFilters):
    """The records page's filters; `query` makes them a RecordQuery at Redis's `now`."""

    state: str = ""
    prefix: str = ""

    def query(self, now_ms: int) -> RecordQuery:
        since, until = self.bounds(now_ms)
        return RecordQuery(
            state=AgreementState(self.state) if self.state else None,
            since_ms=since,
            until_ms=until,
            agent_id=self.agent or None,
            user_id=self.user or None,
            prefix=self.prefix,
            limit=self.rows,
        )


@dataclass(frozen=True)
class ScopeFilters(ListFilters):
    """The scopes page's filters (`open`: any value asks for scopes holding an open
    agreement); `query` makes them a ScopeQuery at Redis's `now`."""

    open: str = ""

    def query(self, now_ms: int) -> ScopeQuery:
        since, until = self.bounds(now_ms)
        return ScopeQuery(
            since_ms=since,
            until_ms=until,
            agent_id=self.agent or None,
            user_id=self.user or None,
            open=bool(self.open),
            limit=self.rows,
        )


def filters_or_empty(query: dict[str, str], kind: type[F]) -> F:
    """The filters as typed, for the form of a page that refused them."""
    return kind(**{f.name: query.get(f.name, "").strip() for f in fields(kind)})


def checked(query: dict[str, str], kind: type[F]) -> F:
    """The page's filters; ValueError saying which one is wrong."""
    filters = filters_or_empty(query, kind)
    known = {f.name for f in fields(kind)} | {"tz"}
    for name in sorted(set(query) - known):
        raise ValueError(f"{name}: not a filter of this page (one of {', '.join(sorted(known))})")
    for name in ("since", "until"):
        value = getattr(filters, name)
        if value:
            try:
                time_bound(value, 0)
            except ValueError as error:
                raise ValueError(f"{name}: {error}") from None
    if filters.limit and not (filters.limit.isdigit() and 1 <= int(filters.limit) <= MAX_LIMIT):
        raise ValueError(f"limit: a number of rows from 1 to {MAX_LIMIT}")
    if filters.cursor:
        decode_cursor(filters.cursor)
    return filters


def records_filters(query: dict[str, str]) -> RecordFilters:
    """The records page's filters; ValueError saying which one is wrong."""
    filters = checked(query, RecordFilters)
    if filters.state and filters.state not in {s.value for s in AgreementState}:
        states = ", ".join(s.value for s in AgreementState)
        raise ValueError(f"state: no state {filters.state!r} (one of {states})")
    return filters


def refresh_seconds(value: str) -> int:
    """The auto-refresh period a query asks for; ValueError saying what is accepted."""
    if not (value.isdigit() and 1 <= int(value) <= MAX_REFRESH_S):
        raise ValueError(f"refresh: a number of seconds from 1 to {MAX_REFRESH_S}")
    return int(value)
