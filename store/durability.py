"""Durable commits: done only once replicas have them, published only then (DESIGN 5).

Redis replicates asynchronously: a primary acknowledges a write before any replica has
it, and a failover to a replica loses whatever had not arrived. With the durability
setting on (`StoreConfig.wait_replicas` N > 0, docs/operations.md "Durability across
failover"):

- a commit runs in one pipeline with `WAIT N timeout` (or `WAITAOF 1 N timeout` with
  `wait_aof`) on the same connection: WAIT counts the replicas that acknowledged every
  write the connection made, so it must follow the commit there. A shortfall is waited
  for again (the partition is held; each try is counted in `stats:{p}` as
  `replica_waits_short`), so the batch is done only when N replicas have it;
- the commit writes its agreement events and dead letters to `outbox:{p}`, and they move
  to the streams subscribers read (store/lua/publish.lua) only after that wait: a
  subscriber never reads an event a failover can take back. A failover that loses the
  move itself leaves the outbox entries on the new primary; they are moved again, with
  the same event ids;
- what a commit left in the outbox because its worker died, its wait failed or a
  failover cut it short is published by the sweeper (`publish_held`), after a wait of
  its own.

On Redis Cluster the commit and its WAIT go to the partition's primary node as one
batch on one of its connections (`on_one_connection`).
"""

from __future__ import annotations

from typing import Any

