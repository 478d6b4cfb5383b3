"""The `accord` command line. Each command lives in worker/commands/<name>.py.

Every way a command can end says so in one line on stderr (docs/cli.md, "Exit codes"):
a usage error (exit 2), a refusal a command raises (its own code), Ctrl-C (130), and a
failure nobody foresaw (exit 1, "internal error"; `ACCORD_DEBUG=1` adds the traceback).
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Sequence
from importlib.metadata import version as _dist_version
from urllib.parse import urlsplit

import typer

# Typer vendors its own click (typer._click); its exceptions are what a command line
# raises here, not those of a `click` installed beside it.
from typer._click import exceptions as click

app = typer.Typer(
    name="accord",
    help="Explicit user-agent agreements as a verifiable lifecycle, on Redis Streams.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

# Development commands: announced by the harness distribution (worker/commands/__init__.py).
DEV_COMMANDS = ("bench", "chaos")
DEBUG_VARIABLE = "ACCORD_DEBUG"
INTERNAL_ERROR = "accord: internal error:"


def _print_version(value: bool) -> None:  # noqa: FBT001  (a typer callback)
    if value:
        typer.echo(_dist_version("accord"))
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(  # noqa: FBT001
        False,  # noqa: FBT003
        "--version",
        callback=_print_version,
        is_eager=True,
        help="Print accord's version and exit.",
    ),
) -> None:
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
    raise SystemExit(run(commands, sys.argv[1:]))


def run(commands: typer.Typer, args: Sequence[str]) -> int:
    """Run the command line `args`; its exit code, every failure said in one line."""
    if any("\x00" in arg for arg in args):
        # No shell can pass one (argv is C strings); a caller in-process might.
        _say("accord: an argument holds a NUL byte")
        return 2
    try:
        result = commands(args=list(args), prog_name="accord", standalone_mode=False)
    except click.NoArgsIsHelpError as error:
        if error.ctx is not None:
            typer.echo(error.ctx.get_help())
        return 0
    except (Exception, KeyboardInterrupt) as error:  # noqa: BLE001  (each said in one line)
        line, code = _failure(error, args)
        _say(line)
        return code
    return result if isinstance(result, int) else 0


def _failure(error: BaseException, args: Sequence[str]) -> tuple[str, int]:
    """The line that says how the command failed, and its exit code (docs/cli.md)."""
    if isinstance(error, click.UsageError):
        return _usage_line(error, args), 2
    if isinstance(error, click.ClickException):
        return f"accord: {error.format_message()}", error.exit_code
    if isinstance(error, click.Abort | KeyboardInterrupt):
        return "accord: interrupted", 130
    if isinstance(error, OSError):  # the machine said no (a file, a directory, a port)
        where = f": {error.filename}" if error.filename else ""
        return f"accord: {error.strerror or error}{where}", 2
    # The last line of defence: a bug, in one line (and its traceback when asked for).
    if os.environ.get(DEBUG_VARIABLE):
        traceback.print_exception(error)
    message = " ".join(str(error).split())[:300]
    password = urlsplit(os.environ.get("REDIS_URL", "")).password
    if password:  # a message may quote the URL: never print its password
        message = message.replace(password, "***")
    return (
        f"{INTERNAL_ERROR} {type(error).__name__}: {message}"
        f" (a bug: {DEBUG_VARIABLE}=1 prints the traceback)"
    ), 1


def _usage_line(error: click.UsageError, args: Sequence[str]) -> str:
    """One line: the command, what was wrong, where help is."""
    where = error.ctx.command_path if error.ctx is not None else "accord"
    message = " ".join(error.format_message().split())
    name = args[0] if args else ""
    if name in DEV_COMMANDS and message.startswith("No such command"):
        return (
            f"accord: `{name}` is a development command, installed with the test harness:"
            f" run `./dev test` once (or `uv sync`), then `./dev accord {name}` (docs/cli.md)"
        )
    return f"{where}: {message} (see {where} --help)"


def _say(line: str) -> None:
    sys.stderr.write(line + "\n")
    sys.stderr.flush()
