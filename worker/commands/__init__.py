"""CLI commands, one module each; `register` adds them to the typer app."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    # One line per command module; keep alphabetical to avoid merge conflicts.
    from worker.commands import (  # noqa: PLC0415 - imported on use so --help stays cheap
        asyncapi,
        bench,
        chaos,
        check,
        console,
        demo,
        dlq,
        events,
        explain,
        history,
        recognize,
        replay,
        schema,
        status,
        version,
        view,
        worker,
    )

    asyncapi.register(app)
    bench.register(app)
    chaos.register(app)
    check.register(app)
    console.register(app)
    demo.register(app)
    dlq.register(app)
    events.register(app)
    explain.register(app)
    history.register(app)
    recognize.register(app)
    replay.register(app)
    schema.register(app)
    status.register(app)
    version.register(app)
    view.register(app)
    worker.register(app)
