"""`accord trim`: remove input entries every reader has finished (store/retention.py).

Per partition, each input stream is trimmed (XTRIM MINID) below the oldest entry any
consumer group still owes (pending or undelivered) and the oldest parked entry. This
gives up rebuilding the store by replaying the input streams from empty (R15): take a
backup first (docs/operations.md, "Backup and restore").
"""

from __future__ import annotations

from typing import Annotated

import msgspec
import typer
from redis.exceptions import NoPermissionError, ResponseError
from rich.text import Text

from store.retention import StreamTrim, trim_partition
from store.scripts import AnyRedis
from worker.commands import options
from worker.commands._shared import (
    deployment_settings,
    emit,
    err_console,
    run_with_redis,
)
from worker.render import escape

DRY_RUN_HELP = "Count what would be removed; remove nothing."


class PartitionTrim(msgspec.Struct, frozen=True, kw_only=True):
    """One partition's result, as `--json` prints it (one line per partition)."""

    partition: int
    dry_run: bool
    streams: list[StreamTrim] = msgspec.field(default_factory=list)
    error: str | None = None


def _line(result: PartitionTrim) -> str:
    verb = "would remove" if result.dry_run else "removed"
    if result.error is not None:
        return f"partition {result.partition}: [red]failed[/]: {escape(result.error)}"
    parts = []
    for trim in result.streams:
        if trim.minid is None:
            parts.append(f"{escape(trim.stream)} nothing applied yet")
        else:
            held = escape(trim.held_by or "")
            parts.append(
                f"{escape(trim.stream)} {verb} {trim.removed} (below {trim.minid}, {held})"
            )
    return f"partition {result.partition}: " + "; ".join(parts)


def _shown(result: PartitionTrim) -> list[Text]:
    # One line per partition whatever the terminal width: it is grepped from logs.
    line = Text.from_markup(_line(result))
    line.no_wrap = True
    line.overflow = "ignore"
    return [line]


def register(app: typer.Typer) -> None:
    @app.command()
    def trim(
        dry_run: Annotated[bool, typer.Option("--dry-run", help=DRY_RUN_HELP)] = False,  # noqa: FBT002
        timeout: options.Timeout = options.TIMEOUT_S,
        as_json: options.Json = False,  # noqa: FBT002
    ) -> None:
        """Trim the input streams below what every consumer group has finished.

        Pending, undelivered and parked entries, and entries another group has not
        finished, stay. Gives up rebuilding the store by replay (R15): back up first.
        """
        settings = deployment_settings(timeout)

        def show(result: PartitionTrim) -> None:
            # Printed as each partition is done: a long trim shows its progress.
            emit(result, as_json=as_json, human=_shown)

        async def body(redis: AnyRedis) -> int:
            failed = 0
            for partition in range(settings.partitions):
                try:
                    streams = await trim_partition(
                        redis, partition, settings.group, dry_run=dry_run
                    )
                    result = PartitionTrim(partition=partition, dry_run=dry_run, streams=streams)
                except NoPermissionError:
                    raise
                except ResponseError as error:
                    # A key of another type in one partition: report it, go on.
                    failed += 1
                    result = PartitionTrim(partition=partition, dry_run=dry_run, error=str(error))
                show(result)
            return failed

        try:
            failed = run_with_redis(settings, body, timeout_s=timeout, handled=(NoPermissionError,))
        except NoPermissionError as error:
            err_console.print(
                f"[red]this Redis user may not trim:[/] {escape(str(error))} "
                "(it needs XINFO GROUPS, XPENDING, XRANGE, ZRANGE and XTRIM on the input "
                "streams: the worker's or an operator's user)",
                soft_wrap=True,
            )
            raise typer.Exit(2) from error
        if failed:
            raise typer.Exit(1)
