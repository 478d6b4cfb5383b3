"""The partition function is part of the wire contract: the published test vectors
(contracts/vectors/partition.json, the table in docs/partitions.md) hold, and the
Node.js snippet of the docs computes the same partitions, so a gateway in another
language picks the same stream for a scope and all its sessions."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from contracts.partition import MAX_PARTITIONS, partition_of, stable_hash
from tests.support.paths import ROOT

VECTORS_FILE = ROOT / "contracts" / "vectors" / "partition.json"
DOC = ROOT / "docs" / "partitions.md"
VECTORS: dict[str, Any] = json.loads(VECTORS_FILE.read_text("utf-8"))
ROWS: list[dict[str, Any]] = VECTORS["vectors"]


def _row_id(row: dict[str, Any]) -> str:
    return f"{row['agent_id'][:12]!r}/{row['user_id'][:12]!r}"


@pytest.mark.parametrize("row", ROWS, ids=_row_id)
def test_vector_hash_and_partitions_hold(row: dict[str, Any]) -> None:
    """Each published vector: the hash as 16 hex digits, and the partition for every P."""
    digest = stable_hash(row["agent_id"], row["user_id"])
    assert f"{digest:016x}" == row["stable_hash"]
    for count, expected in row["partitions"].items():
        assert partition_of(row["agent_id"], row["user_id"], int(count)) == expected


def test_vectors_cover_the_published_partition_counts_and_non_ascii_ids() -> None:
    """P = 1, 4, 16 and the maximum 16384; ids in CJK, outside the BMP, NFC and NFD."""
    assert VECTORS["partition_counts"] == [1, 4, 16, MAX_PARTITIONS]
    assert all(sorted(map(int, row["partitions"])) == [1, 4, 16, 16384] for row in ROWS)
    ids = [row["agent_id"] + row["user_id"] for row in ROWS]
    assert any(any("\u4e00" <= ch <= "\u9fff" for ch in text) for text in ids)
    assert any(any(ord(ch) > 0xFFFF for ch in text) for text in ids)
    assert any("\u0301" in text for text in ids)


def test_encoding_is_length_prefixed_sha256() -> None:
    """The documented message layout, recomputed by hand for one pair."""
    message = b"\x00\x00\x00\x06" + "助手".encode() + b"\x00\x00\x00\x04" + b"user"
    expected = int.from_bytes(hashlib.sha256(message).digest()[:8], "big")
    assert stable_hash("助手", "user") == expected


def test_concatenation_does_not_collide() -> None:
    """("ab", "c") and ("a", "bc") are different scopes: the lengths are part of the hash."""
    assert stable_hash("ab", "c") != stable_hash("a", "bc")


def test_no_unicode_normalization() -> None:
    """Ids are opaque bytes: NFC and NFD spellings are two scopes."""
    assert stable_hash("caf\u00e9", "u") != stable_hash("cafe\u0301", "u")


@pytest.mark.parametrize("count", [0, -1, MAX_PARTITIONS + 1])
def test_partition_count_outside_range_is_refused(count: int) -> None:
    """P must be in 1..16384 (one partition per Redis Cluster hash slot at most)."""
    with pytest.raises(ValueError, match="partitions must be in"):
        partition_of("agent", "user", count)


def test_scopes_spread_evenly_over_partitions() -> None:
    """10,000 deterministic scopes over 16 partitions: every partition within 20% of its
    share, so partitions are a real unit of scale-out."""
    counts = Counter(partition_of(f"agent-{i % 7}", f"user-{i}", 16) for i in range(10_000))
    assert set(counts) == set(range(16))
    share = 10_000 / 16
    assert all(0.8 * share <= n <= 1.2 * share for n in counts.values()), counts


_TABLE_ROW = re.compile(
    r"^\| `(?P<agent>[^`]+)` \| `(?P<user>[^`]+)` \| `(?P<hash>[0-9a-f]{16})` "
    r"\| (?P<p1>\d+) \| (?P<p4>\d+) \| (?P<p16>\d+) \| (?P<p16384>\d+) \|$",
    re.MULTILINE,
)
_REPEAT = re.compile(r'^"(?P<text>[^"]*)" \u00d7 (?P<times>\d+)$')  # the times sign


def _cell(text: str) -> str:
    repeat = _REPEAT.match(text)
    if repeat:
        return repeat.group("text") * int(repeat.group("times"))
    value = json.loads(text)
    assert isinstance(value, str)
    return value


def test_docs_table_matches_the_vectors_file() -> None:
    """The table a reader copies from is the machine-readable file, row by row."""
    table = [
        {
            "agent_id": _cell(m["agent"]),
            "user_id": _cell(m["user"]),
            "stable_hash": m["hash"],
            "partitions": {
                "1": int(m["p1"]),
                "4": int(m["p4"]),
                "16": int(m["p16"]),
                "16384": int(m["p16384"]),
            },
        }
        for m in _TABLE_ROW.finditer(DOC.read_text("utf-8"))
    ]
    assert table == [{k: v for k, v in row.items() if k != "note"} for row in ROWS]


def test_node_snippet_in_the_docs_computes_the_same_partitions(tmp_path: Path) -> None:
    """The Node.js block of docs/partitions.md, run as is by `node`, reproduces every
    vector: a JavaScript gateway needs nothing but the documented function."""
    node = shutil.which("node")
    assert node is not None, "node is needed to check the documented snippet (Node >= 18)"
    blocks = re.findall(r"```js\n(.*?)```", DOC.read_text("utf-8"), re.DOTALL)
    assert len(blocks) == 1
    harness = """
const fs = require("node:fs");
const input = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const out = input.vectors.map((row) => ({
  stable_hash: stableHash(row.agent_id, row.user_id).toString(16).padStart(16, "0"),
  partitions: Object.fromEntries(
    input.partition_counts.map((p) => [String(p), partitionOf(row.agent_id, row.user_id, p)])),
}));
process.stdout.write(JSON.stringify(out));
"""
    script = tmp_path / "partition.js"
    script.write_text(blocks[0] + harness, "utf-8")
    done = subprocess.run(  # noqa: S603 - fixed argv: node, a file we wrote, a repo file
        [node, str(script), str(VECTORS_FILE)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    expected = [{"stable_hash": r["stable_hash"], "partitions": r["partitions"]} for r in ROWS]
    assert json.loads(done.stdout) == expected
