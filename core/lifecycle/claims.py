"""Claims in assistant turns, checked against the state and never acted on (R18).

An assistant saying "as we agreed" or "I've finished ..." changes nothing (R1, R10);
but when the state does not back the claim, the gateway should hear about it, so it
can warn the user or correct the agent. Two kinds:

- an *agreement* claim ("as we agreed", "per our agreement", "按照我们的约定",
  "我们说好的") is backed by an open agreement of the scope, or, when the claim
  quotes or names its subject ("as we agreed about "tea"", "按照我们关于喝茶的约定"),
  by an open agreement whose terms contain that subject;
- a *delivery* claim ("I've finished ...", "已经完成了...") matters only when its
  sentence names the todo an open agreement is bound to (R11); it is backed when the
  session's latest snapshot shows that continuous item completed.

Precision first, as in the recognizer: a claim inside a question or after a
negation ("not what we agreed") is no claim. Pure: no I/O, no clock.
"""

from __future__ import annotations

import re
from typing import Final

from contracts.common import AgreementState, TodoStatus
from contracts.inputs import ChatTurn
from contracts.outputs import ClaimKind, ClaimUnverified
from contracts.records import AgreementRecord
from core.intents import NO_INTENT, Claim, Claims, Intent
from core.lifecycle.acceptance import past_deadline
from core.lifecycle.answers import envelope
from core.lifecycle.context import Context
from core.lifecycle.state import SessionState
from core.lifecycle.targets import normalise
from core.recognition.phrases import QUOTE_PAIRS

_FLAGS: Final = re.IGNORECASE
_APOSTROPHE: Final = "['\u2019]"
# Words a turn must hold for any claim pattern to match: most assistant turns skip the regexes.
_NEEDED: Final = ("agree", "约定", "说好", "finish", "complet", "完成", "做完", "搞定")

# (kind, rule id, pattern). A named subject lands in group `subject`.
_PATTERNS: Final[tuple[tuple[ClaimKind, str, re.Pattern[str]], ...]] = (
    (
        ClaimKind.AGREEMENT,
        "en.claim.agreement",
        re.compile(
            r"\b(?:(?:just\s+)?(?:as|like)\s+(?:we|you\s+and\s+i)\s+(?:had\s+|have\s+)?agreed"
            r"|as\s+agreed|(?:as\s+)?per\s+our\s+agreement"
            r"|(?:according\s+to|in\s+line\s+with|following)\s+our\s+agreement)\b"
            r"(?:\s+(?:on|about|regarding)\s+(?P<subject>[^.,;:!?\n\"“”「」]{1,80}))?",
            _FLAGS,
        ),
    ),
    (
        ClaimKind.AGREEMENT,
        "zh.claim.agreement",
        re.compile(
            r"(?:按照|按|根据|依照|依据)(?:我们|咱们)(?:之前|先前)?"
            r"(?:(?:关于|有关)(?P<subject>[^\uff0c。,.!?\uff01\uff1f「」“”\n]{1,60}?))?的?约定"
            r"|(?:我们|咱们)(?:之前|先前)?说好(?:的|了)",
            _FLAGS,
        ),
    ),
    (
        ClaimKind.DELIVERY,
        "en.claim.delivery",
        re.compile(
            rf"\bi(?:{_APOSTROPHE}ve|\s+have)\s+(?:now\s+|just\s+|already\s+)?(?:finished|completed)\b",
            _FLAGS,
        ),
    ),
    (
        ClaimKind.DELIVERY,
        "zh.claim.delivery",
        re.compile(r"(?:已经|已)(?:完成|做完|搞定)了?|我完成了", _FLAGS),
    ),
)

