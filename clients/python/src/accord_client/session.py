"""One chat session as a gateway writes it: numbered inputs, the view, the accept tool."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import msgspec
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from accord_client.contracts.codec import ContractError, check_ts, decode_event
from accord_client.contracts.common import MAX_SEQ
from accord_client.contracts.inputs import INPUT_STREAM_OF
from accord_client.contracts.keys import (
    VIEW_DOC_FIELD,
    applied_field,
    gateway_idem_key,
    gateway_seq_key,
    layout_key,
    view_key,
)
from accord_client.contracts.outputs import ToolOutcome
from accord_client.contracts.partition import partition_of
from accord_client.contracts.streams import AGREEMENT_EVENTS, EntryId, as_text, stream_name
from accord_client.contracts.tools import ACCEPT_TOOL_NAME
from accord_client.contracts.view import ScopeViewDocument, SessionView, session_view_as_of
from accord_client.errors import (
    AcceptTimeoutError,
    AccordClientError,
    AppendUnavailableError,
    AppliedTimeoutError,
    InvalidInputError,
    NotReplicatedError,
)
from accord_client.scripts import run_append, run_append_waiting

if TYPE_CHECKING:
    from accord_client.client import AccordClient

# The append script's refusal when the partition belongs to another layout (client.py).
LAYOUT_REFUSAL = "ACCORDLAYOUT"

_ENCODER = msgspec.json.Encoder()
_DOCUMENT = msgspec.json.Decoder(ScopeViewDocument)
_OUTCOME = msgspec.json.Decoder(ToolOutcome)
_DATA = b"__data__"
_TOOL_OUTCOME = "agreement.tool_outcome"
# Retried: the request may or may not have reached Redis (or not its replicas:
# NotReplicatedError is a ConnectionError); the idempotency key decides.
RETRYABLE = (RedisTimeoutError, RedisConnectionError, ConnectionError, TimeoutError)


class _Probe(msgspec.Struct):
    """Just enough of an agreement event to tell whether it answers a call."""

    type: str
    session_id: str | None = None
    call_id: str | None = None


_PROBE = msgspec.json.Decoder(_Probe)
_IDENT_RULE = "must be a string of 1 to 256 characters"


# A plain result record: alike in shape to store.ownership.LeaseReply, no logic shared
# (CONTRIBUTING.md, "Repeated shapes").
@dataclass(frozen=True, slots=True)
class Appended:
    """Where an input went: its seq, its entry id, and whether an earlier call wrote it."""

    seq: int
    entry_id: str
    stream: str
    # True when this idempotency key was appended before: nothing was written now.
    repeated: bool


def _now() -> datetime:
    return datetime.now(UTC)


def _ms_before(entry_id: str) -> str:
    """The stream id just before `entry_id`'s millisecond: XREAD from it sees that ms."""
    return str(EntryId.parse(entry_id).last_before_ms())


class ToolNames:
    """The tool names of a client's recent calls, by session and call id, so a tool
    result can omit the name whichever `Session` object writes it (a gateway often makes
    one per request, and the result comes in a later one than its call). Bounded: the
    oldest are forgotten first, and a result of a forgotten call names its tool."""

    def __init__(self, kept: int = 4096) -> None:
        self.kept = kept
        self._names: OrderedDict[tuple[str, str, str, str], str] = OrderedDict()

    def remember(self, key: tuple[str, str, str, str], name: str) -> None:
        self._names[key] = name
        self._names.move_to_end(key)
        while len(self._names) > self.kept:
            self._names.popitem(last=False)

    def get(self, key: tuple[str, str, str, str]) -> str | None:
        return self._names.get(key)


