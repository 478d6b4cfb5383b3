"""The evidence chain of one record (R16): what `accord explain` and the clients return.

`explain(record)` reads only the stored `AgreementRecord` (provenance and evidence per
revision) and says in words what each link is. Message text is never stored beyond
the terms (R14), so the chain names grammar rules and character spans, not words.
Pure and here, beside the types, so a client that depends on `contracts` alone can
explain a record it read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import msgspec

from contracts.common import AgreementState, Cause, Ident, Instant, Provenance, Revision
from contracts.records import AgreementRecord, Amendment, Binding, Evidence, HistoryEntry


class ExplainedRevision(msgspec.Struct, frozen=True, kw_only=True):
    """One revision: what caused it (the input, or none for an expiry) and why."""

    revision: Revision
    state: AgreementState
    cause: Cause
    at: Instant
    # The input that caused it: stream, entry id, session, seq, message or call id.
    input: Provenance
    # The causing input's time (None for an expiry, which no input caused).
    input_at: Instant | None
    # The chain in words, one link per line.
    because: tuple[str, ...]
    evidence: Evidence | None = None
    # The terms this revision set (proposal, applied amendment), else None.
    terms: str | None = None
    amendment: Amendment | None = None


class Explanation(msgspec.Struct, frozen=True, kw_only=True):
    """Why a record is what it is, revision by revision (R16)."""

    record_id: Ident
    agent_id: Ident
    user_id: Ident
    session_id: Ident
    state: AgreementState
    revision: Revision
    terms: str
    revisions: tuple[ExplainedRevision, ...]
    deadline_at: Instant | None = None
    binding: Binding | None = None
    amendment: Amendment | None = None


_RESOLVED: Final = {
    "only_candidate": "the only candidate",
    "quoted_hint": "the one candidate matching the quoted hint",
}


# explain() and _revision() copy fields one by one, as the core builds its events: named
# keywords keep every field checked by mypy, where a dict spread of the record would not
# (CONTRIBUTING.md, "Repeated shapes"; the Structs above spell out their fields likewise).
def explain(record: AgreementRecord) -> Explanation:
    """The record's evidence chain; each revision says what caused it and why."""
    revisions = tuple(
        _revision(entry, record.history[index + 1] if index + 1 < len(record.history) else None)
        for index, entry in enumerate(record.history)
    )
    return Explanation(
        record_id=record.record_id,
        agent_id=record.agent_id,
        user_id=record.user_id,
        session_id=record.session_id,
        state=record.state,
        revision=record.revision,
        terms=record.terms,
        revisions=revisions,
        deadline_at=record.deadline_at,
        binding=record.binding,
        amendment=record.amendment,
    )


def _revision(entry: HistoryEntry, following: HistoryEntry | None) -> ExplainedRevision:
    evidence = entry.evidence or Evidence()
    because = (
        _input_line(entry, evidence),
        *_CAUSES[entry.cause](entry, evidence, following),
    )
    return ExplainedRevision(
        revision=entry.revision,
        state=entry.state,
        cause=entry.cause,
        at=entry.at,
        input=entry.provenance,
        input_at=evidence.input_at,
        because=because,
        evidence=entry.evidence,
        terms=entry.terms,
        amendment=entry.amendment,
    )


def _input_line(entry: HistoryEntry, evidence: Evidence) -> str:
    source = entry.provenance
    if source.stream is None:
        return f"no input: a deadline passed (session {source.session_id})"
    named = ""
    if source.message_id is not None:
        named = f", message {source.message_id}"
    elif source.call_id is not None:
        named = f", call {source.call_id}"
    when = evidence.input_at.isoformat() if evidence.input_at is not None else "?"
    return (
        f"input {source.stream} {source.entry_id}: session {source.session_id} "
        f"seq {source.seq}{named}, at {when}"
    )


def _phrase(evidence: Evidence, what: str) -> str:
    span = f"characters {evidence.span[0]}-{evidence.span[1]}" if evidence.span else "?"
    return f"{what} phrase, rule {evidence.rule or '?'}, at {span} of the message"


def _target(evidence: Evidence) -> str:
    line = f"target: {_RESOLVED.get(evidence.resolution or '', '?')}"
    if evidence.hint_span is not None:
        line += f" (hint at characters {evidence.hint_span[0]}-{evidence.hint_span[1]})"
    return line


def _deadline(evidence: Evidence) -> tuple[str, ...]:
    read = evidence.deadline
    if read is None:
        return ("no deadline in the terms",)
    resolved = read.resolved.isoformat() if read.resolved is not None else "no instant"
    convention = read.convention or "outside the grammar: no deadline, never a guess"
    return (f"deadline {read.written!r} -> {convention} in {read.timezone} -> {resolved}",)


