"""`accord asyncapi`: write (or check) the AsyncAPI 3.0 document of every channel."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from worker.asyncapi import render

DEFAULT = Path("docs/asyncapi.json")


def register(app: typer.Typer) -> None:
    @app.command()
    def asyncapi(
        out: Annotated[Path, typer.Option("--out", help="Where to write the document.")] = DEFAULT,
        check: Annotated[  # noqa: FBT002 - typer flags are boolean parameters
            bool, typer.Option("--check", help="Write nothing; exit 1 if OUT is not current.")
        ] = False,
    ) -> None:
        """Generate the AsyncAPI 3.0 document from the wire contracts."""
        text = render()
        if check:
            if not out.is_file() or out.read_text(encoding="utf-8") != text:
                typer.echo(f"stale: {out}; regenerate with: accord asyncapi --out {out}", err=True)
                raise typer.Exit(1)
            typer.echo(f"{out}: current")
            return
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
        typer.echo(str(out))
