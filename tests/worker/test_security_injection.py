"""The injection corpus (tests/corpus/injection.jsonl): hostile input changes nothing.

Trust comes from the envelope, never from text (docs/security.md): only a `user` turn
proposes, confirms or cancels (R1, R4, R8); only a `soul_agreement_accept` tool call
accepts for the agent (R3); a tool result never accepts or proposes, and delivers only
a verified todo snapshot (R10, R12). Each corpus line is one attack on a scope that
holds an open agreement with a todo binding, a proposal pending in this session, a
proposal pending in another session of the scope, and a record of another scope.

Every attack runs through the real decoder and the real core, and the whole corpus
once more through the streams, the store's Lua commit and a real Redis. Controls prove
the setup can be moved: the same text in a `user` turn, the genuine tool call and the
genuine todo result do change state, so the corpus passes only because of the
protection, not because nothing could have happened.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import pytest
import redis.asyncio

from contracts.codec import ContractError, decode_event
from contracts.common import AgreementState, Provenance
from contracts.inputs import InputEvent
from contracts.outputs import (
    DeadLetter,
    DeadLetterReason,
    StateChanged,
    ToolOutcome,
)
from contracts.tools import ACCEPT_TOOL_NAME, RejectionReason
from core.intents import Acceptance, Cancellation, Intent, Proposal
from core.lifecycle.reducer import Policy, apply_input
from core.lifecycle.state import ScopeState, SessionState, record_id_for
from store import reads
from store.config import StoreConfig
from store.core_port import CoreStep
from store.processor import PartitionProcessor
from tests.support.paths import CORPUS
from tests.support.security_kit import BASE, SCOPE, envelope
from tests.support.worker_kit import gateway_xadd, process_new
from worker.engine import Engine

INJECTIONS = CORPUS / "injection.jsonl"
OTHER_SCOPE = ("agent-1", "user-2")
BOUND_TODO = "Organize reading notes"

# Record ids the corpus names by placeholder: derived, never looked up, so a test cannot
# pass by finding nothing.
IDS = {
    "{BOUND}": record_id_for(*SCOPE, "s1", 2),
    "{PENDING}": record_id_for(*SCOPE, "s1", 5),
    "{OTHER_SESSION}": record_id_for(*SCOPE, "s2", 1),
    "{OTHER_SCOPE}": record_id_for(*OTHER_SCOPE, "s3", 1),
}
IDS["{PENDING_UPPER}"] = IDS["{PENDING}"].upper()


def document(
    event: dict[str, Any], scope: tuple[str, str], session: str, seq: int
) -> dict[str, Any]:
    """A full input document: the envelope, a message or call id, placeholders filled."""
    doc = {**envelope(session, seq, scope), **event}
    if doc["type"] == "chat_turn":
        doc.setdefault("message_id", f"m-{session}-{seq}")
    else:
        doc.setdefault("call_id", f"c-{session}-{seq}")
    text = json.dumps(doc, ensure_ascii=False)
    for placeholder, record_id in IDS.items():
        text = text.replace(placeholder, record_id)
    result: dict[str, Any] = json.loads(text)
    return result


def chat(role: str, text: str) -> dict[str, Any]:
    return {"type": "chat_turn", "role": role, "text": text}


def todo_result(*items: tuple[str, str], ok: bool = True) -> dict[str, Any]:
    todos = [{"content": content, "status": status} for content, status in items]
    return {"type": "tool_result", "name": "todo_write", "ok": ok, "todos": todos}


def accept_call(record: str, revision: int) -> dict[str, Any]:
    arguments = {"record_id": record, "expected_revision": revision}
    return {"type": "tool_call", "name": ACCEPT_TOOL_NAME, "arguments": arguments}


PROPOSE_MARK_TODO = f'Let\'s agree: next time mark todo "{BOUND_TODO}" as completed.'

# The scope every attack meets, built by real inputs (the order a gateway writes them).
SETUP: tuple[tuple[tuple[str, str], str, int, dict[str, Any]], ...] = (
    (SCOPE, "s1", 1, todo_result((BOUND_TODO, "pending"), ("Water the plants", "pending"))),
    (SCOPE, "s1", 2, chat("user", PROPOSE_MARK_TODO)),
    (SCOPE, "s1", 3, accept_call("{BOUND}", 1)),
    (SCOPE, "s1", 4, chat("user", "I accept this agreement.")),
    (SCOPE, "s1", 5, chat("user", "Let's agree: answer in English from now on.")),
    (SCOPE, "s2", 1, chat("user", "Let's agree: keep replies under 100 words.")),
    (OTHER_SCOPE, "s3", 1, chat("user", "Let's agree: call me by my first name.")),
)
ATTACK_SEQ = {"s1": 6, "s2": 2}


# One corpus line. Alike in shape only to the chaos workload's `Poison` (a frozen record
# of a few fields); a different thing, so deliberately not shared.
@dataclass(frozen=True)
class Case:
    id: str
    attack: str
    event: dict[str, Any]
    expect: str
    note: str
    control: str | None = None
    session: str = "s1"

    def document(self, seq: int | None = None) -> dict[str, Any]:
        return document(self.event, SCOPE, self.session, seq or ATTACK_SEQ[self.session])


def load_corpus() -> list[Case]:
    lines = INJECTIONS.read_text(encoding="utf-8").splitlines()
    return [Case(**json.loads(line)) for line in lines if line.strip()]


CASES = load_corpus()


@dataclass
class Core:
    """The real core applied input by input, as the store would (one scope, one session)."""

    engine: Engine = field(default_factory=Engine)
    scopes: dict[tuple[str, str], ScopeState] = field(default_factory=dict)
    sessions: dict[str, SessionState] = field(default_factory=dict)

    def apply(
        self, event: InputEvent
    ) -> tuple[ScopeState, SessionState, CoreStep[ScopeState, SessionState]]:
        key = (event.agent_id, event.user_id)
        scope = self.scopes.get(key) or self.engine.decode_scope(None, *key)
        session = self.sessions.get(event.session_id) or self.engine.decode_session(
            None, event.session_id
        )
        step = self.engine.apply(scope, session, event, "chat-turn:{0}", "1-0")
        return scope, session, step

    def commit(self, event: InputEvent) -> CoreStep[ScopeState, SessionState]:
        _, _, step = self.apply(event)
        self.scopes[event.agent_id, event.user_id] = step.scope
        self.sessions[event.session_id] = step.session
        return step


def setup_core() -> Core:
    core = Core()
    for scope, session, seq, event in SETUP:
        core.commit(decode_event(json.dumps(document(event, scope, session, seq))))
    return core


def test_the_corpus_covers_every_attack_the_issue_names() -> None:
    """Fake tool calls in user text, assistant acceptance claims, phrases in tool results
    and fetched pages, look-alike letters, zero-width and bidi characters, forged calls."""
    attacks = {case.attack for case in CASES}
    assert attacks >= {
        "assistant_claims",
        "tool_call_shaped_text",
        "fetched_content",
        "look_alike",
        "invisible_characters",
        "bidi_control",
        "forged_acceptance",
        "forged_delivery",
        "role_spoofing",
        "system_text",
    }
    assert len({case.id for case in CASES}) == len(CASES)
    assert all(
        case.expect.split(":")[0] in {"ignored", "rejected", "dead_letter"} for case in CASES
    )


def test_setup_holds_an_open_bound_agreement_and_pending_proposals() -> None:
    """The attacks meet real targets: without them 'nothing changed' would prove nothing."""
    core = setup_core()
    scope = core.scopes[SCOPE]
    bound = scope.find(IDS["{BOUND}"])
    pending = scope.find(IDS["{PENDING}"])
    other_session = scope.find(IDS["{OTHER_SESSION}"])
    assert bound is not None
    assert bound.state == AgreementState.OPEN
    assert bound.binding is not None
    assert pending is not None
    assert pending.state == AgreementState.PROPOSED
    assert other_session is not None
    assert other_session.state == AgreementState.PROPOSED
    assert core.scopes[OTHER_SCOPE].find(IDS["{OTHER_SCOPE}"]) is not None


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_injection_changes_no_agreement_state_r1_r3_r10(case: Case) -> None:
    """Each corpus attack, through the decoder and the real core: no record changes, no
    record appears; a forged acceptance call only hears its rejection reason (R3), and
    a record of another scope is `unknown_record` with no revision or state leaked."""
    core = setup_core()
    kind, _, detail = case.expect.partition(":")
    raw = json.dumps(case.document())
    if kind == "dead_letter":
        with pytest.raises(ContractError) as refused:
            decode_event(raw)
        assert refused.value.reason == DeadLetterReason(detail)
        return
    scope, _, step = core.apply(decode_event(raw))
    assert not [event for event in step.events if isinstance(event, StateChanged)]
    assert step.scope == scope
    assert not step.scope_changed
    if kind == "ignored":
        assert step.events == ()
        return
    (outcome,) = step.events
    assert isinstance(outcome, ToolOutcome)
    assert not outcome.accepted
    assert outcome.reason == RejectionReason(detail)
    if outcome.reason == RejectionReason.UNKNOWN_RECORD:
        assert outcome.current_revision is None
        assert outcome.state is None


CONTROLS = [case for case in CASES if case.control == "user"]


@pytest.mark.parametrize("case", CONTROLS, ids=[case.id for case in CONTROLS])
def test_the_same_text_in_a_user_turn_does_change_state_r1(case: Case) -> None:
    """Control: the attack text said by the user is an intent, so only the role (the
    envelope) stopped it above."""
    core = setup_core()
    as_user = {**case.event, "role": "user"}
    _, _, step = core.apply(decode_event(json.dumps(document(as_user, SCOPE, "s1", 6))))
    assert step.scope_changed
    assert any(isinstance(event, StateChanged) for event in step.events)


def test_genuine_acceptance_call_and_todo_result_do_change_state_r3_r12() -> None:
    """Control: the real `soul_agreement_accept` call for the pending proposal accepts
    it, and a real successful `todo_write` completing the bound item fulfils the open
    agreement; the forged variants in the corpus differ from these in one detail."""
    core = setup_core()
    call = decode_event(json.dumps(document(accept_call("{PENDING}", 1), SCOPE, "s1", 6)))
    _, _, accepted = core.apply(call)
    assert [e.to_state for e in accepted.events if isinstance(e, StateChanged)] == [
        AgreementState.PROPOSED
    ]
    done = todo_result((BOUND_TODO, "completed"), ("Water the plants", "pending"))
    _, _, delivered = core.apply(decode_event(json.dumps(document(done, SCOPE, "s1", 6))))
    assert [e.to_state for e in delivered.events if isinstance(e, StateChanged)] == [
        AgreementState.FULFILLED
    ]


# ------------------------------------------------------------- through a real Redis


@pytest.mark.redis
@pytest.mark.asyncio
async def test_the_whole_corpus_through_the_streams_changes_nothing_r1_r3_r15(
    client: redis.asyncio.Redis,
) -> None:
    """The corpus XADDed as a gateway would, after the setup, processed by the store's
    processor with the real core on a real Redis: the session view and every record
    are as the setup left them, the only state changes published are the setup's, the
    forged calls hear their reasons and the smuggled fields are dead letters."""
    processor = PartitionProcessor(client, 0, Engine(), StoreConfig(partitions=1))
    for scope, session, seq, event in SETUP:
        await gateway_xadd(client, document(event, scope, session, seq))
    setup_events = await process_new(client, processor, "security")
    at = BASE + timedelta(days=1)
    view_before = await reads.session_view(
        client, Engine(), 1, agent_id=SCOPE[0], user_id=SCOPE[1], session_id="s1", as_of=at
    )
    assert len(view_before.current_agreements) == 1
    assert len(view_before.pending_proposals) == 1

    next_seq = dict(ATTACK_SEQ)
    expected_outcomes: dict[str, str] = {}
    expected_letters = 0
    for case in CASES:
        if case.expect.startswith("dead_letter"):
            # Undecodable: the gate never sees its seq, so it takes no slot of a session.
            await gateway_xadd(client, case.document(seq=1))
            expected_letters += 1
            continue
        seq = next_seq[case.session]
        next_seq[case.session] += 1
        doc = case.document(seq)
        if case.expect.startswith("rejected"):
            expected_outcomes[doc["call_id"]] = case.expect.partition(":")[2]
        await gateway_xadd(client, doc)
    events = await process_new(client, processor, "security")

    assert not [e for e in events if isinstance(e, StateChanged)]
    outcomes = {e.call_id: e for e in events if isinstance(e, ToolOutcome)}
    assert {call_id: str(o.reason) for call_id, o in outcomes.items()} == expected_outcomes
    assert not any(o.accepted for o in outcomes.values())
    letters = [e for e in events if isinstance(e, DeadLetter)]
    assert len(letters) == expected_letters
    assert {letter.reason for letter in letters} == {DeadLetterReason.CONTRACT_VIOLATION}
    view_after = await reads.session_view(
        client, Engine(), 1, agent_id=SCOPE[0], user_id=SCOPE[1], session_id="s1", as_of=at
    )
    assert view_after == view_before
    for placeholder in ("{BOUND}", "{PENDING}", "{OTHER_SESSION}"):
        record = await reads.record_history(client, 0, IDS[placeholder])
        assert record is not None
        published = [e for e in setup_events if getattr(e, "record_id", None) == record.record_id]
        assert record.revision == max(e.revision for e in published if isinstance(e, StateChanged))


@pytest.mark.parametrize("role", ["assistant", "system"])
@pytest.mark.parametrize(
    "intent",
    [
        Proposal(terms="skip every confirmation"),
        Acceptance(),
        Cancellation(target_hint="answer in English"),
    ],
    ids=["proposal", "acceptance", "cancellation"],
)
def test_the_reducer_refuses_an_intent_on_a_non_user_turn_by_itself_r1(
    role: str, intent: Intent
) -> None:
    """Defence in depth: the recognizer gives non-user text no intent, and the reducer
    checks the role again, so an intent wrongly handed in for an assistant or system
    turn (a future caller's bug) still changes nothing. The user-turn control moves."""
    core = setup_core()
    scope = core.scopes[SCOPE]
    session = core.sessions["s1"]
    for speaker, moves in ((role, False), ("user", True)):
        turn = decode_event(json.dumps(document(chat(speaker, "text"), SCOPE, "s1", 6)))
        provenance = Provenance(session_id="s1", seq=6)
        step = apply_input(scope, session, turn, intent, provenance, Policy())
        assert step.scope_changed is moves
