"""The commit plan: what `store/lua/commit.lua` writes, as typed msgspec Structs.

The plan travels as ARGV[1], msgpack; its keys are the short names commit.lua reads
(`rename` through each field's `name=`), and a field left at its default is not sent
(`omit_defaults`), so Lua sees it as nil: only what a unit does travels. KEYS and binary
values travel apart (`KeyTable`): a plan names a key by its 1-based KEYS index and a
binary value by its ARGV index, because Redis's cmsgpack reads no bin type.

Versions are opaque tokens unique to the commit that wrote them; '' stands for a key
never written (store/state_cache.py says why they are not counts).
"""

from __future__ import annotations

from typing import Any

import msgspec

from contracts.outputs import DeadLetter
from store.gate import Arrival, GatePlan, ParkedEntry, format_skipped
from store.keys import SessionNames, record_member
from store.state_cache import SessionSnapshot

_JSON = msgspec.json.Encoder()
_MSGPACK = msgspec.msgpack.Encoder()


class KeyTable:
    """KEYS of one script call, by index (Lua's 1-based), and its binary ARGV values."""

    __slots__ = ("blobs", "index", "names")

    def __init__(self) -> None:
        self.names: list[str] = []
        self.index: dict[str, int] = {}
        # ARGV[2..]: ARGV[1] is the plan itself.
        self.blobs: list[bytes] = []

    def __call__(self, name: str) -> int:
        found = self.index.get(name)
        if found is None:
            self.names.append(name)
            found = self.index[name] = len(self.names)
        return found

    def fresh(self, name: str) -> int:
        """The index of a name no other part of the call names (a plain unit's session
        key: a session is in one unit, once): added without a look-up. Not in `index`,
        so a later `__call__` of the same name would add it again, which costs a KEY."""
        self.names.append(name)
        return len(self.names)

    def mark(self) -> tuple[int, int]:
        """Where the names and blobs stand now, for `rollback`."""
        return len(self.names), len(self.blobs)

    def rollback(self, mark: tuple[int, int]) -> None:
        """Forget every name and blob added since `mark` (a plan given up half-way)."""
        names, blobs = mark
        for name in self.names[names:]:
            if self.index.get(name, 0) > names:
                del self.index[name]
        del self.names[names:], self.blobs[blobs:]

    def blob(self, data: bytes) -> int:
        self.blobs.append(data)
        return len(self.blobs) + 1

    def json(self, value: object) -> int:
        return self.blob(_JSON.encode(value))

    def letter(self, letter: DeadLetter) -> LetterWrite:
        """A dead letter of an input entry: XACKed, then written if the ack removed it."""
        return LetterWrite(
            self(letter.stream), letter.entry_id, self.json(letter), letter.reason.value
        )


# Wire structs: every one a Struct because a batch builds several per scope (a Struct
# is several times cheaper to build than a dataclass), and msgspec encodes them directly.
class LetterWrite(msgspec.Struct, array_like=True):
    """{stream idx, entry id, #dead-letter json, reason}: counted as `dl:<reason>`."""

    stream: int
    entry_id: str
    letter: int
    reason: str


class SessionWrite(msgspec.Struct, omit_defaults=True):
    """One session of a unit. Without `next_seq` it is a check only: nothing written.
    What it writes gets the commit's token as its version (`CommitPlan.new_mark`)."""

    key: int = msgspec.field(name="k")
    # The version the plan rests on, checked first (None: a trusted unit, not checked).
    version: str | None = msgspec.field(default=None, name="v")
    next_seq: int | None = msgspec.field(default=None, name="n")
    # The scope view's field of this session's applied seq (written as next_seq - 1).
    applied_field: str | None = msgspec.field(default=None, name="af")
    core: int | None = msgspec.field(default=None, name="c")  # #core state bytes
    skipped: str | None = msgspec.field(default=None, name="kk")
    # The parked hash is a KEY only when it is written: {seq, #bytes, ...} to park,
    # {seq, ...} to unpark.
    parked_key: int | None = msgspec.field(default=None, name="pk")
    park: list[int] = msgspec.field(default_factory=list, name="ps")
    unpark: list[int] = msgspec.field(default_factory=list, name="pd")
    # The gap index is touched only by a session that had or has parked entries:
    # its member, its oldest parked entry's ms (absent: leaves the index), and 1 when the
    # seq waited for moved on (the gap now open is observed now).
    gap_member: str | None = msgspec.field(default=None, name="gm")
    gap_score: int | None = msgspec.field(default=None, name="gs")
    gap_observed: int | None = msgspec.field(default=None, name="go")
    # With session retention on: the session's member in the idle index, scored by the
    # commit's Redis time (the sweeper compacts the sessions idle longest).
    idle_member: str | None = msgspec.field(default=None, name="im")


