# ruff: noqa: RUF001 - Chinese turns are written with their own punctuation
"""Evidence per revision and the explanation built from it (R16), in the pure core.

The end-to-end check, every record of the demo through the real streams, is in
tests/e2e/test_explain_e2e.py.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import msgspec
import pytest

from contracts.common import AgreementState, Cause, Provenance
from contracts.explain import explain
from contracts.outputs import OutputEvent, StateChanged
from contracts.records import (
    AgreementRecord,
    Amendment,
    DeadlineEvidence,
    Evidence,
    HistoryEntry,
    TodoBinding,
)
from contracts.tools import AcceptArguments
from contracts.view import session_view_as_of
from core.intents import Proposal
from core.interpret import with_deadline
from core.lifecycle.reducer import evolve
from core.lifecycle.state import decode_scope, encode_scope
from core.lifecycle.view import scope_view_document, session_view
from tests.support.lifecycle_kit import T0, Conversation, created

NOTES = "Organize reading notes"


def _record(talk: Conversation, record_id: str) -> AgreementRecord:
    """The record as the store keeps it: every published change folded (closed ones too)."""
    folded: AgreementRecord | None = None
    for change in talk.changes_of(record_id):
        folded = evolve(folded, change)
    assert folded is not None
    return folded


def _bound_agreement(talk: Conversation, confirmation: str = "I accept this agreement.") -> str:
    """An agreement bound to the pending todo NOTES: proposed, accepted, then confirmed."""
    talk.tool_result([(NOTES, "pending")])
    record_id = created(talk.say(f'Let\'s agree: mark todo "{NOTES}" as completed.'))
    talk.agent_accepts(record_id)
    talk.say(confirmation)
    return record_id


def _open_record(
    entry: HistoryEntry, *, binding: TodoBinding | None = None, amendment: Amendment | None = None
) -> AgreementRecord:
    """An open record at revision 1 whose one history entry is `entry`."""
    return AgreementRecord(
        record_id="r",
        agent_id="a",
        user_id="u",
        session_id="s",
        state=AgreementState.OPEN,
        revision=1,
        terms="t",
        created_at=entry.at,
        binding=binding,
        history=(entry,),
        amendment=amendment,
    )


def _proposal_evidence(
    talk: Conversation, text: str, timezone: str
) -> tuple[StateChanged, Evidence]:
    """The change a proposal turn published and its evidence (both must be there)."""
    talk.say(text, timezone=timezone)
    change = talk.published[-1]
    assert isinstance(change, StateChanged)
    assert change.evidence is not None
    return change, change.evidence


def test_a_proposal_records_rule_span_and_the_deadline_reading_r16() -> None:
    """R16: the rule id, the phrase's span in the message, the deadline as written, the
    zone, the convention and the instant; no message text beyond the terms (R14)."""
    talk = Conversation()
    text = "OK, let's agree: send the summary within 30 minutes."
    change, evidence = _proposal_evidence(talk, text, "Europe/London")
    assert evidence.rule == "en.proposal"
    assert evidence.span is not None
    assert (
        text[evidence.span[0] : evidence.span[1]]
        == "let's agree: send the summary within 30 minutes"
    )
    assert evidence.input_at == talk.now
    assert evidence.deadline == DeadlineEvidence(
        written="within 30 minutes",
        timezone="Europe/London",
        convention="ts + 30 minute(s), exclusive",
        resolved=talk.now + timedelta(minutes=30),
    )
    assert change.deadline_at == evidence.deadline.resolved


def test_a_chinese_proposal_and_a_day_deadline_r16() -> None:
    """R16 in Chinese: span in code points of the original text; "周五前" is the end of
    Friday in the user's zone."""
    talk = Conversation()
    text = "好的，我们约定：周五前把报告发给我。"
    _, evidence = _proposal_evidence(talk, text, "Asia/Shanghai")
    assert evidence.rule == "zh.proposal"
    assert evidence.span is not None
    assert text[evidence.span[0] : evidence.span[1]] == "我们约定：周五前把报告发给我"
    assert evidence.deadline is not None
    assert evidence.deadline.written == "周五前"
    assert evidence.deadline.convention == "end of the named day, exclusive"
    assert evidence.deadline.resolved == datetime(2026, 3, 6, 16, 0, tzinfo=UTC)


