"""`accord records`: records across partitions, newest change first, filtered and paged.

Reads the records index the commit keeps (store/record_index.py; docs/store.md, "The
records index"): no SCAN, one page per call, `--cursor` for the next.
"""

from __future__ import annotations

from datetime import UTC, datetime, tzinfo
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from contracts.common import AgreementState
from store.record_index import MAX_LIMIT, RecordPage, RecordQuery, list_records
from store.scripts import AnyRedis
from worker.commands import listing, options
from worker.render import escape
from worker.zones import shown


def register(app: typer.Typer) -> None:
    @app.command()
    def records(  # noqa: PLR0913, PLR0917  (one option per filter)
        state: Annotated[
            AgreementState | None, typer.Option(help="Only records in this state.")
        ] = None,
        since: options.Since = None,
        until: options.Until = None,
        agent: Annotated[str | None, typer.Option(help="Only this agent's records.")] = None,
        user: Annotated[str | None, typer.Option(help="Only this user's records.")] = None,
        prefix: Annotated[str, typer.Option(help="Only record ids starting with this.")] = "",
        limit: Annotated[
            int, typer.Option(min=1, max=MAX_LIMIT, help="At most this many records.")
        ] = 50,
        cursor: options.Cursor = None,
        tz: options.Tz = options.TZ_DEFAULT,
        timeout: options.Timeout = options.TIMEOUT_S,
        as_json: options.Json = False,  # noqa: FBT002
    ) -> None:
        """List records, newest change first, across partitions (one page per call)."""

        async def read(
            redis: AnyRedis, partitions: int, since_ms: int | None, until_ms: int | None
        ) -> RecordPage:
            # Field by field on purpose (CONTRIBUTING.md, "Repeated shapes").
            query = RecordQuery(
                state=state,
                since_ms=since_ms,
                until_ms=until_ms,
                agent_id=agent,
                user_id=user,
                prefix=prefix,
                limit=limit,
            )
            return await list_records(redis, partitions, query, cursor)

        listing.show_page(
            "records", since=since, until=until, cursor=cursor, tz=tz, timeout=timeout,
            as_json=as_json, read=read, human=_human,
        )  # fmt: skip


def _human(page: RecordPage, where: tzinfo) -> list[Table | Text]:
    table = Table(title=f"{len(page.records)} records, newest change first")
    for column in ("record", "state", "p", "agent", "user", "last change", "terms"):
        table.add_column(column, overflow="fold", no_wrap=column == "record")
    for row in page.records:
        found = row.record
        changed = datetime.fromtimestamp(row.changed_ms / 1000, UTC)
        table.add_row(
            escape(row.record_id[:12]),
            "gone (retained out)" if found is None else found.state.value,
            str(row.partition),
            escape(row.agent_id),
            escape(row.user_id),
            shown(changed, where),
            "" if found is None else escape(found.terms),
        )
    more = Text(listing.NEXT_HINT + page.next_cursor if page.next_cursor else "no more records")
    return [table, more]
