"""`accord records` as an operator runs it: records across partitions from the records
index, newest change first, filtered, paged by cursor, in JSON or a table; bad input
said in one line, exit 2 (docs/cli.md).

The commands run in this process (typer's CliRunner) with REDIS_URL, against one
`accord worker` process on the embedded Redis that applies replayed transcripts.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.support.cli_kit import Ran, accord_here, command_env
from tests.support.paths import ROOT

pytestmark = [pytest.mark.redis, pytest.mark.slow, pytest.mark.timeout(180)]

TRANSCRIPTS = ROOT / "worker" / "transcripts"


def accord(url: str, *args: str) -> Ran:
    return accord_here(*args, env=command_env(url), columns=200)


def replayed(url: str, name: str) -> list[dict[str, Any]]:
    """The state changes the replay of transcript `name` reported, in order."""
    done = accord(url, "replay", str(TRANSCRIPTS / name), "--json")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    return [e for e in events if e["type"] == "agreement.state_changed"]


def listed(url: str, *args: str) -> dict[str, Any]:
    done = accord(url, "records", "--json", *args)
    assert done.returncode == 0, done.stderr
    page: dict[str, Any] = json.loads(done.stdout)
    return page


def ids(page: dict[str, Any]) -> list[str]:
    return [row["record_id"] for row in page["records"]]


@pytest.fixture(scope="module")
def replays(deployment: str) -> dict[str, dict[str, Any]]:
    """Three transcripts applied in order: an open agreement (en), a cancelled one (en),
    a cancelled one (zh); each one's last state change by name."""
    names = ("01-propose-and-accept.en.jsonl", "05-cancel.en.jsonl", "05-cancel.zh.jsonl")
    return {name: replayed(deployment, name)[-1] for name in names}


def test_records_lists_newest_change_first_with_each_records_last_state(
    deployment: str, replays: dict[str, dict[str, Any]]
) -> None:
    """Every record changed, newest change first (the zh cancellation last applied),
    each with the state its record holds and its change time."""
    page = listed(deployment)
    newest_first = [replays[n]["record_id"] for n in reversed(list(replays))]
    assert ids(page)[:3] == newest_first
    assert page["next_cursor"] is None
    changed = [row["changed_ms"] for row in page["records"]]
    assert changed == sorted(changed, reverse=True)
    states = {row["record_id"]: row["record"]["state"] for row in page["records"]}
    assert [states[r] for r in newest_first] == ["cancelled", "cancelled", "open"]


def test_records_filters_by_state_scope_prefix_and_time(
    deployment: str, replays: dict[str, dict[str, Any]]
) -> None:
    """--state, --agent/--user, --prefix and --since/--until each narrow the list to
    exactly the records they name."""
    opened = replays["01-propose-and-accept.en.jsonl"]
    assert ids(listed(deployment, "--state", "open")) == [opened["record_id"]]
    zh = replays["05-cancel.zh.jsonl"]
    by_scope = listed(deployment, "--agent", zh["agent_id"], "--user", zh["user_id"])
    assert zh["record_id"] in ids(by_scope)
    assert all(row["user_id"] == zh["user_id"] for row in by_scope["records"])
    prefix = opened["record_id"][:14]
    assert ids(listed(deployment, "--prefix", prefix)) == [opened["record_id"]]
    assert len(ids(listed(deployment, "--since", "1h"))) >= 3
    assert ids(listed(deployment, "--until", "2000-01-01T00:00:00Z")) == []
    assert ids(listed(deployment, "--state", "fulfilled")) == []


def test_records_pages_by_cursor_and_the_table_names_the_next_one(
    deployment: str, replays: dict[str, dict[str, Any]]
) -> None:
    """--limit 1 pages through every record once, each page's cursor leading to the
    next; the human table shows the record and the cursor to add."""
    everything = ids(listed(deployment))
    seen: list[str] = []
    cursor: list[str] = []
    for _ in range(len(everything) + 1):
        page = listed(deployment, "--limit", "1", *cursor)
        seen += ids(page)
        if page["next_cursor"] is None:
            break
        cursor = ["--cursor", page["next_cursor"]]
    assert seen == everything
    table = accord(deployment, "records", "--limit", "1")
    assert table.returncode == 0, table.stderr
    assert everything[0][:12] in table.stdout
    assert "next page: add --cursor " in table.stdout
    last = replays["05-cancel.zh.jsonl"]
    assert last["agent_id"] in table.stdout


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--since", "yesterday"), "--since: not a time"),
        (("--until", "5 parsecs"), "--until: not a time"),
        (("--cursor", "not-a-cursor"), "--cursor: not a cursor"),
        (("--state", "lost"), "Invalid value for '--state'"),
        (("--limit", "0"), "Invalid value for '--limit'"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    deployment: str, args: tuple[str, ...], said: str
) -> None:
    """A bad time, cursor, state or limit is said in one line on stderr, exit 2."""
    done = accord(deployment, "records", *args)
    assert done.returncode == 2
    assert said in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
