"""`accord history RECORD`: every revision of one record, with cause and provenance."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape

from contracts.records import AgreementRecord
from store.lookup import PrefixLookupError, records_named
from store.reads import record_history
from store.scripts import AnyRedis
from worker.commands._shared import (
    JSON_HELP,
    TIMEOUT_DEFAULT_S,
    TZ_DEFAULT,
    TZ_OPTION_HELP,
    Timeout,
    console,
    err_console,
    print_json,
    require_url,
    run_with_redis,
    settings_or_exit,
    wants_json,
    zone_or_exit,
)
from worker.render import history_table


def register(app: typer.Typer) -> None:
    @app.command()
    def history(
        record: Annotated[
            str, typer.Argument(help="The record id, or its start as shown (agr-d241f48f).")
        ],
        tz: Annotated[str, typer.Option("--tz", help=TZ_OPTION_HELP)] = TZ_DEFAULT,
        timeout: Timeout = TIMEOUT_DEFAULT_S,
        as_json: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,  # noqa: FBT002
    ) -> None:
        """Show a record's revisions (terminal records included)."""
        where = zone_or_exit(tz)
        settings = require_url(settings_or_exit())

        async def body(redis: AnyRedis) -> AgreementRecord | list[str]:
            matches = await records_named(redis, settings.partitions, record)
            if len(matches) != 1:
                return [record_id for _, record_id in matches]
            partition, record_id = matches[0]
            found = await record_history(redis, partition, record_id)
            return [] if found is None else found

        try:
            found = run_with_redis(settings, body, timeout_s=timeout)
        except PrefixLookupError as error:
            err_console.print(f"[red]{escape(str(error))}[/]")
            raise typer.Exit(2) from error
        if isinstance(found, list):
            if not found:
                err_console.print(f"[red]unknown record {escape(repr(record))}[/]")
                raise typer.Exit(1)
            err_console.print(f"[red]{escape(repr(record))} names {len(found)} records:[/]")
            for record_id in found:
                err_console.print(f"  {escape(record_id)}")
            raise typer.Exit(2)
        if wants_json(as_json):
            print_json(found)
        else:
            console.print(history_table(found, where))