from redis.asyncio import RedisCluster
from redis.asyncio.cluster import PipelineCommand
from redis.exceptions import (
    AskError,
    ClusterDownError,
    MovedError,
    NoPermissionError,
    NoScriptError,
    ResponseError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from store import keys
from store.config import StoreConfig
from store.ownership import FENCED_ERROR, Fence, LeaseLost
from store.scripts import PUBLISH, AnyRedis, LuaScript, uses_functions

# Outbox entries one publish moves: a script holds Redis for its whole run.
PUBLISH_BATCH = 500
# `stats:{p}` counters: WAITs that came back short (each one waited for again), and the
# times the sweeper published what a commit had left held.
SHORT_WAITS = "replica_waits_short"
LATE_PUBLISHES = "held_published_late"


def acknowledged(reply: Any, config: StoreConfig) -> bool:  # noqa: ANN401  (a Redis reply)
    """Whether a WAIT (replicas) or WAITAOF ([local, replicas]) reply meets the setting."""
    if config.wait_aof:
        local, replicas = int(reply[0]), int(reply[1])
        return local >= 1 and replicas >= config.wait_replicas
    return int(reply) >= config.wait_replicas


def _wait(config: StoreConfig) -> tuple[Any, ...]:
    if config.wait_aof:
        return ("WAITAOF", 1, config.wait_replicas, config.wait_timeout_ms)
    return ("WAIT", config.wait_replicas, config.wait_timeout_ms)


class WaitAofUnsupported(ValueError):  # noqa: N818  (a refusal, read as a sentence)
    """ACCORD_WAIT_AOF is on, but this server or its user cannot wait for an AOF."""


async def check_wait_aof(redis: AnyRedis) -> None:
    """Raise WaitAofUnsupported unless `WAITAOF 1 0` runs on every primary: the server has
    it (Redis 7.2 and later, Valkey), its AOF is on and the user may send it. Checked at
    start: a commit whose wait fails would be in Redis with its events held, its batch
    failing again and again."""
    target = {"target_nodes": RedisCluster.PRIMARIES} if isinstance(redis, RedisCluster) else {}
    try:
        await redis.execute_command("WAITAOF", 1, 0, 100, **target)
    except NoPermissionError as error:
        raise WaitAofUnsupported(
            f"ACCORD_WAIT_AOF=1, but this Redis user may not WAITAOF ({error}): grant it +waitaof"
        ) from error
    except ResponseError as error:
        cause = str(error).lower()
        if "unknown command" in cause:
            raise WaitAofUnsupported(
                "ACCORD_WAIT_AOF=1 needs WAITAOF (Redis 7.2 or later, or Valkey); this server"
                " has none: unset it (commits then wait for the replicas only)"
            ) from error
        if "appendonly" in cause:
            raise WaitAofUnsupported(
                "ACCORD_WAIT_AOF=1 needs appendonly yes on the primary and its replicas;"
                " this primary's AOF is off"
            ) from error
        raise


# Answers that mean the cluster's layout changed (a failover promoted a replica, a slot
# moved): the client relearns it before the caller's retry.
_LAYOUT_CHANGED = (MovedError, AskError, TryAgainError, ClusterDownError)


async def on_one_connection(redis: AnyRedis, route: str, calls: list[tuple[Any, ...]]) -> list[Any]:
    """Send `calls` in order on one connection, to the primary of `route`'s slot, and
    return their answers; raise the first error among them.

    WAIT counts the replicas that have every write of the connection it is sent on, so it
    must follow the write there: a pipeline of one Redis holds one connection; a cluster
    pipeline routes each command on its own (WAIT has no key), so on Redis Cluster the
    calls go to the slot's primary node as one batch of that node's (redis-py's
    `ClusterNode.execute_pipeline`, as its own cluster pipeline does).
    """
    if isinstance(redis, RedisCluster):
        await redis.initialize()  # (a no-op once the layout is known)
        node = redis.get_node_from_key(route)
        if node is None:  # a slot no node serves: the cluster is incomplete
            await redis.nodes_manager.initialize()
            raise ClusterDownError(f"no node serves the slot of {route}")
        commands = [PipelineCommand(i, *call) for i, call in enumerate(calls)]
        try:
            await node.execute_pipeline(commands)
        except (RedisConnectionError, RedisTimeoutError, OSError):
            # The node is gone or unreachable: a failover may be promoting its replica.
            await redis.nodes_manager.initialize()
            raise
        answers = [command.result for command in commands]
    else:
        pipe = redis.pipeline(transaction=False)
        for call in calls:
            pipe.execute_command(*call)
        answers = await pipe.execute(raise_on_error=False)
    for answer in answers:
        if isinstance(answer, Exception):
            if isinstance(answer, _LAYOUT_CHANGED) and isinstance(redis, RedisCluster):
                await redis.nodes_manager.initialize()
            raise answer
    return answers


class Replication:
    """One partition's durable writes: commits that wait, and the outbox's publishing."""

    def __init__(self, redis: AnyRedis, partition: int, config: StoreConfig) -> None:
        self.redis = redis
        self.partition = partition
        self.config = config
        # Every call of the partition routes by its hash tag: one slot, one node.
        self.route = keys.stats_key(partition)

    async def run_then_wait(self, script: LuaScript, keys_: list[str], args: list[Any]) -> Any:  # noqa: ANN401  (the script's reply)
        """Run `script`, then wait until `config.wait_replicas` replicas have its writes.

        Raises what the script raises (nothing waited for then), or a connection error:
        the script may or may not have run, and its held events are the sweeper's to
        publish.
        """
        functions = uses_functions(self.redis)
        for by_source in (False, True):
            call = script.call(keys_, args, functions=functions, by_source=by_source)
            try:
                reply, waited = await on_one_connection(
                    self.redis, self.route, [call, _wait(self.config)]
                )
            except NoScriptError:
                if by_source or functions:
                    raise
                continue  # a restarted server or a new primary: the same calls, by EVAL
            await self.until_replicated(waited)
            return reply
        raise AssertionError("unreachable")  # pragma: no cover

    async def until_replicated(self, waited: Any) -> None:  # noqa: ANN401  (a WAIT reply)
        """Wait again while `waited` falls short: each time after a counter's increment,
        so that the new WAIT on that connection covers every earlier write of the
        partition (replication is one ordered stream), and the count shows an operator
        that the replicas lag or are gone."""
        while not acknowledged(waited, self.config):
            touch = ("HINCRBY", keys.stats_key(self.partition), SHORT_WAITS, 1)
            _, waited = await on_one_connection(self.redis, self.route, [touch, _wait(self.config)])

    async def publish(self, fence: Fence | None) -> int:
        """Move the outbox's entries to the output streams; returns the entries still
        held (ones of a shape publish.lua does not know: left for an operator). Only
        after a wait that covered the commits that wrote them. Raises LeaseLost when
        fenced out."""
        p, config = self.partition, self.config
        names = [
            keys.outbox_stream(p),
            keys.events_stream(p),
            keys.dead_letters_stream(p),
            keys.lease_key(p),
        ]
        token = "" if fence is None else fence.token
        args = [token, config.events_maxlen, config.dead_letters_maxlen, PUBLISH_BATCH]
        while True:
            try:
                held, moved = await PUBLISH.run(self.redis, names, args)
            except ResponseError as error:
                if FENCED_ERROR in str(error):
                    raise LeaseLost(p, str(error)) from error
                raise
            if not int(held) or not int(moved):
                return int(held)

    async def publish_held(self, fence: Fence | None) -> int:
        """The sweeper's pass: publish what earlier commits left in the outbox (a worker
        that died between its commit and the publish, a wait cut short by a failover);
        returns the entries published. Nothing to do, the usual case, costs one XLEN."""
        stats = keys.stats_key(self.partition)
        before = int(await self.redis.xlen(keys.outbox_stream(self.partition)))
        if not before:
            return 0
        if self.config.wait_replicas:
            # Those entries may not be on the replicas yet (their commit's wait never
            # returned): a write of this connection and a WAIT after it cover them.
            touch = ("HINCRBY", stats, LATE_PUBLISHES, 1)
            _, waited = await on_one_connection(self.redis, self.route, [touch, _wait(self.config)])
            await self.until_replicated(waited)
        else:
            await self.redis.hincrby(stats, LATE_PUBLISHES, 1)
        return before - await self.publish(fence)
