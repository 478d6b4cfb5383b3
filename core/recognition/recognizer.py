"""The recognizer: at most one explicit agreement intent in one turn (R1, R4, R8, R11, R14).

Precision comes first: a false agreement is worse than a missed one. A phrase of the
grammar (`phrases.py`, the README table) counts only when all of these hold:

- the turn is the user's (R1: assistant, system and tool text never count);
- it is text a chat client shows (`visible.py`): hidden markup is dropped before
  anything else, so it neither proposes nor enters the terms (R1, R2);
- the turn is read one sentence at a time (`sentences.py`): the phrase opens its
  sentence after lead-ins only (docs/recognizer.md): lead words ("OK, ", "Anyway — ",
  "好的, ", "嗯那"), bullets, emoji, or a lead-in clause ending in a comma, colon or dash
  ("这周事情太多, 取消这个约定吧"); a reporting verb, a condition, a hedge, a past
  report, a bare negation or a speaker label in front of it means it is not the user's
  own act;
- it is not inside code, a block quote or an open quotation (reported speech);
- its sentence is not a question, and the next sentence does not ask about it or
  take it back ("OK?", "好吗?", "just kidding"); questions elsewhere ask other things;
- it is the only phrase in the turn: two are ambiguous, and ambiguity is no intent;
- an acceptance or cancellation is followed in its clause only by an optional target
  hint (quoted, or "about X") and courtesy words, and a later clause (after a comma or
  a dash) gives a reason, not a condition, contrast, hedge or retraction ("..., but
  only if" is not a yes).

The terms and the deadline come from the proposal's sentence alone.
Pure: no I/O, no clock. The terms are the user's own prose (R14), cut from the
original text (see `normalize.py` for why not from the folded one).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import islice
from typing import Final

from contracts.common import Role
from core.deadlines.resolve import find_deadline_phrase
from core.intents import (
    NO_INTENT,
    Acceptance,
    Amendment,
    AmendmentCancellation,
    Cancellation,
    Intent,
    Proposal,
)
from core.recognition.markup import Quotations, mask_quoted_markup
from core.recognition.normalize import Folded, fold, may_hold_trigger
from core.recognition.phrases import (
    ABOUT_HINT,
    ACT_TAKEN_BACK,
    APOSTROPHE,
    BRACKETED_LABEL,
    CLAUSE_GUARD,
    COURTESY,
    COURTESY_REACH,
    COURTESY_WORDS,
    DISAGREE,
    EN_POLITE_ASK,
    FORWARDED_HEADER,
    FORWARDED_WORDS,
    LEAD_IN_LABEL_END,
    LEAD_WORD_AT_END,
    LEAD_WORD_REACH,
    NEGATED_BEFORE,
    NEXT_SENTENCE_ASKS,
    PARAGRAPH_BREAK,
    PAST_TERMS,
    PAST_WORDS,
    PHRASES,
    QUOTE_PAIRS,
    RULE_OF,
    SPEAKER_NAME,
    SPEAKER_ROLE,
    TAIL_REFUSED,
    TODO_TARGETS,
    TRAILING_COURTESY,
    WITHDRAW_WORDS,
    ZH_INTERROGATIVE,
    ZH_MEETING,
    ZH_NARRATIVE,
    ZH_PERFECTIVE,
    ZH_POLITE_ASK,
    Kind,
    caseless,
    ends_as_question,
    quoted_span,
)
from core.recognition.sentences import is_emoji, sentence_end, sentence_start
from core.recognition.visible import visible

# Folded text: full-width punctuation is ASCII already (NFKC).
_SENTENCE_TERMINATORS: Final = frozenset(".!?。…")
_CLOSING_MARKS: Final = "\"”」』\u2019')]》»"
_TRAILING: Final = frozenset(".。!,;:、~…") | frozenset(" \t\r\n\u3000")
_QUOTE_CLOSER: Final = dict(QUOTE_PAIRS)
_LOOK_BACK: Final = 200
MAX_CANDIDATES: Final = 8
_WORD_OR_QUESTION: Final = re.compile(r"[\w?]")
# Bullets and arrows opening a line ("- Let's agree", "• 我们约定", "→ …") are layout.
_BULLETS: Final = "-*•·‣◦→⇒►▶▸~"
_CLAUSE_MARKS: Final = frozenset(",;、")
# What a lead-in clause may end with (folded text: the full-width comma and colon are
# ASCII already): a comma, semicolon, enumeration comma, colon, em or en dash.
_LEAD_IN_MARKS: Final = frozenset(",;、:\u2014\u2013")
# Where a clause after an acceptance or cancellation starts: a comma, a colon, a dash or
# a parenthesis before a reason ("Cancel this agreement — it stresses me out"), or a
# reason's own conjunction ("... because it stresses me out", "…因为压力太大").
_CLAUSE_SPLIT: Final = re.compile(
    r"[,;:、(]|\s*[\u2014\u2013]+\s*|\s+-{1,2}\s+"
    r"|\s+(?:because|since|cuz|coz)\b|\s*(?:因为|由于)",
    re.IGNORECASE,
)
# Where a reason runs on after an act with no punctuation, as in a voice transcript
# ("cancel this agreement i dont need it anymore", "取消这个约定我最近太忙了"): a new
# clause opening with a pronoun subject.
_RUN_ON: Final = re.compile(
    rf"\s+(?:i|i{APOSTROPHE}?m|it|it{APOSTROPHE}?s|we|we{APOSTROPHE}?re|this|that)\b|\s*(?=我(?!们的|的))",
    re.IGNORECASE,
)
# "Could you please cancel this agreement?" asks only in form: it is a request.
# So does "能不能帮我取消这个约定?"; its closing 吗 ("可以帮我取消这个约定吗?") asks
# nothing more.
_POLITE_REQUEST: Final = re.compile(rf"{EN_POLITE_ASK}|{ZH_POLITE_ASK}", re.IGNORECASE)
_REQUEST_PARTICLE: Final = re.compile(r"[吗么呢]\s*\Z")
# Every todo pattern names the todo in quotes: terms without an opening quote name none.
_TODO_QUOTE: Final = re.compile("[" + re.escape("".join(opener for opener, _ in QUOTE_PAIRS)) + "]")
# The phrases as the candidate search reads them: word groups as tuples, which the
# compiled build walks by index where a frozenset needs a generic iterator.
_SearchPhrase = tuple[Kind, tuple[tuple[str, ...], ...], re.Pattern[str], str]
_SEARCH_PHRASES: Final[tuple[_SearchPhrase, ...]] = tuple(
    (
        phrase.kind,
        tuple(tuple(sorted(group)) for group in phrase.needs),
        phrase.pattern,
        phrase.opens,
    )
    for phrase in PHRASES
)
# The phrases an ASCII turn may hold: each of their word groups has an ASCII word.
_ASCII_PHRASES: Final = tuple(
    phrase
    for phrase in _SEARCH_PHRASES
    if all(any(word.isascii() for word in group) for group in phrase[1])
)


def recognize(text: str, role: Role | str) -> Intent:
    """The one explicit agreement intent in `text` said by `role`, else NO_INTENT."""
    if role != Role.USER or not (may_hold_trigger(text) or _may_withdraw(text)):
        return NO_INTENT
    # Only what a chat client shows counts, and only it can become terms (R1, R2).
    shown, origin = visible(text)
    folded = fold(shown)
    if folded is None:
        return NO_INTENT
    folded.origin = origin
    scan = mask_quoted_markup(folded.text)
    # Code may have hidden every keyword, and most phrases need words the turn lacks.
    candidates = _candidates(scan)
    if candidates is None:
        return NO_INTENT
    quotations = Quotations(scan)
    forwarded = -1  # where a forwarded message starts, once a phrase needs to know
    found: list[Intent] = []
    for at, kind, match in candidates:
        if not _opens_sentence(scan, at, kind) or quotations.open_at(at):
            continue
        if forwarded < 0:
            forwarded = _forwarded_from(scan)
        if at >= forwarded:
            continue
        intent = _read(kind, match, scan, folded)
        if intent is not None:
            found.append(intent)
            if len(found) > 1:
                # Two explicit acts in one turn: which one the user meant is a guess.
                return NO_INTENT
    return found[0] if found else NO_INTENT


def _forwarded_from(scan: str) -> int:
    """Where a forwarded message's header starts ("---------- Forwarded message ---"), else
    the end: what follows it is somebody else's text (R1)."""
    lowered = caseless(scan)
    if any(word in lowered for word in FORWARDED_WORDS):
        header = FORWARDED_HEADER.search(scan)
        if header is not None:
            return header.start()
    return len(scan)


