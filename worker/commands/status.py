"""`accord status`: partitions with owner, lag, pending, parked gaps, events held for
replicas (the durability setting, with its short waits) and dead letters by reason;
consumers with their partitions, pending entries and heartbeat age.

The data comes from `store.status.fleet_status` (the console reads the same).
"""

from __future__ import annotations

import typer
from rich.markup import escape
from rich.table import Table

from store.scripts import AnyRedis
from store.status import FleetStatus, fleet_status
from worker.commands import options
from worker.commands._shared import deployment_settings, emit, run_with_redis


def _age(ms: int | None) -> str:
    return "not live" if ms is None else f"{ms / 1000:.1f}s"


def render(status: FleetStatus) -> tuple[Table, Table]:
    """The two tables `accord status` prints (names escaped: they are Redis data)."""
    parts = Table(title=f"partitions (group {escape(status.group)})")
    for column in ("partition", "owner", "lease left", "lag", "pending", "parked gaps", "held"):
        parts.add_column(column, justify="left" if column == "owner" else "right")
    parts.add_column("dead letters")
    for row in status.partitions:
        letters = ", ".join(f"{escape(k)} {n}" for k, n in row.dead_letters.items())
        parts.add_row(
            str(row.partition),
            escape(row.owner) if row.owner else "[yellow]none[/]",
            "" if row.lease_ms_left is None else f"{row.lease_ms_left / 1000:.1f}s",
            "?" if row.lag is None else str(row.lag),
            str(row.pending),
            str(row.parked_gaps),
            str(row.held) + (f" ({row.short_waits} short waits)" if row.short_waits else ""),
            f"{row.dead_letters_total}" + (f" ({letters})" if letters else ""),
        )
    consumers = Table(title="consumers")
    for column in ("consumer", "partitions", "pending", "heartbeat age"):
        consumers.add_column(column, justify="left" if column == "consumer" else "right")
    for consumer in status.consumers:
        consumers.add_row(
            escape(consumer.consumer),
            ",".join(map(str, consumer.partitions)) or "-",
            str(consumer.pending),
            "departed" if consumer.departed else _age(consumer.heartbeat_age_ms),
        )
    return parts, consumers


def register(app: typer.Typer) -> None:
    @app.command()
    def status(
        timeout: options.Timeout = options.TIMEOUT_S,
        as_json: options.Json = False,  # noqa: FBT002
    ) -> None:
        """Partitions (owner, lag, pending, parked gaps, dead letters) and consumers."""
        settings = deployment_settings(timeout)

        async def read(redis: AnyRedis) -> FleetStatus:
            return await fleet_status(
                redis, settings.partitions, settings.group, live_ms=settings.lease_ms
            )

        result = run_with_redis(settings, read, timeout_s=timeout)
        emit(result, as_json=as_json, human=render)
