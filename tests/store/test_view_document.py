"""The language-neutral view in Redis (`view:{p}:<scope>`) is the core's view (R6, R9).

The commit writes each changed scope's `ScopeViewDocument` and each session's applied
seq; a reader filtering the document at its own read time must see exactly what the
core's `view` shows at that instant, for every session, whatever the delivery order.
"""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
import pytest
import redis.asyncio
from accord_harness.documents import BASE_TS, Session
from accord_harness.store_harness import chat, deliver_and_settle, real_core_workload

from contracts.partition import partition_of
from contracts.view import (
    SCOPE_VIEW_SCHEMA_VERSION,
    ScopeViewDocument,
    scope_view_as_of,
    session_view_as_of,
)
from core.lifecycle.state import record_id_for
from store import keys
from store.reads import session_view
from tests.support.paths import EXAMPLES
from worker.engine import Engine

_DOC = msgspec.json.Decoder(ScopeViewDocument)


async def _settled_document(
    aredis: redis.asyncio.Redis, redis_url: str, scope: tuple[str, str], documents: Any
) -> Any:
    """The scope's stored document (raw JSON) after one partition delivered `documents`
    in order, without duplicates, and settled."""
    await deliver_and_settle(
        aredis, lambda: redis.asyncio.Redis.from_url(redis_url), Engine(), documents, 1,
        random.Random(1), duplicate_rate=0.0,
    )  # fmt: skip
    return await aredis.hget(keys.view_key(0, *scope), keys.VIEW_DOC_FIELD)


@pytest.mark.redis
@pytest.mark.asyncio
@pytest.mark.parametrize("seed", [5, 6])
async def test_view_document_equals_the_core_view_for_every_session(
    aredis: redis.asyncio.Redis, redis_url: str, seed: int
) -> None:
    """R6: the document read with one HMGET, filtered at read time, is the core's view;
    the applied field is the session's last seq (R15: all of them were applied)."""
    rng = random.Random(seed)
    core = Engine()
    partitions = 2
    documents = real_core_workload(rng, scopes=4, sessions=3, blocks=4)
    await deliver_and_settle(
        aredis, lambda: redis.asyncio.Redis.from_url(redis_url), core, documents, partitions, rng
    )
    last_seq: dict[tuple[str, str, str], int] = {}
    for d in documents:
        ident = (d["agent_id"], d["user_id"], d["session_id"])
        last_seq[ident] = max(last_seq.get(ident, 0), d["seq"])
    instants = [datetime.fromtimestamp(BASE_TS, tz=UTC) + timedelta(days=d) for d in (0, 1, 400)]
    open_seen = 0
    for (agent_id, user_id, session_id), seq in sorted(last_seq.items()):
        p = partition_of(agent_id, user_id, partitions)
        fields = [keys.VIEW_DOC_FIELD, keys.applied_field(session_id)]
        raw: Any = await aredis.hmget(keys.view_key(p, agent_id, user_id), fields)
        raw_doc, raw_applied = raw
        assert int(raw_applied) == seq
        if raw_doc is None:
            document = ScopeViewDocument(agent_id=agent_id, user_id=user_id)
        else:
            document = _DOC.decode(raw_doc)
        assert document.schema_version == SCOPE_VIEW_SCHEMA_VERSION
        for as_of in instants:
            expected = await session_view(
                aredis, core, partitions, agent_id=agent_id, user_id=user_id,
                session_id=session_id, as_of=as_of,
            )  # fmt: skip
            assert session_view_as_of(document, session_id, as_of) == expected
            open_seen += len(expected.current_agreements)
    assert open_seen > 0, "the workload opens agreements"


@pytest.mark.redis
@pytest.mark.asyncio
async def test_view_document_drops_a_deadline_at_read_time(
    aredis: redis.asyncio.Redis, redis_url: str
) -> None:
    """R9: a proposal with a deadline is pending before it and gone at it, with no sweep:
    the document is unchanged, only the reader's instant moves."""
    scope, session = ("agent-mira", "user-view"), "s1"
    documents = [chat(scope, session, 1, "Let's agree: within 2 hours, send me a summary.")]
    raw = await _settled_document(aredis, redis_url, scope, documents)
    document = _DOC.decode(raw)
    [proposal] = document.proposals
    assert proposal.deadline_at is not None
    before = proposal.deadline_at - timedelta(microseconds=1)
    assert [p.record_id for p in scope_view_as_of(document, before).pending_proposals] == [
        proposal.record_id
    ]
    assert session_view_as_of(document, session, proposal.deadline_at).pending_proposals == ()


