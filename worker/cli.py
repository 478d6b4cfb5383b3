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
    # The one error at import time: ACCORD_NATIVE=1 without a current compiled build
    # (core/native.py). Said in one line, like every other refusal to start.
    from core.native import NativeUnavailableError  # noqa: PLC0415

    try:
        commands = application()
    except NativeUnavailableError as error:
        typer.echo(f"accord: {error}", err=True)
        raise SystemExit(2) from None
    commands()
