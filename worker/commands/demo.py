"""`accord demo`: the seed scenarios in English and Chinese through the real streams."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import Annotated

import typer

from store.embedded import redis_server_binary
from worker.commands import options
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
        timeout: options.WaitTimeout = options.WAIT_TIMEOUT_S,
    ) -> None:
        """Start Redis (embedded unless REDIS_URL) and a worker, replay every scenario."""
        start = time.monotonic()
        _known_or_exit("scenario", scenario, [stem[:2] for stem, _, _ in SCENARIOS])
        _known_or_exit("language", language, LANGUAGES)
        base = settings_or_exit()
        languages = tuple(language or LANGUAGES)
        scenarios = tuple(s for s in SCENARIOS if not scenario or s[0][:2] in scenario)
        if base.redis_url is not None:
            # Redis must answer before a worker starts on it: one line and exit 2 if not.
            require_answer(base, timeout_s=timeout)
        with redis_url(base) as url:
            settings = demo_settings(base, url)
            configure_logging(settings.log_level, json=False)
            where = (
                f"embedded {redis_server_binary().name}" if base.redis_url is None else "REDIS_URL"
            )
            shown = redacted_url(url)
            console.print(f"[bold]accord demo[/] on {where} {shown}, one worker in this process")
            try:
                code = asyncio.run(play(console, settings, scenarios, languages, timeout_s=timeout))
            except UNREACHABLE as error:
                typer.echo(unreachable_line(settings, error, timeout_s=timeout), err=True)
                raise typer.Exit(2) from None
        console.print(f"[dim]finished in {elapsed(start)}[/]")
        raise typer.Exit(code)


def _known_or_exit(what: str, asked: list[str] | None, known: Sequence[str]) -> None:
    """One line and exit 2 when `asked` names a `what` the demo does not have."""
    unknown = [name for name in asked or () if name not in known]
    if unknown:
        typer.echo(
            f"accord demo: unknown {what} {', '.join(map(repr, unknown))}; "
            f"choose from {' '.join(known)}",
            err=True,
        )
        raise typer.Exit(2)
