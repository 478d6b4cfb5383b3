"""Redis memory and process RSS under a flood of gap-creating and oversize entries.

    uv run --frozen python benchmarks/flood_memory.py [FLOODED_SESSIONS] [ROUNDS] [unbounded]

`unbounded` lifts the parked limits (per session and per partition), for the figure
without them.

One partition, the real core, the store's default limits (2,000 parked entries or 8 MiB
per session, 50,000 or 64 MiB per partition, 64 KiB of text per turn). Each round,
every flooded session leaves out one seq and gets 400 early entries of 8 KB behind it
(so each reaches the 8 MiB parked bound every third round and has its gap skipped),
plus 20 oversize turns (70 KB, refused in their place); one ordinary session gets a
proposal, which must be applied in the same round. Input is trimmed every round
(`store.retention.trim_applied`, the operator's retention: below what is finished and
below the oldest parked entry), so what is measured is what accord itself holds. The same rounds
without the flood run first as the baseline; the figures are printed side by side, as
ratios, never asserted. Findings: docs/performance.md, "Memory".
"""

# ruff: noqa: T201  (a script directory, not a package; it prints its report)
from __future__ import annotations

import asyncio
import json
import resource
import sys
from datetime import UTC, datetime
from typing import Any

from accord_harness.reading import read_new
from redis.asyncio import Redis

from contracts.streams import DATA_FIELD, GROUP
from store import keys
from store.config import StoreConfig
from store.embedded import EmbeddedRedis
from store.intake import ensure_groups
from store.processor import PartitionProcessor
from store.retention import trim_applied
from worker.engine import Engine

EARLY_PER_ROUND = 400
OVERSIZE_PER_ROUND = 20


def turn(user: str, session: str, seq: int, text: str) -> bytes:
    document = {
        "type": "chat_turn", "agent_id": "agent", "user_id": user, "session_id": session,
        "seq": seq, "ts": datetime.now(UTC).isoformat(), "role": "user", "text": text,
        "message_id": f"m-{session}-{seq}",
    }  # fmt: skip
    return json.dumps(document).encode()


def rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as status:  # noqa: PTH123
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def run(flooded: int, rounds: int, config: StoreConfig) -> dict[str, Any]:
    with EmbeddedRedis() as server:
        redis = Redis.from_url(server.url)
        await ensure_groups(redis, [0], GROUP)
        store = PartitionProcessor(redis, 0, Engine(), config)
        next_seq = dict.fromkeys(range(flooded), 1)
        peak_redis = peak_rss = 0.0
        served = 0
        for round_no in range(rounds):
            pipe = redis.pipeline(transaction=False)
            for s in range(flooded):
                next_seq[s] += 1  # a new gap every round: this seq never comes
                for _ in range(EARLY_PER_ROUND):
                    data = turn(f"flood-{s}", "f", next_seq[s], "x" * 8_000)
                    pipe.xadd("chat-turn:{0}", {DATA_FIELD: data})
                    next_seq[s] += 1
                for _ in range(OVERSIZE_PER_ROUND):
                    data = turn(f"flood-{s}", "f", next_seq[s], "y" * 70_000)
                    pipe.xadd("chat-turn:{0}", {DATA_FIELD: data})
                    next_seq[s] += 1
            text = f"Let's agree: round {round_no} starts with the conclusion."
            pipe.xadd("chat-turn:{0}", {DATA_FIELD: turn("ordinary", "o", round_no + 1, text)})
            await pipe.execute()
            while entries := await read_new(redis, 0, GROUP, "flood", count=200):
                await store.process(entries)
            applied: Any = await redis.hget(keys.session_key(0, "agent", "ordinary", "o"), "n")
            served += int(applied or 1) - 1 == round_no + 1
            await trim_applied(redis, 0, GROUP)
            info: Any = await redis.info("memory")
            peak_redis = max(peak_redis, int(info["used_memory"]) / 2**20)
            peak_rss = max(peak_rss, rss_mb())
        stats: Any = await redis.hgetall(keys.stats_key(0))
        await redis.aclose()
    return {
        "redis_mb": peak_redis,
        "rss_mb": peak_rss,
        "served": served,
        "rounds": rounds,
        "gaps_skipped": int(stats.get(b"gaps_skipped", 0)),
        "dead_letters": int(stats.get(b"dead_letters", 0)),
    }


def main(flooded: int, rounds: int, config: StoreConfig) -> None:
    base = asyncio.run(run(0, rounds, config))
    flood = asyncio.run(run(flooded, rounds, config))
    written = flooded * rounds * (EARLY_PER_ROUND * 8_000 + OVERSIZE_PER_ROUND * 70_000) / 2**20
    print(f"flood: {flooded} sessions x {rounds} rounds, {written:.0f} MB written")
    print(f"{'':28}{'baseline':>10}{'flood':>10}{'ratio':>8}")
    for name in ("redis_mb", "rss_mb"):
        ratio = flood[name] / base[name]
        print(f"{'peak ' + name:28}{base[name]:>10.1f}{flood[name]:>10.1f}{ratio:>8.2f}")
    print(f"{'ordinary turns served':28}{base['served']:>10}{flood['served']:>10}")
    print(f"{'gaps skipped at the bound':28}{base['gaps_skipped']:>10}{flood['gaps_skipped']:>10}")
    print(f"{'dead letters (oversize)':28}{base['dead_letters']:>10}{flood['dead_letters']:>10}")
    bound = flooded * 8
    print(f"documented bound on parked bytes: {flooded} sessions x 8 MiB = {bound} MiB")


if __name__ == "__main__":
    unbounded = StoreConfig(
        max_parked_entries=2**62,
        max_parked_bytes=2**62,
        max_partition_parked_entries=2**62,
        max_partition_parked_bytes=2**62,
    )
    main(
        int(sys.argv[1]) if len(sys.argv) > 1 else 4,
        int(sys.argv[2]) if len(sys.argv) > 2 else 8,
        unbounded if sys.argv[3:] == ["unbounded"] else StoreConfig(),
    )
