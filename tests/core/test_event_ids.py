"""Event ids name one content (DESIGN 5, R15): what the event describes, `~`, a digest.

A failover can lose a commit a subscriber already read; a later input may then make the
same record revision with another content. Its id must differ, or a subscriber that
drops repeated ids keeps the wrong state. The same input processed again must give the
same id, so a redelivered or replayed event is still dropped as a duplicate.
"""

from __future__ import annotations

from datetime import UTC, datetime

import msgspec

from contracts.common import AgreementState, Cause, Provenance
from contracts.outputs import (
    SEAL,
    DeadLetter,
    DeadLetterReason,
    StateChanged,
    described,
    sealed,
    state_changed_event_id,
)

AT = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)


def _change(to_state: AgreementState, cause: Cause, **extra: object) -> StateChanged:
    return StateChanged(
        event_id=state_changed_event_id("agr-1", 3),
        record_id="agr-1",
        agent_id="a",
        user_id="u",
        session_id="s1",
        revision=3,
        from_state=AgreementState.PROPOSED,
        to_state=to_state,
        cause=cause,
        terms="start with the conclusion",
        at=AT,
        provenance=Provenance(session_id="s1", seq=7),
        **extra,  # type: ignore[arg-type]
    )


def test_the_same_content_gets_the_same_id_r15() -> None:
    """R15: processing the same input again gives the same event, id included."""
    first = sealed(_change(AgreementState.OPEN, Cause.AGENT_ACCEPTED))
    again = sealed(_change(AgreementState.OPEN, Cause.AGENT_ACCEPTED))
    assert first.event_id == again.event_id
    assert first.event_id.startswith(f"agr-1@3{SEAL}")
    assert described(first.event_id) == "agr-1@3"


def test_one_revision_with_two_contents_gets_two_ids() -> None:
    """The failover case: revision 3 first opened, then (the commit lost) expired."""
    opened = sealed(_change(AgreementState.OPEN, Cause.AGENT_ACCEPTED))
    expired = sealed(_change(AgreementState.EXPIRED, Cause.DEADLINE_REACHED))
    assert described(opened.event_id) == described(expired.event_id) == "agr-1@3"
    assert opened.event_id != expired.event_id


def test_every_field_counts_but_the_trace_context() -> None:
    """A different time or terms is a different content; a different `traceparent` (the
    worker's span, new on every processing) is not."""
    base = _change(AgreementState.OPEN, Cause.AGENT_ACCEPTED)
    traced = msgspec.structs.replace(
        base, traceparent="00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
    )
    assert sealed(traced).event_id == sealed(base).event_id
    assert sealed(traced).traceparent == traced.traceparent
    for other in (
        msgspec.structs.replace(base, at=AT.replace(minute=1)),
        msgspec.structs.replace(base, terms="start with the summary"),
    ):
        assert sealed(other).event_id != sealed(base).event_id


def test_dead_letters_are_sealed_alike() -> None:
    letter = DeadLetter(
        event_id="dlq:chat-turn:{0}:1-0",
        stream="chat-turn:{0}",
        entry_id="1-0",
        reason=DeadLetterReason.UNDECODABLE,
        detail="not JSON",
        delivery_count=1,
        at=AT,
        fields={"__data__": "{"},
    )
    other = msgspec.structs.replace(letter, detail="not an object")
    assert described(sealed(letter).event_id) == "dlq:chat-turn:{0}:1-0"
    assert sealed(letter).event_id != sealed(other).event_id


def test_described_strips_only_the_seal_when_the_description_holds_a_tilde() -> None:
    """Session and record ids may hold `~`: the seal is always the last one."""
    change = msgspec.structs.replace(
        _change(AgreementState.OPEN, Cause.AGENT_ACCEPTED), event_id="s~1#2:tool_outcome"
    )
    assert described(sealed(change).event_id) == "s~1#2:tool_outcome"
    assert described("agr-1@3") == "agr-1@3"  # an id from before 0.3.0: nothing to strip
