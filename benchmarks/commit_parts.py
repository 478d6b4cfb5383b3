"""Where the commit script's Redis time goes at the production shape: parts taken out.

    uv run --frozen python benchmarks/commit_parts.py [ROUNDS] [SESSIONS]

Drains the production-shape backlog (`worker_cpu.py SESSIONS 2 1 --real-text`: about one
entry per session per read) once per variant of store/lua/commit.lua, in a fresh
subprocess and on a fresh embedded server each, variants interleaved over ROUNDS (3),
and prints the server's CPU per entry over the drain (`INFO cpu`, from the end of the
producer's writes: every command the worker sends) with its ratio to the whole script's
run of the same round, and the time inside the script (`INFO commandstats`, `evalsha`,
the commands it calls included: wall time, which a loaded machine inflates). The
variants are measurements, not alternatives: each drops a part, so the state it leaves
is wrong, and the drain only goes on because the acks stay. The first row is the bare
loop's (`XREADGROUP COUNT 100`, decode, multi-id `XACK`: accord_harness/bench/loops.py)
on the same backlog, the baseline of issue 32's target (Redis CPU per entry at most 2x).

- `whole`: the script as shipped;
- `no-session-writes`: the plain lane writes no session hash (next seq, version, state);
- `no-view-writes`: the plain lane writes no view applied seq;
- `no-plain-writes`: neither (the plain lane only acks);
- `one-seq-hash`: the plain lane writes every session's next seq as one field of one
  hash of the partition, in one call per commit, and nothing else (what a layout with a
  seq hash per partition would write; the stats hash stands in for it);
- `no-unit-writes`: the units planned in full (first visits, agreement flows) are checked
  but not written, only acked;
- `args-and-acks`: the plan unpacked and every unit's acks sent, nothing checked or written.

`ACCORD_REDIS_SERVER` picks the server as for the tests (`/usr/bin/redis-server` for
Debian's Redis 7 with jemalloc; the default is the embedded Valkey with libc malloc).
Findings: docs/performance.md, "Where the commit's time goes".
"""

# ruff: noqa: T201, S603  (a script directory, not a package; it prints its report and
# runs itself in subprocesses)
from __future__ import annotations

import asyncio
import hashlib
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SOURCE = (HERE.parent / "store" / "lua" / "commit.lua").read_text("utf-8")

_PLAIN_SESSIONS = """      for j = i + 2, last, 4 do
        if p[j + 3] > 0 then
          redis.call('HSET', KEYS[p[j]], 'n', p[j + 1], 'v', plan.nm, 'c', ARGV[p[j + 3]])
        else
          redis.call('HSET', KEYS[p[j]], 'n', p[j + 1], 'v', plan.nm)
        end
      end
"""
_PLAIN_VIEW = "      chunked('HSET', KEYS[p[i]], nil, fields, 2)\n"
_AFTER_UNPACK = "local shared_error = shared_ok()\n"
_UNIT_WRITE = "  if not problem then\n    write(unit)\n"
# What a layout with one seq hash per partition would write instead of the plain lane's
# per-session and per-view writes: every plain session's next seq as one field of one
# hash (the stats hash stands in for it), in one variadic call per commit.
_LEDGER = """      for j = i + 2, last, 4 do
        ledger[#ledger + 1] = p[j + 2]
        ledger[#ledger + 1] = p[j + 1]
      end
"""
_LEDGER_FLUSH = "  if trusted then gather_acks(plan.pa) end\n"
_PLAIN_FIELDS = """      local fields = {}
      for j = i + 2, last, 4 do
        fields[#fields + 1] = p[j + 2]
        fields[#fields + 1] = p[j + 1] - 1
      end
"""
_LANE = "local function write_plain(first)\n"
_ACKS_ONLY = """for _, unit in ipairs(plan.u or NONE) do gather_acks(unit.a) end
gather_acks(plan.pa)
flush_acks()
if true then return {{}, {}, 0, 0} end
"""


def _without(source: str, *parts: str) -> str:
    for part in parts:
        source = source.replace(part, "")
    return source


for _anchor in (
    _PLAIN_SESSIONS,
    _PLAIN_VIEW,
    _AFTER_UNPACK,
    _UNIT_WRITE,
    _LEDGER_FLUSH,
    _PLAIN_FIELDS,
    _LANE,
):
    if _anchor not in SOURCE:
        raise SystemExit(f"commit.lua changed: update this benchmark's anchors ({_anchor[:40]!r})")


BARE = "bare loop"
VARIANTS = {
    "whole": SOURCE,
    "no-session-writes": _without(SOURCE, _PLAIN_SESSIONS),
    "no-view-writes": _without(SOURCE, _PLAIN_VIEW),
    "no-plain-writes": _without(SOURCE, _PLAIN_SESSIONS, _PLAIN_VIEW),
    "one-seq-hash": _without(SOURCE, _PLAIN_VIEW, _PLAIN_FIELDS)
    .replace(_PLAIN_SESSIONS, _LEDGER, 1)
    .replace(_LANE, "local ledger = {}\n" + _LANE, 1)
    .replace(
        _LEDGER_FLUSH,
        _LEDGER_FLUSH + "  chunked('HSET', KEYS[plan.tk], nil, ledger, 2)\n",
        1,
    ),
    "no-unit-writes": SOURCE.replace(
        _UNIT_WRITE, "  if not problem then\n    gather_acks(unit.a)\n", 1
    ),
    "args-and-acks": SOURCE.replace(_AFTER_UNPACK, _ACKS_ONLY + _AFTER_UNPACK, 1),
}


