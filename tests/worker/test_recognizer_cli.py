"""`accord recognize`: the recognizer's evaluation interface, JSON lines in and out (R1, R9)."""

from __future__ import annotations

import io
import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from typer.testing import CliRunner

from worker.cli import application
from worker.commands import recognize as command

KEYS = ["intent", "terms", "deadline_at", "todo_target", "target_hint"]


def _run(
    lines: Sequence[Mapping[str, object] | str], zone: str = "UTC"
) -> tuple[int, list[dict[str, Any]]]:
    source = io.StringIO(
        "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    )
    out = io.StringIO()
    status = command.run(source, out, ZoneInfo(zone))
    return status, [json.loads(line) for line in out.getvalue().splitlines()]


def test_one_output_line_per_input_line_with_every_key() -> None:
    """Each turn gives one JSON object with all five keys, nulls where they do not apply."""
    status, rows = _run(
        [
            {"text": 'Let\'s agree: mark todo "Read" as completed.', "role": "user"},
            {"text": "我接受「先说结论」这个约定", "role": "user"},
            {"text": "Cancel this agreement.", "role": "user"},
            {"text": "ok", "role": "user"},
        ]
    )
    assert status == 0
    assert [list(row) for row in rows] == [KEYS] * 4
    assert rows == [
        {
            "intent": "proposal",
            "terms": 'mark todo "Read" as completed',
            "deadline_at": None,
            "todo_target": "Read",
            "target_hint": None,
        },
        {
            "intent": "acceptance",
            "terms": None,
            "deadline_at": None,
            "todo_target": None,
            "target_hint": "先说结论",
        },
        {
            "intent": "cancellation",
            "terms": None,
            "deadline_at": None,
            "todo_target": None,
            "target_hint": None,
        },
        {
            "intent": "none",
            "terms": None,
            "deadline_at": None,
            "todo_target": None,
            "target_hint": None,
        },
    ]


def test_blank_lines_are_skipped_not_answered() -> None:
    """Only lines holding a turn get an output line, so outputs pair with turns in order."""
    _, rows = _run(["", {"text": "取消这个约定", "role": "user"}, "   "])
    assert [row["intent"] for row in rows] == ["cancellation"]


def test_assistant_and_system_turns_give_none_r1() -> None:
    """The role is honoured: only user turns are recognized."""
    _, rows = _run(
        [
            {"text": "I accept this agreement.", "role": "assistant"},
            {"text": "我们约定:每天跑步。", "role": "system"},
        ]
    )
    assert [row["intent"] for row in rows] == ["none", "none"]


def test_unreadable_lines_get_an_error_line_in_place_and_exit_status_1() -> None:
    """Bad JSON, an unknown role or time zone: an error line for that input, naming its
    line, and the rest go on."""
    status, rows = _run(
        [
            "{not json",
            {"text": "ok", "role": "robot"},
            {"text": "I accept this agreement.", "role": "user", "timezone": "Mars/Base"},
            {"text": "I accept this agreement.", "role": "user"},
        ]
    )
    assert status == 1
    assert [set(row) for row in rows[:3]] == [{"error", "line"}] * 3
    assert [row["line"] for row in rows[:3]] == [1, 2, 3]
    assert rows[3]["intent"] == "acceptance"


def _fake_deadline(monkeypatch: pytest.MonkeyPatch) -> list[tuple[datetime, ZoneInfo]]:
    seen: list[tuple[datetime, ZoneInfo]] = []

    def resolve(spec: object, ts: datetime, zone: ZoneInfo) -> datetime:
        del spec
        seen.append((ts, zone))
        return datetime(2026, 12, 1, 0, 0, tzinfo=ZoneInfo("Asia/Shanghai"))

    monkeypatch.setattr("core.interpret.resolve_spec", resolve)
    return seen


def test_deadline_is_resolved_from_ts_and_written_in_rfc3339_utc_r9(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With `ts` the deadline is resolved in the turn's zone and printed as UTC ("Z")."""
    seen = _fake_deadline(monkeypatch)
    turn = {
        "text": "Let's agree: send the report by Friday.",
        "role": "user",
        "ts": "2026-11-27T10:00:00+08:00",
        "timezone": "Asia/Shanghai",
    }
    _, rows = _run([turn], zone="Europe/Paris")
    assert rows[0]["deadline_at"] == "2026-11-30T16:00:00Z"
    assert seen == [(datetime(2026, 11, 27, 2, 0, tzinfo=UTC), ZoneInfo("Asia/Shanghai"))]


def test_without_ts_no_deadline_is_resolved_and_no_clock_is_read_r9(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No `ts`: `deadline_at` is null; the tool never substitutes the current time."""
    seen = _fake_deadline(monkeypatch)
    _, rows = _run([{"text": "Let's agree: send the report by Friday.", "role": "user"}])
    assert rows[0]["intent"] == "proposal"
    assert rows[0]["deadline_at"] is None
    assert seen == []


def test_missing_timezone_uses_the_default_timezone_option(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`--default-timezone` applies to turns that carry no `timezone`."""
    seen = _fake_deadline(monkeypatch)
    turn = {"text": "Let's agree: send it by Friday.", "role": "user", "ts": "2026-11-27T10:00:00Z"}
    _run([turn], zone="America/New_York")
    assert [zone for _, zone in seen] == [ZoneInfo("America/New_York")]


def test_the_command_reads_stdin_and_rejects_an_unknown_default_timezone() -> None:
    """Through the real CLI: stdin to stdout, and a bad option is a usage error."""
    app = application()
    runner = CliRunner()
    turn = json.dumps({"text": "取消这个约定", "role": "user"}) + "\n"
    result = runner.invoke(app, ["recognize", "--default-timezone", "Asia/Tokyo"], input=turn)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["intent"] == "cancellation"
    bad = runner.invoke(app, ["recognize", "--default-timezone", "Nowhere/City"], input=turn)
    assert bad.exit_code == 2
