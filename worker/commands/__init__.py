"""CLI commands, one module each; `register` adds them to the typer app."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    # One line per command module; keep alphabetical to avoid merge conflicts.
    from worker.commands import version  # noqa: PLC0415

    version.register(app)
