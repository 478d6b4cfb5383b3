"""The attack matrix: what each shipped Redis user may do, by family of commands and keys,
on Redis 6.2 (`deploy/redis/users.acl`) and Redis 7 (`users-redis7.acl`).

One source: `EXPECTED` is what `tests/worker/test_attack_matrix.py` finds on real servers
(every user x every family, each probe run on a fresh copy of the fixtures) and what
docs/security.md shows (`render()`, between the `attack-matrix` markers; regenerate with
`uv run python -m tests.support.attack_matrix`).

A family is allowed when Redis lets every one of its probe commands through (a reply or
an error other than a permission refusal: the ACL passed it), refused when it refuses
them all; a family whose probes disagree is a finding of its own.
"""

from __future__ import annotations

import sys

# Keys of partition 7, made by `FIXTURES` (as `ops`) before each probe.
CHAT = "chat-turn:{7}"
EVENTS = "agreement-events:{7}"
SCOPE = "scope:{7}:1:a:1:u"
SESSION = "session:{7}:1:a:1:u:1:s"
RECORD = "record:{7}:agr-x"
VIEW = "view:{7}:1:a:1:u"
LEASE = "lease:{7}"
SEQ = "gateway-seq:{7}:1:a:1:u:1:s"
IDEM = "gateway-idem:{7}:1:a:1:u:1:s"
LETTERS = "dead-letters:{7}"
INDEX = "records:{7}"
SCOPES = "scopes:{7}"
CONFIG = "accord:config"
MARKER = "layout:{7}"

FIXTURES: list[tuple[str, ...]] = [
    ("XGROUP", "CREATE", CHAT, "accord", "0", "MKSTREAM"),
    ("XADD", CHAT, "1-1", "__data__", "{}"),
    ("XGROUP", "CREATE", EVENTS, "svc", "0", "MKSTREAM"),
    ("XADD", EVENTS, "1-1", "__data__", "{}"),
    ("XADD", LETTERS, "1-1", "__data__", "{}"),
    ("HSET", SCOPE, "s", "state"),
    ("HSET", SESSION, "n", "2"),
    ("SET", RECORD, "{}"),
    ("HSET", VIEW, "doc", "{}"),
    ("HSET", LEASE, "o", "1:w"),
    ("SET", SEQ, "1"),
    ("HSET", IDEM, "i:x", "1 1-1"),
    ("ZADD", INDEX, "1", '["a","u","agr-x"]'),
    ("ZADD", SCOPES, "1", '["a","u"]'),
    ("SET", CONFIG, '{"partitions":8,"group":"accord"}'),
    ("SET", MARKER, "8"),
]

# Family -> its probe commands, in the order of the table.
FAMILIES: dict[str, list[tuple[str, ...]]] = {
    "append an input (`XADD`, which may carry `MAXLEN`/`MINID`)": [
        ("XADD", CHAT, "*", "__data__", "{}")
    ],
    "read an input entry (`XRANGE`, `XREVRANGE`)": [
        ("XRANGE", CHAT, "-", "+"),
        ("XREVRANGE", CHAT, "+", "-"),
    ],
    "trim or delete input entries (`XTRIM`, `XDEL`)": [
        ("XTRIM", CHAT, "MAXLEN", "1000"),
        ("XDEL", CHAT, "9-9"),
    ],
    "give an input stream a TTL (`EXPIRE`)": [("EXPIRE", CHAT, "100000")],
    "replace a stream by a string (`SET`)": [("SET", CHAT, "x")],
    "count input (`XLEN`, `XPENDING`, `XINFO GROUPS`)": [
        ("XLEN", CHAT),
        ("XPENDING", CHAT, "accord"),
        ("XINFO", "GROUPS", CHAT),
    ],
    "acknowledge input (`XACK`)": [("XACK", CHAT, "accord", "9-9")],
    "move a group's cursor (`XGROUP SETID`)": [("XGROUP", "SETID", CHAT, "accord", "$")],
    "append an agreement event": [("XADD", EVENTS, "*", "__data__", "{}")],
    "read agreement events (`XREAD`)": [("XREAD", "STREAMS", EVENTS, "0")],
    "read agreement events (`XRANGE`, `XREVRANGE`)": [
        ("XRANGE", EVENTS, "-", "+"),
        ("XREVRANGE", EVENTS, "+", "-"),
    ],
    "move a subscriber group's cursor (`XGROUP SETID` on events)": [
        ("XGROUP", "SETID", EVENTS, "svc", "$")
    ],
    "read dead letters": [("XRANGE", LETTERS, "-", "+")],
    "write scope, session, record, view or lease state": [
        ("HSET", SCOPE, "s", "forged"),
        ("HSET", SESSION, "n", "1"),
        ("SET", RECORD, "forged"),
        ("HSET", VIEW, "doc", "forged"),
        ("HSET", LEASE, "o", "forged"),
    ],
    "read a view": [("HGET", VIEW, "doc")],
    "read a record": [("GET", RECORD)],
    "read scope and session state": [("HGET", SCOPE, "s"), ("HGET", SESSION, "n")],
    "read the records index (`ZRANGE`)": [("ZRANGE", INDEX, "+inf", "-inf", "BYSCORE", "REV")],
    "write the records index (`ZADD`, `ZREM`)": [
        ("ZADD", INDEX, "2", "forged"),
        ("ZREM", INDEX, "forged"),
    ],
    "read the scopes index (`ZRANGE`)": [("ZRANGE", SCOPES, "+inf", "-inf", "BYSCORE", "REV")],
    "write the scopes index (`ZADD`, `ZREM`)": [
        ("ZADD", SCOPES, "2", "forged"),
        ("ZREM", SCOPES, "forged"),
    ],
    "read the partition count (`GET accord:config`)": [("GET", CONFIG)],
    "read a partition's layout marker (`GET layout:{p}`)": [("GET", MARKER)],
    "change a partition's layout marker (`SET layout:{p}`)": [("SET", MARKER, "moving")],
    "change the partition count (`SET accord:config`)": [
        ("SET", CONFIG, '{"partitions":2,"group":"accord"}')
    ],
    "expire the partition count or a layout marker (`EXPIRE`)": [
        ("EXPIRE", CONFIG, "0"),
        ("EXPIRE", MARKER, "0"),
    ],
    "count up a seq counter (`INCR`)": [("INCR", SEQ)],
    "expire a seq counter": [("EXPIRE", SEQ, "0")],
    "delete a key (`DEL`, `UNLINK`)": [("DEL", RECORD), ("UNLINK", RECORD)],
    "run Lua of its own (`EVAL`)": [("EVAL", "return 1", "0")],
    "list key names (`SCAN`)": [("SCAN", "0")],
    "list key names (`KEYS`)": [("KEYS", "nothing*")],
    "administer the server (`CONFIG`, `CLIENT`, `ACL`, `FLUSHALL`)": [
        ("CONFIG", "GET", "maxmemory"),
        ("CLIENT", "LIST"),
        ("ACL", "LIST"),
        ("FLUSHALL",),
    ],
}

