"""The planner's path for a session going on in order (store/units.py, `_in_order`)
plans exactly what its general path (`_session`: the gate's plan, parking, gaps) plans
for the same inputs: the same commit plan, keys, values, events, outcomes and snapshots
to remember (R15: the order of a session's inputs alone decides what is stored)."""

from __future__ import annotations

import random
from collections import defaultdict
from typing import Any

import msgspec
import pytest
from accord_harness.documents import encode, stream_of
from accord_harness.store_harness import real_core_workload

from contracts.codec import decode_event
from store import units as units_module
from store.admission import Admission
from store.commit_plan import KeyTable
from store.config import StoreConfig
from store.gate import Arrival
from store.loading import KeyNames
from store.state_cache import NO_DEADLINES, NO_PARKED, ScopeSnapshot, SessionSnapshot
from store.unit import Unit
from store.units import UnitPlanner
from store.work import ScopeId, ScopeWork
from worker.engine import Engine

_MSGPACK = msgspec.msgpack.Encoder()


def _plan(  # noqa: PLR0913, PLR0917  (a unit's inputs)
    planner: UnitPlanner[Any, Any],
    scope_id: ScopeId,
    work: ScopeWork,
    before: ScopeSnapshot[Any],
    sessions: dict[str, SessionSnapshot[Any]],
    trusted: bool,  # noqa: FBT001
) -> tuple[Unit[Any, Any], KeyTable]:
    table = KeyTable()
    planner.version = "v.1"  # the same commit token for both paths
    return planner.unit(table, scope_id, work, before, sessions, trusted=trusted), table


@pytest.mark.parametrize(("trusted", "retention_ms"), [(True, 0), (False, 0), (True, 60_000)])
def test_the_in_order_path_plans_what_the_general_path_plans_r15(
    monkeypatch: pytest.MonkeyPatch,
    trusted: bool,  # noqa: FBT001  (a parameter of the test)
    retention_ms: int,
) -> None:
    """Real conversations (proposals, acceptances, todo writes, noise) cut into batches
    at random: every unit planned with the in-order path equals the unit the general
    path plans from the same state, and the in-order path is taken for most sessions."""
    rng = random.Random(7)
    documents = real_core_workload(rng, scopes=4, sessions=3, blocks=3)
    config = StoreConfig(session_retention_ms=retention_ms)
    engine = Engine()
    planner: UnitPlanner[Any, Any] = UnitPlanner(
        0, engine, config, KeyNames(0), Admission(0, config)
    )
    taken: list[str] = []
    in_order = planner._in_order

    def counting(*args: Any) -> None:
        taken.append(args[3])
        in_order(*args)

    monkeypatch.setattr(planner, "_in_order", counting)
    by_session: dict[tuple[str, str, str], list[tuple[int, dict[str, Any]]]] = defaultdict(list)
    for number, document in enumerate(documents, 1):
        key = (document["agent_id"], document["user_id"], document["session_id"])
        by_session[key].append((number, document))
    scopes: dict[ScopeId, ScopeSnapshot[Any]] = {}
    sessions: dict[tuple[str, str, str], SessionSnapshot[Any]] = {}
    cursor = dict.fromkeys(by_session, 0)
    units = events = 0
    while any(cursor[key] < len(inputs) for key, inputs in by_session.items()):
        work: dict[ScopeId, ScopeWork] = defaultdict(ScopeWork)
        for key, inputs in by_session.items():
            size = rng.randint(0, 3)
            for number, document in inputs[cursor[key] : cursor[key] + size]:
                data = encode(document)
                arrival = Arrival(stream_of(document, 1), f"{number}-0", decode_event(data), data)
                work[key[:2]].add(key[2], arrival)
            cursor[key] = min(len(inputs), cursor[key] + size)
        for scope_id, scope_work in work.items():
            empty = ScopeSnapshot("", engine.decode_scope(None, *scope_id), NO_DEADLINES)
            before = scopes.get(scope_id, empty)
            held = {
                session_id: sessions.get(
                    (*scope_id, session_id), SessionSnapshot("", 1, (), NO_PARKED, None)
                )
                for session_id in scope_work.arrivals
            }
            fast, fast_table = _plan(planner, scope_id, scope_work, before, held, trusted)
            with monkeypatch.context() as general_only:
                general_only.setattr(units_module, "in_order_from", lambda *_: False)
                general, general_table = _plan(planner, scope_id, scope_work, before, held, trusted)
            assert _MSGPACK.encode(fast.plan) == _MSGPACK.encode(general.plan)
            assert (fast_table.names, fast_table.blobs) == (
                general_table.names,
                general_table.blobs,
            )
            assert (fast.events, fast.outcomes) == (general.events, general.outcomes)
            assert fast.sessions_after == general.sessions_after
            assert fast.scope_after == general.scope_after
            units += 1
            events += len(fast.events)
            if fast.scope_after is not None:
                scopes[scope_id] = fast.scope_after
            for session_id, snapshot in fast.sessions_after.items():
                sessions[(*scope_id, session_id)] = snapshot
    assert units > 20
    assert len(taken) > units // 2
    assert events > 10  # proposals, acceptances, deliveries: not chatter alone
