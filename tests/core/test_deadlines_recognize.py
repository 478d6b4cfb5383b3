"""`accord recognize` fills `deadline_at` end to end with the real resolver (R9).

The command reads JSON-line turns and prints one intent per line; the deadline is
resolved from each turn's `ts` in its `timezone`, else `--default-timezone`, else UTC.
"""

from __future__ import annotations

import json

import typer
from typer.testing import CliRunner

from worker.commands import register

TURNS = (
    # (turn, expected deadline_at)
    (
        {
            "text": "Let's agree: send me the draft by Friday 5pm.",
            "role": "user",
            "ts": "2026-11-25T15:00:00Z",  # Wednesday 10:00 in New York
            "timezone": "America/New_York",
        },
        "2026-11-27T22:00:00Z",
    ),
    (
        {
            "text": "我们约定：下月15号下午6点前交报告",  # noqa: RUF001 - Chinese punctuation
            "role": "user",
            "ts": "2026-11-27T02:00:00Z",
            "timezone": "Asia/Shanghai",
        },
        "2026-12-15T10:00:00Z",
    ),
    (
        # No zone on the turn: --default-timezone applies (Berlin, UTC+1 in November).
        {
            "text": "Let's agree: review the plan by tomorrow.",
            "role": "user",
            "ts": "2026-11-27T09:00:00Z",
        },
        "2026-11-28T23:00:00Z",
    ),
    (
        # A recurring schedule: the proposal stands without a deadline.
        {
            "text": "我们约定：每周五前交周报",  # noqa: RUF001 - Chinese punctuation
            "role": "user",
            "ts": "2026-11-27T02:00:00Z",
        },
        None,
    ),
    (
        # Said after the period is over: no deadline rather than one in the past.
        {
            "text": "Let's agree: you send the notes today before 4pm.",
            "role": "user",
            "ts": "2026-11-27T22:00:00Z",
            "timezone": "America/New_York",
        },
        None,
    ),
)


def _app() -> typer.Typer:
    app = typer.Typer()
    register(app)
    return app


def test_accord_recognize_fills_deadline_at_from_ts_and_zone() -> None:
    """R9: each proposal's deadline_at is the exclusive UTC instant of its deadline wording."""
    stdin = "".join(json.dumps(turn, ensure_ascii=False) + "\n" for turn, _ in TURNS)
    result = CliRunner().invoke(
        _app(), ["recognize", "--default-timezone", "Europe/Berlin"], input=stdin
    )
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.output.splitlines()]
    assert [line["intent"] for line in lines] == ["proposal"] * len(TURNS)
    assert [line["deadline_at"] for line in lines] == [expected for _, expected in TURNS]
