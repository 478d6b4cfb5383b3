"""Every Redis key the store owns, with what it holds (arq's way: one module, a comment each).

All keys of partition p carry the hash tag `{p}` right after their prefix, so every key
a script touches lives in one Redis Cluster slot (no CROSSSLOT), and the first `{...}`
of the name is always the partition's tag whatever characters the ids contain.
Identifiers inside a name are length-prefixed (`<len>:<id>`), so no choice of ids
can make two scopes or sessions share a key by concatenation.

Input, agreement-event and dead-letter streams are named in `contracts.streams`
(they are part of the wire contract); this module names the store's own keys.
"""

from __future__ import annotations

import json

import msgspec

# The view hash, the record strings and the gateway's seq keys are read or written by
# other programs, so they are named in the wire contract; re-exported here so this
# module lists every key.
from contracts.keys import (
    APPLIED_FIELD_PREFIX,
    CONFIG_KEY,
    LAYOUT_MOVING,
    VIEW_DOC_FIELD,
    applied_field,
    gateway_idem_key,
    gateway_seq_key,
    layout_key,
    record_key,
    view_key,
)
from contracts.streams import AGREEMENT_EVENTS, DEAD_LETTERS, as_text, hash_tag, stream_name

__all__ = [
    "APPLIED_FIELD_PREFIX",
    "CONFIG_KEY",
    "LAYOUT_MOVING",
    "VIEW_DOC_FIELD",
    "applied_field",
    "gateway_idem_key",
    "gateway_seq_key",
    "layout_key",
    "record_key",
    "view_key",
]


def ident(value: str) -> str:
    """An id as it stands in a key name: length-prefixed, so no two ids concatenate alike."""
    return f"{len(value)}:{value}"


def scope_key(partition: int, agent_id: str, user_id: str) -> str:
    """Hash `{v: version, s: core scope state (opaque bytes)}` of one user-agent scope.

    The version is checked by every commit that read the scope, because two sessions of
    one scope may be processed by two consumers at once.
    """
    return f"scope:{hash_tag(partition)}:{ident(agent_id)}:{ident(user_id)}"


def session_key(partition: int, agent_id: str, user_id: str, session_id: str) -> str:
    """Hash `{n: next expected seq, v: version, c: core session state, k: skipped seqs,
    g: gap observed}`.

    This is all an idle session costs (docs/performance.md). `k` exists only once a gap
    was skipped: comma-separated inclusive ranges `a-b`, so late arrivals are recognised.
    `g` exists only while entries are parked: Redis's time (ms) when the gap in front of
    them was observed, which the gap timeout is measured from (docs/store.md).
    """
    return f"session:{hash_tag(partition)}:{ident(agent_id)}:{ident(user_id)}:{ident(session_id)}"


def parked_key(partition: int, agent_id: str, user_id: str, session_id: str) -> str:
    """Hash seq -> parked entry (msgpack `[stream, entry_id, __data__]`).

    Exists only while a session has early events waiting for a gap to fill: Redis
    deletes a hash with its last field, so idle sessions pay nothing for it.
    """
    return f"parked:{hash_tag(partition)}:{ident(agent_id)}:{ident(user_id)}:{ident(session_id)}"


def gaps_key(partition: int) -> str:
    """Sorted set: session member -> entry-id ms of its oldest parked entry.

    Found by the gap-timeout skipper without scanning, and a lower bound for the expiry
    watermark (a parked acceptance was written before that instant).
    """
    return f"gaps:{hash_tag(partition)}"


def idle_key(partition: int) -> str:
    """Sorted set: session member -> Redis ms of the session's last commit.

    Kept only with session retention on (`StoreConfig.session_retention_ms`): the sweeper
    compacts the sessions idle longer than that (store/compaction.py) and drops them from
    the index; the session's next commit puts it back.
    """
    return f"idle:{hash_tag(partition)}"


