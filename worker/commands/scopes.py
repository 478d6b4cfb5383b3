"""`accord scopes`: scopes across partitions, newest change first, filtered and paged.

Reads the scopes index the commit keeps (store/scope_index.py; docs/store.md, "The
scopes index"): no SCAN, one page per call, `--cursor` for the next. A scope's last
change is the last commit that changed its records, not its last chat turn.
"""

from __future__ import annotations

from datetime import UTC, datetime, tzinfo
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from store.index_pages import MAX_LIMIT
from store.scope_index import ScopeQuery, ScopesPage, list_scopes
from store.scripts import AnyRedis
from worker.commands import listing, options
from worker.render import escape
from worker.zones import shown


def register(app: typer.Typer) -> None:
    @app.command()
    def scopes(  # noqa: PLR0913, PLR0917  (one option per filter)
        since: options.Since = None,
        until: options.Until = None,
        agent: Annotated[str | None, typer.Option(help="Only this agent's scopes.")] = None,
        user: Annotated[str | None, typer.Option(help="Only this user's scopes.")] = None,
        only_open: Annotated[  # noqa: FBT002
            bool,
            typer.Option(
                "--open", help="Only scopes holding an open agreement as of their last change."
            ),
        ] = False,
        limit: Annotated[
            int, typer.Option(min=1, max=MAX_LIMIT, help="At most this many scopes.")
        ] = 50,
        cursor: options.Cursor = None,
        tz: options.Tz = options.TZ_DEFAULT,
        timeout: options.Timeout = options.TIMEOUT_S,
        as_json: options.Json = False,  # noqa: FBT002
    ) -> None:
        """List scopes, newest change of their records first, across partitions (one page
        per call)."""

        async def read(
            redis: AnyRedis, partitions: int, since_ms: int | None, until_ms: int | None
        ) -> ScopesPage:
            # Field by field on purpose (CONTRIBUTING.md, "Repeated shapes").
            query = ScopeQuery(
                since_ms=since_ms,
                until_ms=until_ms,
                agent_id=agent,
                user_id=user,
                open=only_open,
                limit=limit,
            )
            return await list_scopes(redis, partitions, query, cursor)

        listing.show_page(
            "scopes", since=since, until=until, cursor=cursor, tz=tz, timeout=timeout,
            as_json=as_json, read=read, human=_human,
        )  # fmt: skip


def _human(page: ScopesPage, where: tzinfo) -> list[Table | Text]:
    table = Table(title=f"{len(page.scopes)} scopes, newest change first")
    for column in ("agent", "user", "p", "last change", "open", "proposed"):
        table.add_column(column, overflow="fold")
    for row in page.scopes:
        view = row.view
        changed = datetime.fromtimestamp(row.changed_ms / 1000, UTC)
        table.add_row(
            escape(row.agent_id),
            escape(row.user_id),
            str(row.partition),
            shown(changed, where),
            "?" if view is None else str(len(view.agreements)),
            "?" if view is None else str(len(view.proposals)),
        )
    more = Text(listing.NEXT_HINT + page.next_cursor if page.next_cursor else "no more scopes")
    return [table, more]
