"""`accord recognize`: the recognizer's stable evaluation interface, JSON lines in and out.

In:  {"text": str, "role": "user"|"assistant"|"system",
      "ts": RFC 3339 | null, "timezone": IANA | null}
Out: {"intent": "proposal"|"acceptance"|"cancellation"|"none", "terms", "deadline_at",
      "todo_target", "target_hint"}, one line per input line, in order.

Without `ts` the deadline is not resolved (`deadline_at` is null): the tool never reads
the clock behind the caller's back. A line that cannot be read gets
`{"error": ..., "line": N}` (N counted from 1 on stdin) in its place and the exit status
is 1; bytes that are not UTF-8 make an error of their line only.
"""

from __future__ import annotations

import io
import sys
from datetime import UTC, datetime
from typing import Annotated, TextIO
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import msgspec
import typer

from contracts.common import Instant, Role
from core.intents import Acceptance, Cancellation, Intent, Proposal
from core.interpret import with_deadline
from core.recognition.recognizer import recognize


class RecognizeInput(msgspec.Struct, frozen=True):
    text: str
    role: Role
    ts: Instant | None = None
    timezone: str | None = None


class RecognizeOutput(msgspec.Struct, frozen=True):
    intent: str
    terms: str | None = None
    deadline_at: str | None = None
    todo_target: str | None = None
    target_hint: str | None = None


_decoder = msgspec.json.Decoder(RecognizeInput)
_encoder = msgspec.json.Encoder()


def rfc3339_utc(instant: datetime) -> str:
    return instant.astimezone(UTC).isoformat().replace("+00:00", "Z")


def to_output(intent: Intent) -> RecognizeOutput:
    match intent:
        case Proposal():
            deadline = None if intent.deadline_at is None else rfc3339_utc(intent.deadline_at)
            return RecognizeOutput(
                intent="proposal",
                terms=intent.terms,
                deadline_at=deadline,
                todo_target=intent.todo_target,
            )
        case Acceptance():
            return RecognizeOutput(intent="acceptance", target_hint=intent.target_hint)
        case Cancellation():
            return RecognizeOutput(intent="cancellation", target_hint=intent.target_hint)
        case _:
            return RecognizeOutput(intent="none")


def recognize_line(line: str, default_zone: ZoneInfo) -> bytes:
    """One output line (without newline) for one input line; raises on bad input."""
    turn = _decoder.decode(line)
    zone = ZoneInfo(turn.timezone) if turn.timezone else default_zone
    intent = recognize(turn.text, turn.role)
    if turn.ts is not None:
        intent = with_deadline(intent, turn.ts, zone)
    return _encoder.encode(to_output(intent))


def run(lines: TextIO, out: TextIO, default_zone: ZoneInfo) -> int:
    """Recognize every non-blank line; the exit status (1 if any line was unreadable)."""
    status = 0
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            encoded = recognize_line(line, default_zone)
        except (msgspec.DecodeError, ZoneInfoNotFoundError, ValueError) as error:
            # ValueError covers UnicodeEncodeError: stdin's undecodable bytes are kept as
            # surrogates (see register), which no JSON decoder takes.
            encoded = _encoder.encode({"error": str(error), "line": number})
            status = 1
        out.write(encoded.decode())
        out.write("\n")
    out.flush()
    return status


def _zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as error:
        raise typer.BadParameter(f"unknown time zone {name!r}") from error


def register(app: typer.Typer) -> None:
    @app.command("recognize")
    def recognize_command(
        default_timezone: Annotated[
            str, typer.Option(help="IANA zone for turns that carry no `timezone`.")
        ] = "UTC",
    ) -> None:
        """Read JSON-line turns on stdin, write one recognized intent per line."""
        zone = _zone(default_timezone)
        lines = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="surrogateescape")
        raise typer.Exit(run(lines, sys.stdout, zone))
