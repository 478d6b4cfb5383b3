"""The `accord` commands against a running worker: replay, view, history, events, dlq.

The commands run in this process (typer's CliRunner, tests/support/cli_kit.py) with
REDIS_URL, against one `accord worker` process on the embedded Redis; `dlq list` runs
as a user runs it (a subprocess).
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
import redis

from contracts.streams import DATA_FIELD, stream_name
from tests.support.cli_kit import Ran, accord_here, accord_process, command_env
from tests.support.paths import ROOT

pytestmark = [pytest.mark.redis, pytest.mark.slow, pytest.mark.timeout(120)]

TRANSCRIPTS = ROOT / "worker" / "transcripts"


def accord(url: str, *args: str) -> Ran:
    """`accord ARGS` with REDIS_URL=`url`, in this process."""
    return accord_here(*args, env=command_env(url))


def json_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_replay_then_view_history_and_events(deployment: str) -> None:
    """replay publishes and waits; view shows the open agreement (R6); history every revision."""
    done = accord(deployment, "replay", str(TRANSCRIPTS / "07-todo-delivery.en.jsonl"), "--json")
    assert done.returncode == 0, done.stderr
    events = json_lines(done.stdout)
    assert [e["type"] for e in events][:2] == ["agreement.state_changed"] * 2
    final = events[-1]
    assert (final["to_state"], final["cause"]) == ("fulfilled", "delivery_verified")
    record = final["record_id"]

    shown = accord(deployment, "history", record, "--json")
    assert shown.returncode == 0, shown.stderr
    history = json.loads(shown.stdout)["history"]
    assert [h["state"] for h in history] == ["proposed", "proposed", "open", "fulfilled"]

    proposal = accord(
        deployment, "replay", str(TRANSCRIPTS / "02-user-accepts-first.zh.jsonl"), "--json"
    )
    opened = json_lines(proposal.stdout)[-2]
    assert opened["to_state"] == "open"
    # As of the transcript's end: rebased, its first turn is now and the rest lie ahead.
    end = json_lines(proposal.stdout)[-1]["at"]
    view = accord(
        deployment, "view", opened["session_id"],
        "--agent", opened["agent_id"], "--user", opened["user_id"], "--as-of", end, "--json",
    )  # fmt: skip
    assert view.returncode == 0, view.stderr
    body = json.loads(view.stdout)
    assert [c["record_id"] for c in body["current_agreements"]] == [opened["record_id"]]
    assert body["pending_proposals"] == []

    listed = accord(deployment, "events", "--last", "3", "--json")
    assert listed.returncode == 0, listed.stderr
    latest = json_lines(proposal.stdout)[-1]["event_id"]
    assert [e["event_id"] for e in json_lines(listed.stdout)][-1] == latest


def test_replay_in_a_terminal_prints_a_timeline(deployment: str) -> None:
    """Human output: each turn and the state change it caused."""
    done = accord(deployment, "replay", str(TRANSCRIPTS / "05-cancel.en.jsonl"))
    assert done.returncode == 0, done.stderr
    assert "user: Cancel this agreement." in done.stdout
    assert "open -> cancelled (user_cancelled)" in done.stdout


def test_dlq_list_and_requeue(deployment: str) -> None:
    """A contract-violating entry is listed with its reason; requeue puts it back once."""
    client = redis.Redis.from_url(deployment)
    bad = {"type": "chat_turn", "agent_id": "a", "user_id": "u", "session_id": "s", "seq": 0}
    client.xadd(stream_name("chat-turn", 0), {DATA_FIELD: json.dumps(bad)})
    deadline = time.monotonic() + 10
    while not client.xlen(stream_name("dead-letters", 0)) and time.monotonic() < deadline:
        time.sleep(0.05)
    client.close()
    listed = json_lines(accord_process("dlq", "list", "--json", env=command_env(deployment)).stdout)
    assert [row["letter"]["reason"] for row in listed] == ["contract_violation"]
    dead_id = listed[0]["id"]
    again = accord(deployment, "dlq", "requeue", dead_id)
    assert again.returncode == 0, again.stderr
    assert "requeued as" in again.stdout
    twice = accord(deployment, "dlq", "requeue", dead_id)
    assert twice.returncode == 1
