"""The records page's filters, read from its query string (and given back to its forms
and links, so paging keeps them)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from contracts.common import AgreementState
from store.record_index import MAX_LIMIT, RecordQuery, decode_cursor
from worker.zones import time_bound

# Rows a page shows unless the query asks for another count.
PAGE_ROWS = 50


@dataclass(frozen=True)
class RecordFilters:
    """The filters as typed (text, shown back in the form); `query` makes them a
    RecordQuery at Redis's `now` (a span such as `1h` counts back from it)."""

    state: str = ""
    since: str = ""
    until: str = ""
    agent: str = ""
    user: str = ""
    prefix: str = ""
    limit: str = ""
    cursor: str = ""

    def query(self, now_ms: int) -> RecordQuery:
        return RecordQuery(
            state=AgreementState(self.state) if self.state else None,
            since_ms=time_bound(self.since, now_ms) if self.since else None,
            until_ms=time_bound(self.until, now_ms) if self.until else None,
            agent_id=self.agent or None,
            user_id=self.user or None,
            prefix=self.prefix,
            limit=int(self.limit) if self.limit else PAGE_ROWS,
        )

    def kept(self, **changed: str) -> dict[str, str]:
        """The filters that are set, as query parameters, with `changed` applied."""
        return {name: value for name, value in (asdict(self) | changed).items() if value}


def filters_or_empty(query: dict[str, str]) -> RecordFilters:
    """The filters as typed, for the form of a page that refused them."""
    names = RecordFilters.__dataclass_fields__
    return RecordFilters(**{n: query.get(n, "").strip() for n in names})


def records_filters(query: dict[str, str]) -> RecordFilters:
    """The page's filters; ValueError saying which one is wrong."""
    filters = filters_or_empty(query)
    if filters.state and filters.state not in {s.value for s in AgreementState}:
        states = ", ".join(s.value for s in AgreementState)
        raise ValueError(f"state: no state {filters.state!r} (one of {states})")
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