USERS = ("accord", "gateway", "subscriber", "console", "keda", "probe", "replica", "ops")
SERVERS = ("6.2", "7")

# Family -> user -> the two results (6.2, 7): "yes" allowed, "no" refused.
_ALL = dict.fromkeys(USERS, ("no", "no")) | {"ops": ("yes", "yes")}


def _only(**users: tuple[str, str]) -> dict[str, tuple[str, str]]:
    """Refused to every user but `ops` and those named."""
    return _ALL | users


YES = ("yes", "yes")
SIX_ONLY = ("yes", "no")

EXPECTED: dict[str, dict[str, tuple[str, str]]] = {
    "append an input (`XADD`, which may carry `MAXLEN`/`MINID`)": _only(accord=YES, gateway=YES),
    "read an input entry (`XRANGE`, `XREVRANGE`)": _only(accord=YES, console=SIX_ONLY),
    "trim or delete input entries (`XTRIM`, `XDEL`)": _only(accord=YES),
    "give an input stream a TTL (`EXPIRE`)": _only(gateway=SIX_ONLY),
    "replace a stream by a string (`SET`)": _only(accord=SIX_ONLY),
    "count input (`XLEN`, `XPENDING`, `XINFO GROUPS`)": _only(accord=YES, console=YES, keda=YES),
    "acknowledge input (`XACK`)": _only(accord=YES),
    "move a group's cursor (`XGROUP SETID`)": _only(),
    "append an agreement event": _only(accord=YES),
    "read agreement events (`XREAD`)": _only(accord=YES, subscriber=YES, gateway=("no", "yes")),
    "read agreement events (`XRANGE`, `XREVRANGE`)": _only(accord=YES, subscriber=YES, console=YES),
    "move a subscriber group's cursor (`XGROUP SETID` on events)": _only(subscriber=YES),
    "read dead letters": _only(accord=YES, console=YES),
    "write scope, session, record, view or lease state": _only(accord=YES),
    "read a view": _only(accord=YES, subscriber=YES, console=YES, gateway=("no", "yes")),
    "read a record": _only(accord=YES, console=YES, gateway=("no", "yes")),
    "read scope and session state": _only(accord=YES, console=YES),
    "read the records index (`ZRANGE`)": _only(accord=YES, console=YES),
    "write the records index (`ZADD`, `ZREM`)": _only(accord=YES),
    "read the scopes index (`ZRANGE`)": _only(accord=YES, console=YES),
    "write the scopes index (`ZADD`, `ZREM`)": _only(accord=YES),
    "read the partition count (`GET accord:config`)": _only(
        accord=YES, gateway=YES, subscriber=YES, console=YES
    ),
    "read a partition's layout marker (`GET layout:{p}`)": _only(gateway=YES),
    "change a partition's layout marker (`SET layout:{p}`)": _only(),
    "change the partition count (`SET accord:config`)": _only(accord=YES),
    "expire the partition count or a layout marker (`EXPIRE`)": _only(gateway=SIX_ONLY),
    "count up a seq counter (`INCR`)": _only(gateway=YES),
    "expire a seq counter": _only(gateway=SIX_ONLY),
    "delete a key (`DEL`, `UNLINK`)": _only(),
    "run Lua of its own (`EVAL`)": _only(accord=SIX_ONLY, gateway=SIX_ONLY),
    "list key names (`SCAN`)": _only(console=YES),
    "list key names (`KEYS`)": _only(),
    "administer the server (`CONFIG`, `CLIENT`, `ACL`, `FLUSHALL`)": _only(),
}


def render(expected: dict[str, dict[str, tuple[str, str]]] = EXPECTED) -> str:
    """The table docs/security.md shows: one row per family, one column per user, each
    cell `6.2 / 7` (the same answer once when the two agree)."""
    head = "| may it … | " + " | ".join(f"`{user}`" for user in USERS) + " |"
    rule = "|---|" + "---|" * len(USERS)
    rows = [head, rule]
    for family, users in expected.items():
        cells = []
        for user in USERS:
            six, seven = users[user]
            cells.append(six if six == seven else f"{six} (6.2) / {seven} (7)")
        rows.append(f"| {family} | " + " | ".join(cells) + " |")
    return "\n".join(rows) + "\n"


START = "<!-- attack-matrix:start (generated: uv run python -m tests.support.attack_matrix) -->"
END = "<!-- attack-matrix:end -->"


if __name__ == "__main__":
    sys.stdout.write(render())