def _may_withdraw(text: str) -> bool:
    """Whether the turn may withdraw an amendment ("cancel the change", R17).

    The one phrase family without "agree" or "约定". Unfolded text only: a disguised
    keyword here can make the bridge miss a withdrawal, never invent one.
    """
    lowered = text.lower()
    return any(word in lowered for word in WITHDRAW_WORDS)


def _candidates(scan: str) -> list[tuple[int, Kind, re.Match[str]]] | None:
    """Phrase matches by position, one per position; None when there are too many."""
    lowered = scan.lower()
    # An ASCII turn cannot hold the phrases that need Chinese words.
    phrases = _ASCII_PHRASES if scan.isascii() else _SEARCH_PHRASES
    # Lower-casing kept every position (no character grew): a phrase's opening word
    # can be looked up in `lowered`.
    aligned = len(lowered) == len(scan)
    by_start: dict[int, tuple[int, Kind, re.Match[str]]] = {}
    for kind, needs, pattern, opens in phrases:
        # Loops, not any(): this runs for every phrase of every turn, and most
        # phrases fail on their first word.
        for group in needs:
            for word in group:
                if word in lowered:
                    break
            else:
                break  # no word of this group: the phrase cannot match
        else:
            found = (
                _opening_matches(pattern, scan, lowered, opens)
                if opens and aligned
                else pattern.finditer(scan)
            )
            for match in islice(found, MAX_CANDIDATES + 1):
                by_start.setdefault(match.start(), (match.start(), kind, match))
        if len(by_start) > MAX_CANDIDATES:
            # A turn holding this many phrases is not one explicit act; refusing it
            # also bounds the work a hostile 64 KB turn can cause.
            return None
    return [by_start[at] for at in sorted(by_start)]


