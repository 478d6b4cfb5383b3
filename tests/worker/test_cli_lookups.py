"""Looking things up with the CLI as an operator does: short ids, clear misses, one zone.

The commands run in this process (typer's CliRunner, tests/support/cli_kit.py) with
REDIS_URL, against one `accord worker` process on the embedded Redis. One replay, whose
printed `accord view` commands are then run, is a subprocess, as a user runs it.
"""

from __future__ import annotations

import json
import re
import shlex
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
import redis

from tests.support.cli_kit import Ran, accord_here, accord_process, command_env
from tests.support.paths import ROOT

pytestmark = [pytest.mark.redis, pytest.mark.slow, pytest.mark.timeout(180)]

TRANSCRIPTS = ROOT / "worker" / "transcripts"
SHOWN_TIME = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d")


def accord(url: str, *args: str, columns: int = 200, **env: str) -> Ran:
    """`accord ARGS` with REDIS_URL=`url` (and `env`), in this process."""
    return accord_here(*args, env=command_env(url, **env), columns=columns)


def json_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def replayed(url: str, name: str) -> list[dict[str, Any]]:
    done = accord(url, "replay", str(TRANSCRIPTS / name), "--json")
    assert done.returncode == 0, done.stderr
    return json_lines(done.stdout)


def changes(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == "agreement.state_changed"]


def test_history_takes_the_short_id_every_output_shows(deployment: str) -> None:
    """`history agr-d241f48f` (12 characters, as printed) finds the one record it names."""
    record = changes(replayed(deployment, "07-todo-delivery.en.jsonl"))[-1]["record_id"]
    shown = accord(deployment, "history", record[:12], "--json")
    assert shown.returncode == 0, shown.stderr
    body = json.loads(shown.stdout)
    assert body["record_id"] == record
    assert [h["state"] for h in body["history"]] == ["proposed", "proposed", "open", "fulfilled"]


def test_an_ambiguous_short_id_lists_the_matches_and_exits_2(deployment: str) -> None:
    """A prefix naming several records is refused with every match listed, never a guess."""
    first = changes(replayed(deployment, "05-cancel.en.jsonl"))[-1]["record_id"]
    second = changes(replayed(deployment, "05-cancel.zh.jsonl"))[-1]["record_id"]
    shown = accord(deployment, "history", "agr-")
    assert shown.returncode == 2, shown.stdout
    assert first in shown.stderr
    assert second in shown.stderr
    assert "names" in shown.stderr


def test_unknown_record_scope_and_session_say_so_and_exit_1(deployment: str) -> None:
    """A miss is an error naming what is unknown, not an empty answer with exit 0."""
    opened = changes(replayed(deployment, "02-user-accepts-first.en.jsonl"))[-1]
    agent, user = opened["agent_id"], opened["user_id"]

    missing = accord(deployment, "history", "agr-ffffffffffff0000")
    assert (missing.returncode, missing.stdout) == (1, "")
    assert "unknown record" in missing.stderr

    no_session = accord(deployment, "view", "no-such-session", "--agent", agent, "--user", user)
    assert no_session.returncode == 1
    assert "unknown session" in no_session.stderr

    no_scope = accord(deployment, "view", "s1", "--agent", agent, "--user", "nobody-at-all")
    assert no_scope.returncode == 1
    assert "unknown scope" in no_scope.stderr

    known = accord(deployment, "view", opened["session_id"], "--agent", agent, "--user", user)
    assert known.returncode == 0, known.stderr