def _terms(entry: HistoryEntry) -> tuple[str, ...]:
    lines = [f"terms: {entry.terms!r}"]
    if entry.binding is not None:
        lines.append(
            f"bound to todo {entry.binding.content!r} (origin_seq {entry.binding.origin_seq}) "
            f"of session {entry.binding.session_id}"
        )
    return tuple(lines)


def _agent(evidence: Evidence) -> tuple[str, ...]:
    arguments = evidence.arguments
    if arguments is None:
        return ("soul_agreement_accept (arguments not recorded)",)
    call = (
        f"soul_agreement_accept(record_id={arguments.record_id}, "
        f"expected_revision={arguments.expected_revision}): named revision "
        f"{arguments.expected_revision}"
    )
    return (call,)


def _proposed(entry: HistoryEntry, evidence: Evidence, _: HistoryEntry | None) -> tuple[str, ...]:
    return (_phrase(evidence, "proposal"), *_terms(entry), *_deadline(evidence))


def _agent_accepted(
    _entry: HistoryEntry, evidence: Evidence, _: HistoryEntry | None
) -> tuple[str, ...]:
    return _agent(evidence)


# What a cause says: (its history entry, its evidence, the next entry) -> lines.
_Lines = Callable[[HistoryEntry, Evidence, HistoryEntry | None], tuple[str, ...]]


def _user_act(what: str) -> _Lines:
    def lines(_entry: HistoryEntry, evidence: Evidence, _: HistoryEntry | None) -> tuple[str, ...]:
        return (_phrase(evidence, what), _target(evidence))

    return lines


def _expired(entry: HistoryEntry, evidence: Evidence, _: HistoryEntry | None) -> tuple[str, ...]:
    by = {"input": "an input of the session", "watermark": "the sweeper's watermark"}
    seen = by.get(evidence.passed or "", "?")
    when = evidence.passed_at.isoformat() if evidence.passed_at is not None else "?"
    return (f"deadline {entry.at.isoformat()} passed; seen by {seen} at {when}",)


def _delivered(entry: HistoryEntry, evidence: Evidence, _: HistoryEntry | None) -> tuple[str, ...]:
    moved = (
        f"the bound todo item (origin_seq {evidence.origin_seq}) moved to completed in the "
        f"successful todo_write snapshot at seq {evidence.snapshot_seq} of session "
        f"{entry.provenance.session_id}"
    )
    return (moved,)


def _amendment_proposed(
    entry: HistoryEntry, evidence: Evidence, _: HistoryEntry | None
) -> tuple[str, ...]:
    lines = [_phrase(evidence, "amendment"), _target(evidence)]
    if entry.amendment is not None:
        lines.append(f"new terms, pending both acceptances: {entry.amendment.terms!r}")
    return (*lines, *_deadline(evidence))


def _applied(entry: HistoryEntry) -> tuple[str, ...]:
    if entry.terms is None:
        return ()
    return ("both sides accepted the amendment: the terms are replaced", *_terms(entry))


def _amendment_agent(
    entry: HistoryEntry, evidence: Evidence, _: HistoryEntry | None
) -> tuple[str, ...]:
    return (*_agent(evidence), *_applied(entry))


def _amendment_user(
    entry: HistoryEntry, evidence: Evidence, following: HistoryEntry | None
) -> tuple[str, ...]:
    return (*_user_act("confirmation")(entry, evidence, following), *_applied(entry))


def _lapsed(_entry: HistoryEntry, _e: Evidence, following: HistoryEntry | None) -> tuple[str, ...]:
    closing = following.cause.value if following is not None else "?"
    return (f"the agreement closed ({closing}) while the amendment was pending",)


_CAUSES: Final[dict[Cause, _Lines]] = {
    Cause.PROPOSED: _proposed,
    Cause.AGENT_ACCEPTED: _agent_accepted,
    Cause.USER_ACCEPTED: _user_act("confirmation"),
    Cause.USER_CANCELLED: _user_act("cancellation"),
    Cause.DEADLINE_REACHED: _expired,
    Cause.DELIVERY_VERIFIED: _delivered,
    Cause.AMENDMENT_PROPOSED: _amendment_proposed,
    Cause.AMENDMENT_AGENT_ACCEPTED: _amendment_agent,
    Cause.AMENDMENT_USER_ACCEPTED: _amendment_user,
    Cause.AMENDMENT_CANCELLED: _user_act("withdrawal"),
    Cause.AMENDMENT_LAPSED: _lapsed,
}
