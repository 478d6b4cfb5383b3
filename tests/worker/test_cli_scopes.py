"""`accord scopes` as an operator runs it: scopes across partitions from the scopes index,
newest change of their records first, filtered by agent, user, time and open agreements,
paged by cursor, in JSON or a table; bad input said in one line, exit 2 (docs/cli.md).

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
# An open agreement, a conversation with no agreement, two cancelled ones: in this order.
NAMES = (
    "01-propose-and-accept.en.jsonl",
    "03-not-an-agreement.en.jsonl",
    "05-cancel.en.jsonl",
    "05-cancel.zh.jsonl",
)


def accord(url: str, *args: str) -> Ran:
    return accord_here(*args, env=command_env(url), columns=200)


def user_of(name: str) -> str:
    first = json.loads((TRANSCRIPTS / name).read_text("utf-8").splitlines()[0])
    return str(first["user_id"])


def listed(url: str, *args: str) -> dict[str, Any]:
    done = accord(url, "scopes", "--json", *args)
    assert done.returncode == 0, done.stderr
    page: dict[str, Any] = json.loads(done.stdout)
    return page


def users(page: dict[str, Any]) -> list[str]:
    """The users of the page's scopes, as the transcripts name them (a replay gives each
    run's ids a suffix of its own, `~…`)."""
    return [row["user_id"].split("~")[0] for row in page["scopes"]]


def real_user(url: str, name: str) -> str:
    """The user id a replay of transcript `name` was applied under."""
    found = [
        row["user_id"]
        for row in listed(url)["scopes"]
        if row["user_id"].split("~")[0] == user_of(name)
    ]
    assert len(found) == 1, found
    return str(found[0])


@pytest.fixture(scope="module")
def replays(deployment: str) -> str:
    for name in NAMES:
        done = accord(deployment, "replay", str(TRANSCRIPTS / name), "--json")
        assert done.returncode == 0, done.stderr
    return deployment


def test_scopes_lists_the_scopes_whose_records_changed_newest_first(replays: str) -> None:
    """Every scope with a record, newest change first (the zh cancellation last), each
    with what its view holds now; a conversation that made no agreement is no scope of
    the list (its turns change no record), and --open keeps the one open agreement."""
    page = listed(replays)
    expected = [user_of(n) for n in reversed(NAMES) if not n.startswith("03")]
    assert users(page) == expected
    assert page["next_cursor"] is None
    changed = [row["changed_ms"] for row in page["scopes"]]
    assert changed == sorted(changed, reverse=True)
    counts = [len(row["view"]["agreements"]) for row in page["scopes"]]
    opened = dict(zip(users(page), counts, strict=True))
    assert opened == {expected[0]: 0, expected[1]: 0, expected[2]: 1}
    assert users(listed(replays, "--open")) == [user_of(NAMES[0])]


def test_scopes_filters_by_agent_user_and_time(replays: str) -> None:
    """--agent, --user (alone or with --agent) and --since/--until each narrow the list
    to exactly the scopes they name."""
    zh = real_user(replays, NAMES[3])
    assert users(listed(replays, "--user", zh)) == [user_of(NAMES[3])]
    agent = listed(replays, "--user", zh)["scopes"][0]["agent_id"]
    assert users(listed(replays, "--agent", agent, "--user", zh)) == [user_of(NAMES[3])]
    assert users(listed(replays, "--agent", "someone-else")) == []
    assert len(users(listed(replays, "--since", "1h"))) == 3
    assert users(listed(replays, "--until", "2000-01-01T00:00:00Z")) == []


def test_scopes_pages_by_cursor_and_the_table_names_the_next_one(replays: str) -> None:
    """--limit 1 pages through every scope once, each page's cursor leading to the next;
    the human table shows the scope and the cursor to add."""
    everything = users(listed(replays))
    seen: list[str] = []
    cursor: list[str] = []
    for _ in range(len(everything) + 1):
        page = listed(replays, "--limit", "1", *cursor)
        seen += users(page)
        if page["next_cursor"] is None:
            break
        cursor = ["--cursor", page["next_cursor"]]
    assert seen == everything
    table = accord(replays, "scopes", "--limit", "1")
    assert table.returncode == 0, table.stderr
    assert everything[0] in table.stdout
    assert "next page: add --cursor " in table.stdout


# Alike accord records' bad-input table on purpose (CONTRIBUTING.md, "Repeated shapes").
@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--since", "yesterday"), "--since: not a time"),
        (("--until", "5 parsecs"), "--until: not a time"),
        (("--cursor", "not-a-cursor"), "--cursor: not a cursor"),
        (("--limit", "0"), "Invalid value for '--limit'"),
        (("--state", "open"), "No such option: --state"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    deployment: str, args: tuple[str, ...], said: str
) -> None:
    """A bad time, cursor or limit, or a filter scopes do not have, is said in one line
    on stderr, exit 2."""
    done = accord(deployment, "scopes", *args)
    assert done.returncode == 2
    assert said in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
