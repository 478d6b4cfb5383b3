"""What the run left in Redis, compared with the oracle: every difference, by name.

Checks (each difference names its check, the session, the seq and the step):
- `lost_write`: an entry whose XADD was acknowledged to the gateway is gone;
- `pending`: an input entry still pending or undelivered, a session still parked;
- `applied`: a session whose next expected seq is not its last seq + 1;
- `duplicate_event_id`: an agreement event published twice;
- `event_order`: a session's events differ from the oracle's, in content or order;
- `store`: a record, a session's core state or a scope's live records differ;
- `provenance`: an event names an entry id that is not an entry of its (session, seq);
- `dead_letters`: dead letters are not exactly the poison entries, with their reasons.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from accord_harness.chaos.workload import Poison, Workload
from accord_harness.oracle import Outcome, plain, scope_projection, without_entry_ids
from contracts.partition import partition_of
from contracts.streams import DATA_FIELD, as_text, input_streams
from store import keys
from store.scripts import AnyRedis
from worker.engine import Engine

PAGE = 2_000


@dataclass(frozen=True)
class Difference:
    check: str
    session: str | None
    seq: int | None
    step: str
    detail: str

    def __str__(self) -> str:
        where = f"session={self.session} seq={self.seq} " if self.session else ""
        return f"[{self.check}] {where}step={self.step}: {self.detail}"


@dataclass
class Findings:
    differences: list[Difference] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)

    def add(self, check: str, step: str, detail: str, session: str | None = None,
            seq: int | None = None) -> None:  # fmt: skip
        self.differences.append(Difference(check, session, seq, step, detail))

    def by_check(self) -> dict[str, int]:
        return dict(Counter(d.check for d in self.differences))


@dataclass(frozen=True)
class Written:
    """What the gateway wrote and was told was stored: (stream, entry id) -> data."""

    entries: dict[tuple[str, str], bytes]
    poison: dict[tuple[str, str], Poison]


async def xrange_all(redis: AnyRedis, stream: str) -> list[tuple[str, dict[bytes, bytes]]]:
    out: list[tuple[str, dict[bytes, bytes]]] = []
    start = "-"
    while True:
        page: Any = await redis.xrange(stream, min=start, max="+", count=PAGE)
        out.extend((as_text(entry_id), fields) for entry_id, fields in page)
        if len(page) < PAGE:
            return out
        start = "(" + as_text(page[-1][0])


def _provenances(node: Any) -> Iterator[dict[str, Any]]:  # noqa: ANN401  (JSON-shaped)
    if isinstance(node, dict):
        if {"stream", "entry_id", "seq", "session_id"} <= node.keys():
            yield node
        for value in node.values():
            yield from _provenances(value)
    elif isinstance(node, list):
        for value in node:
            yield from _provenances(value)


def describe(event: Any) -> str:  # noqa: ANN401  (JSON-shaped)
    if event is None:
        return "nothing"
    kind = str(event.get("type", "?")).removeprefix("agreement.")
    if "to_state" in event:
        return f"{kind} {event.get('from_state')}->{event['to_state']} ({event.get('cause')}) r{event.get('revision')}"  # noqa: E501
    if "accepted" in event:
        return f"{kind} accepted={event['accepted']} reason={event.get('reason')}"
    return kind


class Checker:
    """Reads the store into the oracle's shape and lists every difference."""

    def __init__(self, redis: AnyRedis, workload: Workload, expected: Outcome) -> None:
        self.redis = redis
        self.workload = workload
        self.expected = expected
        self.partitions = workload.partitions
        self.findings = Findings()
        # (stream, entry id) -> (session, seq) of every document entry now in the streams.
        self.entries: dict[tuple[str, str], tuple[str, int]] = {}
        # What the run left, as read: input entries' fields, records by id (kept for the
        # replicated run's counts, chaos/failover.py).
        self.present: dict[tuple[str, str], dict[bytes, bytes]] = {}
        self.records: dict[str, Any] = {}

    async def run(self, written: Written, group: str) -> Findings:
        present = await self._inputs()
        self._lost_writes(written, present)
        await self._pending(group)
        await self._applied()
        await self._events()
        await self._store()
        await self._dead_letters(written, present)
        return self.findings

    async def _inputs(self) -> dict[tuple[str, str], dict[bytes, bytes]]:
        present: dict[tuple[str, str], dict[bytes, bytes]] = {}
        for p in range(self.partitions):
            for stream in input_streams(p):
                for entry_id, fields in await xrange_all(self.redis, stream):
                    present[(stream, entry_id)] = fields
                    data = fields.get(DATA_FIELD.encode())
                    try:
                        document = json.loads(data) if data else None
                        if isinstance(document, dict):
                            self.entries[(stream, entry_id)] = (
                                document["session_id"], int(document["seq"])
                            )  # fmt: skip
                    except (ValueError, KeyError, TypeError, RecursionError):
                        continue  # poison: judged by the dead-letter check
        self.findings.counts["input_entries"] = len(present)
        self.present = present
        return present

    def _lost_writes(
        self, written: Written, present: dict[tuple[str, str], dict[bytes, bytes]]
    ) -> None:
        lost = 0
        for (stream, entry_id), data in written.entries.items():
            fields = present.get((stream, entry_id))
            if fields is None or fields.get(DATA_FIELD.encode()) != data:
                lost += 1
                if lost <= 20:
                    self.findings.add(
                        "lost_write", "xadd", f"{stream} {entry_id} acknowledged, gone"
                    )
        self.findings.counts["lost_writes"] = lost

    async def _pending(self, group: str) -> None:
        for p in range(self.partitions):
            for stream in input_streams(p):
                info: Any = await self.redis.xpending(stream, group)
                if int(info["pending"]):
                    self.findings.add("pending", "xpending", f"{stream}: {info['pending']} pending")
                groups: Any = await self.redis.xinfo_groups(stream)
                last = next(
                    as_text(g["last-delivered-id"]) for g in groups if as_text(g["name"]) == group
                )
                after: Any = await self.redis.xrange(stream, min="(" + last, max="+", count=1)
                if after:
                    self.findings.add(
                        "pending", "xreadgroup", f"{stream}: undelivered after {last}"
                    )
            if gaps := await self.redis.zcard(keys.gaps_key(p)):
                self.findings.add("pending", "gate", f"partition {p}: {gaps} sessions parked")
            # Every seq of the workload was written: a skipped gap is an input lost.
            stats: Any = await self.redis.hgetall(keys.stats_key(p))
            if skipped := int(stats.get(b"seqs_skipped", 0)):
                self.findings.add("gap_skip", "gate", f"partition {p}: {skipped} seqs skipped")

    async def _applied(self) -> None:
        names = sorted(self.expected.next_seq)
        pipe = self.redis.pipeline(transaction=False)
        for name in names:
            agent, user, session = name.split("|")
            p = partition_of(agent, user, self.partitions)
            pipe.hget(keys.session_key(p, agent, user, session), "n")
        for name, raw in zip(names, await pipe.execute(), strict=True):
            have = int(raw) if raw else 1
            want = self.expected.next_seq[name]
            if have != want:
                self.findings.add(
                    "applied", "gate", f"applied up to seq {have - 1} of {want - 1}",
                    name.split("|")[2], have,
                )  # fmt: skip

    async def _events(self) -> None:
        actual: dict[str, list[Any]] = defaultdict(list)
        ids: Counter[str] = Counter()
        for p in range(self.partitions):
            for _, fields in await xrange_all(self.redis, keys.events_stream(p)):
                event = json.loads(fields[DATA_FIELD.encode()])
                ids[event["event_id"]] += 1
                self._check_provenance(event)
                actual[event["session_id"]].append(without_entry_ids(event))
        self.findings.counts["events"] = sum(ids.values())
        for event_id, times in ids.items():
            if times > 1:
                self.findings.add("duplicate_event_id", "publish", f"{event_id} published {times}x")
        for session in sorted(set(actual) | set(self.expected.events)):
            got, want = actual.get(session, []), self.expected.events.get(session, [])
            if got == want:
                continue
            index = next(
                (i for i, (a, b) in enumerate(zip(got, want, strict=False)) if a != b),
                min(len(got), len(want)),
            )
            seqs = self.expected.event_seq.get(session, [])
            seq = seqs[index] if index < len(seqs) else None
            self.findings.add(
                "event_order",
                f"event #{index + 1}",
                f"expected {describe(want[index] if index < len(want) else None)}, "
                f"got {describe(got[index] if index < len(got) else None)} "
                f"({len(got)} events, oracle {len(want)})",
                session,
                seq,
            )

    def _check_provenance(self, node: Any) -> None:  # noqa: ANN401  (JSON-shaped)
        for prov in _provenances(node):
            named = self.entries.get((prov["stream"], prov["entry_id"]))
            if named != (prov["session_id"], prov["seq"]):
                self.findings.add(
                    "provenance", "publish",
                    f"{prov['stream']} {prov['entry_id']} is {named}, not this input",
                    prov["session_id"], prov["seq"],
                )  # fmt: skip

    async def _store(self) -> None:
        records: dict[str, Any] = {}
        for p in range(self.partitions):
            names = [
                n async for n in self.redis.scan_iter(match=keys.record_key(p, "*"), count=1000)
            ]
            for start in range(0, len(names), PAGE):
                values: Any = await self.redis.mget(names[start : start + PAGE])
                for value in values:
                    record = json.loads(value)
                    self._check_provenance(record)
                    records[record["record_id"]] = without_entry_ids(record)
        self.findings.counts["records"] = len(records)
        self.records = records
        for record_id in sorted(set(records) | set(self.expected.records)):
            got, want = records.get(record_id), self.expected.records.get(record_id)
            if got != want:
                session = (want or got or {}).get("session_id")
                self.findings.add(
                    "store", "record",
                    f"{record_id}: expected {_state(want)}, got {_state(got)}", session,
                )  # fmt: skip
        await self._states()

    async def _states(self) -> None:
        core = Engine()
        pipe = self.redis.pipeline(transaction=False)
        names = sorted(self.expected.sessions)
        for name in names:
            agent, user, session = name.split("|")
            p = partition_of(agent, user, self.partitions)
            pipe.hget(keys.session_key(p, agent, user, session), "c")
        for name, raw in zip(names, await pipe.execute(), strict=True):
            session_id = name.split("|")[2]
            got_session = plain(core.decode_session(raw, session_id))
            if got_session != self.expected.sessions[name]:
                self.findings.add("store", "session", "core session state differs", session_id)
        for name, want_scope in self.expected.scopes.items():
            agent, user = name.split("|")
            p = partition_of(agent, user, self.partitions)
            raw_scope: Any = await self.redis.hget(keys.scope_key(p, agent, user), "s")
            if scope_projection(core.decode_scope(raw_scope, agent, user)) != want_scope:
                self.findings.add("store", "scope", f"{name}: live records differ")

    async def _dead_letters(
        self, written: Written, present: dict[tuple[str, str], dict[bytes, bytes]]
    ) -> None:
        # Every poison entry in the streams, including copies a retried XADD may have left.
        poison_by_fields = {
            (bad.stream, tuple(sorted(bad.fields.items()))): bad for bad in written.poison.values()
        }
        wanted: dict[tuple[str, str], Poison] = {}
        for (stream, entry_id), fields in present.items():
            key = (stream, tuple(sorted((as_text(k), v) for k, v in fields.items())))
            if key in poison_by_fields:
                wanted[(stream, entry_id)] = poison_by_fields[key]
        letters: dict[tuple[str, str], str] = {}
        for p in range(self.partitions):
            for _, fields in await xrange_all(self.redis, keys.dead_letters_stream(p)):
                letter = json.loads(fields[DATA_FIELD.encode()])
                where = (letter["stream"], letter["entry_id"])
                if where in letters:
                    self.findings.add("dead_letters", "dead_letter", f"{where} dead-lettered twice")
                letters[where] = letter["reason"]
        self.findings.counts["dead_letters"] = len(letters)
        self.findings.counts["poison_entries"] = len(wanted)
        for where in sorted(set(wanted) | set(letters)):
            bad, reason = wanted.get(where), letters.get(where)
            if bad is None:
                named = self.entries.get(where)
                detail = f"{where} is no poison but a dead letter ({reason})"
                session, seq = named or (None, None)
                self.findings.add("dead_letters", "dead_letter", detail, session, seq)
            elif reason is None:
                self.findings.add(
                    "dead_letters", "dead_letter", f"poison {bad.kind} {where} not dead-lettered"
                )
            elif reason != bad.reason.value:
                detail = f"poison {bad.kind}: reason {reason}, want {bad.reason.value}"
                self.findings.add("dead_letters", "dead_letter", detail)