class UnitPlan(msgspec.Struct, omit_defaults=True):
    """One scope's commit: checked as a whole, written as a whole or not at all."""

    scope_key: int | None = msgspec.field(default=None, name="sc")
    scope_version: str | None = msgspec.field(default=None, name="sv")
    scope_state: int | None = msgspec.field(default=None, name="ss")  # #bytes
    sessions: list[SessionWrite] = msgspec.field(default_factory=list, name="se")
    # {record idx, #json, ...}
    records: list[int] = msgspec.field(default_factory=list, name="r")
    # {record idx, #json, ...} of records that left the scope's state for good: written
    # with the plan's record retention as their time to live.
    final_records: list[int] = msgspec.field(default_factory=list, name="rf")
    # Deadline index: members removed, and {ms, member, ...} added.
    deadlines_removed: list[str] = msgspec.field(default_factory=list, name="xr")
    deadlines_added: list[int | str] = msgspec.field(default_factory=list, name="xa")
    events: list[int] = msgspec.field(default_factory=list, name="ev")  # #event json
    # {stream idx, entry id, ...}: applied, parked and duplicate entries.
    acks: list[int | str] = msgspec.field(default_factory=list, name="a")
    # The scope's view hash, and its document when the records changed.
    view_key: int | None = msgspec.field(default=None, name="vk")
    view_document: int | None = msgspec.field(default=None, name="vd")
    # Late after a gap skip, refused by the core, or a unit that cannot be committed.
    letters: list[LetterWrite] = msgspec.field(default_factory=list, name="d")
    # Parked entries the core refused (acked when they were parked): #letter json.
    parked_letters: list[int] = msgspec.field(default_factory=list, name="dp")
    # How much the unit grows the partition's parked totals (negative: shrinks them).
    parked_entries: int = msgspec.field(default=0, name="pe")
    parked_bytes: int = msgspec.field(default=0, name="pb")
    gaps_skipped: int = msgspec.field(default=0, name="nk")
    seqs_skipped: int = msgspec.field(default=0, name="nq")
    # Planned from the worker's cache alone: written unchecked while the partition's
    # commit mark is the one the worker's last commit wrote, else returned as moved.
    trusted: bool = msgspec.field(default=False, name="t")
    # The records index: {record member, state, states it may have been indexed under
    # before (space-separated), ...} of the records the unit writes, in the order it
    # writes them (`records`, then `final_records`); `index_records` fills it.
    record_index: list[str] = msgspec.field(default_factory=list, name="ri")
    # The scopes index, only of a unit that writes its scope's state: the scope's
    # member, whether it holds an open agreement, and (record retention on) whether it
    # keeps no record, so it leaves the index when its last records' keys expire.
    scope_member: str | None = msgspec.field(default=None, name="cm")
    scope_open: bool = msgspec.field(default=False, name="co")
    scope_idle: bool = msgspec.field(default=False, name="ce")


class CommitPlan(msgspec.Struct, omit_defaults=True):
    """The whole script call: the partition's shared keys, the units, entry letters."""

    group: str = msgspec.field(name="g")
    events_key: int = msgspec.field(name="ek")
    events_maxlen: int = msgspec.field(name="em")
    letters_key: int = msgspec.field(name="dk")
    letters_maxlen: int = msgspec.field(name="dm")
    stats_key: int = msgspec.field(name="tk")
    gaps_key: int = msgspec.field(name="gk")
    deadlines_key: int = msgspec.field(name="xk")
    input_keys: list[int] = msgspec.field(name="ik")
    units: list[UnitPlan] = msgspec.field(name="u")
    # The partition's lease hash: its fence (store/ownership.py) and its commit mark.
    lease_key: int = msgspec.field(name="lk")
    # The commit's own token, written as the partition's commit mark by every commit.
    new_mark: str = msgspec.field(name="nm")
    # Entries refused at admission (undecodable and the like), whatever the units do.
    letters: list[LetterWrite] = msgspec.field(default_factory=list, name="d")
    # Fenced commits only: the committing worker's owner token, and the mark this
    # worker's last commit wrote (None: unknown, nothing is trusted).
    lease_token: str | None = msgspec.field(default=None, name="lt")
    previous_mark: str | None = msgspec.field(default=None, name="pm")
    # Retention (StoreConfig): the final records' time to live, and the idle index of
    # sessions (a KEY only with session retention on).
    record_ttl_ms: int = msgspec.field(default=0, name="rt")
    idle_key: int | None = msgspec.field(default=None, name="yk")
    # The records index (store/record_index.py), KEYS only of a commit that writes a
    # record: all records, {state, key idx, ...} one per state, and the final records'
    # expiry (only with record retention on).
    records_key: int | None = msgspec.field(default=None, name="rk")
    state_keys: list[int | str] = msgspec.field(default_factory=list, name="rs")
    records_ttl_key: int | None = msgspec.field(default=None, name="rx")
    # The scopes index (store/scope_index.py), KEYS only of a commit that writes a scope's
    # state: all scopes, those holding an open agreement, and the idle scopes' removal
    # instants (only with record retention on).
    scopes_key: int | None = msgspec.field(default=None, name="ck")
    scopes_open_key: int | None = msgspec.field(default=None, name="cq")
    scopes_ttl_key: int | None = msgspec.field(default=None, name="cx")
    # Durable commits (StoreConfig.wait_replicas): events and dead letters go to this
    # outbox instead of their streams, published after the wait (store/lua/publish.lua).
    outbox_key: int | None = msgspec.field(default=None, name="ob")
    # The plain units (`PlainLane`), flat, and their acks ({stream idx, entry id, ...}).
    plain: list[int | str] = msgspec.field(default_factory=list, name="p")
    plain_acks: list[int | str] = msgspec.field(default_factory=list, name="pa")


