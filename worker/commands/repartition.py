"""`accord repartition --to P2`: move a running deployment to another partition count
(store/repartition.py; docs/partitions.md, "Growing")."""

from __future__ import annotations

from typing import Annotated

import typer

from contracts.partition import MAX_PARTITIONS
from store.repartition import Progress, Repartition, RepartitionError
from store.scripts import AnyRedis
from worker.commands._shared import (
    deployment_settings,
    err_console,
    print_json,
    run_with_redis,
)
from worker.commands.options import Json
from worker.render import escape

DRAIN_HELP = (
    "Seconds to wait for the workers to apply what was written before the freeze;"
    " past it the command stops (appends keep waiting) and running it again goes on."
)


def register(app: typer.Typer) -> None:
    @app.command()
    def repartition(
        to: Annotated[
            int,
            typer.Option(
                "--to", min=1, max=MAX_PARTITIONS, help="The new partition count (1 to 16384)."
            ),
        ],
        drain_timeout: Annotated[
            float, typer.Option("--drain-timeout", min=1, help=DRAIN_HELP)
        ] = 300.0,
        as_json: Json = False,  # noqa: FBT002
    ) -> None:
        """Move the deployment to --to partitions while gateways keep writing.

        Appends wait in the clients during the move (seconds for a drained deployment,
        longer with much state to copy); workers restart with the new count by themselves
        when ACCORD_PARTITIONS is unset. Run it with the operator's Redis user (it uses
        SCAN, DUMP and RESTORE). Interrupted, it is resumed by running it again.
        """
        settings = deployment_settings()

        def say(line: str) -> None:
            if not as_json:
                err_console.print(f"repartition: {escape(line)}", soft_wrap=True)

        async def body(redis: AnyRedis) -> Progress:
            return await Repartition(redis, to, say, drain_timeout).run()

        try:
            progress = run_with_redis(settings, body, timeout_s=30.0, layout_check=False)
        except RepartitionError as error:
            err_console.print(f"[red]repartition stopped:[/] {escape(str(error))}", soft_wrap=True)
            raise typer.Exit(1) from error
        if as_json:
            print_json(
                {
                    "partitions": to,
                    "phases": progress.phases,
                    "scopes_moved": progress.scopes_moved,
                    "keys_copied": progress.keys_copied,
                    "members_moved": progress.members_moved,
                    "keys_removed": progress.keys_removed,
                    "streams_retired": progress.streams_retired,
                }
            )
        else:
            say(
                f"done: {to} partitions; {progress.scopes_moved} scopes moved"
                f" ({progress.keys_copied} keys, {progress.members_moved} index members)"
            )
