"""CPU of the store's shell alone: planning one batch of single-session units, stub core.

    uv run --frozen python benchmarks/store_shell.py [UNITS]

Builds what `PartitionProcessor._run` builds for a batch of UNITS scopes (default 100),
each with one session and its next input in order (the common case), with a core that
does nothing, then times planning each unit, the commit plan and remembering them: what the
store costs around the core, per entry, without Redis. Then times redis-py's packing of
that commit's EVALSHA. Best of 5.
Findings: docs/performance.md, "End to end at the production shape".
"""

# ruff: noqa: T201, ARG002  (a script directory; it prints; the stub ignores its input)
from __future__ import annotations

import sys
import timeit
from collections import defaultdict
from typing import Any

import msgspec
from redis.asyncio.connection import Connection

from contracts.codec import decode_event
from store.commit_plan import CommitPlan, KeyTable
from store.config import StoreConfig
from store.core_port import CoreStep
from store.gate import Arrival
from store.processor import PartitionProcessor
from store.state_cache import ScopeSnapshot, SessionSnapshot
from store.work import ScopeId, ScopeWork


class StubCore:
    """A CorePort whose every input changes the session and nothing else."""

    def decode_scope(self, data: bytes | None, agent_id: str, user_id: str) -> Any:  # noqa: ANN401
        return (agent_id, user_id)

    def decode_session(self, data: bytes | None, session_id: str) -> Any:  # noqa: ANN401
        return session_id

    def encode_scope(self, scope: Any) -> bytes:  # noqa: ANN401
        return b"scope"

    def encode_session(self, session: Any) -> bytes:  # noqa: ANN401
        return b"session"

    def apply(self, scope: Any, session: Any, event: Any, stream: str, entry_id: str) -> Any:  # noqa: ANN401
        return CoreStep(scope, session, (), (), scope_changed=False, session_changed=True)

    def deadlines(self, scope: Any) -> tuple[()]:  # noqa: ANN401
        return ()

    def scope_view(self, scope: Any) -> Any:  # noqa: ANN401
        raise AssertionError("the stub core never changes a scope")


def main(units: int) -> None:
    processor: PartitionProcessor[Any, Any] = PartitionProcessor(
        Any,
        0,
        StubCore(),
        StoreConfig(),  # type: ignore[arg-type]
    )
    work: dict[ScopeId, ScopeWork] = defaultdict(ScopeWork)
    scopes: dict[ScopeId, ScopeSnapshot[Any]] = {}
    sessions: dict[ScopeId, dict[str, SessionSnapshot[Any]]] = {}
    for index in range(units):
        scope_id, session_id = ("agent", f"user-{index}"), f"session-{index}"
        document = {
            "type": "chat_turn", "agent_id": scope_id[0], "user_id": scope_id[1],
            "session_id": session_id, "seq": 5, "ts": "2026-01-01T00:00:00Z", "role": "user",
            "text": "Could you summarise the chapter?", "message_id": f"m-{index}",
        }  # fmt: skip
        event = decode_event(msgspec.json.encode(document))
        arrival = Arrival("chat-turn:{0}", f"{index}-0", event, b"")
        work[scope_id].arrivals[session_id] = [arrival]
        scopes[scope_id] = ScopeSnapshot("v", scope_id, {})
        sessions[scope_id] = {session_id: SessionSnapshot("v", 5, (), {}, None, session_id)}
    todo = sorted(work)

    def batch() -> tuple[KeyTable, CommitPlan]:
        table = KeyTable()
        planned = [processor.planner.unit(table, s, work[s], scopes[s], sessions[s]) for s in todo]
        plan = processor.committer.plan(
            table, [unit.plan for unit in planned], processor.planner.next_commit(), [], None
        )
        for unit in planned:
            processor.state.remember(unit.scope_id, unit.scope_after, unit.sessions_after)
        return table, plan

    rounds = 300
    best = min(timeit.repeat(batch, number=rounds, repeat=5)) / rounds / units * 1e6
    print(f"{best:.2f} us of store shell per single-session unit ({units} per batch)")

    # What redis-py's (pure-Python) packer then costs to put that commit on the wire.
    table, plan = batch()
    connection = Connection()
    arguments = [len(table.names), *table.names, msgspec.msgpack.encode(plan), *table.blobs]
    packed = min(
        timeit.repeat(
            lambda: connection.pack_command("EVALSHA", "0" * 40, *arguments),
            number=rounds,
            repeat=5,
        )
    )
    print(
        f"{packed / rounds / units * 1e6:.2f} us per unit to pack the commit's"
        f" {len(arguments)} arguments (redis-py)"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100)
