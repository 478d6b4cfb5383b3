"""`accord events`: print (and with `--follow`, keep printing) the agreement events."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from typing import Annotated, Any

import typer

from contracts.outputs import AgreementEvent
from contracts.streams import AGREEMENT_EVENTS, DATA_FIELD, EntryId, stream_name
from store.scripts import AnyRedis
from worker.commands import options
from worker.commands._shared import (
    UNREACHABLE,
    console,
    deployment_settings,
    print_json,
    run_with_redis,
    unreachable_line,
    zone_or_exit,
)
from worker.gateway import decode_event
from worker.render import event_summary

_DATA = DATA_FIELD.encode()


def register(app: typer.Typer) -> None:
    @app.command()
    def events(
        follow: Annotated[  # noqa: FBT002 - typer flags are boolean parameters
            bool, typer.Option("--follow", "-f", help="Keep following new events (Ctrl-C stops).")
        ] = False,
        last: Annotated[
            int,
            typer.Option("--last", min=0, help="Start with the last N events (0: only new ones)."),
        ] = 20,
        tz: options.Tz = options.TZ_DEFAULT,
        timeout: options.Timeout = options.TIMEOUT_S,
        as_json: options.Json = False,  # noqa: FBT002
    ) -> None:
        """Show agreement events of every partition this deployment has."""
        where = zone_or_exit(tz)
        settings = deployment_settings(timeout)

        def show(event: AgreementEvent) -> None:
            if as_json:
                print_json(event)
            else:
                console.print(event_summary(event, where), soft_wrap=True)

        def unreachable(error: BaseException, retry_in_s: float) -> None:
            # One line per attempt, then the same cursors again: nothing is missed or
            # printed twice across the outage.
            line = unreachable_line(settings, error, timeout_s=timeout)
            sys.stderr.write(f"{line}; following again in {retry_in_s:g} s\n")
            sys.stderr.flush()

        streams = [stream_name(AGREEMENT_EVENTS, p) for p in range(settings.partitions)]

        async def body(redis: AnyRedis) -> None:
            cursors = await _show_backlog(redis, streams, last, show)
            if follow:
                await _follow(redis, cursors, show, unreachable, block_ms=_block_ms(timeout))

        try:
            run_with_redis(settings, body, timeout_s=timeout)
        except KeyboardInterrupt:
            raise typer.Exit(0) from None


async def _show_backlog(
    redis: AnyRedis, streams: list[str], last: int, show: Callable[[AgreementEvent], None]
) -> dict[str, str]:
    """Print the last `last` events over every stream, oldest first; the cursors after them
    (with `last` 0, after each stream's newest event: only new ones are followed)."""
    cursors = dict.fromkeys(streams, "0-0")
    backlog: list[tuple[EntryId, AgreementEvent]] = []
    for stream in streams:
        reply: Any = await redis.xrevrange(stream, count=max(last, 1))
        if reply:
            cursors[stream] = reply[0][0].decode()
        backlog += [(EntryId.parse(i), decode_event(f[_DATA])) for i, f in reply[:last]]
    for _, event in sorted(backlog, key=lambda pair: pair[0])[len(backlog) - last :]:
        show(event)
    return cursors


async def _follow(
    redis: AnyRedis,
    cursors: dict[str, str],
    show: Callable[[AgreementEvent], None],
    unreachable: Callable[[BaseException, float], None],
    *,
    block_ms: int,
) -> None:
    """Print new events until stopped, riding out Redis being unreachable or silent."""
    backoff_s = _FIRST_BACKOFF_S
    while True:
        try:
            await _follow_once(redis, cursors, show, block_ms)
        except UNREACHABLE as error:
            # redis-py reconnects on the next command; wait a growing step between tries.
            unreachable(error, backoff_s)
            await asyncio.sleep(backoff_s)
            backoff_s = min(backoff_s * 2, _MAX_BACKOFF_S)
        else:
            backoff_s = _FIRST_BACKOFF_S


_FIRST_BACKOFF_S = 0.5
_MAX_BACKOFF_S = 5.0
_BLOCK_MS = 500


def _block_ms(timeout_s: float) -> int:
    """How long one XREAD blocks: at most half the answer timeout, or a quiet stream's
    wait would read as Redis not answering."""
    return max(1, min(_BLOCK_MS, int(timeout_s * 1000 / 2)))


async def _follow_once(
    redis: AnyRedis,
    cursors: dict[str, str],
    show: Callable[[AgreementEvent], None],
    block_ms: int,
) -> None:
    """One XREAD per stream from its cursor, printing and advancing past what arrived."""
    for stream, cursor in list(cursors.items()):
        # One XREAD per stream: on Redis Cluster the partitions live on other shards.
        reply: Any = await redis.xread({stream: cursor}, count=100, block=block_ms)
        for _, entries in reply or ():
            for entry_id, fields in entries:
                cursors[stream] = entry_id.decode()
                show(decode_event(fields[_DATA]))