@dataclass(frozen=True)
class TakenBack:
    """What a subscriber saw during a run, against the events streams at its end."""

    seen: int  # distinct event ids the subscriber read
    taken_back: list[str]  # ids it read that the final streams do not hold
    two_contents: list[str]  # ids it read whose contents were not all the same
    # Each of those ids' contents, described (`describe`), first read first.
    contents: dict[str, list[str]] = field(default_factory=dict)


def taken_back(seen: Iterable[tuple[str, Any]], final: Iterable[tuple[str, Any]]) -> TakenBack:
    """Compare (event id, event) pairs a subscriber read with those the streams hold.

    An id read and gone from the streams was taken back (a failover lost its commit and
    nothing published it again); an id read, or read and then held, with two different
    contents names two events (a redo from other inputs reused it). Entry ids and
    timing fields are left out of the comparison: a redo from another copy of the same
    input is the same event.
    """
    # Per id, its distinct contents in the order met (canonical JSON -> the event).
    contents: dict[str, dict[str, Any]] = defaultdict(dict)
    read: set[str] = set()
    for event_id, event in seen:
        read.add(event_id)
        contents[event_id].setdefault(_canonical(event), event)
    held: set[str] = set()
    for event_id, event in final:
        held.add(event_id)
        if event_id in read:
            contents[event_id].setdefault(_canonical(event), event)
    two = sorted(i for i in read if len(contents[i]) > 1)
    return TakenBack(
        seen=len(read),
        taken_back=sorted(read - held),
        two_contents=two,
        contents={i: [describe(e) for e in contents[i].values()] for i in two},
    )


def _canonical(event: Any) -> str:  # noqa: ANN401  (JSON-shaped)
    return json.dumps(without_entry_ids(event), sort_keys=True, ensure_ascii=False)


def compare_records(expected: dict[str, Any], actual: dict[str, Any]) -> dict[str, int]:
    """Records of the reference missing from the run (`lost`), in both but different
    (`changed`), or only in the run (`extra`); `expected` is the reference's count."""
    return {
        "expected": len(expected),
        "lost": sum(1 for r in expected if r not in actual),
        "changed": sum(1 for r, v in expected.items() if r in actual and actual[r] != v),
        "extra": sum(1 for r in actual if r not in expected),
    }


def _state(record: Any) -> str:  # noqa: ANN401  (JSON-shaped)
    if record is None:
        return "no record"
    return f"{record.get('state')} r{record.get('revision')}"
