"""`accord bench`: the performance harness (harness/accord_harness/bench, docs/performance.md)."""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer

from worker.commands._shared import console, err_console


def register(app: typer.Typer) -> None:
    @app.command()
    def bench(
        size: Annotated[
            str,
            typer.Option(help="small (CI), medium, or full (the production shape, docs)."),
        ] = "small",
        json: Annotated[  # noqa: FBT002  (a CLI flag)
            bool, typer.Option("--json", help="Print the figures as one JSON object.")
        ] = False,
    ) -> None:
        """Throughput against the bare redis-py loop, latency, RSS, memory, scaling.

        Starts its own redis-server and worker processes; needs no REDIS_URL. Exit 1 if
        the run was not exactly once (timings are printed, never judged).
        """
        from accord_harness.bench.run import PLANS, run  # noqa: PLC0415  (heavy; on use)

        if size not in PLANS:
            err_console.print(f"[red]--size must be one of {', '.join(PLANS)}[/]")
            raise typer.Exit(2)
        say = (lambda _: None) if json else (lambda line: err_console.print(f"[dim]{line}[/]"))
        figures = asyncio.run(run(size, say=say))
        if json:
            console.print(figures.to_json(), markup=False, highlight=False, soft_wrap=True)
        else:
            for line in figures.lines():
                console.print(line, markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(0 if figures.ok else 1)
