"""Sensitive information disclosure (OWASP LLM02): chat text and credentials stay out of
logs, dead letters and printed settings (docs/security.md).

- Dead letters keep a turn's text only with ACCORD_DEAD_LETTER_KEEP_TEXT on. Off (the
  default) every value but the envelope's ids, seq, time and kinds is replaced by its
  size, wherever the producer put it: a renamed field, a bare JSON string, flat entry
  fields, tool arguments, todo contents, a document that is not JSON at all.
- INFO logs carry ids, states and reasons, never text or terms, whatever the input.
- The Redis password in REDIS_URL never appears in a printed Settings, `accord check`
  output or a command's traceback.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest
import redis.asyncio
import structlog

from contracts.common import AgreementState, Cause, Provenance
from contracts.outputs import (
    Candidate,
    ClarificationKind,
    ClarificationRequested,
    DeadLetter,
    DeadLetterReason,
    OutputEvent,
    ProposalRefused,
    RefusalReason,
    StateChanged,
    ToolOutcome,
)
from contracts.records import TodoBinding
from contracts.streams import DATA_FIELD, stream_name
from contracts.tools import RejectionReason
from store import keys
from store.dead_letters import RequeueError, list_dead_letters, requeue
from store.processor import PartitionProcessor
from tests.support.security_kit import BASE, envelope
from tests.support.worker_kit import process_new
from worker.app import core_for
from worker.observability import log_events
from worker.settings import Settings, redacted_url

SECRET = "swordfish-7"  # noqa: S105  (a marker to search for, not a credential)


def turn(session: str, text: str, **more: Any) -> dict[str, Any]:
    return {
        "type": "chat_turn",
        **envelope(session),
        "role": "user",
        "text": text,
        "message_id": f"m-{session}",
        **more,
    }


def data(document: Any) -> dict[str, str]:
    return {DATA_FIELD: json.dumps(document)}


# (stream family, entry fields, why it is a dead letter): the secret in every place a
# producer could put chat text.
HOSTILE: dict[str, tuple[str, dict[str, str]]] = {
    "oversize_text": ("chat-turn", data(turn("a", f"Let's agree: {SECRET}. " + "x" * 300))),
    "renamed_text_field": (
        "chat-turn",
        data({k: v for k, v in turn("b", "").items() if k != "text"} | {"content": SECRET}),
    ),
    "unknown_extra_field": ("chat-turn", data(turn("c", "hello", note=SECRET))),
    "bare_json_string": ("chat-turn", data(f"Let's agree: {SECRET}")),
    "json_list": ("chat-turn", data([f"Let's agree: {SECRET}"])),
    "not_json": ("chat-turn", {DATA_FIELD: "{Let's agree: " + SECRET}),
    "deeply_nested": ("chat-turn", {DATA_FIELD: "[" * 100_000 + json.dumps(SECRET)}),
    "flat_fields": ("chat-turn", {"role": "user", "text": SECRET}),
    "oversize_arguments": (
        "tool-call",
        data(
            {
                "type": "tool_call",
                **envelope("e"),
                "call_id": "c-e",
                # The accept tool: its arguments are read, so over the limit they are
                # refused (another tool's oversize arguments are dropped, not refused).
                "name": "soul_agreement_accept",
                "arguments": {"query": SECRET, "pad": "x" * 300},
            }
        ),
    ),
    "too_many_todos": (
        "tool-result",
        data(
            {
                "type": "tool_result",
                **envelope("f"),
                "call_id": "c-f",
                "name": "todo_write",
                "ok": True,
                "todos": [{"content": f"{SECRET} {i}", "status": "pending"} for i in range(5)],
            }
        ),
    ),
    "long_ident": ("chat-turn", data(turn("g", "hi") | {"message_id": SECRET * 40})),
}
SMALL_LIMITS = {
    "ACCORD_MAX_TEXT_BYTES": "200",
    "ACCORD_MAX_ARGUMENT_BYTES": "200",
    "ACCORD_MAX_TODOS": "3",
}


async def dead_letter_of(
    client: redis.asyncio.Redis, settings: Settings, family: str, fields: dict[str, str]
) -> tuple[str, DeadLetter, bytes]:
    """XADD one entry, process it with the configured store: its dead letter, raw too."""
    await client.xadd(stream_name(family, 0), fields)  # type: ignore[arg-type]
    processor = PartitionProcessor(client, 0, core_for(settings), settings.store)
    await process_new(client, processor, "secrets")
    [(letter_id, letter)] = await list_dead_letters(client, 0)
    raw: Any = await client.xrange(keys.dead_letters_stream(0))
    return letter_id, letter, b"".join(v for _, entry in raw for v in entry.values())


@pytest.mark.redis
@pytest.mark.asyncio
@pytest.mark.parametrize("case", sorted(HOSTILE))
async def test_dead_letters_keep_no_text_by_default_wherever_it_was_put(
    client: redis.asyncio.Redis, case: str
) -> None:
    """ACCORD_DEAD_LETTER_KEEP_TEXT unset: the secret appears nowhere in the stored
    letter (not in its fields, not in `detail`), the envelope's seq is kept where there
    was one, and the letter cannot be requeued (its text is gone)."""
    family, fields = HOSTILE[case]
    settings = Settings.from_env(SMALL_LIMITS)
    assert settings.store.dead_letter_keep_text is False
    letter_id, letter, raw = await dead_letter_of(client, settings, family, fields)
    assert SECRET.encode() not in raw
    assert "redacted>" in json.dumps(letter.fields)
    document = letter.fields.get(DATA_FIELD, "")
    if case in {"oversize_text", "unknown_extra_field", "oversize_arguments"}:
        assert json.loads(document)["seq"] == 1, "the envelope is kept for the operator"
    with pytest.raises(RequeueError):
        await requeue(client, 0, letter_id)


@pytest.mark.redis
@pytest.mark.asyncio
async def test_dead_letters_keep_the_text_when_configured_and_can_be_requeued(
    client: redis.asyncio.Redis,
) -> None:
    """ACCORD_DEAD_LETTER_KEEP_TEXT=1: the letter holds the original fields verbatim, so
    an operator can fix the cause and requeue it to its stream."""
    family, fields = HOSTILE["oversize_text"]
    settings = Settings.from_env({**SMALL_LIMITS, "ACCORD_DEAD_LETTER_KEEP_TEXT": "1"})
    letter_id, letter, raw = await dead_letter_of(client, settings, family, fields)
    assert letter.reason == DeadLetterReason.OVERSIZE
    assert SECRET.encode() in raw
    assert letter.fields == fields
    assert await requeue(client, 0, letter_id) is not None


def test_settings_repr_never_shows_the_redis_password() -> None:
    """A Settings printed in a log or a traceback shows REDIS_URL with `***` for the
    password, in the userinfo or in redis-py's `?password=` query argument."""
    for url in (
        "rediss://accord:pa55-word@redis.internal:6380/0?ssl_ca_certs=/etc/ca.pem",
        "redis://redis.internal:6379/0?password=pa55-word",
        "redis://:pa55-word@redis.internal",
    ):
        settings = Settings.from_env({"REDIS_URL": url})
        assert settings.redis_url == url, "the real URL is still what connects"
        assert "pa55-word" not in repr(settings)
        assert "pa55-word" not in str(settings)
        assert "redis.internal" in repr(settings)
    assert redacted_url("redis://h:6379/0") == "redis://h:6379/0"


