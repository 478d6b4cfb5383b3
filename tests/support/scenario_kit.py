"""The seed scenarios played through the streams and checked against EXPECTED (R1-R15)."""

from __future__ import annotations

from datetime import datetime

from redis.asyncio import Redis, RedisCluster

from store.reads import session_view
from tests.support.worker_kit import (
    EXPECTED,
    now_s,
    summarize,
    summarize_view,
)
from worker.app import core_for
from worker.demo import LANGUAGES, TRANSCRIPTS
from worker.gateway import Gateway, load_transcript, rebase, suffix_ids
from worker.settings import Settings

PARTITIONS = 4


async def play_all(client: Redis | RedisCluster, run: str) -> dict[str, object]:
    """Replay every transcript; per (scenario, language): (event summaries, views)."""
    gateway = Gateway(client, PARTITIONS)
    await gateway.mark_start()
    results: dict[str, object] = {}
    for stem in EXPECTED:
        for language in LANGUAGES:
            lines = load_transcript(TRANSCRIPTS / f"{stem}.{language}.jsonl")
            lines = suffix_ids(rebase(lines, now_s()), run)
            sent = [line for line, _ in await gateway.replay(lines)]
            await gateway.wait_processed(timeout_s=120)
            await gateway.read_events()
            sessions = list(dict.fromkeys(line["session_id"] for line in sent))
            events = [summarize(e) for e in gateway.events if e.session_id in sessions]
            last = {line["session_id"]: line for line in sent}
            views = {}
            for session_id in sessions:
                line = last[session_id]
                view = await session_view(
                    client,
                    core_for(Settings()),
                    PARTITIONS,
                    agent_id=line["agent_id"],
                    user_id=line["user_id"],
                    session_id=session_id,
                    as_of=datetime.fromisoformat(line["ts"]),
                )
                views[session_id.split("~")[0].rsplit("-", 1)[-1]] = summarize_view(view)
            results[f"{stem}.{language}"] = (events, views)
    return results


def check_all(results: dict[str, object]) -> None:
    for stem, (events, views) in EXPECTED.items():
        for language in LANGUAGES:
            assert results[f"{stem}.{language}"] == (events, views), f"{stem} ({language})"
