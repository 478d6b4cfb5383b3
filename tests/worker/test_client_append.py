"""The Python client's writes: atomic seq allocation, idempotent retries, typed bad input.

A gateway numbers each session's inputs 1, 2, 3, ... with no gap (R15 relies on it).
The client allocates the seq and XADDs in one script, keyed by message id / call id,
so concurrent writers, lost replies and retries can neither skip nor reuse a seq.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import pytest_asyncio
import redis.asyncio
from redis.exceptions import TimeoutError as RedisTimeoutError

from accord_client import AccordClient, AppendUnavailableError, InvalidInputError
from accord_client.contracts.codec import Limits
from accord_client.session import ToolNames
from contracts.keys import gateway_idem_key, gateway_seq_key
from contracts.partition import partition_of
from contracts.streams import stream_name

pytestmark = [pytest.mark.redis, pytest.mark.asyncio]


class FlakyRedis(redis.asyncio.Redis):
    """Loses requests and replies of the append script: a timeout before the script ran
    (nothing written) or after it ran (written, reply lost), at `rate`."""

    rng = random.Random(7)
    rate = 0.0
    lost_before = 0
    lost_after = 0

    async def evalsha(self, *args: Any) -> Any:
        roll = self.rng.random()
        if roll < self.rate / 2:
            self.lost_before += 1
            raise RedisTimeoutError("injected: request lost")
        reply = await super().evalsha(*args)
        if roll < self.rate:
            self.lost_after += 1
            raise RedisTimeoutError("injected: reply lost")
        return reply


@pytest_asyncio.fixture
async def flaky(redis_url: str) -> AsyncIterator[FlakyRedis]:
    client = FlakyRedis.from_url(redis_url)
    assert isinstance(client, FlakyRedis)
    await client.flushall()
    yield client
    await client.aclose()


async def _entries(redis: redis.asyncio.Redis, stream: str) -> list[dict[str, Any]]:
    reply: Any = await redis.xrange(stream)
    return [json.loads(fields[b"__data__"]) for _, fields in reply]


async def test_fifty_concurrent_writers_with_lost_replies_number_without_gap_or_duplicate(
    flaky: FlakyRedis,
) -> None:
    """R15: 50 writers on one session, a quarter of the calls losing their request or
    their reply, retried by the client and again by the caller: seqs are exactly 1..N,
    one entry per message, and every caller got the seq its entry carries."""
    flaky.rate = 0.25
    client = AccordClient(flaky, partitions=4, retries=1, retry_backoff_s=0.001)
    session = client.session("agent-mira", "user-many", "s-busy")
    got: dict[str, int] = {}
    repeated = 0

    async def writer(index: int) -> None:
        nonlocal repeated
        for turn in range(4):
            message_id = f"w{index}-t{turn}"
            while True:  # the caller's own retry, with the same message id
                try:
                    appended = await session.user(
                        f"turn {turn} of writer {index}", message_id=message_id
                    )
                    break
                except AppendUnavailableError:
                    await asyncio.sleep(0)
            got[message_id] = appended.seq
            repeated += appended.repeated

    await asyncio.gather(*(writer(i) for i in range(50)))
    p = partition_of("agent-mira", "user-many", 4)
    entries = await _entries(flaky, stream_name("chat-turn", p))
    seqs = [e["seq"] for e in entries]
    assert sorted(seqs) == list(range(1, 201)), "no gap, no duplicate"
    assert seqs == sorted(seqs), "entry order is seq order"
    assert {e["message_id"]: e["seq"] for e in entries} == got
    assert flaky.lost_before > 0
    assert flaky.lost_after > 0
    assert repeated > 0, "a lost reply was answered from the idempotency key"


async def test_a_retry_after_a_lost_reply_gets_the_same_seq(aredis: redis.asyncio.Redis) -> None:
    """The same message id twice: one entry, the same seq, the second marked repeated;
    a tool result may reuse its call's id (kinds are keyed apart)."""
    session = AccordClient(aredis).session("a", "u", "s")
    first = await session.user("hello", message_id="m-1")
    again = await session.user("hello (retried)", message_id="m-1")
    call = await session.tool_call("todo_write", {"todos": []}, call_id="c-1")
    result = await session.tool_result(
        "c-1", ok=True, todos=[{"content": "x", "status": "pending"}]
    )
    assert (first.seq, first.repeated) == (1, False)
    assert (again.seq, again.entry_id, again.repeated) == (1, first.entry_id, True)
    assert (call.seq, result.seq) == (2, 3)
    assert [e["seq"] for e in await _entries(aredis, "chat-turn:{0}")] == [1]
    [stored] = await _entries(aredis, "tool-result:{0}")
    assert stored["name"] == "todo_write", "the result took its call's name"


async def test_a_tool_result_takes_its_calls_name_through_any_session_object(
    aredis: redis.asyncio.Redis,
) -> None:
    """A gateway that makes a Session object per request writes a tool result without
    the tool's name: the client learned it from the call, whichever of its Session
    objects wrote it. A call of another session, or written by another client, is not
    known: its result must name the tool, and nothing is written without it."""
    client = AccordClient(aredis)
    await client.session("a", "u", "s").tool_call("todo_write", {"todos": []}, call_id="c-1")
    result = await client.session("a", "u", "s").tool_result("c-1", ok=True, todos=[])
    [stored] = await _entries(aredis, "tool-result:{0}")
    assert (stored["call_id"], stored["name"], stored["seq"]) == ("c-1", "todo_write", result.seq)
    for other in (client.session("a", "u", "s2"), AccordClient(aredis).session("a", "u", "s")):
        with pytest.raises(InvalidInputError) as raised:
            await other.tool_result("c-1", ok=True)
        assert raised.value.field == "name"
    assert len(await _entries(aredis, "tool-result:{0}")) == 1


