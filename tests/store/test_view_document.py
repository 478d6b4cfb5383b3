"""The language-neutral view in Redis (`view:{p}:<scope>`) is the core's view (R6, R9).

The commit writes each changed scope's `ScopeViewDocument` and each session's applied
seq; a reader filtering the document at its own read time must see exactly what the
core's `view` shows at that instant, for every session, whatever the delivery order.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
import pytest
import redis.asyncio
from accord_harness.documents import BASE_TS
from accord_harness.store_harness import chat, deliver_and_settle, real_core_workload

from contracts.partition import partition_of
from contracts.view import (
    SCOPE_VIEW_SCHEMA_VERSION,
    ScopeViewDocument,
    scope_view_as_of,
    session_view_as_of,
)
from store import keys
from store.reads import session_view
from worker.engine import Engine

_DOC = msgspec.json.Decoder(ScopeViewDocument)


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
    await deliver_and_settle(
        aredis, lambda: redis.asyncio.Redis.from_url(redis_url), Engine(), documents, 1,
        random.Random(1), duplicate_rate=0.0,
    )  # fmt: skip
    raw: Any = await aredis.hget(keys.view_key(0, *scope), keys.VIEW_DOC_FIELD)
    document = _DOC.decode(raw)
    [proposal] = document.proposals
    assert proposal.deadline_at is not None
    before = proposal.deadline_at - timedelta(microseconds=1)
    assert [p.record_id for p in scope_view_as_of(document, before).pending_proposals] == [
        proposal.record_id
    ]
    assert session_view_as_of(document, session, proposal.deadline_at).pending_proposals == ()


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
