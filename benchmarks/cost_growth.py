"""How the worker's cost per entry grows with scopes, sessions per scope and open agreements.

    uv run --frozen python benchmarks/cost_growth.py [SCOPES] [BLOCKS] [ROUNDS]

Four workloads of ordinary chat (a user turn, the assistant's answer, a `todo_write`
call and its result with the session's todo list, real-length text in English and
Chinese, two partitions, default settings), each drained by the worker as
`worker.app.build_worker` builds it (the merged reader), in this process:

- base: SCOPES scopes (default 50) of 4 sessions, 1 open agreement per scope;
- scopes x10: ten times the scopes, the same sessions per scope;
- sessions x10: ten times the sessions per scope (40), the same scopes;
- open x10: 10 open agreements per scope;
- longer: the base's sessions ten times as long (as many entries as the x10 shapes).

Each scope's agreements are opened first (proposal, the agent's accept, the user's
confirmation) and drained unmeasured; then the ordinary blocks are written as a backlog
and the drain of that backlog is measured: this process's CPU time per entry (the
worker; Redis runs in its own process) and Redis's (`INFO cpu`, the drain only).
Workloads alternate round by round and the medians are printed as ratios to the base
from the same run, so the machine's load moves all of them alike.
"""

# ruff: noqa: T201, RUF001  (it prints its report; Chinese turns carry full-width punctuation)
from __future__ import annotations

import asyncio
import logging
import os
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import structlog
from accord_harness.bench.endtoend import until_acked, write
from accord_harness.bench.inprocess import shipped_worker
from accord_harness.bench.loops import redis_cpu_s
from accord_harness.chaos.workload import EN, ZH
from accord_harness.documents import Document, Session, encode, stream_of
from redis.asyncio import Redis

from contracts.streams import GROUP
from store.embedded import EmbeddedRedis
from store.intake import ensure_groups

PARTITIONS = 2
TODOS = (("Draft the outline", "Review the budget"), ("整理读书笔记", "预订会议室"))
ASSISTANT = (
    "Sure, here is a short summary of the chapter and the three points you asked about.",
    "好的，我来整理一下要点，并把需要你确认的地方单独列出来。",
)
# Real-length user turns with no agreement phrase (what most of a chat is).
USER = (
    (
        (
            "Thanks for the summary yesterday. Could you look at the budget draft again and "
            "tell me which of the three travel options is cheapest if we book before Friday?"
        ),
        (
            "I moved the design review to next week because two people are out. Please keep "
            "the notes short and put the open questions at the top so I can forward them."
        ),
        (
            "Remember that the client prefers metric units and British spelling in reports; "
            "the last version used feet and inches in two tables, which we should fix."
        ),
    ),
    (
        "谢谢你昨天的总结。能不能再看一下预算草稿，告诉我如果周五前订票，三个出行方案里哪个最便宜？",
        "因为有两个人请假，我把设计评审挪到了下周。会议纪要请写简短一些，把待解决的问题放在最前面，方便我转发。",
        "客户更喜欢报告里用公制单位；上一版有两张表用了英尺和英寸，我们需要改过来，顺便检查一下其他图表。",
    ),
)
TERMS = (
    "Let's agree: when we discuss a plan, start with the conclusion, item {k}.",
    "我们约定：讨论计划的时候先说结论，第{k}条。",
)


@dataclass(frozen=True)
class Shape:
    name: str
    scopes: int
    sessions_per_scope: int
    open_per_scope: int
    # Blocks per session, as a multiple of the command line's BLOCKS.
    length: int = 1


def build(shape: Shape, blocks: int) -> tuple[list[Document], list[Document]]:
    """(setup, measured): the scopes' agreements opened, then the ordinary blocks."""
    setup: list[list[Document]] = []
    measured: list[list[Document]] = []
    for scope_index in range(shape.scopes):
        scope = ("agent", f"{shape.name}-u{scope_index}")
        for session_index in range(shape.sessions_per_scope):
            zh = (scope_index + session_index) % 2
            phrases = ZH if zh else EN
            session = Session(scope, f"{shape.name}-{scope_index}-{session_index}", step_s=30,
                              zone=phrases.zone)  # fmt: skip
            if session_index == 0:
                for k in range(shape.open_per_scope):
                    seq = session.say(TERMS[zh].format(k=k))
                    session.accept(seq, 1)
                    session.say(phrases.confirm)
            opened = len(session.documents)
            for block in range(blocks * shape.length):
                session.say(USER[zh][block % len(USER[zh])])
                session.say(ASSISTANT[zh], "assistant")
                todos = [{"content": c, "status": "in_progress"} for c in TODOS[zh]]
                call_seq = session.call("todo_write", {"todos": todos})
                session.todo_result(todos, call_id=f"c-{session.session_id}-{call_seq}")
            setup.append(session.documents[:opened])
            measured.append(session.documents[opened:])
    return _interleaved(setup), _interleaved(measured)