async def test_the_tool_name_memory_is_bounded_oldest_first() -> None:
    """The client remembers a bounded number of calls' names: past the bound the oldest
    is forgotten (its result then names its tool), a remembered one again is newest."""
    names = ToolNames(kept=2)
    names.remember(("a", "u", "s", "c-1"), "one")
    names.remember(("a", "u", "s", "c-2"), "two")
    names.remember(("a", "u", "s", "c-1"), "one")
    names.remember(("a", "u", "s", "c-3"), "three")
    known = [names.get(("a", "u", "s", f"c-{n}")) for n in (1, 2, 3)]
    assert known == ["one", None, "three"]


async def test_a_write_carries_the_trace_context_and_refuses_a_malformed_one(
    aredis: redis.asyncio.Redis,
) -> None:
    """The input carries the gateway's `traceparent` (W3C trace context) when the client
    has one to give; a malformed one is a typed error and nothing is written."""
    context: list[str | None] = ["00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"]
    session = AccordClient(aredis, trace_context=lambda: context[0]).session("a", "u", "s")
    await session.user("hello", message_id="m-1")
    context[0] = None
    await session.user("hello", message_id="m-2")
    context[0] = "00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01"
    with pytest.raises(InvalidInputError) as raised:
        await session.user("hello", message_id="m-3")
    assert raised.value.field == "$.traceparent"
    traced, plain = await _entries(aredis, "chat-turn:{0}")
    assert traced["traceparent"] == "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    assert "traceparent" not in plain


async def test_the_idempotency_memory_is_bounded(aredis: redis.asyncio.Redis) -> None:
    """Only the last `idempotency_window` keys are remembered, with a TTL: memory per
    session is bounded; the seq counter itself never expires."""
    session = AccordClient(aredis, idempotency_window=3, idempotency_ttl_s=60).session(
        "a", "u", "s"
    )
    for n in range(10):
        await session.user("hi", message_id=f"m-{n}")
    idem = gateway_idem_key(0, "a", "u", "s")
    names: Any = await aredis.hkeys(idem)
    fields = sorted(k.decode() for k in names)
    assert fields == ["i:chat_turn:m-7", "i:chat_turn:m-8", "i:chat_turn:m-9", "o:10", "o:8", "o:9"]
    assert 0 < await aredis.ttl(idem) <= 60
    assert await aredis.ttl(gateway_seq_key(0, "a", "u", "s")) == -1


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda s: s.user("x" * 70_000), "$.text"),
        (lambda s: s.user("hi", timezone="Mars/Olympus_Mons"), "$.timezone"),
        (lambda s: s.user("hi", message_id="m" * 300), "$.message_id"),
        (lambda s: s.tool_call("", {}), "$.name"),
        (lambda s: s.tool_call("soul_agreement_accept", {"blob": "y" * 5000}), "$.arguments"),
        (lambda s: s.user("hi", ts=datetime.now(UTC) + timedelta(days=100)), "$.ts"),
        (
            lambda s: s.tool_result(
                "c", ok=True, name="todo_write", todos=[{"content": "", "status": "pending"}]
            ),
            "$.todos[0].content",
        ),
        (lambda s: s.tool_result("c", ok=True, todos=[]), "name"),
        (lambda s: s.accept("", 1), "$.arguments.record_id"),
        (lambda s: s.accept("r", 0), "$.arguments.expected_revision"),
    ],
)
async def test_bad_input_is_a_typed_error_before_anything_is_written(
    aredis: redis.asyncio.Redis, call: Any, field: str
) -> None:
    """Bad input from the caller never becomes a dead letter later: InvalidInputError
    naming the field, and no key at all is written (no seq consumed)."""
    session = AccordClient(aredis, limits=Limits(max_text_bytes=64 * 1024)).session("a", "u", "s")
    with pytest.raises(InvalidInputError) as raised:
        await call(session)
    assert raised.value.field == field
    assert await aredis.keys("*") == []


@pytest.mark.parametrize(
    "ids", [("", "u", "s"), ("a", "", "s"), ("a", "u", ""), ("a", "u" * 257, "s")]
)
async def test_an_empty_or_long_id_is_refused_when_the_session_is_made(
    aredis: redis.asyncio.Redis, ids: tuple[str, str, str]
) -> None:
    with pytest.raises(InvalidInputError):
        AccordClient(aredis).session(*ids)
    assert await aredis.keys("*") == []


async def test_retries_exhausted_is_a_typed_error_and_safe_to_retry(flaky: FlakyRedis) -> None:
    """Every attempt lost: AppendUnavailableError names the key; the caller's retry
    with that key, once Redis answers again, appends once."""
    flaky.rate = 2.0  # every request is lost
    session = AccordClient(flaky, retries=2, retry_backoff_s=0.001).session("a", "u", "s")
    with pytest.raises(AppendUnavailableError) as raised:
        await session.user("hi", message_id="m-1")
    assert raised.value.idempotency_key == "m-1"
    flaky.rate = 0.0
    again = await session.user("hi", message_id="m-1")
    assert again.seq == 1
    assert len(await _entries(flaky, "chat-turn:{0}")) == 1


async def test_what_the_worker_drops_is_written_not_refused(aredis: redis.asyncio.Redis) -> None:
    """Another tool's oversize arguments are never read by the worker (it drops them and
    the session moves on), so the client writes the call instead of refusing it."""
    session = AccordClient(aredis).session("a", "u", "s")
    appended = await session.tool_call("write_file", {"content": "y" * 5000})
    assert appended.seq == 1
