"""The `accord` command line. Each command lives in worker/commands/<name>.py."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="accord",
    help="Explicit user-agent agreements as a verifiable lifecycle, on Redis Streams.",
    no_args_is_help=True,
    add_completion=False,
)


@app.callback()
def _root() -> None:
    """Explicit user-agent agreements as a verifiable lifecycle, on Redis Streams."""


def application() -> typer.Typer:
    """The app with every command registered (once, however often this is called)."""
    if not app.registered_commands:
        # Imported here so each command owns its module.
        from worker.commands import register  # noqa: PLC0415

        register(app)
    return app


def main() -> None:
    application()()
