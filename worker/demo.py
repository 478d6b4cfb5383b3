"""`accord demo`: every seed scenario, in English and Chinese, through the real streams.

With no REDIS_URL it starts an embedded Redis; it always starts a worker in this
process (the same FastStream app `accord worker` runs), then plays the gateway: each
bundled transcript (worker/transcripts/*.jsonl) is XADDed to the input streams, and
the agreement events the worker commits are read back from `agreement-events:{p}`.
It prints each turn, what it changed, and the session views at the end.

Timestamps are rebased so a transcript's first turn is "now" (its deadlines then lie
ahead, and expiry happens by event time, exactly as in the transcript), and ids get a
per-run suffix, so running the demo twice against one Redis shows the same timeline.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from rich.console import Console
from rich.rule import Rule

from contracts.outputs import AgreementEvent
from store.embedded import EmbeddedRedis
from store.reads import session_view
from store.scripts import AnyRedis
from worker.app import build_worker, core_for, store_partition
from worker.connection import connect
from worker.gateway import Gateway, Line, load_transcript, rebase, suffix_ids
from worker.render import timeline, view_table
from worker.settings import Settings

TRANSCRIPTS = Path(__file__).parent / "transcripts"

# (file stem, title, what to watch for)
SCENARIOS: tuple[tuple[str, str, str], ...] = (
    (
        "01-propose-and-accept",
        "Proposal, then both acceptances",
        (
            "Assistant prose ('okay, agreed') accepts nothing; the tool call is the agent's "
            "acceptance, the user's confirmation the other; only then is it open, and a new "
            "session of the same user and agent sees it as current memory (R1-R6)."
        ),
    ),
    (
        "02-user-accepts-first",
        "The user accepts first; a stale revision is refused",
        (
            "Acceptances come in either order; the agent's call with an old revision gets "
            "stale_revision and the current revision, then succeeds with it (R3, R5)."
        ),
    ),
    (
        "03-not-an-agreement",
        "Things that are not agreements",
        (
            "A promise, a request to remember, a task, a question, an assistant 'Let's agree' "
            "and a bare 'ok' create nothing (R1)."
        ),
    ),
    (
        "04-ambiguous-confirmation",
        "Two proposals: an ambiguous confirmation and cancellation",
        (
            "With two candidates nothing is accepted or cancelled: a clarification is "
            "requested instead (R4, R8)."
        ),
    ),
    (
        "05-cancel",
        "An open agreement, cancelled",
        "An explicit cancellation closes it; a later acceptance is refused (R8, R3).",
    ),
    (
        "06-deadline",
        "A deadline closes the window",
        (
            "'within 30 minutes' sets deadline_at; the next turn after it finds the agreement "
            "expired (not fulfilled), and a late acceptance is refused (R9)."
        ),
    ),
    (
        "07-todo-delivery",
        "Verified todo delivery",
        (
            "The proposal binds the unique unfinished todo; a failed write, an assistant "
            "'done' and another item do nothing; completing that item fulfils it (R10-R12)."
        ),
    ),
    (
        "08-late-delivery",
        "Late verified delivery",
        (
            "An open bound agreement expires at its deadline; a later verified completion "
            "still fulfils it and its history keeps the expired revision (R13)."
        ),
    ),
    (
        "09-amendment-agent-first",
        "Amending an open agreement: the agent accepts first",
        (
            "'Let's change our agreement: ...' adds a pending amendment; the old terms stay "
            "current; the agent naming the old revision is stale; both acceptances replace "
            "the terms, and history keeps both versions (R17)."
        ),
    ),
    (
        "10-amendment-user-first",
        "Amending an open agreement: the user accepts first",
        "Either order: the user's confirmation, then the agent's call (R17).",
    ),
    (
        "11-amendment-cancelled",
        "A pending amendment withdrawn",
        (
            "'Cancel the change' withdraws the amendment alone: the agreement stays open with "
            "its terms, and accepting the withdrawn amendment is wrong_state (R17)."
        ),
    ),
    (
        "12-amendment-lapses",
        "An amendment lapses with its agreement",
        (
            "The agreement's deadline passes while an amendment is pending: the lapse is "
            "recorded, then the expiry (R9, R17)."
        ),
    ),
    (
        "13-claims",
        "Claims the state does not back",
        (
            "The assistant claims an agreement that does not exist, then a delivery before the "
            "todo is completed: each gives agreement.claim_unverified and changes nothing; "
            "after the verified delivery the same claim gives nothing (R18)."
        ),
    ),
)

LANGUAGES = ("en", "zh")


@contextlib.contextmanager
def redis_url(settings: Settings) -> Iterator[str]:
    """REDIS_URL when set, else an embedded real redis-server for this run."""
    if settings.redis_url:
        yield settings.redis_url
        return
    with EmbeddedRedis() as server:
        yield server.url


async def play(
    console: Console,
    settings: Settings,
    scenarios: tuple[tuple[str, str, str], ...] = SCENARIOS,
    languages: tuple[str, ...] = LANGUAGES,
    *,
    timeout_s: float = 30.0,
) -> int:
    """Run the worker in this event loop and replay every transcript; the exit code.

    No Redis answer to the demo's own client, and no wait for the worker, takes longer
    than `timeout_s`."""
    worker = build_worker(settings, store_partition)
    await worker.start()
    redis = connect(settings, timeout_s=timeout_s)
    run = f"~{uuid.uuid4().hex[:6]}"
    turns = events_total = 0
    try:
        gateway = Gateway(redis, settings.partitions, settings.group, timeout_s=timeout_s)
        await gateway.mark_start()
        for stem, title, explanation in scenarios:
            for language in languages:
                lines = load_transcript(TRANSCRIPTS / f"{stem}.{language}.jsonl")
                lines = suffix_ids(rebase(lines, datetime.now(UTC).replace(microsecond=0)), run)
                sent = [line for line, _ in await gateway.replay(lines)]
                await gateway.wait_processed()
                await gateway.read_events()
                sessions = list(dict.fromkeys(line["session_id"] for line in sent))
                events = [e for e in gateway.events if e.session_id in sessions]
                turns += len(sent)
                events_total += len(events)
                console.print(Rule(f"[bold]{stem[:2]} {title}[/] ({language})"))
                console.print(f"[dim]{explanation}[/]")
                await _show(console, settings, redis, sent=sent, events=events, sessions=sessions)
    finally:
        await redis.aclose()
        await worker.stop()
    console.print(
        f"\n[bold green]demo done[/]: {turns} inputs through the streams, "
        f"{events_total} agreement events committed."
    )
    return worker.exit_code


async def _show(  # noqa: PLR0913  (what one scenario's screen needs)
    console: Console,
    settings: Settings,
    redis: AnyRedis,
    *,
    sent: list[Line],
    events: list[AgreementEvent],
    sessions: list[str],
) -> None:
    for text in timeline(sent, events, label=short_session):
        console.print(text)
    last = {line["session_id"]: line for line in sent}
    for session_id in sessions:
        line = last[session_id]
        view = await session_view(
            redis,
            core_for(settings),
            settings.partitions,
            agent_id=line["agent_id"],
            user_id=line["user_id"],
            session_id=session_id,
            as_of=datetime.fromisoformat(line["ts"]),
        )
        console.print(view_table(view))


def demo_settings(settings: Settings, url: str) -> Settings:
    """The worker's settings for the demo: quiet, no metrics port, fast sweeps."""
    return dataclasses.replace(
        settings,
        redis_url=url,
        metrics_port=0,
        consumer=f"demo-{os.getpid()}",
        sweep_interval_ms=200,
        log_level=os.environ.get("ACCORD_LOG_LEVEL", "WARNING"),
    )


def short_session(session_id: str) -> str:
    """`en-07-todo-delivery-s1~3fa2c1` -> `s1`: the transcript's own name for it."""
    return session_id.split("~", 1)[0].rsplit("-", 1)[-1]


def elapsed(start: float) -> str:
    return f"{time.monotonic() - start:.1f}s"
