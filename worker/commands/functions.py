"""`accord functions load`: load the Redis 7 function library (worker/functions.py).

Run with an operator's Redis user (`ops`: FUNCTION LOAD), once per release and before
workers start with ACCORD_REDIS_FUNCTIONS=1; REPLACE swaps an older library in place.
"""

from __future__ import annotations

import msgspec
import typer
from redis.exceptions import NoPermissionError, ResponseError

from store.scripts import AnyRedis
from worker.commands import options
from worker.commands._shared import deployment_settings, emit, err_console, run_with_redis
from worker.functions import LIBRARY, function_names, load_library
from worker.render import escape

functions_app = typer.Typer(
    help="The Redis 7 function library the scripts run from in function mode.",
    no_args_is_help=True,
)


class Loaded(msgspec.Struct, frozen=True, kw_only=True):
    """What `--json` prints."""

    library: str
    version: str
    functions: list[str]


def _shown(loaded: Loaded) -> list[str]:
    count = len(loaded.functions)
    return [f"loaded function library {loaded.library} {loaded.version} ({count} functions)"]


@functions_app.command("load")
def load_(
    timeout: options.Timeout = options.TIMEOUT_S,
    as_json: options.Json = False,  # noqa: FBT002
) -> None:
    """Load (FUNCTION LOAD REPLACE) this release's function library: Redis 7, an
    operator's user. Workers with ACCORD_REDIS_FUNCTIONS=1 refuse any other version."""
    settings = deployment_settings(timeout)

    async def body(redis: AnyRedis) -> str:
        return await load_library(redis)

    try:
        version = run_with_redis(settings, body, timeout_s=timeout, handled=(ResponseError,))
    except ResponseError as error:
        # Not an operator's user (NOPERM), Redis 6.2 (no FUNCTION), or a library that
        # did not compile: one line either way.
        needs = (
            "FUNCTION LOAD: an operator's user, such as `ops`"
            if isinstance(error, NoPermissionError)
            else "functions need Redis 7"
        )
        err_console.print(
            f"[red]the function library was not loaded:[/] {escape(str(error))} ({needs})",
            soft_wrap=True,
        )
        raise typer.Exit(2) from error
    loaded = Loaded(library=LIBRARY, version=version, functions=function_names())
    emit(loaded, as_json=as_json, human=_shown)


def register(app: typer.Typer) -> None:
    app.add_typer(functions_app, name="functions")
