"""Admission: input entries into a batch's work, or into dead letters with a reason.

An entry is admitted when it decodes, keeps the contract and the limits, and belongs to
this partition and to the stream of its kind. A refused entry whose envelope is valid
and of this partition still takes its place in its session's order (its letter is
written when the gate reaches its seq); any other becomes a dead letter at once. With
`dead_letter_keep_text` off, a letter keeps only the envelope of what it carried
(docs/security.md).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

import msgspec

from contracts.codec import ContractError, check_ts, decode_entry, decode_envelope, decode_event
from contracts.inputs import INPUT_STREAM_OF, InputEvent
from contracts.outputs import DeadLetter, DeadLetterReason, dead_letter_event_id, sealed
from contracts.partition import partition_of
from contracts.streams import DATA_FIELD, Entry, as_text, family_of, input_streams
from store.config import StoreConfig
from store.gate import Arrival, ParkedEntry
from store.work import ScopeId, ScopeWork

DATA_KEY = DATA_FIELD.encode()
# With dead_letter_keep_text off, a letter keeps only these envelope values (ids, seq,
# time, kinds), and only as short scalars: every other value is replaced by its size,
# because chat text in a renamed field, a bare JSON string or a tool's arguments is
# still chat text (docs/security.md). Ids longer than the contract allows are not ids.
_KEPT_FIELDS = frozenset({
    "type", "agent_id", "user_id", "session_id", "seq", "ts", "role",
    "message_id", "call_id", "name", "ok", "timezone",
})  # fmt: skip
_KEPT_MAX_CHARS = 256
_DETAIL_CHARS = 2048
# Reasons and error texts kept in dead letters and logs: enough to name the key and cause.
REASON_CHARS = 512


def error_text(error: Exception) -> str:
    return f"{type(error).__name__}: {error}"[:REASON_CHARS]


class Admission:
    """Admits one partition's entries and writes the dead letters of the store."""

    def __init__(self, partition: int, config: StoreConfig) -> None:
        self.partition = partition
        self.config = config
        # The partitions of the scopes seen lately (a pure function).
        self._partition_of = functools.lru_cache(maxsize=4096)(self._partition_of_scope)
        # (stream, event type) of the events each of the partition's streams carries.
        self._kinds = frozenset(
            (stream, kind)
            for stream in input_streams(partition)
            for kind, family in INPUT_STREAM_OF.items()
            if family == family_of(stream)
        )

    def _partition_of_scope(self, agent_id: str, user_id: str) -> int:
        return partition_of(agent_id, user_id, self.config.partitions)

    def admit(self, entry: Entry, work: Mapping[ScopeId, ScopeWork]) -> DeadLetter | None:
        """Decode one entry into `work` (a defaultdict); or return the letter it becomes.

        The delivery count is not looked at here: an entry past the delivery limit is a
        suspect, tried alone by the processor before it may become a letter
        (store/suspects.py, `given_up`).
        """
        limits = self.config.limits
        data = entry.fields.get(DATA_KEY)
        try:
            if data is None:
                event = decode_entry(entry.fields, limits, entry.id().ms)
            else:  # the gateway's entries: `__data__` alone, looked up once
                event = decode_event(data, limits)
                check_ts(event, entry.id().ms, limits)
        except ContractError as error:
            return self._refused(entry, work, self.dead_letter(entry, error.reason, str(error)))
        scope_id = (event.agent_id, event.user_id)
        # A scope already in `work` was admitted in this batch: of this partition.
        scope = work.get(scope_id)
        if scope is None and self._partition_of(*scope_id) != self.partition:
            return self.dead_letter(
                entry, DeadLetterReason.WRONG_PARTITION, "scope hashes to another partition", event
            )
        if (entry.stream, type(event)) not in self._kinds:
            return self.dead_letter(
                entry,
                DeadLetterReason.CONTRACT_VIOLATION,
                f"a {INPUT_STREAM_OF[type(event)]} event on {entry.stream}",
                event,
            )
        arrival = Arrival(entry.stream, entry.entry_id, event, data or b"", entry.delivery_count)
        if scope is None:
            scope = work[scope_id]
        arrivals = scope.arrivals.get(event.session_id)
        if arrivals is None:
            scope.arrivals[event.session_id] = [arrival]
        else:
            arrivals.append(arrival)
        return None

    def admit_all(
        self, entries: Iterable[Entry], work: Mapping[ScopeId, ScopeWork]
    ) -> list[DeadLetter]:
        """`admit` each entry in order into `work` (a defaultdict); the letters.

        The gateway's usual entry (`__data__` alone, within the contract and the time
        window around its id, of a scope of this partition, on the stream of its kind) is
        admitted in this loop, its look-ups bound once: this runs for every entry the
        worker reads. Any other goes to `admit`, which decodes it again and decides it
        as always (tests/store/test_store_admission.py compares the two).
        """
        limits = self.config.limits
        # `check_ts`'s window, in the entry id's milliseconds.
        behind_ms, ahead_ms = limits.max_ts_behind_s * 1000, limits.max_ts_ahead_s * 1000
        kinds, partition, partition_of = self._kinds, self.partition, self._partition_of
        letters: list[DeadLetter] = []
        for entry in entries:
            data = entry.fields.get(DATA_KEY)
            try:
                event = None if data is None else decode_event(data, limits)
            except ContractError:
                event = None
            if event is not None and data:
                ms = entry.id().ms
                scope_id = (event.agent_id, event.user_id)
                # A scope already in `work` was admitted in this batch: of this partition.
                scope = work.get(scope_id)
                if (
                    ms - behind_ms <= event.ts.timestamp() * 1000 <= ms + ahead_ms
                    and (scope is not None or partition_of(*scope_id) == partition)
                    and (entry.stream, type(event)) in kinds
                ):
                    if scope is None:
                        scope = work[scope_id]
                    arrival = Arrival(
                        entry.stream, entry.entry_id, event, data, entry.delivery_count
                    )
                    arrivals = scope.arrivals.get(event.session_id)
                    if arrivals is None:
                        scope.arrivals[event.session_id] = [arrival]
                    else:
                        arrivals.append(arrival)
                    continue
            letter = self.admit(entry, work)
            if letter is not None:
                letters.append(letter)
        return letters

    def given_up(self, entry: Entry, attempts: int) -> DeadLetter:
        """The letter of a suspect whose `attempts` tries alone did not commit it.

        Not given a place in its session's order: a failure past the delivery limit may
        be Redis's, not the input's, and a requeue must still apply it in order (its
        session waits for it until the gap timeout).
        """
        letter = self.dead_letter(
            entry,
            DeadLetterReason.DELIVERY_LIMIT,
            f"delivered {entry.delivery_count} times (limit {self.config.delivery_limit});"
            f" {attempts} tries alone did not commit it",
        )
        envelope = decode_envelope(entry.fields, self.config.limits)
        if envelope is None:
            return letter
        return msgspec.structs.replace(letter, session_id=envelope.session_id, seq=envelope.seq)

    def _refused(
        self, entry: Entry, work: Mapping[ScopeId, ScopeWork], letter: DeadLetter
    ) -> DeadLetter | None:
        """A refused entry: its letter alone, or, when its envelope is valid and of this
        partition, a place in its session's order (the letter is written when the gate
        reaches its seq, and the session moves on without waiting out a gap)."""
        envelope = decode_envelope(entry.fields, self.config.limits)
        if envelope is None:
            return letter
        letter = msgspec.structs.replace(letter, session_id=envelope.session_id, seq=envelope.seq)
        if self._partition_of(envelope.agent_id, envelope.user_id) != self.partition:
            return letter
        data = entry.fields.get(DATA_KEY, b"")
        arrival = Arrival(
            entry.stream, entry.entry_id, None, data, entry.delivery_count, envelope.seq, letter
        )
        work[(envelope.agent_id, envelope.user_id)].add(envelope.session_id, arrival)
        return None

    def dead_letter(
        self,
        entry: Entry,
        reason: DeadLetterReason,
        detail: str,
        event: InputEvent | None = None,
    ) -> DeadLetter:
        fields = {as_text(k): v.decode("utf-8", "replace") for k, v in entry.fields.items()}
        if not self.config.dead_letter_keep_text:
            fields = _redact(fields)
        letter = DeadLetter(
            event_id=dead_letter_event_id(entry.stream, entry.entry_id),
            stream=entry.stream,
            entry_id=entry.entry_id,
            reason=reason,
            detail=detail[:_DETAIL_CHARS],
            delivery_count=entry.delivery_count,
            at=datetime.now(UTC),
            fields=fields,
            session_id=event.session_id if event else None,
            seq=event.seq if event else None,
        )
        return sealed(letter)

    def letter_of(
        self, source: Arrival | ParkedEntry, reason: DeadLetterReason, detail: str
    ) -> DeadLetter:
        """The dead letter of an input the gate or the core turned away after admission."""
        if isinstance(source, ParkedEntry):
            entry = Entry(source.stream, source.entry_id, {DATA_KEY: source.data})
            return self.dead_letter(entry, reason, detail)
        entry = Entry(
            source.stream, source.entry_id, {DATA_KEY: source.data}, source.delivery_count
        )
        return self.dead_letter(entry, reason, detail, source.event)


def _redacted(value: str) -> str:
    return f"<{len(value.encode())} bytes redacted>"


def _kept(name: str, value: Any) -> bool:  # noqa: ANN401  (any decoded JSON value)
    if name not in _KEPT_FIELDS:
        return False
    if isinstance(value, str):
        return len(value) <= _KEPT_MAX_CHARS
    return value is None or isinstance(value, bool | int | float)


def _redact(fields: dict[str, str]) -> dict[str, str]:
    """Keep only the envelope of `__data__`; every other value becomes its size."""
    out = {name: _redacted(value) for name, value in fields.items() if name != DATA_FIELD}
    raw = fields.get(DATA_FIELD)
    if raw is None:
        return out
    try:
        document = msgspec.json.decode(raw)
    except (msgspec.DecodeError, RecursionError):
        # RecursionError: deeply nested input (the decoder dead-letters it as undecodable).
        return {**out, DATA_FIELD: _redacted(raw)}
    if not isinstance(document, dict):
        return {**out, DATA_FIELD: _redacted(raw)}
    kept = {
        name: value if _kept(name, value) else _redacted(msgspec.json.encode(value).decode())
        for name, value in document.items()
    }
    return {**out, DATA_FIELD: msgspec.json.encode(kept).decode()}