class Session:
    """Write inputs of one session and read its view. Made by `AccordClient.session`.

    Every write allocates the session's next seq in the same server-side script that
    appends the entry, so concurrent writers (replicas, restarts) never leave a gap or
    reuse a seq; each write is keyed by its message id or call id, so a retried write
    returns the seq it already got.
    """

    def __init__(self, client: AccordClient, agent_id: str, user_id: str, session_id: str) -> None:
        for name, value in (
            ("agent_id", agent_id),
            ("user_id", user_id),
            ("session_id", session_id),
        ):
            if not isinstance(value, str) or not 1 <= len(value) <= 256:
                raise InvalidInputError(f"$.{name}", _IDENT_RULE)
        self.client = client
        self.agent_id = agent_id
        self.user_id = user_id
        self.session_id = session_id
        self._applied_field = applied_field(session_id)
        # The partition and its key names under the count they were computed with.
        self._count = 0
        self._at(client.partitions)

    def _at(self, partitions: int) -> None:
        """Compute the partition and key names for `partitions`, if not done already."""
        if partitions == self._count:
            return
        agent_id, user_id, session_id = self.agent_id, self.user_id, self.session_id
        self._count = partitions
        self.partition = partition_of(agent_id, user_id, partitions)
        self._seq_key = gateway_seq_key(self.partition, agent_id, user_id, session_id)
        self._idem_key = gateway_idem_key(self.partition, agent_id, user_id, session_id)
        self._layout_key = layout_key(self.partition)
        self._view_key = view_key(self.partition, agent_id, user_id)

    async def _placed(self) -> None:
        """Key names for the client's partition count, learned from Redis the first time."""
        self._at(await self.client.known_partitions())

    # ------------------------------------------------------------------ writes
    async def user(
        self,
        text: str,
        *,
        timezone: str | None = None,
        message_id: str | None = None,
        ts: datetime | None = None,
    ) -> Appended:
        """A user turn; `timezone` (IANA) resolves its deadlines (DESIGN section 4)."""
        return await self._chat("user", text, timezone, message_id, ts)

    async def assistant(
        self, text: str, *, message_id: str | None = None, ts: datetime | None = None
    ) -> Appended:
        """An assistant turn: recorded in order, never proposes or accepts (R1)."""
        return await self._chat("assistant", text, None, message_id, ts)

    async def system(
        self, text: str, *, message_id: str | None = None, ts: datetime | None = None
    ) -> Appended:
        return await self._chat("system", text, None, message_id, ts)

    async def tool_call(
        self,
        name: str,
        arguments: Mapping[str, Any],
        *,
        call_id: str | None = None,
        ts: datetime | None = None,
    ) -> Appended:
        """A tool call of the model. For `soul_agreement_accept` use `accept`."""
        call_id = call_id or f"call-{uuid.uuid4().hex}"
        appended = await self._append(
            {
                "type": "tool_call",
                "call_id": call_id,
                "name": name,
                "arguments": dict(arguments),
            },
            ts,
            call_id,
        )
        self.client.tool_names.remember(self._call_key(call_id), name)
        return appended

    def _call_key(self, call_id: str) -> tuple[str, str, str, str]:
        return (self.agent_id, self.user_id, self.session_id, call_id)

    async def tool_result(
        self,
        call_id: str,
        ok: bool,  # noqa: FBT001  (the result's own field)
        *,
        todos: Sequence[Mapping[str, str]] | None = None,
        name: str | None = None,
        ts: datetime | None = None,
    ) -> Appended:
        """A tool's result; for `todo_write`, `todos` is the whole list after the write.

        `name` defaults to the name of call `call_id` of this session, written through
        this client (any of its `Session` objects); a call it did not write needs `name`.
        """
        name = name or self.client.tool_names.get(self._call_key(call_id))
        if name is None:
            raise InvalidInputError("name", f"unknown call {call_id!r}: pass the tool's name")
        document: dict[str, Any] = {"type": "tool_result", "call_id": call_id, "name": name}
        document["ok"] = ok
        if todos is not None:
            document["todos"] = [dict(item) for item in todos]
        return await self._append(document, ts, call_id)

    async def _chat(
        self,
        role: str,
        text: str,
        timezone: str | None,
        message_id: str | None,
        ts: datetime | None,
    ) -> Appended:
        message_id = message_id or f"msg-{uuid.uuid4().hex}"
        document: dict[str, Any] = {
            "type": "chat_turn",
            "role": role,
            "text": text,
            "message_id": message_id,
        }
        if timezone is not None:
            document["timezone"] = timezone
        return await self._append(document, ts, message_id)

    def _encode(self, body: dict[str, Any], ts: datetime | None) -> tuple[str, bytes]:
        """The entry's stream family and its JSON without `seq`, checked as the worker will
        check it."""
        document = {
            **body,
            "agent_id": self.agent_id,
            "user_id": self.user_id,
            "session_id": self.session_id,
            "ts": ts or _now(),
        }
        if self.client.trace_context is not None:
            traceparent = self.client.trace_context()
            if traceparent is not None:
                document["traceparent"] = traceparent
        try:
            # The largest seq stands in for the real one, so the size checks are the
            # worker's for any seq the script may allocate.
            event = decode_event(_ENCODER.encode({**document, "seq": MAX_SEQ}), self.client.limits)
            # The worker bounds ts around the entry id's time; the id is about now.
            check_ts(event, int(_now().timestamp() * 1000), self.client.limits)
        except ContractError as error:
            raise InvalidInputError(error.field, error.message) from error
        return INPUT_STREAM_OF[type(event)], _ENCODER.encode(document)

    async def _append(self, body: dict[str, Any], ts: datetime | None, key: str) -> Appended:
        family, data = self._encode(body, ts)
        idempotency_key = f"{body['type']}:{key}"
        client = self.client
        await self._placed()
        attempt = 0
        # While a repartition moves the partition: when to stop waiting, and the pause.
        waiting_until: float | None = None
        pause = client.retry_backoff_s
        while True:
            stream = stream_name(family, self.partition)
            keys = [self._seq_key, self._idem_key, stream, self._layout_key]
            args = [
                idempotency_key,
                data,
                client.idempotency_window,
                client.idempotency_ttl_s,
                "1" if client.wait_replicas else "0",
                self._count,
            ]
            try:
                reply = await self._run_append(keys, args)
                break
            except RETRYABLE as error:
                attempt += 1
                if attempt > client.retries:
                    raise AppendUnavailableError(key, error) from error
                await asyncio.sleep(client.retry_backoff_s * 2 ** (attempt - 1))
            except ResponseError as error:
                refusal = str(error)
                if not refusal.startswith(LAYOUT_REFUSAL):
                    raise
                if client.follow_refusal(refusal):
                    self._at(client.partitions)  # the new count: its partition, at once
                    continue
                # A repartition moves the partition: wait for it, up to layout_wait_s.
                now = time.monotonic()
                waiting_until = waiting_until or now + client.layout_wait_s
                if now >= waiting_until:
                    raise AppendUnavailableError(key, error) from error
                await asyncio.sleep(min(pause, waiting_until - now))
                pause = min(pause * 2, 1.0)
                self._at(await client.learn_partitions())
        seq, entry_id, repeated = reply
        return Appended(int(seq), as_text(entry_id), stream, repeated=bool(int(repeated)))

    async def _run_append(self, keys: list[str], args: list[Any]) -> Any:  # noqa: ANN401  (a Lua reply)
        """One try of the append; with `wait_replicas`, one that counts only once that
        many replicas have it (raises NotReplicatedError, retried, otherwise)."""
        client = self.client
        if not client.wait_replicas:
            return await run_append(client.redis, keys, args, functions=client.functions)
        reply, acknowledged = await run_append_waiting(
            client.redis,
            keys,
            args,
            functions=client.functions,
            replicas=client.wait_replicas,
            timeout_ms=client.wait_timeout_ms,
        )
        if acknowledged < client.wait_replicas:
            raise NotReplicatedError(acknowledged, client.wait_replicas)
        return reply

    # ------------------------------------------------------------------ accept
    async def accept(
        self,
        record_id: str,
        expected_revision: int,
        *,
        timeout: float = 10.0,  # noqa: ASYNC109  (the outcome's deadline is the API)
        call_id: str | None = None,
        ts: datetime | None = None,
    ) -> ToolOutcome:
        """Call `soul_agreement_accept` for the agent and wait for its outcome (R3).

        Returns the `ToolOutcome` for this call (accepted, or the rejection reason and
        the record's current revision); raises `AcceptTimeoutError` when none arrives in
        `timeout` seconds. Retrying with the same `call_id` writes nothing new.
        """
        if isinstance(expected_revision, bool) or not isinstance(expected_revision, int):
            raise InvalidInputError("$.arguments.expected_revision", "must be an integer")
        if expected_revision < 1:
            raise InvalidInputError("$.arguments.expected_revision", "must be >= 1")
        if not isinstance(record_id, str) or not 1 <= len(record_id) <= 256:
            raise InvalidInputError(
                "$.arguments.record_id", "must be a string of 1 to 256 characters"
            )
        call_id = call_id or f"accept-{uuid.uuid4().hex}"
        arguments = {"record_id": record_id, "expected_revision": expected_revision}
        appended = await self.tool_call(ACCEPT_TOOL_NAME, arguments, call_id=call_id, ts=ts)
        outcome = await self.wait_outcome(call_id, after=appended.entry_id, timeout=timeout)
        if outcome is None:
            raise AcceptTimeoutError(call_id, appended.seq, timeout)
        return outcome

    async def wait_outcome(
        self,
        call_id: str,
        *,
        after: str,
        timeout: float,  # noqa: ASYNC109
    ) -> ToolOutcome | None:
        """The tool outcome for `call_id` published after entry `after`, or None in time."""
        await self._placed()
        stream = stream_name(AGREEMENT_EVENTS, self.partition)
        cursor = _ms_before(after)
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            block = max(1, min(int(left * 1000), 1000))
            reply: Any = await self.client.redis.xread({stream: cursor}, count=500, block=block)
            for _, entries in reply or ():
                for entry_id, fields in entries:
                    cursor = as_text(entry_id)
                    raw = fields.get(_DATA, fields.get("__data__"))  # either decode_responses
                    data = raw.encode() if isinstance(raw, str) else raw
                    if data is None or call_id.encode() not in data:
                        continue
                    probe = _PROBE.decode(data)
                    if (
                        probe.type == _TOOL_OUTCOME
                        and probe.call_id == call_id
                        and probe.session_id == self.session_id
                    ):
                        try:
                            return _OUTCOME.decode(data)
                        except msgspec.ValidationError as error:
                            # A newer worker (a new rejection reason): typed, not a crash.
                            raise AccordClientError(
                                f"outcome of {call_id!r} not understood by this client: {error}"
                            ) from error
        return None

    # ------------------------------------------------------------------- reads
    async def view(self, *, as_of: datetime | None = None) -> SessionView:
        """Current agreements of the scope and this session's pending proposals (R6).

        One round trip (HGET of the scope's view document); filtered by deadline at
        `as_of` (default: now), so an agreement past its deadline is gone even before
        the worker's sweep records the expiry (R9). Without `as_of` it is the committed
        state: a proposal stamped by a gateway clock ahead of this one is shown (R3 needs
        its id and revision); an explicit `as_of` leaves out what was not yet so then.
        """
        await self._placed()
        raw: Any = await self.client.redis.hget(self._view_key, VIEW_DOC_FIELD)
        if raw is None and await self._moved():
            raw = await self.client.redis.hget(self._view_key, VIEW_DOC_FIELD)
        document = self._document(raw)
        return session_view_as_of(document, self.session_id, as_of or _now(), now=as_of is None)

    def _document(self, raw: bytes | None) -> ScopeViewDocument:
        if raw is None:  # nothing committed for the scope yet
            return ScopeViewDocument(agent_id=self.agent_id, user_id=self.user_id)
        return _DOCUMENT.decode(raw)

    async def applied_seq(self) -> int:
        """The session's applied seq: every seq up to it is applied (or skipped as a gap)."""
        await self._placed()
        raw: Any = await self.client.redis.hget(self._view_key, self._applied_field)
        if raw is None and await self._moved():
            raw = await self.client.redis.hget(self._view_key, self._applied_field)
        return int(raw) if raw is not None else 0

    async def _moved(self) -> bool:
        """Whether the partition count changed since it was learned (then the key names
        follow it): a read that finds nothing asks, since a repartition may have moved
        the scope (docs/partitions.md, "Growing")."""
        before = self._count
        self._at(await self.client.relearn_partitions())
        return self._count != before

    async def applied(self, seq: int) -> bool:
        """Whether input `seq` of this session has been applied (read your writes)."""
        return await self.applied_seq() >= seq

    async def wait_applied(self, seq: int, *, timeout: float = 10.0) -> None:  # noqa: ASYNC109
        """Return once input `seq` is applied; `AppliedTimeoutError` after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        delay = 0.002
        while (applied := await self.applied_seq()) < seq:
            if time.monotonic() >= deadline:
                raise AppliedTimeoutError(seq, applied, timeout)
            await asyncio.sleep(delay)
            delay = min(delay * 2, 0.05)
