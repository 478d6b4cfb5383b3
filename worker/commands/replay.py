"""`accord replay FILE`: publish a JSON-lines transcript as a gateway would, show the result."""

from __future__ import annotations

import shlex
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from contracts.outputs import AgreementEvent
from store.scripts import AnyRedis
from worker.commands import options
from worker.commands._shared import (
    console,
    deployment_settings,
    err_console,
    print_json,
    refuse,
    run_with_redis,
)
from worker.gateway import Gateway, Line, ReplayError, load_transcript, rebase, suffix_ids
from worker.render import timeline


def used_ids(sent: list[Line]) -> list[str]:
    """The ids the replay wrote under, and the `accord view` command for each session.

    Each command views as of the transcript's last turn: rebased, its first turn is now
    and the later ones lie ahead, and a view as of now leaves out what they did (R6).
    """
    scopes = dict.fromkeys((line["agent_id"], line["user_id"]) for line in sent)
    sessions = dict.fromkeys(
        (line["agent_id"], line["user_id"], line["session_id"]) for line in sent
    )
    end = max((datetime.fromisoformat(line["ts"]) for line in sent), default=None)
    as_of = "" if end is None else f" --as-of {shlex.quote(end.isoformat())}"
    out = [f"replayed as agent {a!r} user {u!r}; to look at it:" for a, u in scopes]
    out += [
        f"  accord view {shlex.quote(s)} --agent {shlex.quote(a)} --user {shlex.quote(u)}{as_of}"
        for a, u, s in sessions
    ]
    return out


def register(app: typer.Typer) -> None:
    @app.command()
    def replay(
        file: Annotated[Path, typer.Argument(help="JSON lines, one input event each.")],
        keep_ts: Annotated[  # noqa: FBT002 - typer flags are boolean parameters
            bool,
            typer.Option("--keep-ts", help="Keep the timestamps (default: first turn = now)."),
        ] = False,
        fresh: Annotated[  # noqa: FBT002
            bool,
            typer.Option(
                "--fresh/--same-ids",
                help="Suffix user and session ids so a second replay is not a duplicate.",
            ),
        ] = True,
        timeout: options.WaitTimeout = options.WAIT_TIMEOUT_S,
        as_json: options.Json = False,  # noqa: FBT002
    ) -> None:
        """Publish FILE through the input streams, wait until processed, print the events."""
        settings = deployment_settings(timeout)
        lines = _load(file)
        if not keep_ts:
            lines = rebase(lines, datetime.now(UTC).replace(microsecond=0))
        if fresh:
            lines = suffix_ids(lines, f"~{uuid.uuid4().hex[:6]}")

        async def body(redis: AnyRedis) -> tuple[list[Line], Gateway]:
            gateway = Gateway(redis, settings.partitions, settings.group, timeout_s=timeout)
            await gateway.mark_start()
            with Progress(
                TextColumn("publishing"),
                BarColumn(),
                MofNCompleteColumn(),
                console=err_console,
                disable=as_json,
            ) as progress:
                task = progress.add_task("publish", total=len(lines))
                sent = await gateway.replay(lines, lambda _: progress.advance(task))
            await gateway.wait_processed(timeout)
            await gateway.read_events()
            return [line for line, _ in sent], gateway

        try:
            sent, gateway = run_with_redis(settings, body, timeout_s=timeout)
        except ReplayError as error:
            err_console.print(f"[red]{error}[/]")
            raise typer.Exit(1) from error
        sessions = {line["session_id"] for line in sent}
        events = [e for e in gateway.events if e.session_id in sessions]
        _print_result(sent, events, json_out=as_json)


def _load(file: Path) -> list[Line]:
    """The transcript's lines, or one line on stderr naming the file and what is wrong."""
    try:
        lines = load_transcript(file)
    except ReplayError as error:
        _refuse(str(error))
    except OSError as error:
        _refuse(f"{file}: cannot read it: {error.strerror or error}")
    except UnicodeDecodeError as error:
        _refuse(f"{file}: not UTF-8 text (byte {error.start}): JSON lines expected")
    if not lines:
        _refuse(f"{file}: holds no input event (one JSON object per line expected)")
    return lines


def _refuse(line: str) -> NoReturn:
    refuse("replay", line)


def _print_result(sent: list[Line], events: list[AgreementEvent], *, json_out: bool) -> None:
    if json_out:
        for event in events:
            print_json(event)
    else:
        for text in timeline(sent, events):
            console.print(text)
    # With --json stdout stays pure JSON lines, so the ids go to stderr then.
    show = err_console if json_out else console
    for line in used_ids(sent):
        show.print(line, soft_wrap=True, highlight=False, markup=False)
