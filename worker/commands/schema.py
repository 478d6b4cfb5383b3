"""`accord schema --out DIR`: write the JSON Schema of every wire type.

`--check` writes nothing and exits 1 when DIR is not what a fresh generation would
write, so CI can insist that the committed schemas follow the Structs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from contracts.schema import stale_schemas, write_schemas


def register(app: typer.Typer) -> None:
    @app.command()
    def schema(
        out: Annotated[Path, typer.Option("--out", help="Directory for the *.schema.json files.")],
        check: Annotated[  # noqa: FBT002 - typer flags are boolean parameters
            bool, typer.Option("--check", help="Only verify that DIR is current.")
        ] = False,
    ) -> None:
        """Write JSON Schema 2020-12 for every input and output type."""
        if check:
            stale = stale_schemas(out)
            for name in stale:
                typer.echo(f"stale: {out / name}", err=True)
            if stale:
                typer.echo(f"regenerate with: accord schema --out {out}", err=True)
                raise typer.Exit(1)
            typer.echo(f"{out}: current")
            return
        for path in write_schemas(out):
            typer.echo(str(path))
