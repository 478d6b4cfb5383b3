"""Stream names and the entry layout shared with every producer and subscriber.

Every name of partition p carries the Redis Cluster hash tag `{p}`, so all keys of a
partition live in one slot and one Lua script can touch them atomically.
Each entry carries the JSON document of one event in the single field `__data__`
(the field FastStream reads as the body); no other framing is ever required.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple, cast

# The field holding an event's JSON document in every stream entry, in and out.
DATA_FIELD = "__data__"

CHAT_TURN = "chat-turn"
TOOL_CALL = "tool-call"
TOOL_RESULT = "tool-result"
INPUT_FAMILIES: tuple[str, ...] = (CHAT_TURN, TOOL_CALL, TOOL_RESULT)

AGREEMENT_EVENTS = "agreement-events"
DEAD_LETTERS = "dead-letters"

# The consumer group the workers read the input streams as (ACCORD_GROUP names another);
# the ACL files, the KEDA trigger and the gateway's tools name it too.
GROUP = "accord"


def hash_tag(partition: int) -> str:
    return "{" + str(partition) + "}"


def stream_name(family: str, partition: int) -> str:
    """`chat-turn:{0}`, `agreement-events:{3}`, ..."""
    return f"{family}:{hash_tag(partition)}"


def input_streams(partition: int) -> tuple[str, ...]:
    return tuple(stream_name(family, partition) for family in INPUT_FAMILIES)


def family_of(stream: str) -> str:
    """The family of a stream name (`chat-turn:{0}` -> `chat-turn`)."""
    return stream.split(":", 1)[0]


def as_text(value: bytes | str | int) -> str:
    """A name, id or number from a Redis reply as text (the clients keep replies as bytes)."""
    return value.decode() if isinstance(value, bytes) else str(value)


class EntryId(NamedTuple):
    """A stream entry id `<ms>-<seq>`, parsed; ids compare in stream order.

    The sequence part counts per stream and per millisecond, so ids of different
    streams order only by `ms` (the server's clock when each entry was added).
    """

    ms: int
    seq: int = 0

    @classmethod
    def parse(cls, value: bytes | str) -> EntryId:
        """`b"1700000000000-3"` -> EntryId(1700000000000, 3); a bare `<ms>` has seq 0."""
        text = as_text(value)
        ms, dash, seq = text.partition("-")
        try:
            return cls(int(ms), int(seq) if dash else 0)
        except ValueError:
            raise ValueError(f"not a stream entry id: {text!r}") from None

    def __str__(self) -> str:
        return f"{self.ms}-{self.seq}"

    def successor(self) -> EntryId:
        """The smallest id after this one (an exclusive bound for XRANGE, XTRIM MINID)."""
        return EntryId(self.ms, self.seq + 1)

    def last_before_ms(self) -> EntryId:
        """The largest id of the millisecond before this one's (XREAD from it sees this ms)."""
        return EntryId(self.ms - 1, MAX_SEQ) if self.ms > 0 else EntryId(0, 0)


# The largest sequence part Redis gives an id (an unsigned 64-bit integer).
MAX_SEQ = 2**64 - 1


def entry_ms(entry_id: bytes | str) -> int:
    """The millisecond part of an entry id: when the server stored the entry.

    Without building an EntryId (parked entries, the watermark); the worker's reads
    parse each id once instead (`Entry.parsed`). It refuses what `EntryId.parse` refuses.
    """
    text = entry_id.decode() if isinstance(entry_id, bytes) else entry_id
    ms, dash, seq = text.partition("-")
    try:
        if dash:
            int(seq)
        return int(ms)
    except ValueError:
        raise ValueError(f"not a stream entry id: {text!r}") from None


class Entry(NamedTuple):
    """One input stream entry as read (XREADGROUP, or XCLAIM by the reclaimer), undecoded."""

    stream: str
    entry_id: str
    fields: dict[bytes, bytes]
    # 1 on a first delivery; the pending list's delivery count after a reclaim.
    delivery_count: int = 1
    # `entry_id` parsed, by the reader that read it (`entries_of`): the merge orders by
    # it, admission checks the time against it, the latency histogram reads it. None
    # where an entry is built without it; `id()` then parses.
    parsed: EntryId | None = None

    def id(self) -> EntryId:
        return self.parsed if self.parsed is not None else EntryId.parse(self.entry_id)


def entries_of_reply(reply: object) -> dict[str, list[Entry]]:
    """The entries of an XREADGROUP reply as the server sent it, by stream.

    RESP3 sends `{stream: [[id, [field, value, ...]], ...]}`, RESP2 the same as a list
    of `[stream, entries]` pairs; nil when nothing came. Streams that returned no entry
    are left out. Built here rather than by the client's reply parser, which builds a
    dict of each entry's pairs and then a list of tuples that `entries_of` reads again:
    on a backlog this is every entry the worker reads.
    """
    if not reply:
        return {}
    pairs = reply.items() if isinstance(reply, dict) else cast("list[list[Any]]", reply)
    by_stream: dict[str, list[Entry]] = {}
    for stream, read in pairs:
        name = as_text(stream)
        entries: list[Entry] = []
        for entry_id, flat in read:
            text = entry_id.decode() if isinstance(entry_id, bytes) else entry_id
            if len(flat) == 2:  # one field: the gateway writes `__data__` alone
                fields = {flat[0]: flat[1]}
            else:
                values = iter(flat)
                fields = dict(zip(values, values, strict=True))
            entries.append(_new_tuple(Entry, (name, text, fields, 1, _entry_id(text))))
        if entries:
            by_stream[name] = entries
    return by_stream


# Both tuples are built by `tuple.__new__` directly, as a NamedTuple's own `__new__`
# does after a Python-level call: this runs twice for every entry the worker reads
# (docs/performance.md, "Settings that trade memory for speed"). It takes every field, in order,
# with no defaults: a field added to either type fails the test that compares these
# entries with `entries_of`'s (tests/core/test_contracts_streams.py).
_new_tuple: Any = tuple.__new__


def _entry_id(text: str) -> EntryId:
    ms, _, seq = text.partition("-")
    try:
        parsed: EntryId = _new_tuple(EntryId, (int(ms), int(seq)))
    except ValueError:
        return EntryId.parse(text)  # a bare `<ms>`, or its error naming the id
    return parsed


def entries_of(
    stream: bytes | str,
    read: Iterable[tuple[bytes | str, dict[bytes, bytes]]],
    delivery_count: int = 1,
) -> list[Entry]:
    """Entries of one stream from a reply's `[(id, fields), ...]` (XREADGROUP, XRANGE)."""
    name = as_text(stream)
    entries = []
    for entry_id, fields in read:
        text = as_text(entry_id)
        entries.append(Entry(name, text, fields, delivery_count, EntryId.parse(text)))
    return entries
