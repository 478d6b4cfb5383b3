"""`accord history RECORD`: every revision of one record, with cause and provenance."""

from __future__ import annotations

from typing import Annotated

import typer

from worker.commands import options
from worker.commands._shared import deployment_settings, emit, zone_or_exit
from worker.commands.lookup import one_record
from worker.render import history_table


def register(app: typer.Typer) -> None:
    @app.command()
    def history(
        record: Annotated[
            str, typer.Argument(help="The record id, or its start as shown (agr-d241f48f).")
        ],
        tz: options.Tz = options.TZ_DEFAULT,
        timeout: options.Timeout = options.TIMEOUT_S,
        as_json: options.Json = False,  # noqa: FBT002
    ) -> None:
        """Show a record's revisions (terminal records included)."""
        where = zone_or_exit(tz)
        found = one_record(deployment_settings(timeout), record, timeout_s=timeout)
        emit(found, as_json=as_json, human=lambda found: [history_table(found, where)])