def test_acceptances_record_the_tool_arguments_and_the_target_resolution_r16() -> None:
    """R16: the agent's arguments with the revision it named; the user's confirmation
    phrase, its span, and whether the target was the only candidate or the quoted one."""
    talk = Conversation()
    first = created(talk.say("Let's agree: start with the conclusion."))
    second = created(talk.say("Let's agree: always offer green tea first."))
    talk.agent_accepts(first, 1)
    agent = talk.changes_of(first)[-1].evidence
    assert agent is not None
    assert agent.arguments == AcceptArguments(record_id=first, expected_revision=1)
    text = 'I accept this agreement "green tea".'
    talk.say(text)
    user = talk.changes_of(second)[-1].evidence
    assert user is not None
    assert (user.rule, user.resolution) == ("en.acceptance", "quoted_hint")
    assert user.span is not None
    assert user.hint_span is not None
    assert text[user.hint_span[0] : user.hint_span[1]] == "green tea"
    talk.say("我接受这个约定。")
    only = talk.changes_of(first)[-1].evidence
    assert only is not None
    assert (only.rule, only.resolution, only.hint_span) == ("zh.acceptance", "only_candidate", None)


def test_expiry_records_what_passed_the_deadline_r16() -> None:
    """R16: an expiry names the deadline (its history time) and what passed it: an input
    of the session at its time, or the sweeper's watermark."""
    talk = Conversation()
    by_input = created(talk.say("Let's agree: send the summary within 30 minutes."))
    by_sweep = created(talk.say("Let's agree: call me within 30 minutes.", session="s2"))
    talk.advance(minutes=40)
    talk.say("hello")
    expiry = talk.changes_of(by_input)[-1]
    assert expiry.cause == Cause.DEADLINE_REACHED
    assert expiry.evidence == Evidence(passed="input", passed_at=talk.now)
    talk.advance(minutes=5)
    talk.sweep()
    swept = talk.changes_of(by_sweep)[-1]
    assert swept.evidence == Evidence(passed="watermark", passed_at=talk.now)


def test_delivery_records_the_item_and_the_snapshot_r16() -> None:
    """R16: fulfilment names the bound todo's origin_seq and the snapshot seq."""
    talk = Conversation()
    record_id = _bound_agreement(talk)
    talk.tool_result([(NOTES, "completed")])
    delivered = talk.changes_of(record_id)[-1]
    assert delivered.evidence is not None
    assert (delivered.evidence.origin_seq, delivered.evidence.snapshot_seq) == (1, 5)


def test_explain_gives_one_revision_per_history_entry_with_its_links_r16() -> None:
    """R16: `explain` walks the stored history: each revision with its input and the
    lines of its chain (rule and span, terms, deadline, arguments, resolution, todo)."""
    talk = Conversation()
    record_id = _bound_agreement(talk)
    talk.say("Let's change our agreement: always offer green tea first.")
    talk.agent_accepts(record_id, 4)
    talk.say("I accept this agreement.")
    record = talk.record(record_id)
    assert record is not None
    explanation = explain(record)
    assert [r.revision for r in explanation.revisions] == list(range(1, record.revision + 1))
    assert [r.cause for r in explanation.revisions] == [e.cause for e in record.history]
    assert [r.input for r in explanation.revisions] == [e.provenance for e in record.history]
    proposal, agent, user, amended, amendment_agent, applied = explanation.revisions
    assert proposal.because[0] == (
        f"input ChatTurn 2-0: session s1 seq 2, message m-s1-2, at {talk.now.isoformat()}"
    )
    assert agent.because[0].startswith("input ToolCall 3-0: session s1 seq 3, call call-s1-3")
    assert _record(talk, record_id) == record
    assert "rule en.proposal" in proposal.because[1]
    assert f"bound to todo {NOTES!r} (origin_seq 1) of session s1" in proposal.because
    assert "no deadline in the terms" in proposal.because
    assert "named revision 1" in agent.because[1]
    assert "the only candidate" in user.because[2]
    assert "rule en.amendment" in amended.because[1]
    assert "new terms, pending both acceptances: 'always offer green tea first'" in amended.because
    assert "named revision 4" in amendment_agent.because[1]
    assert "both sides accepted the amendment: the terms are replaced" in applied.because
    assert applied.terms == "always offer green tea first"
    assert explanation.terms == "always offer green tea first"
    assert explanation.binding is None