@pytest.mark.redis
@pytest.mark.asyncio
async def test_a_view_as_of_an_instant_shows_only_what_was_so_then(
    aredis: redis.asyncio.Redis, redis_url: str
) -> None:
    """R6 as of T, through Redis (the read `accord view --as-of` makes): a proposal
    made after T is not pending at T, an agreement opened after T is not current at
    T; from their times on both are shown. The document filtered at T agrees."""
    scope = ("agent-as-of", "user-as-of")
    talk = Session(scope, "s1", step_s=60)
    plan = talk.say("Let's agree: start with the conclusion.")  # +60 s
    talk.accept(plan, 1)  # +120 s
    talk.say("I accept this agreement.")  # +180 s: open
    tea = talk.say("Let's agree: offer green tea first.")  # +240 s
    raw = await _settled_document(aredis, redis_url, scope, talk.documents)
    document = _DOC.decode(raw)
    plan_id, tea_id = (record_id_for(*scope, "s1", seq) for seq in (plan, tea))
    shown: dict[int, tuple[list[str], list[str]]] = {}
    for seconds in (30, 150, 200, 240):
        as_of = datetime.fromtimestamp(BASE_TS + seconds, tz=UTC)
        view = await session_view(
            aredis, Engine(), 1, agent_id=scope[0], user_id=scope[1], session_id="s1",
            as_of=as_of,
        )  # fmt: skip
        assert session_view_as_of(document, "s1", as_of) == view
        current = [c.record_id for c in view.current_agreements]
        shown[seconds] = current, [p.record_id for p in view.pending_proposals]
    assert shown == {
        30: ([], []),
        150: ([], []),
        200: ([plan_id], []),
        240: ([plan_id], [tea_id]),
    }


def test_a_reader_leaves_out_what_was_not_yet_so_at_its_instant() -> None:
    """R6 as of T, for any reader of the document (the TypeScript client's test reads the
    same example): an entry whose `since` is after T is left out, from `since` on it is
    shown; an entry without `since` (a document older than the field) shows at any T."""
    document = _DOC.decode((EXAMPLES / "scope_view_document.json").read_bytes())
    [agreement], [proposal] = document.agreements, document.proposals
    assert agreement.since is not None
    assert proposal.since is not None

    def shown(as_of: datetime) -> tuple[list[str], list[str]]:
        view = scope_view_as_of(document, as_of)
        current = [a.record_id for a in view.current_agreements]
        return current, [p.record_id for p in view.pending_proposals]

    assert shown(agreement.since - timedelta(microseconds=1)) == ([], [])
    assert shown(agreement.since) == ([agreement.record_id], [])
    assert shown(proposal.since - timedelta(microseconds=1)) == ([agreement.record_id], [])
    assert shown(proposal.since) == ([agreement.record_id], [proposal.record_id])
    older = msgspec.structs.replace(
        document, agreements=(msgspec.structs.replace(agreement, since=None),)
    )
    early = agreement.since - timedelta(days=1)
    assert [a.record_id for a in scope_view_as_of(older, early).current_agreements] == [
        agreement.record_id
    ]


def test_a_reader_of_now_shows_every_committed_entry_and_still_applies_deadlines() -> None:
    """R6, R9 at the reader's present (`now=True`, what the clients and `accord view` use
    without an explicit instant): an entry stamped after the reader's clock (a gateway
    clock ahead of it) is shown, for scope and session views alike; a deadline at or
    before that clock still removes it."""
    document = _DOC.decode((EXAMPLES / "scope_view_document.json").read_bytes())
    [agreement], [proposal] = document.agreements, document.proposals
    assert agreement.since is not None
    clock = agreement.since - timedelta(seconds=5)
    scope = scope_view_as_of(document, clock, now=True)
    assert [a.record_id for a in scope.current_agreements] == [agreement.record_id]
    assert [p.record_id for p in scope.pending_proposals] == [proposal.record_id]
    session = session_view_as_of(document, proposal.session_id, clock, now=True)
    assert [p.record_id for p in session.pending_proposals] == [proposal.record_id]
    due = msgspec.structs.replace(
        document, agreements=(msgspec.structs.replace(agreement, deadline_at=clock),)
    )
    assert scope_view_as_of(due, clock, now=True).current_agreements == ()


def test_older_and_newer_documents_stay_readable() -> None:
    """A version-1 document with only required fields decodes (defaults fill the rest),
    and a newer document with fields this reader does not know decodes too."""
    minimal = b'{"agent_id":"a","user_id":"u"}'
    assert _DOC.decode(minimal) == ScopeViewDocument(agent_id="a", user_id="u")
    newer = (
        b'{"schema_version":2,"agent_id":"a","user_id":"u","future":[1],'
        b'"agreements":[{"record_id":"r","terms":"t","extra":true}]}'
    )
    document = _DOC.decode(newer)
    assert document.schema_version == 2
    assert [a.record_id for a in document.agreements] == ["r"]


@pytest.mark.redis
@pytest.mark.asyncio
async def test_the_written_document_has_every_field_even_empty_lists(
    aredis: redis.asyncio.Redis, redis_url: str
) -> None:
    """R6: the commit writes every field of the document, defaults included (the
    TypeScript types mark the lists, `schema_version`, `deadline_at` and `since` as
    always present, and docs/contracts.md says so): a scope with one proposal has
    empty `agreements` and `amendments`, not missing ones."""
    scope = ("agent-whole", "user-whole")
    documents = [chat(scope, "s1", 1, "Let's agree: start with the conclusion.")]
    raw = await _settled_document(aredis, redis_url, scope, documents)
    written = json.loads(raw)
    assert list(written) == [
        "schema_version", "agent_id", "user_id", "agreements", "proposals", "amendments"
    ]  # fmt: skip
    assert written["schema_version"] == SCOPE_VIEW_SCHEMA_VERSION
    assert (written["agreements"], written["amendments"]) == ([], [])
    [proposal] = written["proposals"]
    assert {"deadline_at", "since"} <= set(proposal)