class PlainLane(msgspec.Struct):
    """The plain units of one commit, flat: no map per unit or session to build, encode
    or unpack in Lua.

    A plain unit is a trusted unit (planned from the cache under the commit mark) whose
    sessions all went on in order and whose inputs changed nothing of the scope: no
    record, event, letter, parked entry or scope state, only each session's next seq
    and perhaps its core state. Per unit `entries` holds {view key idx, sessions m},
    then m times {session key idx, next seq, applied-seq field of the view, #core state
    bytes or 0}; `acks` the units' {stream idx, entry id, ...}. commit.lua writes them
    as it writes the same unit planned in full (tests/store/test_store_plain.py), and
    numbers them after the plan's other units in its reply: all written, or all moved
    when the mark moved.
    """

    entries: list[int | str] = msgspec.field(default_factory=list)
    acks: list[int | str] = msgspec.field(default_factory=list)
    units: int = 0


class _Revision(msgspec.Struct):
    state: str


class _RecordHead(msgspec.Struct):
    """What the records index needs of a record's JSON (the rest is skipped unread)."""

    record_id: str
    agent_id: str
    user_id: str
    state: str
    history: list[_Revision] = msgspec.field(default_factory=list)


_HEAD = msgspec.json.Decoder(_RecordHead)


def index_records(table: KeyTable, units: list[UnitPlan]) -> bool:
    """Fill each unit's `record_index` from the record JSON it writes; whether any does.

    Read back from the planned JSON (a few µs a record, on the worker, not in Redis), so
    the index needs nothing from how a unit is planned. The states a record may have
    been indexed under before are the other states of its history: every commit that
    wrote it indexed its latest revision's state, so its state sets are left by name
    (none for a new record) instead of by a ZREM on every other state's set.
    """
    any_written = False
    for unit in units:
        written = unit.records + unit.final_records
        index: list[str] = []
        for blob in written[1::2]:
            head = _HEAD.decode(table.blobs[blob - 2])
            before = sorted({r.state for r in head.history} - {head.state})
            member = record_member(head.agent_id, head.user_id, head.record_id)
            index += (member, head.state, " ".join(before))
        unit.record_index = index
        any_written = any_written or bool(index)
    return any_written


def session_write(  # noqa: PLR0913, PLR0917  (one session's part of a commit)
    table: KeyTable,
    names: SessionNames,
    version: str | None,
    before: SessionSnapshot[Any],
    plan: GatePlan,
    encoded: bytes | None,
    parked_after: dict[int, ParkedEntry],
) -> SessionWrite:
    """The session's writes as commit.lua reads them, checked against `version` (None:
    not checked, a trusted unit)."""
    write = SessionWrite(
        table(names.key), version, next_seq=plan.next_seq, applied_field=names.applied,
    )  # fmt: skip
    if encoded is not None:
        write.core = table.blob(encoded)
    if plan.skipped_now:
        write.skipped = format_skipped(plan.skipped)
    if plan.park or (before.parked and plan.unpark):
        # The parked hash is a KEY of the script only when it is written.
        write.parked_key = table(names.parked)
        write.park = [
            x
            for seq, a in plan.park
            for x in (seq, table.blob(_MSGPACK.encode((a.stream, a.entry_id, parked_data(a)))))
        ]
        write.unpark = list(plan.unpark)
    if before.parked or parked_after:
        # The gap index is touched only by a session that had or has parked entries.
        write.gap_member = names.member
        if plan.oldest_parked_ms is not None:
            write.gap_score = plan.oldest_parked_ms
            if plan.next_seq != before.next_seq:
                # The seq waited for moved on: the gap now open is observed now.
                write.gap_observed = 1
    return write


def parked_data(arrival: Arrival) -> bytes:
    """What the parked hash keeps of an arrival: its data, or b"" for a refused one."""
    return arrival.data if arrival.event is not None else b""


def script_args(table: KeyTable, plan: CommitPlan) -> list[bytes]:
    """commit.lua's ARGV: the plan, then the binary values it names."""
    return [_MSGPACK.encode(plan), *table.blobs]