def _interleaved(per_session: list[list[Document]]) -> list[Document]:
    """Sessions round robin, as many chats at once."""
    longest = max((len(d) for d in per_session), default=0)
    return [d[i] for i in range(longest) for d in per_session if i < len(d)]


async def _drain(redis: Redis, documents: list[Document]) -> dict[str, list[tuple[int, int]]]:
    ids = await write(redis, [(stream_of(d, PARTITIONS), encode(d)) for d in documents])
    await until_acked(redis, ids, len(documents), poll_s=0.01)
    return ids


def _write_blocking(url: str, documents: list[Document]) -> dict[str, list[tuple[int, int]]]:
    """XADD the backlog (the bench's own `write`) on a loop of its own in another thread,
    waited for without yielding: the worker, which runs on this thread's loop, does
    nothing meanwhile, so the whole drain happens after the CPU counters are read (an
    awaited write would let the worker drain part of it unmeasured)."""

    async def writing() -> dict[str, list[tuple[int, int]]]:
        async with Redis.from_url(url) as client:
            return await write(client, [(stream_of(d, PARTITIONS), encode(d)) for d in documents])

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, writing()).result()


async def cost(shape: Shape, blocks: int) -> tuple[int, float, float]:
    """(entries, worker CPU us per entry, Redis CPU us per entry) of the measured drain."""
    setup, measured = build(shape, blocks)
    with EmbeddedRedis() as server:
        redis = Redis.from_url(server.url)
        await ensure_groups(redis, range(PARTITIONS), GROUP)
        worker = shipped_worker(server.url, PARTITIONS, "g")
        await worker.start()
        await _drain(redis, setup)
        ids = _write_blocking(server.url, measured)
        cpu, server_cpu = time.process_time(), await redis_cpu_s(redis)
        await until_acked(redis, ids, len(measured), poll_s=0.05)
        cpu, server_cpu = time.process_time() - cpu, await redis_cpu_s(redis) - server_cpu
        await worker.stop()
        await redis.aclose()
    return len(measured), cpu / len(measured) * 1e6, server_cpu / len(measured) * 1e6


def main(scopes: int, blocks: int, rounds: int) -> None:
    shapes = [
        Shape("base", scopes, 4, 1),
        Shape("scopes", scopes * 10, 4, 1),
        Shape("sessions", scopes, 40, 1),
        Shape("open", scopes, 4, 10),
        # The base's sessions, ten times as long: as many entries as the x10 shapes, so
        # what a larger backlog costs by itself is told apart from more state.
        Shape("longer", scopes, 4, 1, length=10),
    ]
    print(f"load average {os.getloadavg()[0]:.2f}; {blocks} blocks per session, {rounds} rounds")
    worker_us: dict[str, list[float]] = {s.name: [] for s in shapes}
    redis_us: dict[str, list[float]] = {s.name: [] for s in shapes}
    entries: dict[str, int] = {}
    for round_index in range(rounds):
        for shape in shapes:
            total, micros, server = asyncio.run(cost(shape, blocks))
            entries[shape.name] = total
            worker_us[shape.name].append(micros)
            redis_us[shape.name].append(server)
            print(f"round {round_index + 1} {shape.name:9s} {total:7d} entries:"
                  f" {micros:6.1f} us worker + {server:5.1f} us Redis per entry")  # fmt: skip
    base_w = statistics.median(worker_us["base"])
    base_r = statistics.median(redis_us["base"])
    print("\n| workload | scopes | sessions/scope | open/scope | blocks/session | entries |"
          " worker us/entry | Redis us/entry | vs base (worker, Redis) |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|")
    for shape in shapes:
        w = statistics.median(worker_us[shape.name])
        r = statistics.median(redis_us[shape.name])
        print(f"| {shape.name} | {shape.scopes} | {shape.sessions_per_scope} |"
              f" {shape.open_per_scope} | {blocks * shape.length} | {entries[shape.name]:,} |"
              f" {w:.1f} | {r:.1f} |"
              f" {w / base_w:.2f}x, {r / base_r:.2f}x |")  # fmt: skip


if __name__ == "__main__":
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    numbers = [int(a) for a in sys.argv[1:]] + [50, 10, 3][len(sys.argv) - 1 :]
    main(numbers[0], numbers[1], numbers[2])
