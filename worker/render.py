"""Human-readable output for the CLI and the demo (rich markup), one function per thing."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime, tzinfo
from typing import Any

from rich.markup import escape as escape_markup
from rich.table import Table

from contracts.explain import Explanation
from contracts.outputs import (
    AgreementEvent,
    ClaimUnverified,
    ClarificationRequested,
    ProposalRefused,
    StateChanged,
    ToolOutcome,
)
from contracts.records import AgreementRecord
from contracts.view import SessionView
from core.recognition.normalize import printable
from worker.zones import shown, zone_name


def escape(text: str) -> str:
    """Stored text for a terminal: rich markup escaped, and every control, bidi and
    invisible character shown as its escape (an ESC sequence in a turn or in terms must
    not clear the screen or forge a hyperlink)."""
    return escape_markup(printable(text))


_STATE_STYLE = {
    "proposed": "yellow",
    "open": "green",
    "fulfilled": "bold green",
    "cancelled": "red",
    "expired": "magenta",
}


def state(name: object) -> str:
    text = str(name) if name is not None else "-"
    return f"[{_STATE_STYLE.get(text, 'white')}]{text}[/]"


def _who(acceptances: Any) -> str:  # noqa: ANN401
    sides = [side for side in ("agent", "user") if getattr(acceptances, side)]
    return "accepted by " + " and ".join(sides) if sides else "no acceptance yet"


def _clock(at: datetime, origin: datetime | None) -> str:
    """An instant as `+H:MM` after the conversation's first turn, or ISO without one."""
    if origin is None:
        return at.isoformat()
    minutes = int((at - origin).total_seconds() // 60)
    return f"+{minutes // 60}:{minutes % 60:02d}"


def _change_line(event: StateChanged, origin: datetime | None) -> str:
    arrow = f"{state(event.from_state)} -> {state(event.to_state)}"
    extra = ""
    if event.to_state.value == "proposed":
        extra = f", {_who(event.acceptances)}"
        if event.deadline_at is not None:
            extra += f", deadline {_clock(event.deadline_at, origin)}"
        if event.binding is not None:
            extra += f", bound to todo {escape(repr(event.binding.content))}"
    elif event.amendment is not None:
        extra = f", amendment {_who(event.amendment.acceptances)}"
    elif event.settled_amendment is not None and event.cause.value.endswith("_accepted"):
        extra = f", terms now {escape(repr(event.terms))}"
    elif event.to_state.value == "open" and not event.cause.value.startswith("amendment"):
        extra = ", both sides accepted"
    return (
        f"[bold]{event.record_id[:12]}[/] rev {event.revision}: {arrow} "
        f"({event.cause.value}{extra})"
    )


def _outcome_line(event: ToolOutcome) -> str:
    if event.accepted:
        rev = event.current_revision
        return f"tool outcome for {event.call_id}: [green]accepted[/] (now rev {rev})"
    return f"tool outcome for {event.call_id}: [red]rejected[/] ({_rejection(event)})"


def _claim_line(event: ClaimUnverified) -> str:
    checked = ", ".join(r[:12] for r in event.checked) or "no open agreement"
    return (
        f"[magenta]claim unverified[/] ({event.kind.value} claim at "
        f"{event.span[0]}-{event.span[1]}; checked: {checked})"
    )


def event_line(event: AgreementEvent, origin: datetime | None = None) -> str:
    """One line per agreement event, without the terms (they are shown with the turn)."""
    if isinstance(event, StateChanged):
        return _change_line(event, origin)
    if isinstance(event, ToolOutcome):
        return _outcome_line(event)
    if isinstance(event, ClarificationRequested):
        names = "; ".join(escape(c.terms) for c in event.candidates)
        return f"[cyan]clarification requested[/] ({event.kind.value}): which one? {names}"
    if isinstance(event, ClaimUnverified):
        return _claim_line(event)
    if isinstance(event, ProposalRefused):  # pragma: no branch  (closed union)
        return f"[red]proposal refused[/]: {event.reason.value}"
    return escape(repr(event))  # pragma: no cover


def _rejection(event: ToolOutcome) -> str:
    """The reason, and the current revision only when the record has one."""
    reason = event.reason.value if event.reason else "rejected"
    if event.current_revision is None:
        return reason
    return f"{reason}, current rev {event.current_revision}"


def event_summary(event: AgreementEvent, where: tzinfo = UTC) -> str:
    """One `accord events` line: time, session, user, record, what changed, the terms.

    Never message text: a line names the inputs by session and seq, not by content.
    """
    session, user = escape(event.session_id), escape(event.user_id)
    who = f"{shown(event.at, where)} session {session} user {user}"
    if isinstance(event, StateChanged):
        arrow = f"{state(event.from_state)} -> {state(event.to_state)}"
        return (
            f"{who} [bold]{event.record_id[:12]}[/] rev {event.revision} {arrow} "
            f"({event.cause.value}): {escape(event.terms)}"
        )
    if isinstance(event, ToolOutcome):
        record = f"[bold]{event.record_id[:12]}[/] " if event.record_id else ""
        call = f"{who} {record}tool call {escape(event.call_id)}"
        if event.accepted:
            return f"{call} [green]accepted[/] (rev {event.current_revision})"
        return f"{call} [red]rejected[/] ({_rejection(event)})"
    if isinstance(event, ClarificationRequested):
        names = "; ".join(f"{c.record_id[:12]} {escape(c.terms)}" for c in event.candidates)
        return f"{who} [cyan]clarification requested[/] ({event.kind.value}): {names}"
    if isinstance(event, ProposalRefused):  # pragma: no branch  (closed union)
        return f"{who} [red]proposal refused[/] ({event.reason.value})"
    return escape(repr(event))  # pragma: no cover


# Record id -> its deadline (None: none), for the current agreements a view lists.
Deadlines = Mapping[str, datetime | None]


def view_table(view: SessionView, where: tzinfo = UTC, deadlines: Deadlines | None = None) -> Table:
    title = f"session {escape(view.session_id)} as of {shown(view.as_of, where)} {zone_name(where)}"
    table = Table(title=title, expand=False)
    table.add_column("kind")
    table.add_column("record")
    table.add_column("status")
    table.add_column("terms", overflow="fold")
    for current in view.current_agreements:
        due = (deadlines or {}).get(current.record_id)
        deadline = f" (deadline {shown(due, where)})" if due else ""
        table.add_row(
            "current agreement",
            current.record_id[:12],
            state("open"),
            escape(current.terms) + deadline,
        )
    for pending in view.pending_proposals:
        status = pending.status.replace("_", " ")
        deadline = f" (deadline {shown(pending.deadline_at, where)})" if pending.deadline_at else ""
        table.add_row(
            "pending proposal",
            f"{pending.record_id[:12]} rev {pending.revision}",
            f"[yellow]{status}[/]",
            escape(pending.terms) + deadline,
        )
    for amendment in view.pending_amendments:
        status = amendment.status.replace("_", " ")
        table.add_row(
            "pending amendment",
            f"{amendment.record_id[:12]} rev {amendment.revision}",
            f"[yellow]{status}[/]",
            f"{escape(amendment.terms)} [dim](now: {escape(amendment.current_terms)})[/]",
        )
    if not view.current_agreements and not view.pending_proposals:
        table.add_row("-", "-", "-", "no current agreements, no pending proposals")
    return table


def history_table(record: AgreementRecord, where: tzinfo = UTC) -> Table:
    """Every revision; times in one zone (named in the header), never cut at 80 columns."""
    title = f"record {record.record_id}: {escape(record.terms)}"
    table = Table(title=title, expand=False)
    table.add_column("rev", no_wrap=True)
    table.add_column("state", no_wrap=True)
    table.add_column("cause", overflow="fold")
    table.add_column(f"at ({zone_name(where)})", no_wrap=True, min_width=19)
    table.add_column("input", overflow="fold")
    for entry in record.history:
        source = entry.provenance.stream or "-"
        if entry.provenance.seq is not None:
            source += f" #{entry.provenance.seq}"
        table.add_row(
            str(entry.revision),
            state(entry.state),
            entry.cause.value,
            shown(entry.at, where),
            source,
        )
    return table


def turn_line(line: dict[str, Any]) -> str:
    """One transcript line as a reader sees it: who said or did what."""
    kind = line.get("type")
    if kind == "chat_turn":
        role = line.get("role", "?")
        color = {"user": "bold blue", "assistant": "bold white", "system": "dim"}.get(role, "white")
        return f"[{color}]{role}[/]: {escape(str(line.get('text', '')))}"
    if kind == "tool_call":
        args = line.get("arguments", {})
        return (
            f"[bold white]agent[/] calls {line.get('name')}"
            f"(record_id={str(args.get('record_id', '?'))[:12]}, "
            f"expected_revision={args.get('expected_revision')})"
        )
    todos = ", ".join(
        f"{escape(item['content'])}: {item['status']}" for item in line.get("todos") or []
    )
    ok = "[green]ok[/]" if line.get("ok") else "[red]failed[/]"
    return f"[dim]tool[/] {line.get('name')} {ok} [{todos}]"


def _keyed(event: AgreementEvent) -> tuple[str, int] | None:
    seq = event.provenance.seq if isinstance(event, StateChanged) else event.seq
    if seq is None:
        return None
    session = event.provenance.session_id if isinstance(event, StateChanged) else None
    return (session or event.session_id, seq)


def timeline(
    lines: list[dict[str, Any]],
    events: list[AgreementEvent],
    label: Callable[[str], str] = str,
) -> list[str]:
    """Each turn, then what it caused; an expiry shows up before the first later turn.

    Events name their input by (session, seq). An expiry has no input: its time is the
    deadline, so it is shown where the conversation crossed it (or at the end, when the
    sweeper materialized it after the last turn).
    """
    caused: dict[tuple[str, int], list[AgreementEvent]] = {}
    expiries: list[StateChanged] = []
    for event in events:
        key = _keyed(event)
        if key is None and isinstance(event, StateChanged):
            expiries.append(event)
        elif key is not None:
            caused.setdefault(key, []).append(event)
    out: list[str] = []
    origin = datetime.fromisoformat(lines[0]["ts"]) if lines else None
    for line in lines:
        ts = line["ts"]
        for expiry in [e for e in expiries if _before(e, ts)]:
            out.append(f"   [magenta]deadline passed[/] {event_line(expiry, origin)}")
            expiries.remove(expiry)
        at = _clock(datetime.fromisoformat(ts), origin)
        who = f"{escape(label(line['session_id']))}#{line['seq']} {at}"
        out.append(f"[dim]{who}[/] {turn_line(line)}")
        effects = caused.get((line["session_id"], line["seq"]), [])
        out.extend(f"   => {event_line(e, origin)}" for e in effects if _keyed(e) is not None)
        if not effects:
            out.append("   [dim]=> no change[/]")
    out.extend(f"   [magenta]deadline passed[/] {event_line(e, origin)}" for e in expiries)
    return out


def _before(expiry: StateChanged, ts: str) -> bool:
    return expiry.at <= datetime.fromisoformat(ts)


def explanation_lines(explanation: Explanation) -> list[str]:
    """`accord explain`: the record, then each revision and the links behind it (R16)."""
    head = (
        f"[bold]record {escape(explanation.record_id)}[/] ({escape(explanation.agent_id)} / "
        f"{escape(explanation.user_id)},"
        f" proposed in {escape(explanation.session_id)}): {state(explanation.state)}, "
        f"revision {explanation.revision}"
    )
    lines = [head, f"  terms: {escape(repr(explanation.terms))}"]
    if explanation.amendment is not None:
        lines.append(f"  pending amendment: {escape(repr(explanation.amendment.terms))}")
    for revision in explanation.revisions:
        lines.append(
            f"[bold]rev {revision.revision}[/] {state(revision.state)} "
            f"{revision.cause.value} at {revision.at.isoformat()}"
        )
        lines.extend(f"  - {escape(link)}" for link in revision.because)
    return lines
