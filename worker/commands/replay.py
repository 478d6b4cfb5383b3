"""`accord replay FILE`: publish a JSON-lines transcript as a gateway would, show the result."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

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
from worker.gateway import Gateway, Line, ReplayError, load_transcript, rebase, suffix_ids
from worker.render import timeline


def register(app: typer.Typer) -> None:
    @app.command()
    def replay(
        file: Annotated[Path, typer.Argument(help="JSON lines, one input event each.")],
        keep_ts: Annotated[  # noqa: FBT002 - typer flags are boolean parameters
            bool,
            typer.Option("--keep-ts", help="Keep the timestamps (default: first turn = now)."),
        ] = False,
        fresh: Annotated[  # noqa: FBT002
            bool,
            typer.Option(
                "--fresh/--same-ids",
                help="Suffix user and session ids so a second replay is not a duplicate.",
            ),
        ] = True,
        timeout: Annotated[float, typer.Option(help="Seconds to wait for processing.")] = 30.0,
        as_json: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,  # noqa: FBT002
    ) -> None:
        """Publish FILE through the input streams, wait until processed, print the events."""
        settings = require_url(settings_or_exit())
        try:
            lines = load_transcript(file)
        except (OSError, ReplayError) as error:
            err_console.print(f"[red]{error}[/]")
            raise typer.Exit(2) from error
        if not keep_ts:
            lines = rebase(lines, datetime.now(UTC).replace(microsecond=0))
        if fresh:
            lines = suffix_ids(lines, f"~{uuid.uuid4().hex[:6]}")
        json_out = wants_json(as_json)

        async def body(redis: AnyRedis) -> tuple[list[Line], Gateway]:
            gateway = Gateway(redis, settings.partitions, settings.group)
            await gateway.mark_start()
            with Progress(
                TextColumn("publishing"),
                BarColumn(),
                MofNCompleteColumn(),
                console=err_console,
                disable=json_out,
            ) as progress:
                task = progress.add_task("publish", total=len(lines))
                sent = await gateway.replay(lines, lambda _: progress.advance(task))
            await gateway.wait_processed(timeout)
            await gateway.read_events()
            return [line for line, _ in sent], gateway

        try:
            sent, gateway = run_with_redis(settings, body)
        except ReplayError as error:
            err_console.print(f"[red]{error}[/]")
            raise typer.Exit(1) from error
        sessions = {line["session_id"] for line in sent}
        events = [e for e in gateway.events if e.session_id in sessions]
        if json_out:
            for event in events:
                print_json(event)
            return
        for text in timeline(sent, events):
            console.print(text)