def deadlines_key(partition: int) -> str:
    """Sorted set: record member -> deadline (epoch ms) of records that can still expire."""
    return f"deadlines:{hash_tag(partition)}"


def records_key(partition: int) -> str:
    """Sorted set: record member -> Redis ms of the commit that last wrote the record.

    The records index: every record the commit writes, newest change last, so a list of
    records (`accord records`, the console) reads it page by page instead of SCANning
    record keys. Kept by `commit.lua` with the record's SET, and only then; a record
    removed by the record retention leaves it with its key (`records_ttl_key`).
    """
    return f"records:{hash_tag(partition)}"


def records_state_key(partition: int, state: str) -> str:
    """Sorted set: record member -> Redis ms of its last change, of the records whose
    latest state is `state` (one key per `AgreementState`); a record is in exactly one.

    The commit that writes a record adds it to its state's set and removes it from the
    others, so a list filtered by state reads only its own set.
    """
    return f"records:{hash_tag(partition)}:{state}"


def records_ttl_key(partition: int) -> str:
    """Sorted set: record member -> Redis ms when its final record's key expires.

    Kept only with record retention on, for the records written with that TTL: the
    retention pass (store/record_index.py) removes from the records index the members
    whose key Redis has removed, so the index is bounded as the records are.
    """
    return f"records:{hash_tag(partition)}:ttl"


def scopes_key(partition: int) -> str:
    """Sorted set: scope member -> Redis ms of the last commit that changed the scope's
    state (its records: a proposal, an acceptance, an amendment, a cancellation, an
    expiry, a fulfilment), not of its last chat turn.

    The scopes index: kept by `commit.lua` with the scope state's HSET, and only then,
    so the console and `accord scopes` list scopes page by page instead of SCANning
    (store/scope_index.py, docs/store.md "The scopes index").
    """
    return f"scopes:{hash_tag(partition)}"


def scopes_open_key(partition: int) -> str:
    """Sorted set: the same members and scores, of the scopes that held an open agreement
    as of their last change (a list filtered by open agreements reads only these)."""
    return f"scopes:{hash_tag(partition)}:open"


def scopes_ttl_key(partition: int) -> str:
    """Sorted set: scope member -> Redis ms when the scope leaves the index.

    Kept only with record retention on, for the scopes whose last change left them
    keeping no record: then every record key of theirs expires by that instant, and the
    retention pass removes the scope from the index (store/scope_index.py).
    """
    return f"scopes:{hash_tag(partition)}:ttl"


def stats_key(partition: int) -> str:
    """Hash of counters: `gaps_skipped`, `seqs_skipped`, `dead_letters`, `dl:<reason>`,
    and the partition's parked totals `parked_entries`, `parked_bytes` (store/parked_limits.py)."""
    return f"stats:{hash_tag(partition)}"


def suspects_key(partition: int) -> str:
    """Hash `{<stream> <entry id>: tries alone}` of the entries delivered past the delivery
    limit and not yet committed: each try alone is counted here before it starts, so a
    try that dies with its worker counts too. A field goes when its entry commits or
    becomes a dead letter (store/suspects.py)."""
    return f"suspects:{hash_tag(partition)}"


def events_stream(partition: int) -> str:
    """Stream of agreement events (`__data__` = event JSON); trimmed by `events_maxlen`."""
    return stream_name(AGREEMENT_EVENTS, partition)


def dead_letters_stream(partition: int) -> str:
    """Stream of `DeadLetter` JSON entries; trimmed by `dead_letters_maxlen`."""
    return stream_name(DEAD_LETTERS, partition)


def outbox_stream(partition: int) -> str:
    """Stream of what durable commits hold back (StoreConfig.wait_replicas): each entry
    `t` (`e`: an agreement event, `d`: a dead letter) and `__data__` (its JSON), moved to
    its output stream once replicas acknowledged the commit (store/lua/publish.lua).
    Empty, or absent, when the durability setting is off."""
    return f"outbox:{hash_tag(partition)}"