def _opening_matches(
    pattern: re.Pattern[str], scan: str, lowered: str, opens: str
) -> Iterator[re.Match[str]]:
    """`pattern.finditer(scan)` for a pattern whose every match starts with `opens`.

    The pattern is tried only where its opening word is (`lowered` is `scan`
    lower-cased, same positions), not at every character of the turn.
    """
    at = lowered.find(opens)
    while at >= 0:
        match = pattern.match(scan, at)
        if match is None:
            at = lowered.find(opens, at + 1)
        else:
            yield match
            at = lowered.find(opens, match.end())


def _opens_sentence(scan: str, at: int, kind: Kind) -> bool:
    """Whether the phrase at `at` opens its sentence, after lead-ins only, on a line that
    does not follow a line ending in a colon ("Assistant:\nAlright, I accept …": a
    label or an introduction on a line of its own makes the next line its words)."""
    if not _after_lead_ins(scan, at, kind):
        return False
    line = scan.rfind("\n", 0, at)
    return line < 0 or not scan[:line].rstrip().endswith(":")


def _after_lead_ins(scan: str, at: int, kind: Kind) -> bool:  # noqa: PLR0911  # one exit per kind of opening
    """Whether only lead-ins stand between the start of the sentence and `at`.

    What may stand before a trigger (docs/recognizer.md, "Before the trigger"): bullets,
    emoji, lead words (`LEAD_WORD_AT_END`: "OK, ", "Anyway — ", "好的, ", "嗯那") and a
    lead-in clause ending in a comma, semicolon, colon or dash ("这周事情太多, 取消…",
    "After a long week: I accept …"), unless that clause is a condition, someone
    else's words, a hedge, a report of the past, a question, a bare negation or a
    speaker label (`_lead_in_clause`).
    """
    # Only the end of what precedes matters: look at a bounded window of it.
    reach = max(0, at - _LOOK_BACK)
    head = scan[reach:at]
    while True:
        stripped = head.rstrip().rstrip(_BULLETS).rstrip()
        if not stripped:
            return reach == 0 or "\n" in head or scan[:reach].isspace()
        last = stripped[-1]
        if "\n" in head[len(stripped) :]:
            # "He wrote:\nLet's agree: ..." : a line ending in a colon introduces someone's words.
            return last != ":"
        if is_emoji(last):
            return True
        core = stripped.rstrip(_CLOSING_MARKS)
        if core and (core[-1] in _SENTENCE_TERMINATORS or is_emoji(core[-1])):
            return True
        if last in _CLAUSE_MARKS and len(stripped) > 1 and is_emoji(stripped[-2]):
            return True  # "Hi 👋, let's agree: ..."
        # A whole clause first ("The plan looks fine, I accept …" ends in a lead word),
        # then lead words one by one ("After sleeping on it: …" holds "after").
        # A Chinese proposal may narrate a past agreement: no perfective lead-in then.
        narrates = _takes_terms(kind) and not scan[at].isascii()
        if last in _LEAD_IN_MARKS and _lead_in_clause(stripped, narrates=narrates):
            return True
        lead = LEAD_WORD_AT_END.search(stripped, max(0, len(stripped) - LEAD_WORD_REACH))
        if lead is None:
            return False
        head = stripped[: lead.start()]


