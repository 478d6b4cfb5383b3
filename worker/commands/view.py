"""`accord view SESSION`: the session view the agent's context builder reads (R6)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

import typer

from contracts.view import SessionView
from store.reads import session_view
from worker.app import core_for
from worker.commands._shared import (
    JSON_HELP,
    console,
    print_json,
    require_url,
    run_with_redis,
    settings_or_exit,
    wants_json,
)
from worker.consumer import AnyRedis
from worker.render import view_table


def register(app: typer.Typer) -> None:
    @app.command()
    def view(
        session: Annotated[str, typer.Argument(help="The session id.")],
        agent: Annotated[str, typer.Option("--agent", help="The scope's agent_id.")],
        user: Annotated[str, typer.Option("--user", help="The scope's user_id.")],
        as_of: Annotated[
            datetime | None,
            typer.Option("--as-of", help="An instant (default: now); naive means UTC."),
        ] = None,
        as_json: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,  # noqa: FBT002
    ) -> None:
        """Current agreements of the scope and this session's pending proposals."""
        settings = require_url(settings_or_exit())
        instant = as_of or datetime.now(UTC)
        if instant.tzinfo is None:
            instant = instant.replace(tzinfo=UTC)

        async def body(redis: AnyRedis) -> SessionView:
            return await session_view(
                redis,
                core_for(settings),
                settings.partitions,
                agent_id=agent,
                user_id=user,
                session_id=session,
                as_of=instant,
            )

        result = run_with_redis(settings, body)
        if wants_json(as_json):
            print_json(result)
        else:
            console.print(view_table(result))