def accord(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", "from worker.cli import main; main()", *args]
    return subprocess.run(  # noqa: S603  (our own CLI, fixed arguments)
        command, env=env, capture_output=True, text=True, timeout=60, check=False
    )


def test_cli_errors_never_print_the_redis_password() -> None:
    """`accord check` and `accord view` against an unreachable Redis say why in one line
    without the password, and the app's tracebacks (for real bugs) show no locals, so
    the Settings and URL held in its frames never reach the terminal."""
    from worker.cli import app  # noqa: PLC0415  (the CLI module is imported for its app)

    assert app.pretty_exceptions_show_locals is False
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("ACCORD_")},
        "REDIS_URL": "redis://accord:pa55-word@127.0.0.1:1/0",
    }
    check = accord("check", env=env)
    assert check.returncode == 1
    assert "cannot reach Redis at redis://accord:***@127.0.0.1:1/0" in check.stderr
    view = accord("view", "s1", "--agent", "a", "--user", "u", env=env)
    assert view.returncode == 2
    assert "cannot reach Redis at redis://accord:***@127.0.0.1:1/0" in view.stderr
    for result in (check, view):
        assert "pa55-word" not in result.stdout + result.stderr


def test_info_logs_of_every_event_kind_carry_no_text_terms_or_todo_content() -> None:
    """`log_events` writes one line per published event (state change, tool outcome,
    clarification, refusal, dead letter) with ids, states and reasons: the terms, the
    candidates' terms, a binding's todo content, a letter's fields and detail all hold
    the secret here, and none of it reaches a log line."""
    at = BASE
    provenance = Provenance(session_id="s1", seq=3, message_id="m-3")
    binding = TodoBinding(session_id="s1", content=f"todo {SECRET}", origin_seq=1)
    events: list[OutputEvent] = [
        StateChanged(
            event_id="agr-1@1", record_id="agr-1", agent_id="a", user_id="u", session_id="s1",
            revision=1, from_state=None, to_state=AgreementState.PROPOSED,
            cause=Cause.PROPOSED, terms=f"terms {SECRET}", at=at, provenance=provenance,
            binding=binding,
        ),
        ToolOutcome(
            event_id="s1#4:tool_outcome", agent_id="a", user_id="u", session_id="s1", seq=4,
            call_id="c-4", accepted=False, at=at, record_id="agr-1",
            reason=RejectionReason.STALE_REVISION, current_revision=1,
        ),
        ClarificationRequested(
            event_id="s1#5:clarification", agent_id="a", user_id="u", session_id="s1", seq=5,
            kind=ClarificationKind.CANCELLATION, at=at,
            candidates=(Candidate(record_id="agr-1", revision=1, terms=SECRET,
                                  state=AgreementState.PROPOSED),),
        ),
        ProposalRefused(
            event_id="s1#6:proposal_refused", agent_id="a", user_id="u", session_id="s1",
            seq=6, reason=RefusalReason.TERMS_TOO_LONG, at=at, limit=10,
        ),
        DeadLetter(
            event_id="dlq:chat-turn:{0}:1-0", stream="chat-turn:{0}", entry_id="1-0",
            reason=DeadLetterReason.OVERSIZE, detail=f"$.text: {SECRET}", delivery_count=1,
            at=at, fields={DATA_FIELD: json.dumps({"text": SECRET})}, session_id="s1", seq=7,
        ),
    ]  # fmt: skip
    with structlog.testing.capture_logs() as lines:
        log_events(structlog.get_logger("accord.worker"), events)
    assert [line["event"] for line in lines] == [
        "state_changed",
        "tool_outcome",
        "clarification_requested",
        "proposal_refused",
        "dead_letter",
    ]
    assert all(line["session_id"] == "s1" for line in lines)
    assert SECRET not in repr(lines)
