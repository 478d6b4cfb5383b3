"""`AccordClient.subscribe`: a service's consumer group over the agreement events.

Events here are the published examples XADDed as the worker writes them (the entry
layout of docs/contracts.md), so each subscriber rule is tested on its own: acks after
the handler, redelivery of what a failed handler left, dedup by event_id, replay from
an entry id, one group per service, unknown event kinds, and a view read in one round
trip.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import redis.asyncio

from accord_client import AccordClient, Delivery, UnknownEvent
from accord_client.contracts.outputs import StateChanged, ToolOutcome
from contracts.keys import VIEW_DOC_FIELD, view_key
from tests.support.paths import EXAMPLES

pytestmark = [pytest.mark.redis, pytest.mark.asyncio]

STREAM = "agreement-events:{0}"


def _example(name: str) -> str:
    return json.dumps(json.loads((EXAMPLES / f"{name}.json").read_text("utf-8")))


async def _publish(aredis: redis.asyncio.Redis, *names: str) -> list[str]:
    ids = []
    for name in names:
        entry_id: Any = await aredis.xadd(STREAM, {"__data__": _example(name)})
        ids.append(entry_id.decode())
    return ids


async def _take(subscription: Any, count: int) -> list[Delivery]:
    got = []
    async for delivery in subscription:
        got.append(delivery)
        if len(got) == count:
            break
    return got


async def test_events_are_typed_and_acked_after_the_handler(aredis: redis.asyncio.Redis) -> None:
    """A delivery stays pending while its handler runs and is acked on the next step."""
    await _publish(aredis, "state_changed.proposed", "tool_outcome.accepted")
    client = AccordClient(aredis)
    subscription = client.subscribe("svc", consumer="c1", block_ms=50)
    first = await anext(subscription)
    assert isinstance(first.event, StateChanged)
    pending: Any = await aredis.xpending(STREAM, "svc")
    assert pending["pending"] == 2, "delivered, not yet handled"
    second = await anext(subscription)
    assert isinstance(second.event, ToolOutcome)
    pending = await aredis.xpending(STREAM, "svc")
    assert pending["pending"] == 1, "the first is acked once its handler returned"
    await subscription.ack_current()
    pending = await aredis.xpending(STREAM, "svc")
    assert pending["pending"] == 0


async def test_a_failed_handler_gets_its_event_again_first(aredis: redis.asyncio.Redis) -> None:
    """An exception in the loop body leaves the delivery pending; the same consumer's
    next subscription reads it again before anything new."""
    await _publish(aredis, "state_changed.proposed")
    client = AccordClient(aredis)

    async def failing_service() -> None:
        async with client.subscribe("svc", consumer="c1", block_ms=50) as events:
            async for _ in events:
                raise RuntimeError("handler failed")

    with pytest.raises(RuntimeError):
        await failing_service()
    await _publish(aredis, "tool_outcome.accepted")
    again = await _take(client.subscribe("svc", consumer="c1", block_ms=50), 2)
    assert [type(d.event) for d in again] == [StateChanged, ToolOutcome]


async def test_duplicates_by_event_id_are_skipped_and_acked(aredis: redis.asyncio.Redis) -> None:
    """The same event_id twice (a republished event) is handed out once."""
    await _publish(
        aredis, "state_changed.proposed", "state_changed.proposed", "tool_outcome.accepted"
    )
    client = AccordClient(aredis)
    subscription = client.subscribe("svc", block_ms=50)
    got = await _take(subscription, 2)
    assert [type(d.event) for d in got] == [StateChanged, ToolOutcome]
    await subscription.ack_current()
    pending: Any = await aredis.xpending(STREAM, "svc")
    assert pending["pending"] == 0, "the duplicate was acked too"


async def test_each_service_has_its_own_group_and_can_replay_from_an_entry_id(
    aredis: redis.asyncio.Redis,
) -> None:
    """Two groups each see every event; resume_from moves a group back to an entry id."""
    ids = await _publish(
        aredis, "state_changed.proposed", "tool_outcome.accepted", "tool_outcome.rejected"
    )
    client = AccordClient(aredis)
    a = await _take(client.subscribe("svc-a", block_ms=50), 3)
    b = await _take(client.subscribe("svc-b", block_ms=50), 3)
    assert [d.entry_id for d in a] == [d.entry_id for d in b] == ids
    replay = await _take(client.subscribe("svc-a", resume_from={0: ids[0]}, block_ms=50), 2)
    assert [d.entry_id for d in replay] == ids[1:]
    assert [d.event_id for d in replay] == [d.event_id for d in a[1:]]


async def test_an_unknown_event_kind_is_handed_out_untyped(aredis: redis.asyncio.Redis) -> None:
    """Outputs only grow: a newer kind arrives as UnknownEvent, not as a crash."""
    newer = json.dumps({"type": "agreement.something_new", "event_id": "x@1", "extra": 1})
    await aredis.xadd(STREAM, {"__data__": newer})
    [delivery] = await _take(AccordClient(aredis).subscribe("svc", block_ms=50), 1)
    assert isinstance(delivery.event, UnknownEvent)
    assert (delivery.event.type, delivery.event_id) == ("agreement.something_new", "x@1")


class CountingRedis(redis.asyncio.Redis):
    commands: list[str]

    async def execute_command(self, *args: Any, **options: Any) -> Any:
        self.commands.append(str(args[0]))
        return await super().execute_command(*args, **options)  # type: ignore[no-untyped-call]


async def test_a_view_read_is_one_round_trip(redis_url: str) -> None:
    """R6: a session's view and a scope's view are one command each (one HGET), once the
    client has read the partition count (one GET, the first time only)."""
    counting = CountingRedis.from_url(redis_url)
    assert isinstance(counting, CountingRedis)
    counting.commands = []
    document = _example("scope_view_document")
    await counting.hset(view_key(0, "agent-mira", "user-alex"), VIEW_DOC_FIELD, document)
    client = AccordClient(counting)
    counting.commands.clear()
    view = await client.session("agent-mira", "user-alex", "session-en-1").view()
    assert counting.commands == ["GET", "HGET"]
    counting.commands.clear()
    view = await client.session("agent-mira", "user-alex", "session-en-1").view()
    assert counting.commands == ["HGET"]
    assert [p.revision for p in view.pending_proposals] == [2]
    counting.commands.clear()
    scope = await client.scope_view("agent-mira", "user-alex")
    assert counting.commands == ["HGET"]
    assert len(scope.current_agreements) == 1
    await counting.aclose()


async def test_a_view_of_now_shows_what_a_clock_ahead_of_the_readers_stamped(
    redis_url: str,
) -> None:
    """R6 at the default instant: current memory is the committed state. The gateway that
    stamped the inputs may run ahead of the reader's clock: an agreement opened and a
    proposal made "2 s from now" are shown to a view of now (the agent needs the proposal's
    id and revision to accept it, R3), while a view as of an explicit instant still
    leaves out what was not yet so then."""
    ahead = datetime.now(UTC) + timedelta(seconds=2)
    document = json.loads(_example("scope_view_document"))
    for entry in (*document["agreements"], *document["proposals"]):
        entry["since"] = ahead.isoformat()
    connection = redis.asyncio.Redis.from_url(redis_url)
    await connection.hset(
        view_key(0, "agent-mira", "user-alex"), VIEW_DOC_FIELD, json.dumps(document)
    )
    client = AccordClient(connection)
    session = client.session("agent-mira", "user-alex", "session-en-1")
    view = await session.view()
    assert len(view.current_agreements) == 1
    assert [p.revision for p in view.pending_proposals] == [2]
    scope = await client.scope_view("agent-mira", "user-alex")
    assert (len(scope.current_agreements), len(scope.pending_proposals)) == (1, 1)
    before = ahead - timedelta(seconds=1)
    assert (await session.view(as_of=before)).pending_proposals == ()
    assert (
        await client.scope_view("agent-mira", "user-alex", as_of=before)
    ).current_agreements == ()
    await connection.aclose()


async def test_a_client_with_decoded_responses_works_the_same(redis_url: str) -> None:
    """`decode_responses=True` (str replies): appends, outcomes by call id, views and
    subscriptions behave as with bytes."""
    decoded = redis.asyncio.Redis.from_url(redis_url, decode_responses=True)
    await decoded.flushall()
    client = AccordClient(decoded)
    session = client.session("agent-mira", "user-alex", "session-en-1")
    call = await session.tool_call(
        "soul_agreement_accept", {"record_id": "r", "expected_revision": 1}
    )
    outcome = json.loads(_example("tool_outcome.accepted"))
    outcome["call_id"] = "call-decoded"
    await decoded.xadd(STREAM, {"__data__": json.dumps(outcome)})
    found = await session.wait_outcome("call-decoded", after=call.entry_id, timeout=5)
    assert found is not None
    assert found.accepted
    await decoded.hset(
        view_key(0, "agent-mira", "user-alex"), VIEW_DOC_FIELD, _example("scope_view_document")
    )
    assert len((await session.view()).pending_proposals) == 1
    [delivery] = await _take(client.subscribe("svc", block_ms=50), 1)
    assert isinstance(delivery.event, ToolOutcome)
    await decoded.aclose()


async def _publish_to(aredis: redis.asyncio.Redis, partition: int, event_id: str) -> None:
    event = json.loads(_example("state_changed.proposed"))
    event["event_id"] = event_id
    await aredis.xadd(f"agreement-events:{{{partition}}}", {"__data__": json.dumps(event)})


async def test_a_subscription_follows_a_grown_layout_old_events_first_r15(
    aredis: redis.asyncio.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """R15 for subscribers: without `partitions=` a subscription reads every partition
    of the layout; when `accord repartition` grows it (2 -> 3), the new partition's
    stream joins only after what the old streams held when the change was seen, so an
    event published before the move comes before one published after it in the new
    partition, and both come once."""
    monkeypatch.setattr("accord_client.subscription.LAYOUT_CHECK_S", 0.0)
    await aredis.set("accord:config", json.dumps({"partitions": 2, "group": "accord"}))
    client = AccordClient(aredis)
    subscription = client.subscribe("svc", consumer="c1", block_ms=50, count=1)
    await _publish_to(aredis, 0, "first~0")
    assert [d.event_id for d in await _take(subscription, 1)] == ["first~0"]
    # Unread when the layout grows: published before the move, in old partitions.
    before = [f"before~0-{n}" for n in range(4)]
    for event_id in before:
        await _publish_to(aredis, 0, event_id)
    await _publish_to(aredis, 1, "before~1")
    await aredis.set("accord:config", json.dumps({"partitions": 3, "group": "accord"}))
    await _publish_to(aredis, 2, "after~2")
    got = [d.event_id for d in await _take(subscription, 6)]
    assert sorted(got) == sorted([*before, "before~1", "after~2"])
    assert got[-1] == "after~2", "the new partition's event after every old one"
    assert subscription.partitions == [0, 1, 2]
