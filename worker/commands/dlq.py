"""`accord dlq list|requeue`: inspect dead letters and put them back on their stream."""

from __future__ import annotations

import re
from typing import Annotated, Any

import typer
from rich.table import Table

from store.dead_letters import RequeueError, list_dead_letters, requeue
from store.scripts import AnyRedis
from worker.commands import options
from worker.commands._shared import (
    console,
    deployment_settings,
    err_console,
    print_json,
    run_with_redis,
)
from worker.render import escape

# A stream entry id as `dlq list` prints it: <ms>-<seq>.
_ENTRY_ID = re.compile(r"[0-9]{1,20}-[0-9]{1,20}")

dlq_app = typer.Typer(help="Dead letters: inputs that could not be applied.", no_args_is_help=True)


@dlq_app.command("list")
def list_(
    count: Annotated[int, typer.Option(min=1, help="At most this many per partition.")] = 100,
    timeout: options.Timeout = options.TIMEOUT_S,
    as_json: options.Json = False,  # noqa: FBT002
) -> None:
    """List dead letters, oldest first, with reason and delivery count."""
    settings = deployment_settings(timeout)

    async def body(redis: AnyRedis) -> list[tuple[int, str, Any]]:
        rows: list[tuple[int, str, Any]] = []
        for partition in range(settings.partitions):
            letters = await list_dead_letters(redis, partition, count=count)
            rows += [(partition, entry_id, letter) for entry_id, letter in letters]
        return rows

    rows = run_with_redis(settings, body, timeout_s=timeout)
    if as_json:
        for partition, entry_id, letter in rows:
            print_json({"partition": partition, "id": entry_id, "letter": letter})
        return
    table = Table(title=f"{len(rows)} dead letters")
    table.add_column("p")
    table.add_column("dead-letter id", no_wrap=True)
    table.add_column("stream / entry", no_wrap=True)
    table.add_column("reason", no_wrap=True)
    table.add_column("tries")
    table.add_column("detail", overflow="fold")
    for partition, entry_id, letter in rows:
        where = f" {letter.session_id}#{letter.seq}" if letter.session_id else ""
        table.add_row(
            str(partition), entry_id, f"{letter.stream} {letter.entry_id}",
            letter.reason.value, str(letter.delivery_count), escape(letter.detail + where),
        )  # fmt: skip
    console.print(table)


@dlq_app.command("requeue")
def requeue_(
    ids: Annotated[list[str], typer.Argument(help="Dead-letter entry ids (from `dlq list`).")],
    partition: Annotated[int, typer.Option(min=0, help="The partition of the dead letters.")] = 0,
    timeout: options.Timeout = options.TIMEOUT_S,
) -> None:
    """Put dead letters back on their original input stream (atomically, once)."""
    settings = deployment_settings(timeout)
    bad = [i for i in ids if not _ENTRY_ID.fullmatch(i) or int(i.split("-")[0]) >= 2**64]
    if bad:
        err_console.print(
            f"[red]not a dead-letter id:[/] {escape(bad[0])} (ids look like 1764000000000-0;"
            " `accord dlq list` shows them)",
            soft_wrap=True,
        )
        raise typer.Exit(2)
    if partition >= settings.partitions:
        err_console.print(
            f"[red]no partition {partition}:[/] this deployment has"
            f" {settings.partitions} (ACCORD_PARTITIONS), numbered from 0",
            soft_wrap=True,
        )
        raise typer.Exit(2)

    async def body(redis: AnyRedis) -> list[tuple[str, str | None]]:
        return [(i, await requeue(redis, partition, i)) for i in ids]

    try:
        results = run_with_redis(settings, body, timeout_s=timeout)
    except RequeueError as error:
        err_console.print(f"[red]{error}[/]")
        raise typer.Exit(1) from error
    missing = False
    for dead_id, new_id in results:
        if new_id is None:
            missing = True
            err_console.print(f"{dead_id}: [red]no such dead letter[/]")
        else:
            console.print(f"{dead_id}: requeued as {new_id}")
    if missing:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.add_typer(dlq_app, name="dlq")