def measure_bare(sessions: int) -> dict[str, float]:
    """The bare loop's drain of the same backlog (run in a subprocess of its own)."""
    sys.path.insert(0, str(HERE))
    sys.argv.append("--real-text")
    from accord_harness.bench.endtoend import backlog  # noqa: PLC0415
    from accord_harness.bench.loops import bare_loop  # noqa: PLC0415
    from accord_harness.bench.workload import build  # noqa: PLC0415
    from redis.asyncio import Redis  # noqa: PLC0415

    from store.embedded import EmbeddedRedis  # noqa: PLC0415

    async def drain() -> dict[str, float]:
        workload = build(sessions=sessions, blocks=2, partitions=2, real_text=True)
        with EmbeddedRedis() as server:
            redis = Redis.from_url(server.url)
            await backlog(redis, workload)
            done = await bare_loop(redis, 2, len(workload.documents))
            await redis.aclose()
        return {"redis": done.redis_cpu_us, "script": 0.0}

    return asyncio.run(drain())


def measure(variant: str, sessions: int) -> dict[str, float]:
    """One drain with `variant` as the commit script (run in a subprocess of its own)."""
    if variant == BARE:
        return measure_bare(sessions)
    from store import scripts  # noqa: PLC0415  (patched before the worker imports it)

    source = VARIANTS[variant]
    sha = hashlib.sha1(source.encode()).hexdigest()  # noqa: S324  (Redis names scripts so)
    patched = scripts.LuaScript("commit", source, sha)
    scripts.COMMIT = patched
    scripts.SCRIPTS = tuple(patched if s.name == "commit" else s for s in scripts.SCRIPTS)
    sys.path.insert(0, str(HERE))
    sys.argv.append("--real-text")
    import worker_cpu  # noqa: PLC0415  (reads --real-text at import)
    from redis.asyncio import Redis  # noqa: PLC0415

    stats: dict[str, float] = {}
    written = worker_cpu.backlog

    async def cpu(redis: Redis) -> float:
        info = await redis.info("cpu")
        return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])

    async def backlog(redis: Redis, workload: Any) -> Any:  # noqa: ANN401  (passed through)
        ids = await written(redis, workload)
        stats["cpu_at_start"] = await cpu(redis)  # the producer's writes are done
        return ids

    async def keep(redis: Redis, total: int) -> None:
        stats["redis"] = (await cpu(redis) - stats.pop("cpu_at_start")) / total * 1e6
        info = await redis.info("commandstats")
        stats["script"] = info.get("cmdstat_evalsha", {"usec": 0})["usec"] / total

    worker_cpu.backlog = backlog
    worker_cpu.print_commandstats = keep  # type: ignore[assignment]
    os.environ["COMMANDSTATS"] = "1"
    _, _, worker_us = asyncio.run(worker_cpu.cpu_per_entry(sessions, 2, None))
    stats["worker"] = worker_us
    return stats


def main(rounds: int, sessions: int) -> None:
    results: dict[str, list[dict[str, float]]] = {name: [] for name in (BARE, *VARIANTS)}
    for round_ in range(rounds):
        for name, runs in results.items():
            out = subprocess.run(
                [sys.executable, __file__, "--variant", name, str(sessions)],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            stats = json.loads(out.strip().splitlines()[-1])
            runs.append(stats)
            print(
                f"round {round_ + 1} {name:18s} Redis CPU {stats['redis']:5.2f} us/entry,"
                f" script {stats['script']:5.2f}",
                flush=True,
            )
    whole = statistics.median(s["redis"] for s in results["whole"])
    print(
        f"\nmedians over {rounds} rounds, {sessions} sessions (server: "
        f"{os.environ.get('ACCORD_REDIS_SERVER') or 'embedded Valkey'})"
    )
    for name, runs in results.items():
        redis = statistics.median(s["redis"] for s in runs)
        script = statistics.median(s["script"] for s in runs)
        # Each round's ratio to that round's whole script: the load moves between rounds.
        ratios = [s["redis"] / w["redis"] for s, w in zip(runs, results["whole"], strict=True)]
        bare = [s["redis"] / b["redis"] for s, b in zip(runs, results[BARE], strict=True)]
        print(
            f"{name:18s} Redis CPU {redis:5.2f} us/entry ({statistics.median(ratios):.2f}x whole;"
            f" rounds {', '.join(f'{r:.2f}' for r in ratios)}; {statistics.median(bare):.1f}x"
            f" the bare loop's), in the script {script:5.2f}"
        )
    print(f"(whole: Redis CPU {whole:.2f} us per entry over the drain, every command)")


if __name__ == "__main__":
    if "--variant" in sys.argv:
        at = sys.argv.index("--variant")
        name, count = sys.argv[at + 1], int(sys.argv[at + 2])
        del sys.argv[at:]
        import logging

        logging.disable(logging.CRITICAL)
        print(json.dumps(measure(name, count)))
    else:
        try:
            arguments = [int(a) for a in sys.argv[1:3]]
        except ValueError:
            raise SystemExit(
                "commit_parts.py: ROUNDS and SESSIONS are whole numbers (see the docstring)"
            ) from None
        main(arguments[0] if arguments else 3, arguments[1] if len(arguments) > 1 else 12000)