def test_explain_says_what_expired_and_what_lapsed_r16_r17() -> None:
    """R16: an expiry has no input; its line names the deadline and what passed it; a
    lapse names the closing that caused it."""
    talk = Conversation()
    record_id = created(talk.say("Let's agree: send the summary within 30 minutes."))
    talk.agent_accepts(record_id)
    talk.say("I accept this agreement.")
    talk.say("Let's change our agreement: send the full draft within 2 hours.")
    talk.advance(minutes=31)
    talk.sweep()
    explanation = explain(_record(talk, record_id))
    *_, lapse, expiry = explanation.revisions
    assert (
        lapse.because[1]
        == "the agreement closed (deadline_reached) while the amendment was pending"
    )
    assert expiry.input_at is None
    assert expiry.because[0] == "no input: a deadline passed (session s1)"
    assert expiry.because[1].endswith(f"seen by the sweeper's watermark at {talk.now.isoformat()}")
    deadline = next(line for line in explanation.revisions[0].because if "deadline" in line)
    assert "'within 30 minutes' -> ts + 30 minute(s), exclusive in UTC" in deadline


def test_explain_reads_records_stored_before_evidence_existed_r16() -> None:
    """Schema evolution: a record stored before R16 (no evidence, no amendment fields)
    still decodes and explains, with '?' where a link was not recorded."""
    at = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    old = {
        "record_id": "agr-old",
        "agent_id": "a",
        "user_id": "u",
        "session_id": "s",
        "state": "cancelled",
        "revision": 4,
        "terms": "t",
        "created_at": at.isoformat(),
        "acceptances": {"agent": True, "user": True},
        "history": [
            {"revision": 1, "state": "proposed", "cause": "proposed", "at": at.isoformat(),
             "provenance": {"stream": "chat-turn:{0}", "entry_id": "1-0", "session_id": "s",
                            "seq": 1, "message_id": "m1"}},
            {"revision": 2, "state": "proposed", "cause": "agent_accepted", "at": at.isoformat(),
             "provenance": {"stream": "tool-call:{0}", "entry_id": "2-0", "session_id": "s",
                            "seq": 2, "call_id": "c2"}},
            {"revision": 3, "state": "open", "cause": "user_accepted", "at": at.isoformat(),
             "provenance": {"session_id": "s", "seq": 3, "stream": "chat-turn:{0}",
                            "entry_id": "3-0", "message_id": "m3"}},
            {"revision": 4, "state": "cancelled", "cause": "amendment_lapsed",
             "at": at.isoformat(), "provenance": {"session_id": "s"}},
        ],
    }  # fmt: skip
    record = msgspec.json.decode(msgspec.json.encode(old), type=AgreementRecord)
    assert record.amendment is None
    assert record.history[0].evidence is None
    lines = [line for r in explain(record).revisions for line in r.because]
    assert "input chat-turn:{0} 1-0: session s seq 1, message m1, at ?" in lines
    assert "proposal phrase, rule ?, at ? of the message" in lines
    assert "soul_agreement_accept (arguments not recorded)" in lines
    assert "target: ?" in lines
    assert "the agreement closed (?) while the amendment was pending" in lines


