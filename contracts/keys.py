"""Redis keys other programs read or write besides the streams: part of the wire contract.

Gateways (the client libraries in `client/` and `clients/typescript/`) and subscribers
use these; the store owns every other key (`store/keys.py`). As there, every name
carries the partition's hash tag `{p}` right after its prefix, so a script touching a
partition's streams and these keys runs in one Redis Cluster slot, and ids inside a
name are length-prefixed (`<len>:<id>`), so no choice of ids makes two scopes share one.
The length counts Unicode code points (Python's `len`; in JavaScript `[...id].length`,
not `id.length`, which counts UTF-16 units).
"""

from __future__ import annotations

import msgspec

from contracts.streams import hash_tag

# Field of the view hash holding the `ScopeViewDocument` JSON.
VIEW_DOC_FIELD = "doc"
# Prefix of the view hash fields holding each session's applied seq.
APPLIED_FIELD_PREFIX = "applied:"


def ident(value: str) -> str:
    """`<length in code points>:<id>`: what makes a key name unambiguous."""
    return f"{len(value)}:{value}"


def view_key(partition: int, agent_id: str, user_id: str) -> str:
    """Hash written by the worker's commit, read by gateways and subscribers (GET-like).

    `doc`: the scope's `ScopeViewDocument` JSON (contracts/schemas/scope_view_document),
    rewritten by every commit that changes the scope's records.
    `applied:<session_id>`: the session's applied seq as a decimal integer: every seq up
    to it has been applied (or skipped as a gap), rewritten by every commit of the session.
    One `HMGET view:{p}:... doc applied:<session_id>` is a session's whole view.
    """
    return f"view:{hash_tag(partition)}:{ident(agent_id)}:{ident(user_id)}"


def record_key(partition: int, record_id: str) -> str:
    """String: the record's latest full `AgreementRecord` JSON with its whole history.

    Written by the worker's commit with every change; kept after the record leaves the
    core's scope state (terminal), for history and `explain` reads (R16).
    """
    return f"record:{hash_tag(partition)}:{record_id}"


# The deployment's layout: `{"partitions": P, "group": name}` JSON (and, while a
# repartition runs, `moving_to`), outside every hash tag. Set by the first worker; changed
# only by `accord repartition`. Clients read it to learn P (docs/partitions.md, "Growing").
CONFIG_KEY = "accord:config"


class Layout(msgspec.Struct, frozen=True, omit_defaults=True):
    """`CONFIG_KEY`'s JSON: the partition count P every worker, command and client hashes
    scopes with, the workers' consumer group, and while `accord repartition` runs, the
    count it moves the deployment to (appends wait meanwhile), then, until its clean-up
    is done, the count it moved from."""

    partitions: int
    group: str
    moving_to: int | None = None
    moved_from: int | None = None


# A partition's layout marker's value while a repartition moves its data: every append
# to the partition is refused until the move is done (the client waits and retries).
LAYOUT_MOVING = "moving"


def layout_key(partition: int) -> str:
    """String in partition p's slot: the partition count the partition's streams belong to
    (decimal), or `moving`. Absent until the first `accord repartition`.

    The append script refuses an append whose client hashes with another count (reply
    `ACCORDLAYOUT <value>`), atomically with the append: a client with a stale count
    never writes to a partition of the old layout (docs/partitions.md, "Growing")."""
    return f"layout:{hash_tag(partition)}"


def applied_field(session_id: str) -> str:
    return APPLIED_FIELD_PREFIX + session_id


def gateway_seq_key(partition: int, agent_id: str, user_id: str, session_id: str) -> str:
    """String: the last seq the gateway allocated in the session (the append script's INCR)."""
    return (
        f"gateway-seq:{hash_tag(partition)}:{ident(agent_id)}:{ident(user_id)}:{ident(session_id)}"
    )


def gateway_idem_key(partition: int, agent_id: str, user_id: str, session_id: str) -> str:
    """Hash: the session's recent idempotency keys -> `<seq> <entry id>`, bounded and with a TTL.

    `i:<kind>:<key>` answers a retried append with the seq it already got; `o:<seq>`
    names the key appended at that seq, so the oldest is dropped past the window.
    """
    return (
        f"gateway-idem:{hash_tag(partition)}:{ident(agent_id)}:{ident(user_id)}:{ident(session_id)}"
    )
