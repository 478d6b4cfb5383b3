"""`accord explain RECORD`: why a record is what it is, revision by revision (R16)."""

from __future__ import annotations

from typing import Annotated

import typer

from contracts.explain import Explanation, explain
from contracts.records import AgreementRecord
from store.reads import MIN_PREFIX, find_records
from worker.commands._shared import (
    JSON_HELP,
    console,
    err_console,
    print_json,
    require_url,
    run_with_redis,
    settings_or_exit,
    wants_json,
)
from worker.consumer import AnyRedis
from worker.render import explanation_lines


def resolve(
    records: list[AgreementRecord], agent_id: str | None, user_id: str | None
) -> AgreementRecord | None:
    """The one record meant, within the scope when one is given; None when unknown.

    A record of another scope is unknown, exactly as a record that does not exist:
    nothing is told across scopes.
    """
    mine = [
        r
        for r in records
        if (agent_id is None or r.agent_id == agent_id)
        and (user_id is None or r.user_id == user_id)
    ]
    return mine[0] if len(mine) == 1 else None


def register(app: typer.Typer) -> None:
    @app.command(name="explain")
    def explain_command(
        record: Annotated[
            str,
            typer.Argument(
                help=f"The record id (agr-...), or a unique prefix of {MIN_PREFIX}+ chars."
            ),
        ],
        agent: Annotated[
            str | None, typer.Option("--agent", help="Only a record of this agent's scope.")
        ] = None,
        user: Annotated[
            str | None, typer.Option("--user", help="Only a record of this user's scope.")
        ] = None,
        as_json: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,  # noqa: FBT002
    ) -> None:
        """Explain a record: the input, rule, span, deadline, acceptance and delivery behind
        each revision."""
        settings = require_url(settings_or_exit())

        async def body(redis: AnyRedis) -> tuple[list[AgreementRecord], Explanation | None]:
            found = await find_records(redis, settings.partitions, record)
            chosen = resolve(found, agent, user)
            return found, None if chosen is None else explain(chosen)

        found, explanation = run_with_redis(settings, body)
        if explanation is None:
            ambiguous = len(found) > 1 and agent is None and user is None
            reason = "ambiguous short id" if ambiguous else "unknown record"
            err_console.print(f"[red]{reason}[/] {record!r}")
            raise typer.Exit(1)
        if wants_json(as_json):
            print_json(explanation)
        else:
            for line in explanation_lines(explanation):
                console.print(line)