_SENTENCE_END: Final = re.compile(r"[.!?。\uff01\uff1f\n]")
_SENTENCE_START: Final = re.compile(r"[.!?。\uff01\uff1f\n][^.!?。\uff01\uff1f\n]*\Z")
_QUESTION: Final = re.compile(r"[?\uff1f]|吗|呢\s*\Z")
_NEGATED: Final = re.compile(
    rf"(?:\bnot|\bnever|\bisn{_APOSTROPHE}t|\bwasn{_APOSTROPHE}t|\bdidn{_APOSTROPHE}t"
    rf"|\bhaven{_APOSTROPHE}t|不是|没有|并非|不)\s*\Z",
    _FLAGS,
)
_QUOTED: Final = re.compile(
    "|".join(f"{re.escape(o)}([^{re.escape(c)}\n]{{1,200}}?){re.escape(c)}" for o, c in QUOTE_PAIRS)
)


def claims_in(text: str) -> Intent:
    """The claims of an assistant turn, as a `Claims` intent, else NO_INTENT."""
    lowered = text.lower()
    if not any(word in lowered for word in _NEEDED):
        return NO_INTENT
    found: list[Claim] = []
    for kind, _rule, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            claim = _claim(kind, match, text)
            if claim is not None:
                found.append(claim)
    found.sort(key=lambda claim: claim.span)
    return Claims(claims=tuple(found)) if found else NO_INTENT


def _claim(kind: ClaimKind, match: re.Match[str], text: str) -> Claim | None:
    start, end = match.span()
    before = _SENTENCE_START.search(text, 0, start)
    sentence_start = before.start() + 1 if before is not None else 0
    after = _SENTENCE_END.search(text, end)
    sentence_end = after.end() if after is not None else len(text)
    sentence = text[sentence_start:sentence_end]
    if _QUESTION.search(sentence) or _NEGATED.search(text, sentence_start, start):
        return None
    if kind is ClaimKind.DELIVERY:
        return Claim(kind=kind, span=(start, end), subject=sentence)
    named = match.group("subject")
    quoted = _QUOTED.search(sentence)
    subject = next((g for g in quoted.groups() if g), None) if quoted is not None else None
    return Claim(kind=kind, span=(start, end), subject=subject or (named and named.strip()))


def unverified(
    context: Context, turn: ChatTurn, claims: tuple[Claim, ...]
) -> tuple[ClaimUnverified, ...]:
    """An advisory event for each claim the state does not back; the state is untouched."""
    current = tuple(
        r
        for r in context.scope.records
        if r.state == AgreementState.OPEN and not past_deadline(r, turn.ts)
    )
    events = []
    for claim in claims:
        checked = _unbacked(claim, current, context.session)
        if checked is not None:
            events.append(
                ClaimUnverified(
                    **envelope(turn, f"claim_unverified@{claim.span[0]}"),
                    kind=claim.kind,
                    span=claim.span,
                    checked=checked,
                )
            )
    return tuple(events)


def _unbacked(
    claim: Claim, current: tuple[AgreementRecord, ...], session: SessionState
) -> tuple[str, ...] | None:
    """The records a claim was checked against when they do not back it, else None."""
    if claim.kind is ClaimKind.AGREEMENT:
        wanted = normalise(claim.subject) if claim.subject else ""
        if any(wanted in normalise(r.terms) for r in current):
            return None
        return tuple(r.record_id for r in current)
    sentence = normalise(claim.subject or "")
    named = tuple(
        r for r in current if r.binding is not None and normalise(r.binding.content) in sentence
    )
    if not named or all(_completed(r, session) for r in named):
        return None
    return tuple(r.record_id for r in named)


def _completed(record: AgreementRecord, session: SessionState) -> bool:
    """Whether the session's latest snapshot shows the bound item completed.

    Only the binding's own session has the snapshot; from another session the claim
    cannot be backed (and an open record means no verified delivery happened yet).
    """
    binding = record.binding
    if binding is None or binding.session_id != session.session_id:
        return False
    return any(
        item.content == binding.content
        and item.origin_seq == binding.origin_seq
        and item.status == TodoStatus.COMPLETED
        for item in session.todos
    )
