"""Moving a deployment from P to P2 partitions while gateways keep writing (`accord
repartition`, docs/partitions.md "Growing").

A scope's partition is `stable_hash(agent, user) % P`: changing P moves most scopes, and
with them every key that names their partition (state, view, records, the gateway's seq
counters, the indexes' members). The move keeps each session's inputs complete and in
seq order by never letting two layouts take input at once:

1. **Announce**: `accord:config` gets `moving_to`. A worker starting now waits.
2. **Freeze**: every partition of both layouts gets the marker `layout:{p} = moving`. The
   gateway's append script checks it atomically with each append, so from here no input
   is written anywhere; the clients wait and retry (`layout_wait_s`).
3. **Drain**: the running workers finish every input already written (nothing unread,
   nothing pending in the group, the outbox empty), shown as it goes.
4. **Fence**: the mover takes every old partition's lease (a new epoch) and marks it
   `moving`: a worker's commit is refused from then on (FENCED), and none acquires.
   The outbox's held events, if any, are published under the mover's token.
5. **Copy**: each moved scope's keys are copied to their names in the new partition
   (DUMP/RESTORE with their TTL), its index members added there, its parked totals
   carried over. The originals stay until the new layout is in force, so a move cut
   short is resumed by running the command again.
6. **Flip**: groups on the new partitions' input streams (at 0), then the new count in
   `accord:config`, the markers and the leases. Appends with the new count go through; a
   client with the old one is refused with the new count and retries with it; workers
   built for the old count are refused their leases, exit, and restart with the new one.
7. **Clean up**: keys and index members left in a partition their scope no longer maps
   to are deleted, and a retired partition's input streams (all applied) too. Its
   agreement-event and dead-letter streams stay for subscribers to finish.

Every step is idempotent; what the deployment is in is `accord:config` alone. Workers
must share partitions by leases (the default): a worker with a fixed
ACCORD_SERVE_PARTITIONS is not fenced and must be stopped before a move.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import defaultdict
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec

from contracts.keys import Layout
from contracts.partition import partition_of
from contracts.streams import as_text, input_streams
from store import keys
from store.intake import ensure_groups
from store.layout import stored_layout
from store.scripts import PUBLISH, AnyRedis
from store.watermark import server_ms, unfinished_ms

# Key families that belong to one scope: their name is `<family>:{p}:<agent>:<user>...`.
SCOPE_FAMILIES = ("scope", "view", "session", "parked", "gateway-seq", "gateway-idem")
# Sorted sets of a partition whose members are `[agent, user, x]` JSON (keys.*_member).
INDEX_FAMILIES = ("deadlines", "gaps", "idle", "records", "scopes")
# The mover's name in the leases it holds during a move.
MOVER = "repartition"
# Keys a SCAN page, a pipeline, brings at a time.
CHUNK = 500
# How long the mover's leases last; renewed at every step of the move.
MOVER_LEASE_MS = 10 * 60 * 1000
_PARKED = msgspec.msgpack.Decoder(tuple[str, str, bytes])


class _RecordScope(msgspec.Struct):
    """What the mover reads of a record: the scope it belongs to."""

    agent_id: str
    user_id: str


_RECORD_SCOPE = msgspec.json.Decoder(_RecordScope)


class RepartitionError(RuntimeError):
    """A move that cannot start or go on as asked (the message says what to do)."""


@dataclass(frozen=True, slots=True)
class ParsedKey:
    family: str
    partition: int
    agent_id: str
    user_id: str


def parse_scope_key(name: str) -> ParsedKey | None:
    """(family, partition, agent, user) of a per-scope key name; None for any other.

    Ids are length-prefixed in code points (`<len>:<id>`, keys.ident), so a name is
    read left to right without guessing where an id ends.
    """
    family, sep, rest = name.partition(":{")
    if not sep or family not in SCOPE_FAMILIES:
        return None
    tag, sep, rest = rest.partition("}:")
    if not sep or not tag.isdigit():
        return None
    ids: list[str] = []
    while rest and len(ids) < 2:
        length, sep, rest = rest.partition(":")
        if not sep or not length.isdigit():
            return None
        size = int(length)
        if len(rest) < size:
            return None
        ids.append(rest[:size])
        rest = rest[size + 1 :] if len(rest) > size else ""
    if len(ids) != 2:
        return None
    return ParsedKey(family, int(tag), ids[0], ids[1])


def index_partition(name: str) -> tuple[str, int] | None:
    """(family, partition) of a partition's index sorted set (`deadlines:{p}`,
    `records:{p}:open`, ...); None for any other name."""
    family, sep, rest = name.partition(":{")
    if not sep or family not in INDEX_FAMILIES:
        return None
    tag, _, _ = rest.partition("}")
    return (family, int(tag)) if tag.isdigit() else None


def member_scope(member: bytes | str) -> tuple[str, str]:
    """(agent, user) an index member names: `[agent, user, x]` (keys.session_member,
    keys.record_member) or `[agent, user]` (keys.scope_member), JSON either way."""
    ids = json.loads(as_text(member))
    return str(ids[0]), str(ids[1])


def moved_name(name: str, partition: int) -> str:
    """The same key in partition `partition`: only the first hash tag changes."""
    family, _, rest = name.partition(":{")
    return f"{family}:{{{partition}}}{rest[rest.index('}') + 1 :]}"


@dataclass(slots=True)
class Progress:
    """What the move did, for the command's report."""

    scopes_moved: int = 0
    keys_copied: int = 0
    members_moved: int = 0
    keys_removed: int = 0
    streams_retired: int = 0
    phases: list[str] = field(default_factory=list)