def test_replay_prints_the_ids_it_used_and_a_view_command_that_runs(deployment: str) -> None:
    """The suffixed ids are printed, with the `accord view` command to run next. It views
    as of the transcript's last turn (rebased, the later turns lie ahead of now), so it
    shows the agreement the transcript opened (R6)."""
    transcript = str(TRANSCRIPTS / "01-propose-and-accept.en.jsonl")
    done = accord_process("replay", transcript, env=command_env(deployment))
    assert done.returncode == 0, done.stderr
    commands = [line.strip() for line in done.stdout.splitlines() if "accord view" in line]
    assert commands, done.stdout
    for command in commands:
        args = shlex.split(command)[2:]  # drop "accord view"
        assert "~" in args[0]  # the per-run suffix the replay added
        assert "--as-of" in args
        shown = accord(deployment, "view", *args, "--json")
        assert shown.returncode == 0, shown.stderr
        body = json.loads(shown.stdout)
        assert body["session_id"] == args[0]
        assert len(body["current_agreements"]) == 1, body


def test_events_lines_name_session_user_record_change_and_terms(deployment: str) -> None:
    """An `events` line says who, which record, what changed and the terms; no message text."""
    events = replayed(deployment, "02-user-accepts-first.en.jsonl")
    opened = changes(events)[-1]
    listed = accord(deployment, "events", "--last", str(len(events)))
    assert listed.returncode == 0, listed.stderr
    line = next(x for x in listed.stdout.splitlines() if "proposed -> open" in x)
    for part in (opened["session_id"], opened["user_id"], opened["record_id"][:12]):
        assert part in line
    assert opened["terms"] in line
    assert "None" not in listed.stdout
    turns = TRANSCRIPTS.joinpath("02-user-accepts-first.en.jsonl").read_text().splitlines()
    for text in (json.loads(t).get("text") for t in turns):
        if text:
            assert text not in listed.stdout


def test_history_shows_one_zone_in_order_and_whole_at_80_columns(deployment: str) -> None:
    """Every time in the zone `--tz` names, complete at 80 columns, in revision order."""
    record = changes(replayed(deployment, "08-late-delivery.en.jsonl"))[-1]["record_id"]
    raw = json.loads(accord(deployment, "history", record, "--json").stdout)["history"]
    for zone, offset in (("UTC", 0), ("Asia/Shanghai", 8)):
        shown = accord(deployment, "history", record, "--tz", zone, columns=80)
        assert shown.returncode == 0, shown.stderr
        assert max(len(line) for line in shown.stdout.splitlines()) <= 80
        assert zone in shown.stdout
        times = SHOWN_TIME.findall(shown.stdout)
        there = timezone(timedelta(hours=offset))
        expected = [
            datetime.fromisoformat(h["at"]).astimezone(there).strftime("%Y-%m-%d %H:%M:%S")
            for h in raw
        ]
        assert times == expected
        assert times == sorted(times)
    assert accord(deployment, "history", record, "--tz", "Mars/Olympus").returncode == 2


def test_view_as_of_takes_rfc3339_with_z_and_with_an_offset(deployment: str) -> None:
    """`--as-of 2026-03-02T10:00:00Z` (as docs/cli.md shows it) and `+08:00` both work."""
    opened = changes(replayed(deployment, "02-user-accepts-first.en.jsonl"))[-1]
    coordinates = [opened["session_id"], "--agent", opened["agent_id"], "--user", opened["user_id"]]
    at = (datetime.fromisoformat(opened["at"]) + timedelta(minutes=1)).astimezone(UTC)
    shanghai = at.astimezone(timezone(timedelta(hours=8)))
    for as_of in (at.strftime("%Y-%m-%dT%H:%M:%SZ"), shanghai.isoformat()):
        shown = accord(deployment, "view", *coordinates, "--as-of", as_of, "--json")
        assert shown.returncode == 0, shown.stderr
        body = json.loads(shown.stdout)
        assert datetime.fromisoformat(body["as_of"]) == at.replace(microsecond=0)
        assert [c["record_id"] for c in body["current_agreements"]] == [opened["record_id"]]
    bad = accord(deployment, "view", *coordinates, "--as-of", "next tuesday")
    assert bad.returncode == 2
    assert "RFC 3339" in bad.stderr


