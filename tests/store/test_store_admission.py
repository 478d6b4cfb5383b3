"""Admission a batch at a time (store/admission.py `admit_all`) decides every entry as
`admit` decides it alone: the same arrivals in the same sessions' order (R15) and the
same dead letters, for the gateway's usual entries and for every kind of refusal."""

from __future__ import annotations

import random
from collections import defaultdict
from typing import Any

from accord_harness.documents import Document, encode, stream_of
from accord_harness.store_harness import real_core_workload

from contracts.codec import decode_event
from contracts.outputs import DeadLetter
from contracts.partition import partition_of
from contracts.streams import DATA_FIELD, Entry, EntryId, input_streams
from store.admission import Admission
from store.config import StoreConfig
from store.work import ScopeId, ScopeWork

PARTITIONS = 2
DATA = DATA_FIELD.encode()


def ms_of(document: Document) -> int:
    """An entry id time a second after the document's `ts` (inside the window)."""
    return int(decode_event(encode(document)).ts.timestamp() * 1000) + 1000


def entries_of_partition_0(rng: random.Random) -> list[Entry]:
    """Documents of both partitions read from partition 0's streams, with refusals of
    each kind mixed in: undecodable, a contract violation, a field-per-key entry, a
    time outside the window, the wrong stream for its kind, a scope of partition 1."""
    documents = real_core_workload(rng, scopes=8, sessions=2, blocks=2)
    streams = input_streams(0)
    entries: list[Entry] = []
    for number, document in enumerate(documents):
        stream = stream_of(document, PARTITIONS).replace("{1}", "{0}")
        ms = ms_of(document)
        fields: dict[bytes, bytes] = {DATA: encode(document)}
        kind = number % 14  # one entry in 14 of each refusal, the rest as the gateway writes
        if kind == 0:
            fields = {DATA: b"{not json"}
        elif kind == 1:
            fields = {DATA: encode({**document, "seq": "seven"})}
        elif kind == 2:
            fields = {k.encode(): str(v).encode() for k, v in document.items()}
        elif kind == 3:
            ms += 3_661 * 86_400_000  # the ts just over the window behind its entry
        elif kind == 4:
            ms -= 61 * 86_400_000  # and just over the window ahead of it
        elif kind == 5:
            stream = next(s for s in streams if s != stream)
        entry_id = f"{ms}-{number}"
        entries.append(Entry(stream, entry_id, fields, 1, EntryId.parse(entry_id)))
    return entries


def outcome(
    work: dict[ScopeId, ScopeWork], letters: list[DeadLetter]
) -> tuple[dict[Any, Any], list[Any]]:
    arrivals = {
        (scope_id, session_id): [
            (a.stream, a.entry_id, a.event, a.data, a.refused_seq, told(a.letter)) for a in found
        ]
        for scope_id, scope in work.items()
        for session_id, found in scope.arrivals.items()
    }
    return arrivals, [told(letter) for letter in letters]


def told(letter: DeadLetter | None) -> tuple[Any, ...] | None:
    """A letter but its `at`, the moment it was written: everything else must be the same."""
    if letter is None:
        return None
    return (letter.stream, letter.entry_id, letter.reason, letter.detail, letter.session_id,
            letter.seq, letter.fields)  # fmt: skip


def test_admit_all_decides_every_entry_as_admit_does_r15() -> None:
    config = StoreConfig(partitions=PARTITIONS)
    entries = entries_of_partition_0(random.Random(7))
    one_by_one: dict[ScopeId, ScopeWork] = defaultdict(ScopeWork)
    letters = [
        letter
        for entry in entries
        if (letter := Admission(0, config).admit(entry, one_by_one)) is not None
    ]
    at_once: dict[ScopeId, ScopeWork] = defaultdict(ScopeWork)
    batch_letters = Admission(0, config).admit_all(entries, at_once)
    assert outcome(at_once, batch_letters) == outcome(one_by_one, letters)
    # Every kind of refusal and plenty of admitted entries were in the batch.
    reasons = {letter.reason.value for letter in letters}
    assert {"undecodable", "contract_violation", "wrong_partition"} <= reasons
    assert sum(len(found) for scope in at_once.values() for found in scope.arrivals.values()) > 30
    assert any(partition_of(*scope_id, PARTITIONS) == 0 for scope_id in at_once)