def test_older_events_and_stored_scope_states_still_decode() -> None:
    """Schema evolution (docs/contracts.md): a state_changed event and a stored scope
    state written before amendments and evidence decode with the new fields' defaults."""
    old_event = (
        b'{"type":"agreement.state_changed","event_id":"r@1","record_id":"r","agent_id":"a",'
        b'"user_id":"u","session_id":"s","revision":1,"from_state":null,"to_state":"proposed",'
        b'"cause":"proposed","terms":"t","at":"2026-03-02T09:00:00Z","provenance":{},'
        b'"deadline_at":null,"acceptances":{"agent":false,"user":false},"binding":null}'
    )
    event = msgspec.json.decode(old_event, type=OutputEvent)
    assert isinstance(event, StateChanged)
    assert (event.amendment, event.settled_amendment, event.evidence) == (None, None, None)
    # A scope state as the previous release encoded it: records without `amendment`,
    # history entries with the five original fields only.
    old_scope = msgspec.msgpack.encode(
        {
            "agent_id": "a",
            "user_id": "u",
            "records": [
                {
                    "record_id": "r",
                    "agent_id": "a",
                    "user_id": "u",
                    "session_id": "s",
                    "state": "open",
                    "revision": 3,
                    "terms": "t",
                    "created_at": "2026-03-02T09:00:00Z",
                    "acceptances": {"agent": True, "user": True},
                    "history": [
                        {
                            "revision": 1,
                            "state": "proposed",
                            "cause": "proposed",
                            "at": "2026-03-02T09:00:00Z",
                            "provenance": {},
                        }
                    ],
                }
            ],
            "closed": [],
        }
    )
    scope = decode_scope(old_scope)
    assert scope.records[0].amendment is None
    assert decode_scope(encode_scope(scope)) == scope
    view = session_view(scope, "s", datetime(2026, 3, 2, 10, 0, tzinfo=UTC))
    assert [c.terms for c in view.current_agreements] == ["t"]
    assert view.pending_amendments == ()


def test_explain_names_a_binding_and_an_unresolved_deadline_r16() -> None:
    """R16: a deadline phrase outside the grammar is said so (no instant, never a guess);
    a pending amendment is named on the record."""
    at = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    binding = TodoBinding(session_id="s", content=NOTES, origin_seq=1)
    pending = Amendment(revision=2, session_id="s", terms="new", proposed_at=at)
    entry = HistoryEntry(
        revision=1,
        state=AgreementState.PROPOSED,
        cause=Cause.PROPOSED,
        at=at,
        provenance=Provenance(stream="chat-turn:{0}", entry_id="1-0", session_id="s", seq=1),
        terms="t",
        binding=binding,
        evidence=Evidence(
            input_at=at,
            rule="en.proposal",
            span=(0, 10),
            deadline=DeadlineEvidence(written="someday", timezone="UTC"),
        ),
    )
    record = _open_record(entry, binding=binding, amendment=pending)
    explanation = explain(record)
    (revision,) = explanation.revisions
    assert (
        "deadline 'someday' -> outside the grammar: no deadline, never a guess in UTC -> no instant"
        in revision.because
    )
    assert revision.because[0] == f"input chat-turn:{{0}} 1-0: session s seq 1, at {at.isoformat()}"
    assert explanation.amendment == pending


