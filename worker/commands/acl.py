"""`accord acl secrets|render`: Redis users' passwords, and ACL files rendered from them
(worker/acl.py; docs/operations.md, "Redis users")."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated, NoReturn

import typer

from worker import acl
from worker.commands._shared import refuse

acl_app = typer.Typer(
    help="Redis ACL files rendered from passwords kept outside the repository.",
    no_args_is_help=True,
)

TEMPLATES = [Path("deploy/redis/users.acl")]


@acl_app.command("secrets")
def secrets_(
    env_file: Annotated[Path, typer.Argument(help="The env file to write (e.g. deploy/.env).")],
    template: Annotated[
        list[Path] | None,
        typer.Option("--template", help="ACL template(s) naming the users (default: users.acl)."),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing file.")] = False,  # noqa: FBT002
) -> None:
    """Write a fresh random password for every user of the template(s), as an env file
    (ACCORD_PASSWORD_<USER>=...), readable by its owner only: for a development machine
    and compose. Production keeps its passwords in its secret store."""
    if env_file.exists() and not force:
        _refuse(f"{env_file} exists (--force replaces it, and every password in it)")
    wanted: list[str] = []
    for path in template or TEMPLATES:
        wanted += acl.users(_read(path))
    passwords = acl.generated(dict.fromkeys(wanted))
    _write_private(env_file, acl.env_file(passwords))
    typer.echo(f"{env_file}: {len(passwords)} passwords ({', '.join(passwords)})")


@acl_app.command("render")
def render_(
    template: Annotated[Path, typer.Argument(help="An ACL template (deploy/redis/users.acl).")],
    env_file: Annotated[
        Path | None,
        typer.Option("--env-file", help="Passwords as ACCORD_PASSWORD_<USER>=... lines."),
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="Write here (mode 600), not to stdout.")
    ] = None,
) -> None:
    """Fill the template's password hashes from ACCORD_PASSWORD_<USER> (the environment,
    or --env-file over it); a user without a password is an error."""
    text = _read(template)
    environment = dict(os.environ)
    if env_file is not None:
        try:
            environment |= acl.read_env_file(_read(env_file))
        except acl.AclError as error:
            _refuse(f"{env_file}: {error}")
    try:
        rendered = acl.render(text, acl.passwords_from(environment, acl.users(text)))
    except acl.AclError as error:
        _refuse(f"{template}: {error}")
    if out is None:
        sys.stdout.write(rendered)
        return
    _write_private(out, rendered)
    typer.echo(f"{out}: {len(acl.users(text))} users")


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as error:
        _refuse(f"{path}: cannot read it: {error.strerror or error}")
    except UnicodeDecodeError:
        _refuse(f"{path}: not UTF-8 text")
    except ValueError as error:  # a name the OS cannot take (a NUL byte in it)
        _refuse(f"{str(path)!r}: cannot read it: {error}")


def _write_private(path: Path, text: str) -> None:
    """Write `text` to `path`, readable by its owner only (it holds secrets)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            file.write(text)
    except (OSError, ValueError) as error:
        _refuse(f"{str(path)!r}: cannot write it: {error}")


def _refuse(line: str) -> NoReturn:
    refuse("acl", line)


def register(app: typer.Typer) -> None:
    app.add_typer(acl_app, name="acl")
