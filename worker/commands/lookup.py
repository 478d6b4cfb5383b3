"""A record named on the command line: its full id, or its start as every output shows it
(`agr-d241f48f`). `history` and `explain` answer the same way when it names none or
several: one line on stderr and an exit code a script can tell apart.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NoReturn

import typer
from rich.markup import escape

from contracts.records import AgreementRecord
from store.lookup import PrefixLookupError, one_record_named
from store.scripts import AnyRedis
from worker.commands._shared import err_console, run_with_redis
from worker.settings import Settings


def _any_record(_record: AgreementRecord) -> bool:
    return True


def one_record(
    settings: Settings,
    name: str,
    *,
    timeout_s: float,
    wanted: Callable[[AgreementRecord], bool] = _any_record,
) -> AgreementRecord:
    """The one record `name` names, with its revisions; else exit: unknown (1), or
    ambiguous or not looked up (2: the Redis user may not SCAN for a prefix).

    A record `wanted` refuses is answered as unknown, exactly as one that does not exist.
    """

    async def body(redis: AnyRedis) -> AgreementRecord | list[str]:
        found = await one_record_named(redis, settings.partitions, name)
        return [] if isinstance(found, AgreementRecord) and not wanted(found) else found

    try:
        found = run_with_redis(settings, body, timeout_s=timeout_s)
    except PrefixLookupError as error:
        err_console.print(f"[red]{escape(str(error))}[/]")
        raise typer.Exit(2) from error
    if isinstance(found, list):
        _not_one(name, found, settings)
    return found


def _not_one(name: str, found: list[str], settings: Settings) -> NoReturn:
    """Exit: unknown (1), or the records an ambiguous prefix names (2)."""
    if not found:
        err_console.print(f"[red]{unknown_record(name, settings)}[/]", soft_wrap=True)
        raise typer.Exit(1)
    err_console.print(f"[red]{escape(repr(name))} names {len(found)} records:[/]")
    for record_id in found:
        err_console.print(f"  {escape(record_id)}")
    raise typer.Exit(2)


def unknown_record(record: str, settings: Settings) -> str:
    """What a miss of `history` or `explain` says: with record retention on, a record
    that is not there may have been closed and removed after it (retained out)."""
    line = f"unknown record {escape(repr(record))}"
    retention_ms = settings.store.record_retention_ms
    if retention_ms:
        line += (
            f": no such record, or one retained out (a closed record is removed"
            f" {retention_ms} ms after its last change, ACCORD_RECORD_RETENTION_MS;"
            " its events remain on the agreement-events stream while they are kept)"
        )
    return line