def _lead_in_clause(stripped: str, *, narrates: bool) -> bool:
    """Whether the clause `stripped` ends with may stand before a trigger as a lead-in."""
    clause = stripped[sentence_start(stripped, 0, len(stripped)) :]
    if CLAUSE_GUARD.search(clause) is not None:
        return False
    if narrates and ZH_PERFECTIVE.search(clause) is not None:
        return False
    # "助手: 好的, …", "Assistant: OK, …", "[assistant] 好的, …": the words after a
    # speaker label are its line.
    bracketed = BRACKETED_LABEL.match(clause)
    if bracketed is not None and SPEAKER_ROLE.search(bracketed.group(1)) is not None:
        return False
    begin = 0
    for found in LEAD_IN_LABEL_END.finditer(clause):
        segment = clause[begin : found.start()]
        if SPEAKER_ROLE.search(segment) is not None or SPEAKER_NAME.fullmatch(segment):
            return False
        begin = found.end()
    return True


def _takes_terms(kind: Kind) -> bool:
    """Whether the phrase is followed by terms (not a yes, a cancel or a withdrawal).

    Compared by identity, not looked up in a set: hashing a plain Enum member runs
    `Enum.__hash__` in Python, and this is asked for every candidate.
    """
    return kind is Kind.PROPOSAL or kind is Kind.AMENDMENT


def _span(folded: Folded, start: int, end: int) -> tuple[int, int]:
    """Folded [start, end) as [start, end) of the original turn (R16 evidence)."""
    if start >= end:
        return start, end
    if folded.starts is not None and folded.ends is not None:
        start, end = folded.starts[start], folded.ends[end - 1]
    origin = folded.origin
    if origin is None:
        return start, end
    return origin[start], origin[end - 1] + 1


