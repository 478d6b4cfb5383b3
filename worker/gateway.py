"""Play the chat gateway: publish a transcript through the input streams, read the events.

What a gateway in any language does (harness/node does the same with ioredis):
compute the scope's partition, `XADD <family>:{p} * __data__ <json>`, and read
`agreement-events:{p}`. A transcript is JSON lines, one input event each, exactly as
on the wire, except that a tool call may name its target as `"@proposal:N"`: the
record proposed by this session's turn N. The gateway resolves it the way a real one
does, from the agreement events, after waiting for turn N to be processed (the model
would have read the record id from the session view).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import msgspec

from contracts.codec import ContractError
from contracts.codec import decode_event as decode_input
from contracts.outputs import AgreementEvent, DeadLetter, StateChanged
from contracts.partition import partition_of
from contracts.streams import (
    AGREEMENT_EVENTS,
    CHAT_TURN,
    DATA_FIELD,
    DEAD_LETTERS,
    GROUP,
    TOOL_CALL,
    TOOL_RESULT,
    EntryId,
    as_text,
    stream_name,
)
from store.scripts import AnyRedis

Line = dict[str, Any]

_FAMILY = {"chat_turn": CHAT_TURN, "tool_call": TOOL_CALL, "tool_result": TOOL_RESULT}
_EVENTS: msgspec.json.Decoder[AgreementEvent] = msgspec.json.Decoder(AgreementEvent)
_DEAD: msgspec.json.Decoder[DeadLetter] = msgspec.json.Decoder(DeadLetter)
PROPOSAL_REF = "@proposal:"


class ReplayError(RuntimeError):
    pass


def load_transcript(path: Path) -> list[Line]:
    lines: list[Line] = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not raw.strip():
            continue
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as error:
            raise ReplayError(f"{path}:{number}: not JSON: {error}") from error
        if not isinstance(value, dict) or value.get("type") not in _FAMILY:
            raise ReplayError(f"{path}:{number}: not an input event (type chat_turn|tool_call|...)")
        try:
            decode_input(json.dumps(_placeholder_target(value), ensure_ascii=False))
        except ContractError as error:
            raise ReplayError(f"{path}:{number}: {error}") from error
        lines.append(value)
    return lines


def _placeholder_target(line: Line) -> Line:
    """The line as the contract will see it once `"@proposal:N"` names a real record."""
    arguments = line.get("arguments")
    if not isinstance(arguments, dict):
        return line
    target = arguments.get("record_id")
    if isinstance(target, str) and target.startswith(PROPOSAL_REF):
        return {**line, "arguments": {**arguments, "record_id": "agr-placeholder"}}
    return line


def rebase(lines: Sequence[Line], start: datetime) -> list[Line]:
    """Shift every `ts` so the first is `start`, keeping the gaps between turns.

    A transcript written for a past date would otherwise have its deadlines in the
    past: the sweeper could expire a record before the acceptances stamped in time.
    """
    if not lines:
        return []
    first = datetime.fromisoformat(lines[0]["ts"])
    delta: timedelta = start - first
    return [
        {**line, "ts": (datetime.fromisoformat(line["ts"]) + delta).isoformat()} for line in lines
    ]


def suffix_ids(lines: Sequence[Line], suffix: str) -> list[Line]:
    """Make the user and session ids unique to this run, so a replay is never a duplicate."""
    if not suffix:
        return list(lines)
    return [
        {
            **line,
            "user_id": f"{line['user_id']}{suffix}",
            "session_id": f"{line['session_id']}{suffix}",
        }
        for line in lines
    ]


def stream_of(line: Line, partitions: int) -> str:
    family = _FAMILY[line["type"]]
    return stream_name(family, partition_of(line["agent_id"], line["user_id"], partitions))


@dataclass
class Gateway:
    """Publishes input events and follows agreement events on a set of partitions."""

    redis: AnyRedis
    partitions: int
    group: str = GROUP
    # How long any wait for the worker may take (a reference to a proposal waits too).
    timeout_s: float = 20.0
    # stream -> entry ids this gateway wrote (for the processed check).
    written: dict[str, list[str]] = field(default_factory=dict)
    # partition -> last agreement-events id read.
    cursor: dict[int, str] = field(default_factory=dict)
    events: list[AgreementEvent] = field(default_factory=list)

    async def mark_start(self) -> None:
        """Read events only from now on (ignore what earlier runs left in the stream)."""
        for p in range(self.partitions):
            info: Any = await self.redis.xrevrange(stream_name(AGREEMENT_EVENTS, p), count=1)
            self.cursor[p] = as_text(info[0][0]) if info else "0-0"

    async def publish(self, line: Line) -> str:
        stream = stream_of(line, self.partitions)
        data = json.dumps(line, ensure_ascii=False).encode()
        entry_id = as_text(await self.redis.xadd(stream, {DATA_FIELD: data}))
        self.written.setdefault(stream, []).append(entry_id)
        return entry_id

    async def processed(self) -> bool:
        """True once every entry written so far is delivered to the group and acked."""
        for stream, ids in self.written.items():
            groups: Any = await self.redis.xinfo_groups(stream)
            mine = [g for g in groups if as_text(g["name"]) == self.group]
            if not mine:
                return False
            last = as_text(mine[0]["last-delivered-id"])
            if EntryId.parse(last) < EntryId.parse(ids[-1]):
                return False
            pending: Any = await self.redis.xpending_range(
                stream, self.group, min=ids[0], max=ids[-1], count=1
            )
            if pending:
                return False
        return True

    async def wait_processed(self, timeout_s: float | None = None) -> None:
        timeout_s = self.timeout_s if timeout_s is None else timeout_s
        deadline = time.monotonic() + timeout_s
        delay = 0.002
        while not await self.processed():
            if time.monotonic() > deadline:
                raise ReplayError(
                    f"inputs not processed within {timeout_s:g}s: is a worker running "
                    f"on group {self.group!r}?"
                )
            await asyncio.sleep(delay)
            delay = min(delay * 2, 0.05)

    async def read_events(self) -> list[AgreementEvent]:
        """New agreement events since the last read, in stream order per partition."""
        fresh: list[AgreementEvent] = []
        for p in range(self.partitions):
            stream = stream_name(AGREEMENT_EVENTS, p)
            while True:
                reply: Any = await self.redis.xrange(
                    stream, min=f"({self.cursor.get(p, '0-0')}", count=1000
                )
                if not reply:
                    break
                for entry_id, fields in reply:
                    fresh.append(_EVENTS.decode(fields[DATA_FIELD.encode()]))
                    self.cursor[p] = as_text(entry_id)
        self.events.extend(fresh)
        return fresh

    def proposal_of(self, session_id: str, seq: int) -> StateChanged | None:
        for event in self.events:
            if (
                isinstance(event, StateChanged)
                and event.session_id == session_id
                and event.from_state is None
                and event.provenance.seq == seq
            ):
                return event
        return None

    async def resolve(self, line: Line) -> Line:
        """Replace `"@proposal:N"` in a tool call's arguments by the real record id."""
        arguments = line.get("arguments")
        if not isinstance(arguments, dict):
            return line
        target = arguments.get("record_id")
        if not (isinstance(target, str) and target.startswith(PROPOSAL_REF)):
            return line
        seq = int(target.removeprefix(PROPOSAL_REF))
        found = self.proposal_of(line["session_id"], seq)
        if found is None:
            await self.wait_processed()
            await self.read_events()
            found = self.proposal_of(line["session_id"], seq)
        # No proposal at that turn: keep a record id that names nothing (the worker
        # answers unknown_record, as it would to a model inventing an id).
        record_id = found.record_id if found else f"none-{line['session_id']}-{seq}"
        return {**line, "arguments": {**arguments, "record_id": record_id}}

    async def replay(
        self, lines: Iterable[Line], progress: Callable[[Line], None] | None = None
    ) -> list[tuple[Line, str]]:
        """Publish every line in order (resolving references); returns (line, entry id)."""
        sent: list[tuple[Line, str]] = []
        for line in lines:
            resolved = await self.resolve(line)
            sent.append((resolved, await self.publish(resolved)))
            if progress is not None:
                progress(resolved)
        return sent


async def dead_letters(
    redis: AnyRedis, partition: int, count: int = 100
) -> list[tuple[str, DeadLetter]]:
    reply: Any = await redis.xrange(stream_name(DEAD_LETTERS, partition), count=count)
    return [(as_text(i), _DEAD.decode(f[DATA_FIELD.encode()])) for i, f in reply]


def decode_event(data: bytes) -> AgreementEvent:
    return _EVENTS.decode(data)
