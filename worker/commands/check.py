"""`accord check`: a health check usable as a Kubernetes probe (exit code 0 or 1).

It checks what a worker needs: Redis answers, every served input stream has the
consumer group, and (with `--require-worker`) at least one worker's heartbeat is
fresh. The worker's own liveness is also served over HTTP at `/healthz`.
"""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from store.intake import missing_groups
from store.layout import streams_beyond
from store.scripts import AnyRedis
from worker.commands import options
from worker.commands._shared import (
    console,
    deployment_settings,
    print_json,
    run_with_redis,
    unreachable_line,
)
from worker.health import live_workers
from worker.settings import Settings


def register(app: typer.Typer) -> None:
    @app.command()
    def check(
        require_worker: Annotated[  # noqa: FBT002 - typer flags are boolean parameters
            bool, typer.Option("--require-worker", help="Fail unless a worker heartbeat is fresh.")
        ] = False,
        timeout: options.Timeout = options.TIMEOUT_S,
        as_json: options.Json = False,  # noqa: FBT002
    ) -> None:
        """Check Redis, the consumer groups and (optionally) live workers; exit 1 if unhealthy."""
        settings = deployment_settings(timeout)

        def unhealthy(line: str) -> dict[str, Any]:
            return {"ok": False, "redis": "unreachable", "error": line}

        async def probe(redis: AnyRedis) -> dict[str, Any]:
            try:
                await redis.ping()
            except Exception as error:  # noqa: BLE001  (any failure to reach Redis is the answer)
                return unhealthy(unreachable_line(settings, error, timeout_s=timeout))
            missing = await missing_groups(redis, settings.served(), settings.group)
            workers = [w.consumer for w in await live_workers(redis)]
            # Streams of partitions >= P: a gateway hashing with a larger count writes
            # input no worker reads.
            beyond = await streams_beyond(redis, settings.partitions)
            ok = not missing and not beyond and (bool(workers) or not require_worker)
            return {
                "ok": ok,
                "redis": "ok",
                "group": settings.group,
                "partitions": list(settings.served()),
                "missing_groups": missing,
                "streams_beyond_partitions": beyond,
                "workers": workers,
            }

        # Unreachable or silent is unhealthy (1), wherever it happens, not a usage error
        # (2): reported the probe's way, in the JSON document with --json.
        result = run_with_redis(settings, probe, timeout_s=timeout, on_unreachable=unhealthy)
        if as_json:
            print_json(result)
        else:
            _print(result, settings)
        if not result["ok"]:
            raise typer.Exit(1)


def _print(result: dict[str, Any], settings: Settings) -> None:
    """The human form: one stderr line when unreachable, else what was found."""
    if "error" in result:
        sys.stderr.write(result["error"] + "\n")
        return
    mark = "[green]healthy[/]" if result["ok"] else "[red]unhealthy[/]"
    console.print(f"accord {mark}: redis {result['redis']}")
    for stream in result.get("missing_groups", []):
        console.print(f"  [red]missing[/] group {settings.group!r} on {stream}")
    for stream in result.get("streams_beyond_partitions", []):
        console.print(
            f"  [red]beyond ACCORD_PARTITIONS={settings.partitions}[/]: {stream}"
            " (input no worker reads)"
        )
    if "workers" in result:
        console.print(f"  live workers: {', '.join(result['workers']) or 'none'}")
