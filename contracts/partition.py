"""The partition function, part of the wire contract (DESIGN section 3).

A scope (agent_id, user_id), and with it every session of that pair, lives in
partition `stable_hash(agent_id, user_id) % P`. The gateway computes the same value
to pick the stream it XADDs to, so the exact byte encoding is fixed here:

    message = u32be(len(a)) || a || u32be(len(u)) || u      (a, u: UTF-8 bytes)
    stable_hash = first 8 bytes of SHA-256(message), as an unsigned big-endian int

Length prefixes make the encoding unambiguous for any ids (no separator can collide).
Test vectors: docs/partitions.md and tests/core/test_partition.py.
"""

from __future__ import annotations

import hashlib
import struct

MAX_PARTITIONS = 16384  # one per Redis Cluster hash slot at most


def stable_hash(agent_id: str, user_id: str) -> int:
    a = agent_id.encode("utf-8")
    u = user_id.encode("utf-8")
    message = struct.pack(">I", len(a)) + a + struct.pack(">I", len(u)) + u
    return int.from_bytes(hashlib.sha256(message).digest()[:8], "big")


def partition_of(agent_id: str, user_id: str, partitions: int) -> int:
    if not 1 <= partitions <= MAX_PARTITIONS:
        raise ValueError(f"partitions must be in 1..{MAX_PARTITIONS}, got {partitions}")
    return stable_hash(agent_id, user_id) % partitions