def _read(kind: Kind, match: re.Match[str], scan: str, folded: Folded) -> Intent | None:
    if _takes_terms(kind):
        return _read_terms(kind, match, scan, folded)
    stop, mark = sentence_end(scan, match.end(), len(scan))
    polite = _POLITE_REQUEST.match(match.group()) is not None
    end = stop
    if polite and (particle := _REQUEST_PARTICLE.search(scan, match.end(), stop)) is not None:
        end = particle.start()
    asked = (mark == "?" and not polite) or ends_as_question(scan, match.start(), end)
    if asked or _asked_after(scan, stop, mark, request=polite):
        return None
    own = _own_clause(scan[match.end() : end])
    if own is None or _taken_back(kind, scan, match.end(), stop):
        return None
    span = quoted_span(match, "hint") or quoted_span(match, "lead")
    about = ABOUT_HINT.match(own) if span is None else None
    if about is not None:
        offset = match.end()
        span = (offset + about.start("about"), offset + about.end("about"))
    elif _WORD_OR_QUESTION.search(COURTESY.sub("", own)) is not None:
        return None
    if span is None and match.re.groupindex.get("about") and match.start("about") >= 0:
        span = match.span("about")
    hint = folded.original(*span).strip() if span is not None else None
    if hint == "":  # a named target that hides something names nothing we may trust
        return None
    act = _ACTS[kind]
    return act(
        target_hint=hint or None,
        hint_span=_span(folded, *span) if span is not None and hint else None,
        rule=RULE_OF.get(match.re.pattern),
        span=_span(folded, *match.span()),
    )


def _taken_back(kind: Kind, scan: str, start: int, stop: int) -> bool:
    """Whether the act's own sentence negates the same act after it (ACT_TAKEN_BACK)."""
    pattern = ACT_TAKEN_BACK.get(kind)
    return pattern is not None and pattern.search(scan, start, stop) is not None


def _own_clause(rest: str) -> str | None:
    """What follows an act in its own clause, before a reason; None if the reason
    refuses it (a condition, a contrast, a hedge, a retraction)."""
    clause = _CLAUSE_SPLIT.search(rest)
    own = rest if clause is None else rest[: clause.start()]
    if clause is not None and TAIL_REFUSED.match(rest, clause.end()) is not None:
        return None
    run_on = _RUN_ON.search(own)
    if run_on is None or _WORD_OR_QUESTION.search(COURTESY.sub("", own[: run_on.start()])):
        return own
    if TAIL_REFUSED.match(own, run_on.start()) is not None:
        return None
    return own[: run_on.start()]


_ACTS: Final[dict[Kind, type[Acceptance | Cancellation | AmendmentCancellation]]] = {
    Kind.ACCEPTANCE: Acceptance,
    Kind.CANCELLATION: Cancellation,
    Kind.AMENDMENT_CANCELLATION: AmendmentCancellation,
}


def _read_terms(
    kind: Kind, match: re.Match[str], scan: str, folded: Folded
) -> Proposal | Amendment | None:
    """A proposal's terms, or an amendment's new terms with its target hint (R17)."""
    proposal = _read_proposal(match, scan, folded)
    if proposal is None or kind is Kind.PROPOSAL:
        return proposal
    span = quoted_span(match, "hint") or quoted_span(match, "lead")
    hint = folded.original(*span).strip() if span is not None else None
    if hint == "":
        return None
    # Field by field on purpose (CONTRIBUTING.md, "Repeated shapes").
    return Amendment(
        terms=proposal.terms,
        deadline_phrase=proposal.deadline_phrase,
        todo_target=proposal.todo_target,
        rule=proposal.rule,
        span=proposal.span,
        target_hint=hint or None,
        hint_span=_span(folded, *span) if span is not None and hint else None,
    )


def _asked_after(scan: str, stop: int, mark: str, *, request: bool = False) -> bool:
    """Whether the next sentence asks about this one or takes it back ("OK?", "Just kidding").

    After a question only a polite request ("能不能帮我取消这个约定? 开玩笑的") is read on.
    """
    if not mark or (mark == "?" and not request):
        return False
    return NEXT_SENTENCE_ASKS.match(scan, stop + len(mark)) is not None


