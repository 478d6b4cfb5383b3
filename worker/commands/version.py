"""`accord version`: the installed version."""

from __future__ import annotations

from importlib.metadata import version as _dist_version

import typer


def register(app: typer.Typer) -> None:
    @app.command()
    def version() -> None:
        """Print accord's version."""
        typer.echo(_dist_version("accord"))
