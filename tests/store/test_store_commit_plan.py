"""The commit plan's Structs against what `store/lua/commit.lua` reads (R15).

The plan crosses from Python to Lua as msgpack with short keys; a key one side spells
differently from the other is read as nil in Lua and silently does nothing. These tests
read the script's field accesses and compare them with the Structs' wire names.
"""

from __future__ import annotations

import re
from importlib import resources
from typing import Any

import msgspec

from store.commit_plan import CommitPlan, KeyTable, LetterWrite, SessionWrite, UnitPlan

COMMIT_LUA = resources.files("store").joinpath("lua", "commit.lua").read_text("utf-8")
# The Lua variable each Struct is read through in commit.lua.
READ_AS: dict[type[msgspec.Struct], str] = {CommitPlan: "plan", UnitPlan: "unit", SessionWrite: "s"}


def lua_reads(source: str, variable: str) -> set[str]:
    """The fields the script reads as `variable.<field>` (comments left out)."""
    code = "\n".join(line.split("--", 1)[0] for line in source.splitlines())
    return set(re.findall(rf"\b{variable}\.([a-z_]+)", code))


def wire_names(struct: type[msgspec.Struct]) -> set[str]:
    return {field.encode_name for field in msgspec.structs.fields(struct)}


def mismatch(struct: type[msgspec.Struct], source: str, variable: str) -> tuple[set[str], set[str]]:
    """(keys sent that the script never reads, keys the script reads that are never sent)."""
    sent, read = wire_names(struct), lua_reads(source, variable)
    return sent - read, read - sent


def full_plan() -> CommitPlan:
    """A plan with every field set to a value that is not its default."""
    table = KeyTable()
    session = SessionWrite(
        key=table("session"), version="", next_seq=4, applied_field="a:s",
        core=table.blob(b"core"), skipped="2-3", parked_key=table("parked"), park=[5, 3],
        unpark=[4], gap_member="m", gap_score=1_000, gap_observed=1, idle_member="m",
    )  # fmt: skip
    letter = LetterWrite(table("chat-turn:{0}"), "1-0", table.blob(b"{}"), "undecodable")
    unit = UnitPlan(
        scope_key=table("scope"), scope_version="",
        scope_state=table.blob(b"scope"), sessions=[session], records=[1, 2], final_records=[1, 2],
        deadlines_removed=["old"], deadlines_added=[1_000, "new"], events=[3],
        acks=[1, "1-0"], view_key=table("view"), view_document=4, letters=[letter],
        parked_letters=[5], gaps_skipped=1, seqs_skipped=2, parked_entries=1, parked_bytes=-3,
        trusted=True, record_index=['["a","u","r"]', "open", "proposed"],
        scope_member='["a","u"]', scope_open=True, scope_idle=True,
    )  # fmt: skip
    owner = "worker-1"
    return CommitPlan(
        group="accord", events_key=1, events_maxlen=10, letters_key=2, letters_maxlen=10,
        stats_key=3, gaps_key=4, deadlines_key=5, input_keys=[6], units=[unit],
        letters=[letter], lease_key=7, lease_token=owner, record_ttl_ms=1_000, idle_key=8,
        previous_mark="t.1", new_mark="t.2", records_key=9, state_keys=["open", 10],
        records_ttl_key=11, outbox_key=12, scopes_key=13, scopes_open_key=14, scopes_ttl_key=15,
        plain=[16, 1, 17, 4, "a:s", 0], plain_acks=[6, "2-0"],
    )  # fmt: skip


def test_every_plan_key_is_read_by_commit_lua_and_every_read_key_is_sent() -> None:
    """R15: the Structs' wire names and commit.lua's reads of plan, unit and session agree."""
    for struct, variable in READ_AS.items():
        assert mismatch(struct, COMMIT_LUA, variable) == (set(), set()), struct.__name__


def test_a_fully_set_plan_encodes_exactly_the_keys_commit_lua_reads() -> None:
    """R15: the msgpack that reaches the script has, at each level, the keys it reads."""
    plan: dict[str, Any] = msgspec.msgpack.decode(msgspec.msgpack.encode(full_plan()))
    unit = plan["u"][0]
    assert set(plan) == lua_reads(COMMIT_LUA, "plan")
    assert set(unit) == lua_reads(COMMIT_LUA, "unit")
    assert set(unit["se"][0]) == lua_reads(COMMIT_LUA, "s")


def test_a_planted_wrong_key_is_caught_on_either_side() -> None:
    """A key renamed in the script, or in a Struct, shows up as sent-but-unread and
    read-but-unsent: the check above can fail."""
    planted_lua = COMMIT_LUA.replace("s.af", "s.ag")
    assert mismatch(SessionWrite, planted_lua, "s") == ({"af"}, {"ag"})

    class PlantedSession(msgspec.Struct):
        key: int = msgspec.field(name="key")
        version: str = msgspec.field(name="v")

    unread, unsent = mismatch(PlantedSession, COMMIT_LUA, "s")
    assert "key" in unread
    assert "k" in unsent


def test_only_what_a_unit_does_travels() -> None:
    """Defaults are not sent (nil in Lua): an empty unit is an empty map, and a session
    that is only checked (a duplicate's) carries its key and expected version alone."""
    check_only = SessionWrite(key=3, version="")
    encoded = msgspec.msgpack.decode(msgspec.msgpack.encode(UnitPlan(sessions=[check_only])))
    assert encoded == {"se": [{"k": 3, "v": ""}]}
    assert msgspec.msgpack.decode(msgspec.msgpack.encode(UnitPlan())) == {}


def test_a_letter_travels_as_the_four_items_commit_lua_indexes() -> None:
    """Dead letters are read as d[1]..d[4]: stream index, entry id, letter index, reason."""
    letter = LetterWrite(stream=2, entry_id="5-0", letter=3, reason="oversize")
    assert msgspec.msgpack.decode(msgspec.msgpack.encode(letter)) == [2, "5-0", 3, "oversize"]
    assert "dead_letter(ARGV[d[3]], d[4])" in COMMIT_LUA
    assert "KEYS[d[1]], plan.g, d[2]" in COMMIT_LUA


def test_the_key_table_numbers_keys_once_and_blobs_after_the_plan() -> None:
    """KEYS are 1-based and deduplicated; blobs are ARGV[2..] (ARGV[1] is the plan)."""
    table = KeyTable()
    assert (table("a"), table("b"), table("a")) == (1, 2, 1)
    assert (table.blob(b"x"), table.blob(b"y")) == (2, 3)
    assert table.names == ["a", "b"]


def test_the_key_table_takes_back_what_a_plan_given_up_added() -> None:
    """A plain unit given up half-way (store/units.py `plain`) leaves no KEY or blob:
    names looked up or fresh and blobs after the mark go, earlier ones stay numbered."""
    table = KeyTable()
    table("a"), table.blob(b"x")
    mark = table.mark()
    table("b"), table.fresh("s"), table("a"), table.blob(b"y")
    table.rollback(mark)
    assert (table.names, table.index, table.blobs) == (["a"], {"a": 1}, [b"x"])
    assert (table("b"), table.blob(b"z")) == (2, 3)
