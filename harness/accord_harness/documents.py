"""Gateway documents, one builder for every workload (store tests, chaos, bench).

A document is the JSON a gateway writes to an input stream. `Session` builds one
session's documents in order: seq and event time advance with each one, so every
workload (whatever flows it scripts) writes the same envelope the same way.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from contracts.partition import partition_of
from contracts.streams import CHAT_TURN, TOOL_CALL, TOOL_RESULT, stream_name
from core.lifecycle.state import record_id_for

# 2027-01-01T00:00:00Z: event time runs ahead of the wall clock, so proposals' deadlines
# lie beyond the run and the sweeper (which expires by Redis's clock and the watermark)
# never races the inputs; expiry is materialized by event time alone.
BASE_TS = 1_798_761_600
FAMILY_OF_TYPE = {"chat_turn": CHAT_TURN, "tool_call": TOOL_CALL, "tool_result": TOOL_RESULT}

Document = dict[str, Any]


def iso(seconds: int) -> str:
    """The event time `seconds` after BASE_TS, as the gateway writes it."""
    return datetime.fromtimestamp(BASE_TS + seconds, tz=UTC).isoformat().replace("+00:00", "Z")


def stream_of(document: Document, partitions: int) -> str:
    p = partition_of(document["agent_id"], document["user_id"], partitions)
    return stream_name(FAMILY_OF_TYPE[document["type"]], p)


def encode(document: Document) -> bytes:
    return json.dumps(document, ensure_ascii=False).encode()


def envelope(kind: str, scope: tuple[str, str], session_id: str, seq: int, ts: str) -> Document:
    """The fields every input shares; the kind's own fields are added after them."""
    return {
        "type": kind,
        "agent_id": scope[0],
        "user_id": scope[1],
        "session_id": session_id,
        "seq": seq,
        "ts": ts,
    }


class Session:
    """One session's documents: each new one takes the next seq and `step_s` more seconds.

    `zone` is the IANA zone user turns carry (None: no `timezone` field). Ids follow
    the gateway's habit: message `m-<session>-<seq>`, call `c-<session>-<seq>`.
    """

    def __init__(
        self, scope: tuple[str, str], session_id: str, *, step_s: int, zone: str | None = None
    ) -> None:
        self.scope = scope
        self.session_id = session_id
        self.step_s = step_s
        self.zone = zone
        self.seq = 0
        self.clock = 0
        self.documents: list[Document] = []

    def _next(self, kind: str) -> Document:
        self.seq += 1
        self.clock += self.step_s
        return envelope(kind, self.scope, self.session_id, self.seq, iso(self.clock))

    def _add(self, document: Document) -> int:
        self.documents.append(document)
        return int(document["seq"])

    def say(self, text: str, role: str = "user") -> int:
        """A chat turn; returns its seq (a proposal's record id derives from it)."""
        document = self._next("chat_turn")
        document.update(role=role, text=text, message_id=f"m-{self.session_id}-{self.seq}")
        if role == "user" and self.zone is not None:
            document["timezone"] = self.zone
        return self._add(document)

    def call(self, name: str, arguments: dict[str, Any]) -> int:
        document = self._next("tool_call")
        document.update(call_id=f"c-{self.session_id}-{self.seq}", name=name, arguments=arguments)
        return self._add(document)

    def accept(self, proposal_seq: int, revision: int) -> int:
        """The agent's `soul_agreement_accept` of the proposal at `proposal_seq`."""
        record_id = record_id_for(*self.scope, self.session_id, proposal_seq)
        arguments = {"record_id": record_id, "expected_revision": revision}
        return self.call("soul_agreement_accept", arguments)

    def todo_result(
        self, todos: list[dict[str, str]], *, ok: bool = True, call_id: str | None = None
    ) -> int:
        """A `todo_write` result carrying `todos`; its own call id unless one is named."""
        document = self._next("tool_result")
        own = f"c-{self.session_id}-{self.seq}"
        document.update(call_id=call_id or own, name="todo_write", ok=ok, todos=todos)
        return self._add(document)

    def wait(self, seconds: int) -> None:
        self.clock += seconds
