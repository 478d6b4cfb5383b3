"""The pure parts of the replicated chaos run: which proxied connection is a replication
link (only those lag), and what a subscriber read that a failover took back or gave a
second content (docs/reliability.md, "Replicated Redis")."""

from __future__ import annotations

from typing import Any

import pytest
from accord_harness.chaos.check import compare_records, taken_back
from accord_harness.chaos.proxy import DECIDE_WITHIN, command_names, is_replication_link


def resp(*words: bytes) -> bytes:
    return b"*%d\r\n" % len(words) + b"".join(b"$%d\r\n%s\r\n" % (len(w), w) for w in words)


@pytest.mark.parametrize(
    ("prefix", "expected"),
    [
        # A replica's handshake: PING alone (it waits for PONG), then REPLCONF, PSYNC.
        (resp(b"PING"), None),
        (resp(b"PING") + resp(b"REPLCONF", b"listening-port", b"6380"), True),
        (resp(b"AUTH", b"pw") + resp(b"PING") + resp(b"PSYNC", b"?", b"-1"), True),
        (resp(b"sync"), True),
        # Clients: whatever comes first that is not PING or AUTH decides it.
        (resp(b"HELLO", b"3"), False),
        (resp(b"PING") + resp(b"INFO", b"replication"), False),
        (resp(b"CLIENT", b"SETNAME", b"chaos"), False),
        # A value that spells a replication command is data, not a command.
        (resp(b"XADD", b"chat-turn:{0}", b"*", b"__data__", b"SYNC"), False),
        (resp(b"SET", b"k", b"REPLCONF"), False),
        # Inline commands (redis-cli, telnet) are read by their first word.
        (b"PING\r\n", None),
        (b"PING\r\nREPLCONF capa eof\r\n", True),
        (b"get k\r\n", False),
        # Not RESP at all: nobody's replication link.
        (b"*x\r\n", False),
        # Undecided while a command is still arriving, decided once it has.
        (resp(b"REPLCONF", b"capa", b"psync2")[:9], None),
        (b"", None),
        (resp(b"PING") * (DECIDE_WITHIN // 14 + 1), False),
    ],
)
def test_a_connection_is_a_replication_link_only_by_its_commands(
    prefix: bytes,
    expected: bool | None,  # noqa: FBT001  (a parametrized case)
) -> None:
    """Only a replica's own link to its primary is delayed: it is told by the command
    names it sends (REPLCONF, PSYNC, SYNC), never by data that spells them."""
    assert is_replication_link(prefix) is expected


def test_command_names_reads_complete_commands_and_says_when_one_is_cut() -> None:
    """Commands split across reads are named once complete; the rest waits for more."""
    whole = resp(b"PING") + resp(b"REPLCONF", b"capa", b"eof")
    assert command_names(whole) == ([b"PING", b"REPLCONF"], False)
    assert command_names(whole[:-3]) == ([b"PING"], True)


def event(event_id: str, to_state: str, entry_id: str = "1-0") -> dict[str, Any]:
    return {
        "event_id": event_id,
        "type": "agreement.transitioned",
        "from_state": "proposed",
        "to_state": to_state,
        "cause": "test",
        "revision": 3,
        "provenance": {"stream": "chat-turn:{0}", "entry_id": entry_id, "seq": 3,
                       "session_id": "s"},
    }  # fmt: skip


def test_an_event_read_and_gone_is_taken_back_and_a_reused_id_has_two_contents() -> None:
    """A failover that loses a commit takes back what a subscriber read, unless the same
    event is published again; an id published again for another outcome names two
    contents (read twice, or read once and held otherwise at the end)."""
    seen = [
        ("agr-1@1", event("agr-1@1", "proposed")),
        ("agr-1@2", event("agr-1@2", "open")),  # gone at the end
        ("agr-2@3", event("agr-2@3", "open")),  # held at the end as "expired"
        ("agr-3@1", event("agr-3@1", "proposed")),  # read twice, two outcomes
        ("agr-3@1", event("agr-3@1", "cancelled")),
        ("agr-4@1", event("agr-4@1", "proposed", entry_id="1-0")),
    ]
    final = [
        ("agr-1@1", event("agr-1@1", "proposed")),
        ("agr-2@3", event("agr-2@3", "expired")),
        ("agr-3@1", event("agr-3@1", "cancelled")),
        # Redone from another copy of the same input: another entry id, the same event.
        ("agr-4@1", event("agr-4@1", "proposed", entry_id="2-0")),
        ("agr-5@1", event("agr-5@1", "proposed")),  # never read: nothing to take back
    ]
    result = taken_back(seen, final)
    assert result.seen == 5
    assert result.taken_back == ["agr-1@2"]
    assert result.two_contents == ["agr-2@3", "agr-3@1"]
    assert result.contents["agr-2@3"] == [
        "transitioned proposed->open (test) r3",
        "transitioned proposed->expired (test) r3",
    ]


def test_nothing_taken_back_when_the_streams_hold_what_was_read() -> None:
    """The fault-free case: every event read is held, with the content read."""
    seen = [("a@1", event("a@1", "proposed")), ("a@1", event("a@1", "proposed"))]
    result = taken_back(seen, seen)
    assert (result.seen, result.taken_back, result.two_contents) == (1, [], [])


def test_records_are_counted_lost_changed_and_extra_against_the_reference() -> None:
    """Record by record: missing from the run, different, or only in the run."""
    expected = {"r1": {"state": "open"}, "r2": {"state": "open"}, "r3": {"state": "proposed"}}
    actual = {"r1": {"state": "open"}, "r2": {"state": "expired"}, "r4": {"state": "open"}}
    assert compare_records(expected, actual) == {
        "expected": 3, "lost": 1, "changed": 1, "extra": 1
    }  # fmt: skip