# Not partition data: the deployment's layout, `CONFIG_KEY` (contracts/keys.py), one key
# outside every hash tag: `{"partitions": P, "group": name}` JSON, set by the first worker
# to start (SET NX), changed only by `accord repartition` (store/repartition.py).

# Not partition data: one key per worker process, outside every hash tag, and one sorted
# set naming them, so `accord check` lists live workers without SCAN (which no ACL can
# confine to a key pattern: it would enumerate other applications' keys). The ACL
# (deploy/redis/users.acl) grants the worker `~accord:heartbeat:*` and `~accord:heartbeats`;
# tests/worker/test_deploy_redis.py writes and lists one.
HEARTBEAT_PREFIX = "accord:heartbeat:"
HEARTBEATS_KEY = "accord:heartbeats"


def heartbeat_key(consumer: str) -> str:
    """String: the worker process's `Heartbeat` JSON (worker/health.py), set with a TTL.

    It expires unless the process refreshes it, so the keys present are the live workers.
    """
    return HEARTBEAT_PREFIX + consumer


def heartbeats_key() -> str:
    """Sorted set: consumer names of workers that beat, scored by their beat's expiry
    (epoch ms); members long past it are pruned by the next beat of any worker."""
    return HEARTBEATS_KEY


def heartbeat_pattern() -> str:
    """SCAN MATCH pattern of every heartbeat key, for tools that may SCAN (not the worker)."""
    return HEARTBEAT_PREFIX + "*"


def session_member(agent_id: str, user_id: str, session_id: str) -> str:
    """The member naming a session in `gaps:{p}` (JSON, so it decodes back to the ids)."""
    return json.dumps([agent_id, user_id, session_id], ensure_ascii=False, separators=(",", ":"))


def record_member(agent_id: str, user_id: str, record_id: str) -> str:
    """The member naming a record in `deadlines:{p}`: the sweeper needs its scope."""
    return json.dumps([agent_id, user_id, record_id], ensure_ascii=False, separators=(",", ":"))


def scope_member(agent_id: str, user_id: str) -> str:
    """The member naming a scope in the scopes index (JSON, so it decodes back to the ids)."""
    return json.dumps([agent_id, user_id], ensure_ascii=False, separators=(",", ":"))


def parse_scope_member(member: bytes | str) -> tuple[str, str]:
    agent_id, user_id = json.loads(as_text(member))
    return str(agent_id), str(user_id)


def parse_member(member: bytes | str) -> tuple[str, str, str]:
    text = as_text(member)
    agent_id, user_id, last = json.loads(text)
    return str(agent_id), str(user_id), str(last)


def lease_key(partition: int) -> str:
    """Hash `{o: owner token, e: expiry (Redis ms), n: epoch}`: who reads partition p.

    The owner token is `<epoch>:<consumer>`; every acquisition increments the epoch `n`
    (the key is never deleted, so epochs never repeat while Redis keeps its data).
    It carries the tag `{p}` so the commit script checks the token atomically with its
    writes on Redis Cluster too (store/ownership.py, docs/store.md "Partition ownership").
    """
    return f"lease:{hash_tag(partition)}"


# Not partition data: the live workers taking part in partition ownership, one sorted
# set (consumer -> Redis time of its last beat, ms). No hash tag: one key on one node.
MEMBERS_KEY = "accord:members"


class SessionNames(msgspec.Struct, frozen=True, gc=False):
    """One session's key names; the parked key and the gap member are built on demand
    (most sessions of a batch never park, and a batch may hold tens of thousands)."""

    partition: int
    agent_id: str
    user_id: str
    session_id: str
    # The session hash, and the scope view's field of its applied seq.
    key: str
    applied: str

    @property
    def parked(self) -> str:
        return parked_key(self.partition, self.agent_id, self.user_id, self.session_id)

    @property
    def member(self) -> str:
        return session_member(self.agent_id, self.user_id, self.session_id)
