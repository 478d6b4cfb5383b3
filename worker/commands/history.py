"""`accord history RECORD`: every revision of one record, with cause and provenance."""

from __future__ import annotations

from typing import Annotated

import typer

from contracts.records import AgreementRecord
from store.reads import record_history
from worker.commands._shared import (
    JSON_HELP,
    console,
    err_console,
    print_json,
    require_url,
    run_with_redis,
    settings_or_exit,
    wants_json,
)
from worker.consumer import AnyRedis
from worker.render import history_table


def register(app: typer.Typer) -> None:
    @app.command()
    def history(
        record: Annotated[str, typer.Argument(help="The record id (agr-...).")],
        as_json: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,  # noqa: FBT002
    ) -> None:
        """Show a record's revisions (terminal records included)."""
        settings = require_url(settings_or_exit())

        async def body(redis: AnyRedis) -> AgreementRecord | None:
            # A record id does not name its partition: look in each (P is small).
            for partition in range(settings.partitions):
                found = await record_history(redis, partition, record)
                if found is not None:
                    return found
            return None

        found = run_with_redis(settings, body)
        if found is None:
            err_console.print(f"[red]no record {record!r}[/]")
            raise typer.Exit(1)
        if wants_json(as_json):
            print_json(found)
        else:
            console.print(history_table(found))
