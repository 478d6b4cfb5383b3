"""The floor: the least an exactly-once worker with accord's core must do per entry.

The target is end-to-end throughput of at least 0.5x the bare loop, or a measured
explanation of what stops it. This loop measures the explanation: it does, per entry,
only what no design of such a worker can leave out, and nothing else:

- the bare loop's read (`XREADGROUP COUNT 100` over every input stream) and decode
  (through the contract's decoder with its limits, as input from a gateway needs);
- the core: recognize, resolve deadlines and apply the lifecycle reducer (the same
  `worker.engine.Engine.apply` the worker runs), on state kept in process memory as by
  a perfect cache (no load round trip, ever);
- one atomic commit per read, one Lua script: per session a check that its stored next
  seq is the one this loop holds, then its new next seq and, when the step changed it,
  its encoded state; the scope's state when it changed; the agreement events' XADD; one
  XACK per stream.

Left out, so the floor is below any real worker: the ordering gate (entries are applied
in read order; the workload has no gaps), parking, dead letters, retries, history
records, the deadline index, provenance beyond the core's argument, metrics and logs.
"""

from __future__ import annotations

import gc
import time
from typing import Any, cast

import msgspec
from redis.asyncio import Redis

from accord_harness.bench.loops import DATA, Drain, redis_cpu_s, streams_of
from contracts.codec import decode_event
from contracts.streams import GROUP
from core.lifecycle.state import ScopeState, SessionState
from worker.engine import Engine
from worker.settings import Settings

# KEYS: every key the plan names, by index. ARGV[1]: group; ARGV[2]: msgpack
#   {s = {{key idx, expected n, new n, #state?}, ...}, c = {{key idx, #state}, ...},
#   a = {{stream idx, id, id, ...}, ...}, e = {#event, ...}, ek = events key idx};
# ARGV[3..]: the binary values marked # (Redis's cmsgpack reads no bin type).
FLOOR_COMMIT = """
local plan = cmsgpack.unpack(ARGV[2])
for _, s in ipairs(plan.s) do
  if tonumber(redis.call('HGET', KEYS[s[1]], 'n') or '1') ~= s[2] then
    return redis.error_reply('floor: session moved')
  end
end
for _, s in ipairs(plan.s) do
  if s[4] then
    redis.call('HSET', KEYS[s[1]], 'n', s[3], 'c', ARGV[s[4]])
  else
    redis.call('HSET', KEYS[s[1]], 'n', s[3])
  end
end
for _, c in ipairs(plan.c) do
  redis.call('HSET', KEYS[c[1]], 's', ARGV[c[2]])
end
for _, e in ipairs(plan.e) do
  redis.call('XADD', KEYS[plan.ek], '*', '__data__', ARGV[e])
end
for _, a in ipairs(plan.a) do
  redis.call('XACK', KEYS[a[1]], ARGV[1], unpack(a, 2))
end
return 0
"""

_MSGPACK = msgspec.msgpack.Encoder()
_JSON = msgspec.json.Encoder()


class _Floor:
    def __init__(self) -> None:
        self.engine = Engine()
        self.scopes: dict[tuple[str, str], ScopeState] = {}
        self.sessions: dict[tuple[str, str, str], tuple[SessionState, int]] = {}

    def plan(self, reply: Any) -> tuple[list[str], dict[str, Any], list[bytes]]:  # noqa: ANN401
        """Apply one read to the core; the commit's KEYS, plan and binary values."""
        names: list[str] = []
        index: dict[str, int] = {}
        blobs: list[bytes] = []

        def blob(data: bytes) -> int:
            blobs.append(data)
            return len(blobs) + 2

        def key(name: str) -> int:
            found = index.get(name)
            if found is None:
                names.append(name)
                found = index[name] = len(names)
            return found

        sessions: dict[int, list[Any]] = {}
        scopes: dict[int, bytes] = {}
        acks: list[list[Any]] = []
        events: list[int] = []
        engine = self.engine
        for raw_stream, entries in reply or ():
            stream = raw_stream.decode()
            ack: list[Any] = [key(stream)]
            for raw_id, fields in entries:
                entry_id = raw_id.decode()
                event = decode_event(fields[DATA])
                scope_id = (event.agent_id, event.user_id)
                session_id = (*scope_id, event.session_id)
                scope = self.scopes.get(scope_id) or engine.decode_scope(None, *scope_id)
                session, next_seq = self.sessions.get(session_id) or (
                    engine.decode_session(None, event.session_id),
                    1,
                )
                step = engine.apply(scope, session, event, stream, entry_id)
                self.scopes[scope_id] = step.scope
                self.sessions[session_id] = (step.session, event.seq + 1)
                session_key = key("floor-session:{p}:" + ":".join(session_id))
                planned = sessions.get(session_key)
                if planned is None:
                    planned = sessions[session_key] = [session_key, next_seq, 0, None]
                planned[2] = event.seq + 1
                if step.session_changed:
                    planned[3] = engine.encode_session(step.session)
                if step.scope_changed:
                    scopes[key("floor-scope:{p}:" + ":".join(scope_id))] = engine.encode_scope(
                        step.scope
                    )
                events.extend(blob(_JSON.encode(e)) for e in step.events)
                ack.append(entry_id)
            acks.append(ack)
        plan = {
            "s": [[*s[:3], blob(s[3])] if s[3] is not None else s[:3] for s in sessions.values()],
            "c": [[k, blob(state)] for k, state in scopes.items()],
            "a": acks,
            "e": events,
            "ek": key("floor-events:{p}"),
        }
        return names, plan, blobs


async def floor_loop(redis: Redis, partitions: int, total: int) -> Drain:
    """Drain `total` entries doing only the floor's work (see the module doc).

    With the worker's garbage-collector setting (worker/gc_tuning.py), restored after.
    """
    threshold = gc.get_threshold()
    gc.set_threshold(Settings().gc_threshold, *threshold[1:])
    try:
        return await _drain(redis, partitions, total)
    finally:
        gc.set_threshold(*threshold)


async def _drain(redis: Redis, partitions: int, total: int) -> Drain:
    commit = redis.register_script(FLOOR_COMMIT)
    streams = dict.fromkeys(streams_of(partitions), ">")
    floor = _Floor()
    done = 0
    server = await redis_cpu_s(redis)
    started, cpu = time.perf_counter(), time.process_time()
    while done < total:
        reply: Any = await redis.xreadgroup(GROUP, "floor", cast("Any", streams), count=100)
        names, plan, blobs = floor.plan(reply)
        if names:
            await commit(keys=names, args=[GROUP, _MSGPACK.encode(plan), *blobs])
        done += sum(len(entries) for _, entries in reply or ())
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    server = await redis_cpu_s(redis) - server
    return Drain(total / elapsed, cpu / total * 1e6, server / total * 1e6)
