"""`accord demo`: the seed scenarios in English and Chinese through the real streams."""

from __future__ import annotations

import asyncio
import time
from typing import Annotated

import typer

from worker.commands._shared import (
    UNREACHABLE,
    console,
    require_answer,
    settings_or_exit,
    unreachable_line,
)
from worker.demo import LANGUAGES, SCENARIOS, demo_settings, elapsed, play, redis_url
from worker.observability import configure_logging
from worker.settings import redacted_url


def register(app: typer.Typer) -> None:
    @app.command()
    def demo(
        language: Annotated[
            list[str] | None,
            typer.Option("--language", "-l", help="en and/or zh (default: both)."),
        ] = None,
        scenario: Annotated[
            list[str] | None,
            typer.Option("--scenario", "-s", help="Scenario number(s), e.g. -s 01 -s 07."),
        ] = None,
        timeout: Annotated[
            float,
            typer.Option(
                min=0.1,
                help="Seconds Redis may take to answer and any wait for the worker may take.",
            ),
        ] = 30.0,
    ) -> None:
        """Start Redis (embedded unless REDIS_URL) and a worker, replay every scenario."""
        start = time.monotonic()
        known = [stem[:2] for stem, _, _ in SCENARIOS]
        unknown = [s for s in scenario or () if s not in known]
        if unknown:
            typer.echo(
                f"accord demo: unknown scenario {', '.join(map(repr, unknown))}; "
                f"choose from {' '.join(known)}",
                err=True,
            )
            raise typer.Exit(2)
        strange = [name for name in language or () if name not in LANGUAGES]
        if strange:
            typer.echo(
                f"accord demo: unknown language {', '.join(map(repr, strange))}; "
                f"choose from {' '.join(LANGUAGES)}",
                err=True,
            )
            raise typer.Exit(2)
        base = settings_or_exit()
        languages = tuple(language or LANGUAGES)
        scenarios = tuple(s for s in SCENARIOS if not scenario or s[0][:2] in scenario)
        if base.redis_url is not None:
            # Redis must answer before a worker starts on it: one line and exit 2 if not.
            require_answer(base, timeout_s=timeout)
        with redis_url(base) as url:
            settings = demo_settings(base, url)
            configure_logging(settings.log_level, json=False)
            where = "embedded Redis" if base.redis_url is None else "REDIS_URL"
            shown = redacted_url(url)
            console.print(f"[bold]accord demo[/] on {where} {shown}, one worker in this process")
            try:
                code = asyncio.run(play(console, settings, scenarios, languages, timeout_s=timeout))
            except UNREACHABLE as error:
                typer.echo(unreachable_line(settings, error, timeout_s=timeout), err=True)
                raise typer.Exit(2) from None
        console.print(f"[dim]finished in {elapsed(start)}[/]")
        raise typer.Exit(code)
