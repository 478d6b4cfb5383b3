"""The options several commands take, declared once: the flag, its help and its default
read the same in every command (docs/cli.md, the list at the top).

A command names them in its signature (typer reads options from there), e.g.
`timeout: options.Timeout = options.TIMEOUT_S`; typer takes a default only beside the
annotation, so each default is a constant here too.
"""

from __future__ import annotations

from typing import Annotated

import typer

from worker.zones import DEFAULT_ZONE, TZ_HELP

JSON_HELP = "Print JSON (one document per line) instead of human-readable output."
# `--json`: machine-readable output, one JSON document per line.
Json = Annotated[bool, typer.Option("--json", help=JSON_HELP)]

# `--tz`: every command that shows a time shows it in this zone.
TZ_DEFAULT = DEFAULT_ZONE
Tz = Annotated[str, typer.Option("--tz", help=TZ_HELP)]

# `--timeout`: how long one Redis answer (the connection included) may take before the
# command gives up with one line.
TIMEOUT_S = 10.0
Timeout = Annotated[
    float,
    typer.Option(
        "--timeout",
        min=0.1,
        help="Seconds Redis may take to answer; past that, one line on stderr and exit 2.",
    ),
]

# `--timeout` of the commands that also wait for a worker to process what they wrote
# (`replay`, `demo`): the same bound covers that wait, so it is longer.
WAIT_TIMEOUT_S = 30.0
WaitTimeout = Annotated[
    float,
    typer.Option(
        min=0.1, help="Seconds Redis may take to answer and any wait for the worker may take."
    ),
]

# `--port` of the console (`accord console`, `accord dev`): a TCP port, 0 for any free one.
CONSOLE_PORT = 8765
ConsolePort = Annotated[
    int, typer.Option("--port", min=0, max=65535, help="Console port (0: any free port, printed).")
]

# The list commands' filters and paging (`accord records`, `accord scopes`).
SPAN_HELP = "a span back (15m, 1h, 2d) or an instant"
Since = Annotated[str | None, typer.Option("--since", help=f"Changed at or after: {SPAN_HELP}.")]
Until = Annotated[str | None, typer.Option("--until", help=f"Changed at or before: {SPAN_HELP}.")]
Cursor = Annotated[
    str | None,
    typer.Option("--cursor", help="Go on after the page that printed this cursor."),
]
