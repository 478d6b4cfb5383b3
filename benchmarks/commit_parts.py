"""Where the commit script's Redis time goes at the production shape: parts taken out.

    uv run --frozen python benchmarks/commit_parts.py [ROUNDS] [SESSIONS]

Drains the production-shape backlog (`worker_cpu.py SESSIONS 2 1 --real-text`: about one
entry per session per read) once per variant of store/lua/commit.lua, in a fresh
subprocess and on a fresh embedded server each, variants interleaved over ROUNDS (3),
and prints Redis's time in the script per entry (`INFO commandstats`, `evalsha`: the
commands the script calls included) with its ratio to the whole script of the same
round. The variants are measurements, not alternatives: each drops a part, so the
state it leaves is wrong, and the drain only goes on because the acks stay.

- `whole`: the script as shipped;
- `no-session-writes`: the plain lane writes no session hash (next seq, version, state);
- `no-view-writes`: the plain lane writes no view applied seq;
- `no-plain-writes`: neither (the plain lane only acks);
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
_ACKS_ONLY = """for _, unit in ipairs(plan.u or NONE) do gather_acks(unit.a) end
gather_acks(plan.pa)
flush_acks()
if true then return {{}, {}, 0, 0} end
"""


def _without(source: str, *parts: str) -> str:
    for part in parts:
        source = source.replace(part, "")
    return source


for _anchor in (_PLAIN_SESSIONS, _PLAIN_VIEW, _AFTER_UNPACK, _UNIT_WRITE):
    if _anchor not in SOURCE:
        raise SystemExit(f"commit.lua changed: update this benchmark's anchors ({_anchor[:40]!r})")


VARIANTS = {
    "whole": SOURCE,
    "no-session-writes": _without(SOURCE, _PLAIN_SESSIONS),
    "no-view-writes": _without(SOURCE, _PLAIN_VIEW),
    "no-plain-writes": _without(SOURCE, _PLAIN_SESSIONS, _PLAIN_VIEW),
    "no-unit-writes": SOURCE.replace(
        _UNIT_WRITE, "  if not problem then\n    gather_acks(unit.a)\n", 1
    ),
    "args-and-acks": SOURCE.replace(_AFTER_UNPACK, _ACKS_ONLY + _AFTER_UNPACK, 1),
}


def measure(variant: str, sessions: int) -> dict[str, float]:
    """One drain with `variant` as the commit script (run in a subprocess of its own)."""
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

    async def keep(redis: Redis, total: int) -> None:
        info = await redis.info("commandstats")
        for name in ("evalsha", "xreadgroup", "xack"):
            stat = info.get(f"cmdstat_{name}", {"usec": 0})
            stats[name] = stat["usec"] / total

    worker_cpu.print_commandstats = keep  # type: ignore[assignment]
    os.environ["COMMANDSTATS"] = "1"
    _, _, worker_us = asyncio.run(worker_cpu.cpu_per_entry(sessions, 2, None))
    stats["worker"] = worker_us
    return stats


def main(rounds: int, sessions: int) -> None:
    results: dict[str, list[dict[str, float]]] = {name: [] for name in VARIANTS}
    for round_ in range(rounds):
        for name in VARIANTS:
            out = subprocess.run(
                [sys.executable, __file__, "--variant", name, str(sessions)],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            stats = json.loads(out.strip().splitlines()[-1])
            results[name].append(stats)
            print(
                f"round {round_ + 1} {name:18s} script {stats['evalsha']:5.2f} us/entry", flush=True
            )
    whole = statistics.median(s["evalsha"] for s in results["whole"])
    print(
        f"\nmedians over {rounds} rounds, {sessions} sessions (server: "
        f"{os.environ.get('ACCORD_REDIS_SERVER') or 'embedded Valkey'})"
    )
    for name, runs in results.items():  # (each round's ratio: the load moves between rounds)
        script = statistics.median(s["evalsha"] for s in runs)
        reads = statistics.median(s["xreadgroup"] for s in runs)
        ratios = [s["evalsha"] / w["evalsha"] for s, w in zip(runs, results["whole"], strict=True)]
        print(
            f"{name:18s} script {script:5.2f} us/entry ({statistics.median(ratios):.2f}x whole;"
            f" rounds {', '.join(f'{r:.2f}' for r in ratios)}), XREADGROUP {reads:.2f}"
        )
    print(f"(the whole script's median: {whole:.2f} us per entry)")


if __name__ == "__main__":
    if "--variant" in sys.argv:
        at = sys.argv.index("--variant")
        name, count = sys.argv[at + 1], int(sys.argv[at + 2])
        del sys.argv[at:]
        import logging

        logging.disable(logging.CRITICAL)
        print(json.dumps(measure(name, count)))
    else:
        arguments = [int(a) for a in sys.argv[1:3]]
        main(arguments[0] if arguments else 3, arguments[1] if len(arguments) > 1 else 12000)
