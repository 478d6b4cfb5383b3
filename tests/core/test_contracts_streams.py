"""The entry id and entry types every reader shares (contracts/streams.py).

One parse, one order: the merged reader's cut, the reclaimer's sort, the gateway's
cursor and the retention trim all compare ids through `EntryId` (R15 needs the order
right: an entry handed over out of order is parked, one trimmed too early is lost).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from redis._parsers import helpers

from contracts.streams import (
    MAX_SEQ,
    Entry,
    EntryId,
    as_text,
    entries_of,
    entries_of_reply,
    entry_ms,
)

ids = st.builds(EntryId, st.integers(0, 2**48), st.integers(0, MAX_SEQ))


def test_an_id_parses_from_bytes_or_text_and_prints_back() -> None:
    assert EntryId.parse(b"1700000000000-3") == EntryId(1700000000000, 3)
    assert EntryId.parse("1700000000000-3") == EntryId(1700000000000, 3)
    assert str(EntryId(1700000000000, 3)) == "1700000000000-3"
    assert EntryId.parse("42") == EntryId(42, 0), "a bare millisecond is seq 0, as Redis reads it"
    assert entry_ms(b"1700000000000-3") == 1700000000000


@pytest.mark.parametrize("text", ["", "-", "abc-1", "1-x", "1.5-0", "1-2-3"])
def test_what_is_not_an_id_is_refused_with_the_text_named(text: str) -> None:
    with pytest.raises(ValueError, match="not a stream entry id"):
        EntryId.parse(text)
    with pytest.raises(ValueError, match="not a stream entry id"):
        entry_ms(text)
    with pytest.raises(ValueError, match="not a stream entry id"):
        entry_ms(text.encode())


@given(ids)
def test_entry_ms_is_the_parsed_ids_millisecond(entry_id: EntryId) -> None:
    """entry_ms reads the id without building an EntryId: the same millisecond, from
    text or bytes, with or without the seq part."""
    text = str(entry_id)
    assert entry_ms(text) == entry_ms(text.encode()) == EntryId.parse(text).ms
    assert entry_ms(str(entry_id.ms)) == entry_id.ms


def test_ids_order_numerically_not_as_text_r15() -> None:
    """ "9-0" sorts after "10-0" as text; a stream puts it before."""
    assert EntryId.parse("9-0") < EntryId.parse("10-0")
    assert EntryId.parse("5-9") < EntryId.parse("5-10")
    assert min(["10-0", "9-5"], key=EntryId.parse) == "9-5"


@given(ids, ids)
def test_the_order_is_the_streams_ms_first_then_seq(a: EntryId, b: EntryId) -> None:
    assert (a < b) == ((a.ms, a.seq) < (b.ms, b.seq))
    assert EntryId.parse(str(a)) == a


@given(ids)
def test_successor_and_last_before_ms_bound_an_id(an_id: EntryId) -> None:
    """The successor is the first id after it (XTRIM MINID keeps it); the last id of the
    millisecond before is below every id of its millisecond (XREAD from it sees them)."""
    assert an_id < an_id.successor()
    assert an_id.successor().ms == an_id.ms
    before = an_id.last_before_ms()
    assert before < EntryId(an_id.ms, 0) or an_id.ms == 0
    assert before.seq in {0, MAX_SEQ}


def test_entries_of_a_reply_carry_text_ids_and_the_delivery_count() -> None:
    reply = [(b"1-0", {b"__data__": b"{}"}), (b"2-0", {})]
    assert entries_of(b"chat-turn:{0}", reply) == [
        Entry("chat-turn:{0}", "1-0", {b"__data__": b"{}"}, 1, EntryId(1, 0)),
        Entry("chat-turn:{0}", "2-0", {}, 1, EntryId(2, 0)),
    ]
    assert entries_of("tool-call:{1}", reply[:1], delivery_count=3)[0].delivery_count == 3


def test_an_entry_read_carries_its_id_parsed_once_and_one_built_parses_on_use() -> None:
    read = entries_of("chat-turn:{0}", [(b"1700000000000-3", {})])[0]
    assert read.parsed == EntryId(1700000000000, 3)
    assert read.id() is read.parsed
    built = Entry("chat-turn:{0}", "1700000000001-0", {})
    assert built.parsed is None
    assert built.id() == EntryId(1700000000001, 0)
    with pytest.raises(ValueError, match="not a stream entry id"):
        Entry("chat-turn:{0}", "x-1", {}).id()


fields = st.lists(st.tuples(st.binary(max_size=8), st.binary(max_size=8)), max_size=4)
replies = st.dictionaries(
    st.sampled_from([b"chat-turn:{0}", b"tool-call:{0}", b"tool-result:{0}"]),
    st.lists(st.tuples(ids.map(lambda i: str(i).encode()), fields), max_size=5),
)


# redis-py's own XREADGROUP reply parsers (untyped), the path `entries_of_reply` replaced.
parse_resp3: Any = helpers.parse_xread_resp3_to_resp2_legacy
parse_resp2: Any = helpers.parse_xread


@given(replies)
def test_an_unparsed_reply_gives_the_entries_of_the_parsed_one_r15(
    reply: dict[bytes, list[tuple[bytes, list[tuple[bytes, bytes]]]]],
) -> None:
    """R15 (the merged reader orders by these ids): the reader builds its entries from
    XREADGROUP's reply as the server sent it (RESP3's map, RESP2's list of pairs), and
    they are the entries redis-py's own reply parsers give `entries_of`, the path it
    replaced: same ids parsed, same fields (a repeated field keeps its last value)."""
    sent = {
        stream: [[entry_id, [x for pair in pairs for x in pair]] for entry_id, pairs in read]
        for stream, read in reply.items()
    }
    resp2 = [[stream, read] for stream, read in sent.items()]
    expected = {
        as_text(stream): entries_of(stream, read) for stream, read in parse_resp3(sent) if read
    }
    assert expected == {
        as_text(stream): entries_of(stream, read) for stream, read in parse_resp2(resp2) if read
    }
    assert entries_of_reply(sent) == expected
    assert entries_of_reply(resp2) == expected


def test_an_unparsed_reply_of_nothing_or_a_bad_id_r15() -> None:
    """R15: a read that returned nothing (nil, an empty map or list) gives no entries; a
    bare `<ms>` id is seq 0, as Redis reads it; an id that is not one is refused with the
    id named, as `EntryId.parse` refuses it, never handed over out of order."""
    assert entries_of_reply(None) == {}
    assert entries_of_reply({}) == {}
    assert entries_of_reply([]) == {}
    bare = entries_of_reply({b"chat-turn:{0}": [[b"42", [b"__data__", b"{}"]]]})
    assert bare["chat-turn:{0}"][0].parsed == EntryId(42, 0)
    with pytest.raises(ValueError, match="not a stream entry id: 'x-1'"):
        entries_of_reply({b"chat-turn:{0}": [[b"x-1", [b"__data__", b"{}"]]]})


def test_as_text_reads_reply_items_of_any_client_setting() -> None:
    assert as_text(b"accord") == "accord"
    assert as_text("accord") == "accord"
    assert as_text(7) == "7"
