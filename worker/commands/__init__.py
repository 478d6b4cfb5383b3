"""CLI commands, one module each; `register` adds them to the typer app."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    # One line per command module; keep alphabetical to avoid merge conflicts.
    from worker.commands import (  # noqa: PLC0415 - imported on use so --help stays cheap
        recognize,
        schema,
        version,
    )

    recognize.register(app)
    schema.register(app)
    version.register(app)
