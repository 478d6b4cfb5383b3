"""Stream names and the entry layout shared with every producer and subscriber.

Every name of partition p carries the Redis Cluster hash tag `{p}`, so all keys of a
partition live in one slot and one Lua script can touch them atomically.
Each entry carries the JSON document of one event in the single field `__data__`
(the field FastStream reads as the body); no other framing is ever required.
"""

from __future__ import annotations

# The field holding an event's JSON document in every stream entry, in and out.
DATA_FIELD = "__data__"

CHAT_TURN = "chat-turn"
TOOL_CALL = "tool-call"
TOOL_RESULT = "tool-result"
INPUT_FAMILIES: tuple[str, ...] = (CHAT_TURN, TOOL_CALL, TOOL_RESULT)

AGREEMENT_EVENTS = "agreement-events"
DEAD_LETTERS = "dead-letters"


def hash_tag(partition: int) -> str:
    return "{" + str(partition) + "}"


def stream_name(family: str, partition: int) -> str:
    """`chat-turn:{0}`, `agreement-events:{3}`, ..."""
    return f"{family}:{hash_tag(partition)}"


def input_streams(partition: int) -> tuple[str, ...]:
    return tuple(stream_name(family, partition) for family in INPUT_FAMILIES)


def family_of(stream: str) -> str:
    """The family of a stream name (`chat-turn:{0}` -> `chat-turn`)."""
    return stream.split(":", 1)[0]