def test_view_as_of_an_earlier_instant_shows_only_what_was_so_then(deployment: str) -> None:
    """R6 as of T: `accord view --as-of T` lists no record proposed after T and no
    agreement opened after T. In the replayed transcript the proposal is made two
    minutes before its opening (the agent accepts last): a minute before the proposal
    nothing shows, 30 s before the opening it is not yet current memory, a minute
    after the opening it is."""
    events = replayed(deployment, "02-user-accepts-first.en.jsonl")
    proposed, opened = changes(events)[0], changes(events)[-1]
    assert (proposed["to_state"], opened["to_state"]) == ("proposed", "open")
    coordinates = [opened["session_id"], "--agent", opened["agent_id"], "--user", opened["user_id"]]
    proposed_at = datetime.fromisoformat(proposed["at"])
    opened_at = datetime.fromisoformat(opened["at"])
    assert proposed_at < opened_at
    for instant, current in (
        (proposed_at - timedelta(minutes=1), []),
        (opened_at - timedelta(seconds=30), []),
        (opened_at + timedelta(minutes=1), [opened["record_id"]]),
    ):
        shown = accord(deployment, "view", *coordinates, "--as-of", instant.isoformat(), "--json")
        assert shown.returncode == 0, shown.stderr
        body = json.loads(shown.stdout)
        assert [c["record_id"] for c in body["current_agreements"]] == current, instant
        assert body["pending_proposals"] == [], instant


def test_view_of_now_shows_the_committed_state_stamped_ahead_of_the_clock(
    deployment: str,
) -> None:
    """R6 at the default instant: `accord view` without --as-of is the committed state.
    A replay rebases the transcript's first turn to now, so the agreement opens minutes
    ahead of this clock, as with a gateway whose clock runs ahead of the reader's; the
    plain view still lists it (an explicit --as-of before its opening does not)."""
    events = replayed(deployment, "02-user-accepts-first.en.jsonl")
    opened = changes(events)[-1]
    assert opened["to_state"] == "open"
    assert datetime.fromisoformat(opened["at"]) > datetime.now(UTC)
    coordinates = [opened["session_id"], "--agent", opened["agent_id"], "--user", opened["user_id"]]
    shown = accord(deployment, "view", *coordinates, "--json")
    assert shown.returncode == 0, shown.stderr
    body = json.loads(shown.stdout)
    assert [c["record_id"] for c in body["current_agreements"]] == [opened["record_id"]]


def test_replay_checks_every_line_first_and_names_the_bad_one(
    deployment: str, tmp_path: Path
) -> None:
    """A line the contract refuses stops the replay before anything is written."""
    lines = TRANSCRIPTS.joinpath("05-cancel.en.jsonl").read_text().splitlines()
    broken = json.loads(lines[1])
    del broken["ts"]
    lines[1] = json.dumps(broken)
    path = tmp_path / "broken.jsonl"
    path.write_text("\n".join(lines) + "\n")
    client = redis.Redis.from_url(deployment)
    before = client.xlen("chat-turn:{0}") + client.xlen("tool-call:{0}")
    done = accord(deployment, "replay", str(path))
    after = client.xlen("chat-turn:{0}") + client.xlen("tool-call:{0}")
    client.close()
    assert done.returncode == 2
    assert f"{path}:2:" in done.stderr
    assert "ts" in done.stderr
    assert "Traceback" not in done.stderr
    assert after == before


def test_replay_waits_for_a_proposal_no_longer_than_timeout(deployment: str) -> None:
    """`--timeout` bounds the wait for a referenced proposal too, not only the last one."""
    done = accord(
        deployment,
        "replay",
        str(TRANSCRIPTS / "01-propose-and-accept.en.jsonl"),
        "--timeout",
        "1",
        ACCORD_GROUP="a-group-no-worker-reads",
    )
    assert done.returncode == 1
    assert "within 1s" in done.stderr


def test_demo_with_an_unknown_scenario_says_so_in_one_line(deployment: str) -> None:
    """`demo -s 99` names the scenarios there are and exits 2, running nothing."""
    done = accord(deployment, "demo", "-s", "99")
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1
    assert "unknown scenario '99'" in done.stderr
    assert "01" in done.stderr
