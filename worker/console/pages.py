"""The console's HTML: pure functions from what `data` read to one page each.

Every value that came from Redis or the request goes through `text()`: HTML-escaped,
and control, bidi and invisible characters shown as escapes, so an escape sequence or
a right-to-left override in stored text can neither hide nor reorder what is around
it. No script, no external asset: one inline stylesheet, forms that GET, so the page
works offline and under a strict CSP.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, tzinfo
from urllib.parse import urlencode

from contracts.common import AgreementState
from contracts.outputs import DeadLetter, DeadLetterReason
from contracts.records import AgreementRecord
from core.recognition.normalize import printable
from store.record_index import Listed, RecordPage
from store.scope_index import ListedScope, ScopesPage
from store.status import FleetStatus
from worker.console.data import DeadLetters, ScopePage, letter_scope
from worker.console.filters import REFRESH_CHOICES, ListFilters, RecordFilters, ScopeFilters
from worker.zones import shown, zone_name

ZONES = ("UTC", "Europe/Berlin", "America/New_York", "Asia/Shanghai", "Asia/Tokyo")

_STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1d2430;background:#f6f7f9}
header{background:#1d2430;color:#fff;padding:8px 16px;display:flex;gap:18px;align-items:center}
header a{color:#cfe3ff;text-decoration:none}header b{margin-right:12px}
header form{margin-left:auto}main{padding:12px 16px;max-width:1200px}
table{border-collapse:collapse;margin:6px 0 16px;background:#fff;width:100%}
th,td{border:1px solid #d8dde5;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#eef1f5}code{font-size:12px}.muted{color:#6b7585}
.state{display:inline-block;padding:0 6px;border-radius:8px;font-size:12px;color:#fff}
.proposed{background:#b7791f}.open{background:#2f855a}.fulfilled{background:#22543d}
.cancelled{background:#c53030}.expired{background:#805ad5}.error{color:#c53030}
h2{margin:18px 0 4px;font-size:16px}
"""


def text(value: object) -> str:
    """HTML-escaped, with control, bidi and invisible characters shown as their escapes
    (`\\x1b`, `\\u202e`): the CLI's rule (`printable`), so both show the same text."""
    return html.escape(printable("" if value is None else str(value)), quote=True)


def link(path: str, label: object, **query: str) -> str:
    target = path + ("?" + urlencode(query) if query else "")
    return f'<a href="{html.escape(target, quote=True)}">{text(label)}</a>'


def state_badge(state: object) -> str:
    name = text(getattr(state, "value", state))
    return f'<span class="state {name}">{name}</span>'


def hidden(keep: dict[str, str]) -> str:
    return "".join(
        f'<input type=hidden name="{text(name)}" value="{text(value)}">'
        for name, value in keep.items()
    )


def _refresher(path: str, keep: dict[str, str], tz: str) -> str:
    """The list page's auto-refresh choices: each reloads this very page (filters and
    cursor kept) every N seconds, or stops."""
    now = keep.get("refresh", "")
    base = {name: value for name, value in keep.items() if name != "refresh"} | {"tz": tz}
    choices = [
        f"<b>{text(n)} s</b>" if n == now else link(path, f"{n} s", **base, refresh=n)
        for n in dict.fromkeys((*REFRESH_CHOICES, now) if now else REFRESH_CHOICES)
    ]
    choices.append("<b>off</b>" if not now else link(path, "off", **base))
    return '<p id=refresh class="muted">auto-refresh: ' + " · ".join(choices) + "</p>"


def layout(
    title: str, body: str, tz: str, keep: dict[str, str] | None = None, path: str = ""
) -> str:
    """The page around `body`; the zone form keeps `keep` (the page's own query). A list
    page (`path` given) offers auto-refresh, and refreshes when `keep` asks for it."""
    keep = keep or {}
    kept = hidden(keep)
    refresh = keep.get("refresh", "")
    meta = f'<meta http-equiv=refresh content="{text(refresh)}">' if refresh else ""
    if path:
        body = _refresher(path, keep, tz) + body
    zones = "".join(
        f'<option value="{text(z)}"{" selected" if z == tz else ""}>{text(z)}</option>'
        for z in dict.fromkeys((tz, *ZONES))
    )
    return (
        f"<!doctype html><html lang=en><head><meta charset=utf-8>{meta}"
        f"<title>{text(title)} · accord console</title><style>{_STYLE}</style></head><body>"
        "<header><b>accord console</b>"
        + link("/", "Look up", tz=tz)
        + link("/scopes", "Scopes", tz=tz)
        + link("/records", "Records", tz=tz)
        + link("/partitions", "Partitions", tz=tz)
        + link("/dead-letters", "Dead letters", tz=tz)
        + "<form method=get id=zone>"
        + kept
        + "<label>times in <select name=tz id=tz>"
        + zones
        + "</select></label> <button>show</button></form></header>"
        f"<main><h1>{text(title)}</h1>{body}</main></body></html>"
    )


