"""`accord view SESSION`: the session view the agent's context builder reads (R6)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

import typer
from rich.markup import escape

from contracts.partition import partition_of
from contracts.view import SessionView
from store.lookup import scope_exists, session_exists
from store.reads import record_history, session_view
from store.scripts import AnyRedis
from worker.app import core_for
from worker.commands import options
from worker.commands._shared import (
    deployment_settings,
    emit,
    err_console,
    run_with_redis,
    zone_or_exit,
)
from worker.render import Deadlines, view_table
from worker.zones import parse_instant


def register(app: typer.Typer) -> None:
    @app.command()
    def view(  # noqa: PLR0913, PLR0917  (the view's coordinates and output options)
        session: Annotated[str, typer.Argument(help="The session id.")],
        agent: Annotated[str, typer.Option("--agent", help="The scope's agent_id.")],
        user: Annotated[str, typer.Option("--user", help="The scope's user_id.")],
        as_of: Annotated[
            str | None,
            typer.Option(
                "--as-of",
                help="An RFC 3339 instant, e.g. 2026-03-02T10:00:00Z (default: now; naive: UTC).",
            ),
        ] = None,
        tz: options.Tz = options.TZ_DEFAULT,
        timeout: options.Timeout = options.TIMEOUT_S,
        as_json: options.Json = False,  # noqa: FBT002
    ) -> None:
        """Current agreements of the scope and this session's pending proposals."""
        where = zone_or_exit(tz)
        try:
            instant = parse_instant(as_of) if as_of is not None else datetime.now(UTC)
        except ValueError as error:
            err_console.print(f"[red]--as-of: {escape(str(error))}[/]")
            raise typer.Exit(2) from error
        settings = deployment_settings(timeout)

        async def body(redis: AnyRedis) -> tuple[SessionView, Deadlines] | str:
            partition = partition_of(agent, user, settings.partitions)
            if not await session_exists(redis, partition, agent, user, session):
                if await scope_exists(redis, partition, agent, user):
                    return f"unknown session {session!r} (agent {agent!r}, user {user!r})"
                return f"unknown scope: agent {agent!r}, user {user!r}"
            view = await session_view(
                redis,
                core_for(settings),
                settings.partitions,
                agent_id=agent,
                user_id=user,
                session_id=session,
                as_of=instant,
                now=as_of is None,
            )
            # The view holds the terms alone (R6); a person reading it wants the deadlines.
            deadlines: dict[str, datetime | None] = {}
            if not as_json:
                for current in view.current_agreements:
                    record = await record_history(redis, partition, current.record_id)
                    deadlines[current.record_id] = record.deadline_at if record else None
            return view, deadlines

        result = run_with_redis(settings, body, timeout_s=timeout)
        if isinstance(result, str):
            err_console.print(f"[red]{escape(result)}[/]")
            raise typer.Exit(1)
        found, deadlines = result
        emit(found, as_json=as_json, human=lambda view: [view_table(view, where, deadlines)])
