"""The gateway's entry point: sessions to write, scope views to read, events to follow."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Self

import msgspec
from redis.asyncio import Redis, RedisCluster
from redis.exceptions import NoPermissionError

from accord_client.contracts.codec import DEFAULT_LIMITS, Limits
from accord_client.contracts.explain import Explanation, explain
from accord_client.contracts.keys import (
    CONFIG_KEY,
    LAYOUT_MOVING,
    VIEW_DOC_FIELD,
    Layout,
    record_key,
    view_key,
)
from accord_client.contracts.partition import partition_of
from accord_client.contracts.records import AgreementRecord
from accord_client.contracts.redis_url import is_sentinel_url
from accord_client.contracts.view import ScopeView, ScopeViewDocument, scope_view_as_of
from accord_client.errors import AccordClientError, InvalidInputError, UnknownRecordError
from accord_client.scripts import AnyRedis
from accord_client.sentinel import sentinel_redis
from accord_client.session import Session, ToolNames
from accord_client.subscription import Subscription

_DOCUMENT = msgspec.json.Decoder(ScopeViewDocument)
_RECORD = msgspec.json.Decoder(AgreementRecord)
_LAYOUT = msgspec.json.Decoder(Layout)
# A read that finds nothing asks Redis for the count again at most this often.
RELEARN_AFTER_S = 1.0


class AccordClient:
    """asyncio client for accord's gateway side (docs/gateway.md).

    `redis` is a `redis.asyncio.Redis` or `RedisCluster` (either `decode_responses`).
    The partition count is Redis's (`accord:config`, read once, before the first call that
    needs it); `partitions` (default 1) is used only while Redis has none (no worker has
    started yet). After `accord
    repartition` an append with the old count is refused by Redis and retried with the new
    one; during the move appends wait, up to `layout_wait_s` (docs/partitions.md,
    "Growing"). `limits` are the workers' input limits,
    so an input they would dead-letter is refused here, before anything is written.
    `functions=True` appends by `FCALL` from the function library an operator loaded
    (Redis 7; docs/security.md, "Redis 6.2 and Redis 7") instead of EVALSHA/EVAL.
    `trace_context`, called at each write, returns the W3C `traceparent` of the
    gateway's current span (or None): the input carries it, and a tracing worker and the
    subscribers continue that trace (docs/operations.md, "Traces"). The client itself
    depends on no tracing library.
    """

    def __init__(  # noqa: PLR0913  (each knob is the deployment's)
        self,
        redis: AnyRedis,
        *,
        partitions: int | None = None,
        limits: Limits = DEFAULT_LIMITS,
        retries: int = 3,
        retry_backoff_s: float = 0.05,
        idempotency_window: int = 256,
        idempotency_ttl_s: int = 7 * 24 * 3600,
        functions: bool = False,
        trace_context: Callable[[], str | None] | None = None,
        wait_replicas: int = 0,
        wait_timeout_ms: int = 1_000,
        layout_wait_s: float = 60.0,
    ) -> None:
        if partitions is not None and not 1 <= partitions <= 16384:
            raise InvalidInputError("partitions", "must be 1 to 16384")
        if idempotency_window < 1:
            raise InvalidInputError("idempotency_window", "must be >= 1")
        self.redis = redis
        # The count as known now; learned from Redis before the first call that needs it.
        self._given = partitions or 1
        self.partitions = self._given
        self._learned = False
        self._learned_at = 0.0
        self._learning = asyncio.Lock()
        self.layout_wait_s = layout_wait_s
        self.limits = limits
        self.retries = retries
        self.retry_backoff_s = retry_backoff_s
        self.idempotency_window = idempotency_window
        self.idempotency_ttl_s = idempotency_ttl_s
        # Redis 7 function mode: append by `FCALL accord_append` (loaded by an operator
        # with `accord functions load`), so the gateway's user needs no EVAL.
        self.functions = functions
        self.trace_context = trace_context
        # Durability across failover (docs/gateway.md): an append returns its seq only
        # once this many replicas acknowledged it (WAIT), like the workers' setting.
        if wait_replicas < 0 or wait_timeout_ms < 1:
            raise InvalidInputError("wait_replicas", "must be >= 0, with wait_timeout_ms >= 1")
        self.wait_replicas = wait_replicas
        self.wait_timeout_ms = wait_timeout_ms
        # The names of this client's tool calls: a tool result may omit its call's name.
        self.tool_names = ToolNames()

    @classmethod
    def from_url(cls, url: str, *, cluster: bool = False, **options: Any) -> AccordClient:  # noqa: ANN401  (AccordClient's keyword options)
        """A client on `url`: redis://, rediss://, unix://, or the primary a Sentinel names
        (redis+sentinel://, accord_client.sentinel), which it follows across failovers."""
        if is_sentinel_url(url):
            if cluster:
                raise InvalidInputError("cluster", "a Sentinel URL names no Redis Cluster")
            redis: AnyRedis = sentinel_redis(url)
        else:
            redis = RedisCluster.from_url(url) if cluster else Redis.from_url(url)
        return cls(redis, **options)

    async def aclose(self) -> None:
        await self.redis.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    def session(self, agent_id: str, user_id: str, session_id: str) -> Session:
        """One session of the scope (agent_id, user_id); ids are checked here."""
        return Session(self, agent_id, user_id, session_id)

    def partition_of(self, agent_id: str, user_id: str) -> int:
        """The scope's partition under the count as known now (`learn_partitions`)."""
        return partition_of(agent_id, user_id, self.partitions)

    async def learn_partitions(self) -> int:
        """Read the partition count from Redis (`accord:config`; the `partitions` given,
        or 1, when no worker has started yet), remember it, and return it. During a
        repartition it is the count being moved from: appends wait until the move is
        done, then learn the new one."""
        try:
            raw: Any = await self.redis.get(CONFIG_KEY)
        except NoPermissionError as error:
            raise AccordClientError(
                f"cannot read the partition count ({CONFIG_KEY}): the Redis user needs GET on"
                f" it (deploy/redis/users.acl grants it to gateway): {error}"
            ) from error
        self.partitions = self._given if raw is None else _LAYOUT.decode(raw).partitions
        self._learned = True
        self._learned_at = time.monotonic()
        return self.partitions

    async def relearn_partitions(self) -> int:
        """The count read again from Redis, unless it was read within RELEARN_AFTER_S
        (for reads that found nothing: a repartition may have moved the scope)."""
        if self._learned and time.monotonic() - self._learned_at < RELEARN_AFTER_S:
            return self.partitions
        return await self.learn_partitions()

    async def known_partitions(self) -> int:
        """The partition count, read from Redis the first time (once, however many calls
        start together: one GET, and a fresh RedisCluster client is not initialized by
        several tasks at once, which redis-py's asyncio cluster does not survive)."""
        if not self._learned:
            async with self._learning:
                if not self._learned:
                    return await self.learn_partitions()
        return self.partitions

    def follow_refusal(self, refusal: str) -> bool:
        """Act on the append script's `ACCORDLAYOUT <value>`: learn the new count (True:
        retry now), or, during a move, False (retry after a pause)."""
        value = refusal.rsplit(maxsplit=1)[-1] if refusal.split() else ""
        if value == LAYOUT_MOVING or not value.isdigit():
            return False
        self.partitions = int(value)
        self._learned = True
        return True

    async def scope_view_document(self, agent_id: str, user_id: str) -> ScopeViewDocument:
        """The scope's stored view document, unfiltered (one HGET). A scope without one
        is looked up once more after learning the count again: a repartition may have
        moved it."""
        await self.known_partitions()
        raw = await self._view_document(agent_id, user_id)
        if raw is None and self.partitions != await self.relearn_partitions():
            raw = await self._view_document(agent_id, user_id)
        if raw is None:
            return ScopeViewDocument(agent_id=agent_id, user_id=user_id)
        return _DOCUMENT.decode(raw)

    async def _view_document(self, agent_id: str, user_id: str) -> Any:  # noqa: ANN401  (a Redis reply)
        return await self.redis.hget(
            view_key(self.partition_of(agent_id, user_id), agent_id, user_id), VIEW_DOC_FIELD
        )

    async def scope_view(
        self, agent_id: str, user_id: str, *, as_of: datetime | None = None
    ) -> ScopeView:
        """The scope's current agreements and every session's pending proposals at `as_of`
        (default now), filtered by deadline (R6, R9). One round trip. Without `as_of` it is
        the committed state, even what a gateway clock ahead of this one stamped later."""
        document = await self.scope_view_document(agent_id, user_id)
        return scope_view_as_of(document, as_of or datetime.now(UTC), now=as_of is None)

    async def explain(self, agent_id: str, user_id: str, record_id: str) -> Explanation:
        """Why a record of the scope is what it is, revision by revision (R16). One GET.

        A record of another scope raises `UnknownRecordError`, exactly as a record that
        does not exist: nothing is told across scopes. The Redis user needs read access
        to `record:{p}:*` (the `accord` and `ops` users of deploy/redis/users.acl).
        """
        await self.known_partitions()
        raw: Any = await self.redis.get(record_key(self.partition_of(agent_id, user_id), record_id))
        record = None if raw is None else _RECORD.decode(raw)
        if record is None or (record.agent_id, record.user_id) != (agent_id, user_id):
            raise UnknownRecordError(record_id)
        return explain(record)

    def subscribe(  # noqa: PLR0913  (the consumer's coordinates)
        self,
        group: str,
        *,
        consumer: str | None = None,
        partitions: Sequence[int] | None = None,
        start: str = "0",
        resume_from: Mapping[int, str] | None = None,
        block_ms: int = 1000,
        count: int = 100,
        dedup_size: int = 100_000,
    ) -> Subscription:
        """Agreement events in the consumer group `group` (a service's own group).

        `start` is where a new group begins (`0`: the whole retained stream, `$`: new
        events only); `resume_from` moves the group of a partition to an entry id
        (XGROUP SETID). Without `partitions` it reads every partition of the layout and
        follows a repartition. See `Subscription` for acks and deduplication.
        """
        return Subscription(
            self.redis,
            group,
            consumer=consumer,
            partitions=list(partitions) if partitions is not None else None,
            layout=self.learn_partitions,
            start=start,
            resume_from=dict(resume_from or {}),
            block_ms=block_ms,
            count=count,
            dedup_size=dedup_size,
        )