def _table(head: Sequence[str] | None, rows: Iterable[Sequence[str]], empty: str) -> str:
    """A table of `rows` (cells already HTML); `head` None: a table of facts, whose first
    cell names each row, with no header row."""
    cells = ["<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows]
    if not cells:
        return f'<p class="muted">{text(empty)}</p>'
    if head is None:
        return f"<table class=facts>{''.join(cells)}</table>"
    header = "".join(f"<th>{text(h)}</th>" for h in head)
    return f"<table><tr>{header}</tr>{''.join(cells)}</table>"


def _when(at: datetime | None, where: tzinfo) -> str:
    return "-" if at is None else text(shown(at, where))


def search_form(tz: str, agent: str = "", user: str = "") -> str:
    return (
        '<form method=get action="/scope" id=search>'
        f'<input type=hidden name=tz value="{text(tz)}">'
        f'<label>agent <input name=agent value="{text(agent)}" required></label> '
        f'<label>user <input name=user value="{text(user)}" required></label> '
        "<button>look up the scope</button></form>"
        '<form method=get action="/record"><input type=hidden name=tz '
        f'value="{text(tz)}"><label>record id (or its start) <input name=id></label> '
        "<button>show the record</button></form>"
    )


def home(tz: str) -> str:
    intro = (
        "<p>Look up a user-agent scope: its current agreements, the proposals each "
        "session is waiting on, and the records it closed. Read-only.</p>"
    )
    browse = (
        f"<p>Or {link('/scopes', 'browse every scope', tz=tz)} or "
        f"{link('/records', 'every record', tz=tz)}, newest change first, filtered by "
        "time, agent and user (records also by state and id, scopes by open agreements).</p>"
    )
    return layout("Look up", intro + search_form(tz) + browse, tz)


def _field(filters: ListFilters, name: str, label: str, hint: str = "") -> str:
    value = text(getattr(filters, name))
    return (
        f'<label>{label} <input name={name} id="f-{name}" value="{value}"'
        f' placeholder="{text(hint)}" size=14></label> '
    )


def _filters_form(path: str, filters: ListFilters, tz: str, first: str, last: str) -> str:
    """A list's filter form: `first` (its own fields before the shared ones), the time
    and scope fields, `last` (its own after them); tz and auto-refresh carried along."""
    carried = {"tz": tz} | ({"refresh": filters.refresh} if filters.refresh else {})
    return (
        f'<form method=get action="{path}" id=filters>'
        + hidden(carried)
        + first
        + _field(filters, "since", "changed since", "1h, 2d or an instant")
        + _field(filters, "until", "until", "15m or an instant")
        + _field(filters, "agent", "agent")
        + _field(filters, "user", "user")
        + last
        + "<button>filter</button> "
        + link(path, "clear", tz=tz)
        + "</form>"
    )


def _list_page(  # noqa: PLR0913, PLR0917  (one list page: what, where, and how it was asked)
    path: str,
    title: str,
    form: str,
    table: tuple[Sequence[str], list[list[str]]] | None,
    next_cursor: str | None,
    filters: ListFilters,
    tz: str,
    error: str,
) -> str:
    """A list page: its form, an error line, its rows, and links to the first and next
    page (the filters kept, the cursor of the next page)."""
    parts = [form]
    if error:
        parts.append(f'<p class="error">{text(error)}</p>')
    if table is not None:
        what = title.lower()
        empty = f"no {what} match on this page" if next_cursor else f"no {what} match"
        parts.append(_table(table[0], table[1], empty))
        nav = []
        if filters.cursor:
            nav.append(link(path, "first page", **filters.kept(cursor="", tz=tz)))
        if next_cursor:
            nav.append(link(path, "next page", **filters.kept(cursor=next_cursor, tz=tz)))
        else:
            nav.append(f'<span class="muted">no more {what}</span>')
        parts.append('<p id=paging class="paging">' + " · ".join(nav) + "</p>")
    return layout(title, "".join(parts), tz, filters.kept(), path)


_LISTED_HEAD = ("record", "state", "scope", "p", "last change", "terms", "deadline")


def _listed_row(row: Listed, where: tzinfo, tz: str) -> list[str]:
    found = row.record
    scope_link = link("/scope", f"{row.agent_id} / {row.user_id}",
                      agent=row.agent_id, user=row.user_id, tz=tz)  # fmt: skip
    changed = datetime.fromtimestamp(row.changed_ms / 1000, UTC)
    if found is None:
        state, terms, deadline = '<span class="muted">gone (retained out)</span>', "", "-"
    else:
        state, terms = state_badge(found.state), text(found.terms)
        deadline = _when(found.deadline_at, where)
    return [
        link("/record", row.record_id[:12], id=row.record_id, tz=tz),
        state, scope_link, str(row.partition), _when(changed, where), terms, deadline,
    ]  # fmt: skip


def records(
    found: RecordPage | None, filters: RecordFilters, where: tzinfo, tz: str, error: str = ""
) -> str:
    """One page of records, newest change first, with the filters that chose them and a
    link to the next page (its cursor, the filters kept)."""
    states = "".join(
        f'<option value="{s}"{" selected" if s == filters.state else ""}>{s or "any"}</option>'
        for s in ("", *(state.value for state in AgreementState))
    )
    form = _filters_form(
        "/records", filters, tz,
        f"<label>state <select name=state id=f-state>{states}</select></label> ",
        _field(filters, "prefix", "record id starts with", "agr-"),
    )  # fmt: skip
    table = None
    if found is not None:
        table = (_LISTED_HEAD, [_listed_row(row, where, tz) for row in found.records])
    cursor = None if found is None else found.next_cursor
    return _list_page("/records", "Records", form, table, cursor, filters, tz, error)


_SCOPES_HEAD = ("scope", "p", "last change", "open agreements", "proposals waiting", "records")


def _scope_row(row: ListedScope, where: tzinfo, tz: str) -> list[str]:
    ids = {"agent": row.agent_id, "user": row.user_id}
    changed = datetime.fromtimestamp(row.changed_ms / 1000, UTC)
    view = row.view
    counts = (
        ['<span class="muted">?</span>'] * 2
        if view is None
        else [str(len(view.agreements)), str(len(view.proposals))]
    )
    return [
        link("/scope", f"{row.agent_id} / {row.user_id}", **ids, tz=tz),
        str(row.partition), _when(changed, where), *counts,
        link("/records", "its records", **ids, tz=tz),
    ]  # fmt: skip


def scopes(
    found: ScopesPage | None, filters: ScopeFilters, where: tzinfo, tz: str, error: str = ""
) -> str:
    """One page of scopes, newest change of their records first, with the filters that
    chose them and a link to the next page (its cursor, the filters kept)."""
    checked = " checked" if filters.open else ""
    form = _filters_form(
        "/scopes", filters, tz, "",
        f"<label><input type=checkbox name=open value=1 id=f-open{checked}> "
        "holding an open agreement</label> ",
    )  # fmt: skip
    note = (
        '<p class="muted">Last change: the last commit that changed the scope\'s records '
        "(a proposal, acceptance, amendment, cancellation, expiry or fulfilment), not its "
        "last chat turn.</p>"
    )
    table = None
    if found is not None:
        table = (_SCOPES_HEAD, [_scope_row(row, where, tz) for row in found.scopes])
    cursor = None if found is None else found.next_cursor
    return _list_page("/scopes", "Scopes", note + form, table, cursor, filters, tz, error)


def _record_row(record: AgreementRecord, where: tzinfo, tz: str) -> list[str]:
    sides = [side for side in ("agent", "user") if getattr(record.acceptances, side)]
    return [
        link("/record", record.record_id[:12], id=record.record_id, tz=tz),
        state_badge(record.state),
        str(record.revision),
        text(record.terms),
        text(" and ".join(sides) or "none"),
        _when(record.deadline_at, where),
        _when(record.history[-1].at if record.history else record.created_at, where),
    ]


_RECORD_HEAD = ("record", "state", "rev", "terms", "accepted by", "deadline", "last change")


def scope(page: ScopePage, where: tzinfo, tz: str) -> str:
    title = f"Scope {page.agent_id} / {page.user_id}"
    form = search_form(tz, page.agent_id, page.user_id)
    if not page.known:
        return layout(title, form + '<p class="error">unknown scope: nothing recorded</p>', tz)
    parts = [form, f'<p class="muted">partition {page.partition}</p>']
    parts.append("<h2>Current agreements</h2>")
    rows = [_record_row(r, where, tz) for r in page.current]
    parts.append(_table(_RECORD_HEAD, rows, "no current agreements"))
    parts.append("<h2>Pending proposals, per session</h2>")
    if not page.pending:
        parts.append('<p class="muted">no pending proposals</p>')
    for session, records in page.pending.items():
        parts.append(f"<h3>session <code>{text(session)}</code></h3>")
        parts.append(_table(_RECORD_HEAD, [_record_row(r, where, tz) for r in records], ""))
    if page.overdue:
        parts.append("<h2>Past their deadline, expiry not yet recorded</h2>")
        parts.append(_table(_RECORD_HEAD, [_record_row(r, where, tz) for r in page.overdue], ""))
    parts.append("<h2>Closed records</h2>")
    rows = [_record_row(r, where, tz) for r in page.closed]
    parts.append(_table(_RECORD_HEAD, rows, "no closed records"))
    return layout(title, "".join(parts), tz, {"agent": page.agent_id, "user": page.user_id})


# An expiry has no input entry: its cause is the deadline itself.
_DEADLINE = '<span class="muted">the deadline</span>'


def record(found: AgreementRecord, where: tzinfo, tz: str) -> str:
    scope_link = link("/scope", f"{found.agent_id} / {found.user_id}",
                      agent=found.agent_id, user=found.user_id, tz=tz)  # fmt: skip
    facts = [
        ["record", f"<code>{text(found.record_id)}</code>"],
        ["scope", scope_link],
        ["proposed in session", f"<code>{text(found.session_id)}</code>"],
        ["state", f"{state_badge(found.state)} revision {found.revision}"],
        ["terms", text(found.terms)],
        ["deadline", _when(found.deadline_at, where)],
    ]
    if found.binding is not None:
        facts.append(["bound to todo", text(found.binding.content)])
    rows = []
    for entry in found.history:
        source = entry.provenance
        inputs = [
            f"{name} <code>{text(value)}</code>"
            for name, value in (
                ("stream", source.stream),
                ("entry", source.entry_id),
                ("session", source.session_id),
                ("seq", source.seq),
                ("message", source.message_id),
                ("call", source.call_id),
            )
            if value is not None
        ]
        change = []
        if entry.terms is not None:
            change.append(f"terms: {text(entry.terms)}")
        if entry.amendment is not None:
            change.append(f"amendment: {text(entry.amendment.terms)}")
        explained = [*change, _facts(entry.evidence, where)]
        rows.append([
            str(entry.revision), state_badge(entry.state), text(entry.cause.value),
            _when(entry.at, where), ", ".join(inputs) or _DEADLINE,
            "<br>".join(part for part in explained if part) or '<span class="muted">-</span>',
        ])  # fmt: skip
    head = ("rev", "state", "cause", f"at ({zone_name(where)})", "input", "evidence")
    body = _table(None, facts, "") + "<h2>Timeline</h2>" + _table(head, rows, "")
    return layout(f"Record {found.record_id[:12]}", body, tz, {"id": found.record_id})


def _facts(value: object, where: tzinfo) -> str:
    """A Struct's set fields as `name value` pairs, instants in the page's zone."""
    if value is None:
        return ""
    parts = []
    for name in getattr(value, "__struct_fields__", ()):
        item = getattr(value, name)
        if item is None:
            continue
        if isinstance(item, datetime):
            shown_item = text(shown(item, where))
        elif hasattr(item, "__struct_fields__"):
            shown_item = "(" + _facts(item, where) + ")"
        else:
            shown_item = text(item)
        parts.append(f"{text(name)} {shown_item}")
    return ", ".join(parts)


def record_choice(prefix: str, matches: Sequence[str], tz: str) -> str:
    if not matches:
        return layout("Record", f'<p class="error">unknown record {text(prefix)}</p>', tz)
    items = "".join(f"<li>{link('/record', m, id=m, tz=tz)}</li>" for m in matches)
    return layout(
        "Record", f"<p>{text(prefix)} names {len(matches)} records:</p><ul>{items}</ul>", tz
    )


def partitions(fleet: FleetStatus, tz: str, refresh: str = "") -> str:
    """Per partition: the lease holder, lag, pending, parked gaps, dead letters; then
    each consumer with what it holds (store.status, as `accord status` shows it)."""
    rows = [
        [
            str(row.partition),
            text(row.owner or "no owner"),
            "-" if row.lease_ms_left is None else f"{row.lease_ms_left / 1000:.1f}s",
            "?" if row.lag is None else str(row.lag), str(row.pending), str(row.parked_gaps),
            str(row.dead_letters_total),
        ]
        for row in fleet.partitions
    ]  # fmt: skip
    head = ("p", "owner", "lease left", "lag", "pending", "parked gaps", "dead letters")

    def consumer_rows(*, departed: bool) -> list[list[str]]:
        return [
            [
                text(c.consumer),
                text(", ".join(map(str, c.partitions)) or "-"),
                str(c.pending),
                "not a member (heartbeat only)"
                if c.heartbeat_age_ms is None
                else f"{c.heartbeat_age_ms / 1000:.1f}s ago",
            ][: 3 if departed else 4]
            for c in fleet.consumers
            if c.departed == departed
        ]

    body = (
        _table(head, rows, "no partitions")
        + f"<h2 id=live>Live consumers of group <code>{text(fleet.group)}</code></h2>"
        + _table(
            ("consumer", "partitions", "pending", "last beat"),
            consumer_rows(departed=False),
            "none live",
        )
        + "<h2 id=departed>Departed consumers</h2>"
        + '<p class="muted">No ownership beat and no heartbeat left: stopped or dead. '
        "Listed while they still hold pending entries (the reclaimer takes them over) or a "
        "lease not yet expired, and for a minute after their last beat.</p>"
        + _table(
            ("consumer", "partitions still held", "pending"), consumer_rows(departed=True), "none"
        )
    )
    return layout("Partitions", body, tz, {"refresh": refresh} if refresh else {}, "/partitions")


def dead_letters(  # noqa: PLR0913  (the letters, where and how they are shown)
    found: DeadLetters,
    where: tzinfo,
    tz: str,
    *,
    reason: str = "",
    partition: str = "",
    refresh: str = "",
) -> str:
    """Counts by reason (each a link to its letters), a filter by reason and partition,
    then each letter with its input, linked to its scope where the input names one."""
    kept = {n: v for n, v in (("partition", partition), ("refresh", refresh)) if v}
    summary = _table(
        ("reason", "count"),
        [
            [link("/dead-letters", name, reason=name, tz=tz, **kept), str(n)]
            for name, n in found.by_reason.most_common()
        ],
        "no dead letters",
    )
    reasons = "".join(
        f'<option value="{r.value}"{" selected" if r.value == reason else ""}>{r.value}</option>'
        for r in DeadLetterReason
    )
    form = (
        '<form method=get action="/dead-letters" id=letter-filters>'
        + hidden({"tz": tz} | ({"refresh": refresh} if refresh else {}))
        + f'<label>reason <select name=reason id=f-reason><option value="">any</option>{reasons}'
        "</select></label> "
        f'<label>partition <input name=partition id=f-partition value="{text(partition)}"'
        " size=4></label> <button>filter</button> "
        + link("/dead-letters", "clear", tz=tz)
        + "</form>"
    )
    rows = [_letter_row(p, i, letter, where, tz) for p, i, letter in found.letters]
    head = ("p", "id", "at", "reason", "input", "scope", "tries", "detail")
    detail = _table(head, rows, "no dead letters match")
    keep = {"reason": reason, **kept} if reason else kept
    body = "<h2>By reason</h2>" + summary + "<h2>Letters</h2>" + form + detail
    return layout("Dead letters", body, tz, keep, "/dead-letters")


def _letter_row(
    partition: int, entry_id: str, letter: DeadLetter, where: tzinfo, tz: str
) -> list[str]:
    where_from = f"{letter.stream} {letter.entry_id}"
    if letter.session_id:
        where_from += f" ({letter.session_id}#{letter.seq})"
    scope = letter_scope(letter)
    scope_cell = (
        '<span class="muted">-</span>'
        if scope is None
        else link("/scope", f"{scope[0]} / {scope[1]}", agent=scope[0], user=scope[1], tz=tz)
    )
    return [
        str(partition), f"<code>{text(entry_id)}</code>", _when(letter.at, where),
        text(letter.reason.value), text(where_from), scope_cell, str(letter.delivery_count),
        text(letter.detail),
    ]  # fmt: skip


def problem(title: str, message: str, tz: str) -> str:
    return layout(title, f'<p class="error">{text(message)}</p>', tz)
