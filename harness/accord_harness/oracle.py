"""The oracle: a core applied once per (session, seq), in seq order, with no Redis.

One for every harness: the store tests (fake or real core), chaos and bench compare
what the store committed with it. Sessions of one scope run one after another (each
workload keeps their outcomes independent of that order). Entry ids are left out of
everything compared: a gateway duplicate has an entry id of its own, and the checkers
verify provenance entry ids against the entries actually written instead.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import msgspec

from accord_harness.documents import Document, stream_of
from contracts.codec import decode_event
from contracts.inputs import InputEvent
from contracts.outputs import described
from store.core_port import CorePort


@dataclass
class Outcome:
    """What a replay (or, read back, a run) left: per-session events in commit order,
    records, session and scope states, and the replay's next seq per session."""

    events: dict[str, list[Any]] = field(default_factory=lambda: defaultdict(list))
    records: dict[str, Any] = field(default_factory=dict)
    sessions: dict[str, Any] = field(default_factory=dict)
    scopes: dict[str, Any] = field(default_factory=dict)
    next_seq: dict[str, int] = field(default_factory=dict)
    # (session, seq) of every event, to name the input behind a difference.
    event_seq: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))


def plain(value: msgspec.Struct) -> Any:  # noqa: ANN401  (JSON-shaped data)
    return without_entry_ids(msgspec.json.decode(msgspec.json.encode(value)))


# Differ between runs by timing, not by input: entry ids, and what passed an expiry's
# deadline first (an input of the session or the sweeper's watermark, R16 evidence).
TIMING_KEYS = frozenset({"entry_id", "passed", "passed_at"})


def without_entry_ids(node: Any) -> Any:  # noqa: ANN401  (JSON-shaped data)
    """`node` without the timing keys; an `event_id` without its content digest, which
    covers them (contracts.outputs.sealed), so it is compared by what it describes."""
    if isinstance(node, dict):
        return {
            k: described(v) if k == "event_id" else without_entry_ids(v)
            for k, v in node.items()
            if k not in TIMING_KEYS
        }
    if isinstance(node, list):
        return [without_entry_ids(v) for v in node]
    return node


def session_key(agent_id: str, user_id: str, session_id: str) -> str:
    return f"{agent_id}|{user_id}|{session_id}"


def scope_projection(scope: Any) -> Any:  # noqa: ANN401  (the core's ScopeState)
    """The scope's live records by id (their order depends on how sessions interleave)."""
    return {record.record_id: plain(record) for record in scope.records}


def compute(
    core: CorePort[Any, Any],
    documents: Iterable[Document],
    partitions: int,
    project_scope: Callable[[Any], Any] = scope_projection,
) -> Outcome:
    """Replay `documents` (duplicates count once) through `core`, session by session.

    `project_scope` says what of a scope state is compared: the real core's live
    records by default; a fake core's own projection otherwise.
    """
    by_session: dict[tuple[str, str, str], dict[int, tuple[InputEvent, str]]] = defaultdict(dict)
    for document in documents:
        event = decode_event(json.dumps(document))
        key = (event.agent_id, event.user_id, event.session_id)
        by_session[key].setdefault(event.seq, (event, stream_of(document, partitions)))
    scopes: dict[tuple[str, str], Any] = {}
    expected = Outcome()
    for (agent, user, session_id), events in sorted(by_session.items()):
        scope = scopes.get((agent, user)) or core.decode_scope(None, agent, user)
        session = core.decode_session(None, session_id)
        for seq in sorted(events):
            event, stream = events[seq]
            step = core.apply(scope, session, event, stream, "x")
            scope, session = step.scope, step.session
            for record in step.records:
                expected.records[record.record_id] = plain(record)
            for out in step.events:
                expected.events[out.session_id].append(plain(out))
                expected.event_seq[out.session_id].append(seq)
        scopes[(agent, user)] = scope
        name = session_key(agent, user, session_id)
        expected.sessions[name] = plain(session)
        expected.next_seq[name] = max(events) + 1
    for (agent, user), scope in scopes.items():
        expected.scopes[f"{agent}|{user}"] = project_scope(scope)
    return expected