def _read_proposal(match: re.Match[str], scan: str, folded: Folded) -> Proposal | None:
    start = match.end()
    paragraph = PARAGRAPH_BREAK.search(scan, start)
    stop = paragraph.start() if paragraph is not None else len(scan)
    line_end = scan.find("\n", start, stop)
    listed = line_end >= 0 and not scan[start:line_end].strip()
    while start < stop and scan[start].isspace():
        start += 1
    if not listed:
        # The terms are the rest of the phrase's sentence; a list after "Let's agree:"
        # and a line break runs to the end of its paragraph.
        closer = _QUOTE_CLOSER.get(scan[start]) if start < stop else None
        close_at = scan.find(closer, start + 1, stop) if closer is not None else -1
        stop, mark = sentence_end(scan, max(start, close_at + 1), stop)
        if mark == "?" or _asked_after(scan, stop, mark):
            return None
    if ends_as_question(scan, start, stop):
        return None
    start, stop = _unwrap_quoted_terms(scan, start, stop)
    reach = max(start, stop - COURTESY_REACH)
    closing = caseless(scan[reach:stop])
    courtesy = (
        TRAILING_COURTESY.search(scan, reach, stop)
        if any(word in closing for word in COURTESY_WORDS)
        else None
    )
    if courtesy is not None:
        stop = courtesy.start()
    while stop > start and scan[stop - 1] in _TRAILING:
        stop -= 1
    terms = folded.original(start, stop).strip()
    if not terms:
        return None
    lowered = caseless(scan[start:stop])  # for the substring tests before costlier patterns
    if _declines(match, scan, start, stop, lowered):
        return None
    return Proposal(
        terms=terms,
        deadline_phrase=find_deadline_phrase(terms),
        todo_target=_todo_target(scan, start, stop, folded, lowered),
        rule=RULE_OF.get(match.re.pattern),
        span=_span(folded, match.start(), stop),
    )


def _declines(match: re.Match[str], scan: str, start: int, stop: int, lowered: str) -> bool:
    """Terms that look proposed but are an idiom, a remark on the past, a story or a question.

    `lowered` is the terms lower-cased for the substring tests (see `_read_proposal`).
    """
    if "disagree" in lowered and DISAGREE.match(scan, start, stop):
        return True
    if any(word in lowered for word in PAST_WORDS) and PAST_TERMS.match(scan, start, stop):
        return True
    if "约定" not in match.group():
        return False
    if ZH_NARRATIVE.search(scan, 0, match.start()):
        return True
    # Without a colon or comma, 约定 running into a meeting fixes a time or place to meet.
    separated = match.group().rstrip().endswith((":", ","))
    if not separated and ZH_MEETING.match(scan, start, stop) is not None:
        return True
    # Without a colon or comma the phrase runs into its terms, and "我们约定几点见面"
    # asks; with one ("我们约定: ...问我读了什么") the user states terms.
    return not separated and ZH_INTERROGATIVE.search(scan, start, stop) is not None


def _unwrap_quoted_terms(scan: str, start: int, stop: int) -> tuple[int, int]:
    """Terms wrapped in quotes ("Let's agree: “...”.") are the quoted text alone."""
    closer = _QUOTE_CLOSER.get(scan[start]) if start < stop else None
    if closer is None:
        return start, stop
    close_at = scan.find(closer, start + 1, stop)
    if close_at < 0:
        return start, stop
    remainder = scan[close_at + 1 : stop].lstrip()
    if remainder and remainder[0] not in _TRAILING:
        # The quote opens the terms but does not wrap them: '"Deep work" is 9-11'.
        return start, stop
    return start + 1, close_at


def _todo_target(scan: str, start: int, stop: int, folded: Folded, lowered: str) -> str | None:
    """R11: the exact content of the one todo the terms ask to mark as completed.

    `lowered` is the terms lower-cased for the substring tests (see `_read_proposal`).
    """
    # Every todo pattern holds its word ("mark", 完成) and a quoted name: most terms
    # lack one or the other ("周五前完成" is a deadline), and are skipped here.
    if all(word not in lowered for word, _ in TODO_TARGETS):
        return None
    if _TODO_QUOTE.search(scan, start, stop) is None:
        return None
    contents: set[str] = set()
    for word, pattern in TODO_TARGETS:
        if word not in lowered:
            continue
        for match in pattern.finditer(scan, start, stop):
            if NEGATED_BEFORE.search(scan, max(start, match.start() - 12), match.start()):
                continue
            span = quoted_span(match, "todo") or quoted_span(match, "todo_after")
            if span is not None:
                contents.add(folded.original(*span))
    # Two different todos named: no single binding target.
    return contents.pop() if len(contents) == 1 else None
