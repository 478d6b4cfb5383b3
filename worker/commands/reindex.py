"""`accord reindex`: fill the records and scopes indexes from the keys written before they
existed (worker/reindex.py; docs/store.md, "Filling the indexes afresh").

Run it as the operator's user: it SCANs (the worker's `accord` user may not) and writes
the indexes (the `console` user may not); either refusal is one line, exit 2.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer
from rich.text import Text

from store.scripts import AnyRedis
from worker.commands import options
from worker.commands._shared import deployment_settings, emit, run_with_redis
from worker.reindex import ReindexReport, Totals, reindex


def register(app: typer.Typer) -> None:
    @app.command(name="reindex")
    def reindex_command(
        chunk: Annotated[
            int, typer.Option(min=1, max=10_000, help="Keys read per SCAN chunk and script.")
        ] = 500,
        dry_run: Annotated[  # noqa: FBT002
            bool, typer.Option("--dry-run", help="Count what would be added; write nothing.")
        ] = False,
        timeout: options.Timeout = options.TIMEOUT_S,
        as_json: options.Json = False,  # noqa: FBT002
    ) -> None:
        """Fill the records and scopes indexes from keys an older accord wrote (as `ops`)."""
        settings = deployment_settings(timeout)

        def progress(line: str) -> None:
            sys.stderr.write(line + "\n")
            sys.stderr.flush()

        async def body(redis: AnyRedis) -> ReindexReport:
            return await reindex(
                redis,
                chunk=chunk,
                retention_ms=settings.store.record_retention_ms,
                dry_run=dry_run,
                progress=progress,
            )

        report = run_with_redis(settings, body, timeout_s=timeout)
        emit(report, as_json=as_json, human=_human)


def _line(what: str, totals: Totals, verb: str) -> str:
    skipped = f", {totals.skipped:,} passed over" if totals.skipped else ""
    return f"{what}: {totals.read:,} keys read, {totals.added:,} {verb}{skipped}; done"


def _human(report: ReindexReport) -> list[Text]:
    verb = "would be added" if report.dry_run else "added"
    return [Text(_line(w, getattr(report, w), verb)) for w in ("records", "scopes")]
