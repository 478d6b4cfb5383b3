"""CLI commands, one module each; `register` adds them to the typer app.

Development commands (`accord bench`, `accord chaos`) are not part of the product: the
harness distribution (harness/, installed in the dev environment only) announces them
under the `accord.commands` entry-point group, so the product never imports it.
"""

from __future__ import annotations

from importlib.metadata import entry_points

import typer

PLUGIN_GROUP = "accord.commands"


def register(app: typer.Typer) -> None:
    # One line per command module; keep alphabetical to avoid merge conflicts.
    from worker.commands import (  # noqa: PLC0415 - imported on use so --help stays cheap
        acl,
        asyncapi,
        check,
        console,
        demo,
        dev,
        dlq,
        events,
        explain,
        functions,
        history,
        mcp,
        recognize,
        records,
        reindex,
        repartition,
        replay,
        schema,
        scopes,
        status,
        trim,
        version,
        view,
        worker,
    )

    acl.register(app)
    asyncapi.register(app)
    check.register(app)
    console.register(app)
    demo.register(app)
    dev.register(app)
    dlq.register(app)
    events.register(app)
    explain.register(app)
    functions.register(app)
    history.register(app)
    mcp.register(app)
    recognize.register(app)
    records.register(app)
    reindex.register(app)
    repartition.register(app)
    replay.register(app)
    schema.register(app)
    scopes.register(app)
    status.register(app)
    trim.register(app)
    version.register(app)
    view.register(app)
    worker.register(app)
    for plugin in entry_points(group=PLUGIN_GROUP):
        plugin.load()(app)
