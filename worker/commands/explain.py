"""`accord explain RECORD`: why a record is what it is, revision by revision (R16)."""

from __future__ import annotations

from typing import Annotated, NoReturn

import typer
from rich.markup import escape

from contracts.explain import Explanation, explain
from contracts.records import AgreementRecord
from store.lookup import PrefixLookupError, records_named
from store.reads import record_history
from store.scripts import AnyRedis
from worker.commands._shared import (
    JSON_HELP,
    TIMEOUT_DEFAULT_S,
    Timeout,
    console,
    err_console,
    print_json,
    require_url,
    run_with_redis,
    settings_or_exit,
    wants_json,
)
from worker.render import explanation_lines


def in_scope(record: AgreementRecord, agent_id: str | None, user_id: str | None) -> bool:
    """Whether the record belongs to the scope asked for (any, when none is given).

    A record of another scope is answered as unknown, exactly as one that does not
    exist: nothing is told across scopes.
    """
    return agent_id in {None, record.agent_id} and user_id in {None, record.user_id}


def _not_one(record: str, found: list[str]) -> NoReturn:
    """Exit: unknown (1), or the records an ambiguous prefix names (2), as `history` does."""
    if not found:
        err_console.print(f"[red]unknown record {escape(repr(record))}[/]")
        raise typer.Exit(1)
    err_console.print(f"[red]{escape(repr(record))} names {len(found)} records:[/]")
    for record_id in found:
        err_console.print(f"  {escape(record_id)}")
    raise typer.Exit(2)


def register(app: typer.Typer) -> None:
    @app.command(name="explain")
    def explain_command(
        record: Annotated[
            str, typer.Argument(help="The record id, or its start as shown (agr-d241f48f).")
        ],
        agent: Annotated[
            str | None, typer.Option("--agent", help="Only a record of this agent's scope.")
        ] = None,
        user: Annotated[
            str | None, typer.Option("--user", help="Only a record of this user's scope.")
        ] = None,
        timeout: Timeout = TIMEOUT_DEFAULT_S,
        as_json: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,  # noqa: FBT002
    ) -> None:
        """Explain a record: the input, rule, span, deadline, acceptance and delivery behind
        each revision."""
        settings = require_url(settings_or_exit())

        async def body(redis: AnyRedis) -> Explanation | list[str]:
            matches = await records_named(redis, settings.partitions, record)
            if len(matches) != 1:
                return [record_id for _, record_id in matches]
            partition, record_id = matches[0]
            found = await record_history(redis, partition, record_id)
            if found is None or not in_scope(found, agent, user):
                return []
            return explain(found)

        try:
            found = run_with_redis(settings, body, timeout_s=timeout)
        except PrefixLookupError as error:
            err_console.print(f"[red]{escape(str(error))}[/]")
            raise typer.Exit(2) from error
        if isinstance(found, list):
            _not_one(record, found)
        if wants_json(as_json):
            print_json(found)
        else:
            for line in explanation_lines(found):
                console.print(line)
