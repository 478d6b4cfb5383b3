"""`accord explain RECORD`: why a record is what it is, revision by revision (R16)."""

from __future__ import annotations

from typing import Annotated

import typer

from contracts.explain import explain
from contracts.records import AgreementRecord
from worker.commands import options
from worker.commands._shared import deployment_settings, emit
from worker.commands.lookup import one_record
from worker.render import explanation_lines


def in_scope(record: AgreementRecord, agent_id: str | None, user_id: str | None) -> bool:
    """Whether the record belongs to the scope asked for (any, when none is given).

    A record of another scope is answered as unknown, exactly as one that does not
    exist: nothing is told across scopes.
    """
    return agent_id in {None, record.agent_id} and user_id in {None, record.user_id}


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
        timeout: options.Timeout = options.TIMEOUT_S,
        as_json: options.Json = False,  # noqa: FBT002
    ) -> None:
        """Explain a record: the input, rule, span, deadline, acceptance and delivery behind
        each revision."""
        found = one_record(
            deployment_settings(timeout),
            record,
            timeout_s=timeout,
            wanted=lambda found: in_scope(found, agent, user),
        )
        emit(explain(found), as_json=as_json, human=explanation_lines)