Say = Callable[[str], None]


class Repartition:
    """One move of the deployment behind `redis` to `target` partitions (run by an
    operator's user: it reads every key name with SCAN and copies keys with DUMP)."""

    def __init__(self, redis: AnyRedis, target: int, say: Say, drain_timeout_s: float) -> None:
        self.redis = redis
        self.target = target
        self.say = say
        self.drain_timeout_s = drain_timeout_s
        self.progress = Progress()
        self._tokens: dict[int, str] = {}

    async def run(self) -> Progress:
        layout = await stored_layout(self.redis)
        if layout is None:
            raise RepartitionError(
                "no layout in Redis (accord:config): start a worker once, or set"
                " ACCORD_PARTITIONS when the deployment is new"
            )
        if layout.moving_to is not None and layout.moving_to != self.target:
            raise RepartitionError(
                f"a move from {layout.partitions} to {layout.moving_to} partitions is under"
                f" way: finish it first (accord repartition --to {layout.moving_to})"
            )
        if layout.moved_from is not None:
            # A move's clean-up was cut short: finish it before anything else.
            self.say(f"finishing the clean-up of the move from {layout.moved_from} partitions")
            await self._clean_up(layout.partitions, layout.moved_from)
            layout = Layout(layout.partitions, layout.group)
            await self.redis.set(keys.CONFIG_KEY, msgspec.json.encode(layout))
        if layout.partitions == self.target and layout.moving_to is None:
            self.say(f"already {self.target} partitions")
            return self.progress
        source = layout.partitions
        await self._step("announce", self._announce(layout))
        await self._step("freeze", self._freeze(source))
        await self._step("drain", self._drain(source, layout.group))
        await self._step("fence", self._fence(source))
        await self._step("copy", self._copy(source))
        await self._step("flip", self._flip(source, layout.group))
        await self._step("clean up", self._clean_up(self.target, source))
        await self.redis.set(
            keys.CONFIG_KEY, msgspec.json.encode(Layout(self.target, layout.group))
        )
        return self.progress

    async def _step(self, name: str, step: Any) -> None:  # noqa: ANN401  (a coroutine)
        started = time.monotonic()
        self.say(f"{name} ...")
        await step
        self.progress.phases.append(name)
        self.say(f"{name}: done in {time.monotonic() - started:.1f} s")

    def _all(self, source: int) -> range:
        """Every partition of either layout."""
        return range(max(source, self.target))

    # ------------------------------------------------------------------ steps
    async def _announce(self, layout: Layout) -> None:
        moving = Layout(layout.partitions, layout.group, moving_to=self.target)
        await self.redis.set(keys.CONFIG_KEY, msgspec.json.encode(moving))

    async def _freeze(self, source: int) -> None:
        for p in self._all(source):
            await self.redis.set(keys.layout_key(p), keys.LAYOUT_MOVING)

    async def _drain(self, source: int, group: str) -> None:
        deadline = time.monotonic() + self.drain_timeout_s
        said = 0.0
        while True:
            left = await self._unfinished(source, group)
            if not left:
                return
            if time.monotonic() >= deadline:
                raise RepartitionError(
                    f"inputs still unapplied after {self.drain_timeout_s:g} s in partitions"
                    f" {sorted(left)}: are workers running? Appends wait meanwhile; run the"
                    " command again to go on"
                )
            if time.monotonic() - said >= 1.0:
                said = time.monotonic()
                self.say(f"drain: waiting for the workers in partitions {sorted(left)}")
            await asyncio.sleep(0.05)

    async def _unfinished(self, source: int, group: str) -> set[int]:
        left: set[int] = set()
        for p in range(source):
            unfinished = await unfinished_ms(self.redis, p, group)
            if unfinished is not None or await self.redis.xlen(keys.outbox_stream(p)):
                left.add(p)
        return left

    async def _fence(self, source: int) -> None:
        """Take every old partition's lease for the mover, marked `moving`."""
        now = await server_ms(self.redis)
        for p in self._all(source):
            key = keys.lease_key(p)
            epoch = await self.redis.hincrby(key, "n", 1)
            token = f"{epoch}:{MOVER}"
            await self.redis.hset(
                key,
                mapping={"o": token, "e": now + MOVER_LEASE_MS, "p": keys.LAYOUT_MOVING},
            )
            self._tokens[p] = token
        for p in range(source):
            # Events a durable commit held before the fence: published under its token
            # (untrimmed: the mover does not know the deployment's stream lengths).
            names = [
                keys.outbox_stream(p), keys.events_stream(p), keys.dead_letters_stream(p),
                keys.lease_key(p),
            ]  # fmt: skip
            while True:
                held, moved = await PUBLISH.run(self.redis, names, [self._tokens[p], 0, 0, 1000])
                if not int(held) or not int(moved):
                    break

    async def _chunks(self, pattern: str) -> AsyncIterator[list[str]]:
        """Key names matching `pattern`, a SCAN page's worth at a time."""
        chunk: list[str] = []
        async for raw in self.redis.scan_iter(match=pattern, count=CHUNK):
            chunk.append(as_text(raw))
            if len(chunk) >= CHUNK:
                yield chunk
                chunk = []
        if chunk:
            yield chunk

    async def _scan(self, pattern: str) -> AsyncIterator[str]:
        async for chunk in self._chunks(pattern):
            for name in chunk:
                yield name

    async def _pipelined(self, calls: list[tuple[Any, ...]]) -> list[Any]:
        """`calls` in one pipeline, not a transaction (on a Cluster each goes to its
        key's node): one round trip a chunk instead of one a key."""
        if not calls:
            return []
        pipe = self.redis.pipeline(transaction=False)
        for call in calls:
            pipe.execute_command(*call)
        return list(await pipe.execute())

    async def _scoped(self, names: list[str], p: int) -> list[tuple[str, str, str, str]]:
        """(name, family, agent, user) of each key of partition p among `names` that
        belongs to one scope: a per-scope key by its name, a record by its content
        (read for the chunk in one pipeline); index sets and other keys are left out."""
        found: list[tuple[str, str, str, str]] = []
        records: list[str] = []
        for name in names:
            parsed = parse_scope_key(name)
            if parsed is not None and parsed.partition == p:
                found.append((name, parsed.family, parsed.agent_id, parsed.user_id))
            elif name.startswith(f"record:{{{p}}}:"):
                records.append(name)
        contents = await self._pipelined([("GET", name) for name in records])
        for name, raw in zip(records, contents, strict=True):
            try:
                record = _RECORD_SCOPE.decode(raw) if raw is not None else None
            except msgspec.DecodeError as error:
                # Not a record the worker wrote: left where it is, and said.
                self.say(f"{name} is left in place: not a record ({error})")
                continue
            if record is not None:
                found.append((name, "record", record.agent_id, record.user_id))
        return found

    async def _copy(self, source: int) -> None:
        moved_scopes: set[tuple[str, str]] = set()
        for p in range(source):
            async for names in self._chunks(f"*{{{p}}}*"):
                for name in names:
                    if (index := index_partition(name)) is not None and index[1] == p:
                        await self._copy_members(name, p)
                moving: list[tuple[str, str]] = []
                for name, _, agent_id, user_id in await self._scoped(names, p):
                    to = partition_of(agent_id, user_id, self.target)
                    if to != p:
                        moving.append((name, moved_name(name, to)))
                        moved_scopes.add((agent_id, user_id))
                await self._copy_keys(moving)
            self.say(f"copy: partition {p + 1} of {source} done, {self.progress.keys_copied} keys")
        await self._recount_parked()
        self.progress.scopes_moved = len(moved_scopes)
        self.say(
            f"copy: {len(moved_scopes)} scopes, {self.progress.keys_copied} keys,"
            f" {self.progress.members_moved} index members"
        )

    async def _copy_keys(self, moving: list[tuple[str, str]]) -> None:
        """DUMP each key with its TTL, RESTORE it under its new name (two pipelines)."""
        reads = [call for name, _ in moving for call in (("DUMP", name), ("PTTL", name))]
        answers = await self._pipelined(reads)
        writes: list[tuple[Any, ...]] = []
        for index, (_, to) in enumerate(moving):
            dump, ttl = answers[2 * index], int(answers[2 * index + 1])
            if dump is None:
                continue  # gone meanwhile (a TTL ran out): nothing to carry
            writes.append(("RESTORE", to, max(ttl, 0), dump, "REPLACE"))
        await self._pipelined(writes)
        self.progress.keys_copied += len(writes)

    async def _recount_parked(self) -> None:
        """Each new partition's parked totals (store/parked_limits.py), counted afresh
        from the parked hashes of the scopes it holds now: exact, since nothing writes
        during the move, and the same however often a resumed move runs it."""
        for p in range(self.target):
            entries = size = 0
            async for name in self._scan(f"parked:{{{p}}}:*"):
                parsed = parse_scope_key(name)
                if (
                    parsed is None
                    or partition_of(parsed.agent_id, parsed.user_id, self.target) != p
                ):
                    continue
                values: Any = await self.redis.hvals(name)
                entries += len(values)
                size += sum(len(_PARKED.decode(v)[2]) for v in values)
            if entries:
                await self.redis.hset(
                    keys.stats_key(p), mapping={"parked_entries": entries, "parked_bytes": size}
                )
            else:
                await self.redis.hdel(keys.stats_key(p), "parked_entries", "parked_bytes")

    async def _copy_members(self, name: str, p: int) -> None:
        rows: Any = await self.redis.zrange(name, 0, -1, withscores=True)
        adds: dict[int, dict[bytes, float]] = defaultdict(dict)
        for member, score in rows:
            agent_id, user_id = member_scope(member)
            to = partition_of(agent_id, user_id, self.target)
            if to != p:
                adds[to][bytes(member)] = score
        for to, mapping in adds.items():
            await self.redis.zadd(moved_name(name, to), mapping)
            self.progress.members_moved += len(mapping)

    async def _flip(self, source: int, group: str) -> None:
        await ensure_groups(self.redis, range(self.target), group)
        count = str(self.target)
        # The source stays named until the clean-up is done, for a rerun to finish it.
        flipped = Layout(self.target, group, moved_from=source)
        await self.redis.set(keys.CONFIG_KEY, msgspec.json.encode(flipped))
        for p in self._all(source):
            await self.redis.set(keys.layout_key(p), count)
            await self.redis.hset(keys.lease_key(p), mapping={"o": "", "e": 0, "p": count})

    async def _clean_up(self, target: int, source: int) -> None:
        """Delete what is left in partitions its scope no longer maps to under `target`;
        retired partitions' input streams go too (their inputs are all applied)."""
        for p in range(max(target, source)):
            async for names in self._chunks(f"*{{{p}}}*"):
                for name in names:
                    if (index := index_partition(name)) is not None and index[1] == p:
                        await self._remove_members(name, p, target)
                stale = [
                    name
                    for name, _, agent_id, user_id in await self._scoped(names, p)
                    if partition_of(agent_id, user_id, target) != p
                ]
                removed = await self._pipelined([("DEL", name) for name in stale])
                self.progress.keys_removed += sum(int(n) for n in removed)
        for p in range(target, source):
            for stream in input_streams(p):
                self.progress.streams_retired += await self.redis.delete(stream)
        self.say(
            f"clean up: {self.progress.keys_removed} keys removed,"
            f" {self.progress.streams_retired} input streams retired"
        )

    async def _remove_members(self, name: str, p: int, target: int) -> None:
        members: Any = await self.redis.zrange(name, 0, -1)
        stale = [m for m in members if partition_of(*member_scope(m), target) != p]
        for first in range(0, len(stale), 1000):
            await self.redis.zrem(name, *stale[first : first + 1000])