@pytest.mark.parametrize(
    ("phrase", "convention"),
    [
        ("within 2 hours", "ts + 2 hour(s), exclusive"),
        ("within 3 days", "end of the local day on which ts + 3 day(s) falls, exclusive"),
        ("by the end of the month", "end of the named period, exclusive"),
        ("by 8pm", "the clock time 20:00 at its next occurrence, exclusive"),
        ("by Friday 3pm", "the clock time 15:00 on the named day, exclusive"),
        ("before Friday", "start of the named day, exclusive"),
        ("明晚8点前", "the clock time 20:00 on the named day, exclusive"),
        ("从现在到八点", "the clock time 08:00 or 20:00, whichever comes next, exclusive"),
        ("十三分半以内", "ts + 810 second(s), exclusive"),
        ("by 7:56:30pm", "the clock time 19:56:30 at its next occurrence, exclusive"),
        (
            "between now and eight o'clock",
            "the clock time 08:00 or 20:00, whichever comes next, exclusive",
        ),
        ("within 15 seconds", "ts + 15 second(s), exclusive"),
    ],
)
def test_the_deadline_convention_is_named_r16(phrase: str, convention: str) -> None:
    """R16: each DESIGN section 4 convention, as the explanation words it."""
    intent = with_deadline(Proposal(terms="x", deadline_phrase=phrase), T0, ZoneInfo("UTC"))
    assert isinstance(intent, Proposal)
    assert intent.deadline is not None
    assert intent.deadline.convention == convention
    assert intent.deadline.resolved == intent.deadline_at is not None


def test_a_phrase_outside_the_grammar_has_no_convention_r16() -> None:
    """R16: an unreadable phrase is recorded as written, with no convention and no instant."""
    intent = with_deadline(Proposal(terms="x", deadline_phrase="someday"), T0, ZoneInfo("UTC"))
    assert isinstance(intent, Proposal)
    assert intent.deadline == DeadlineEvidence(written="someday", timezone="UTC")


def test_explain_a_hinted_confirmation_and_a_fulfilled_record_r16() -> None:
    """R16: the hint's span is named; fulfilment names the item's run and the snapshot."""
    talk = Conversation()
    record_id = _bound_agreement(talk, 'I accept this agreement "reading notes".')
    talk.tool_result([(NOTES, "completed")])
    revisions = explain(_record(talk, record_id)).revisions
    assert revisions[2].because[2] == (
        "target: the one candidate matching the quoted hint (hint at characters 25-38)"
    )
    assert revisions[3].because[1] == (
        "the bound todo item (origin_seq 1) moved to completed in the successful "
        "todo_write snapshot at seq 5 of session s1"
    )


def test_an_amendment_revision_stored_without_its_amendment_still_explains_r16() -> None:
    """Evolution: an amendment revision whose entry lacks the amendment explains the rest."""
    at = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    entry = HistoryEntry(
        revision=1,
        state=AgreementState.OPEN,
        cause=Cause.AMENDMENT_PROPOSED,
        at=at,
        provenance=Provenance(session_id="s"),
    )
    record = _open_record(entry)
    (revision,) = explain(record).revisions
    assert revision.because[1:] == (
        "amendment phrase, rule ?, at ? of the message",
        "target: ?",
        "no deadline in the terms",
    )


def test_the_view_document_carries_pending_amendments_r6_r17() -> None:
    """R6, R17 in the stored view: read at an instant, the document shows the agreement
    as current to every session, its pending amendment to the amending session only,
    and neither once the agreement's deadline has passed (R9)."""
    talk = Conversation()
    record_id = created(talk.say("Let's agree: send the summary within 30 minutes."))
    talk.agent_accepts(record_id)
    talk.say("I accept this agreement.")
    talk.say("Let's change our agreement: send the full draft within 2 hours.", session="s2")
    document = scope_view_document(talk.scope)
    assert [a.session_id for a in document.amendments] == ["s2"]
    s1, s2 = (session_view_as_of(document, s, talk.now) for s in ("s1", "s2"))
    assert [a.record_id for a in s1.current_agreements] == [record_id], "terms stay current"
    assert [a.record_id for a in s2.current_agreements] == [record_id]
    assert s1.pending_amendments == (), "only the amending session sees the amendment"
    assert [(a.record_id, a.revision) for a in s2.pending_amendments] == [(record_id, 4)]
    later = talk.now + timedelta(minutes=31)  # past the agreement's 30-minute deadline
    for session in ("s1", "s2"):
        gone = session_view_as_of(document, session, later)
        assert (gone.current_agreements, gone.pending_amendments) == ((), ())
