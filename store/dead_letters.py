"""Dead letters of a partition: listing, and re-queueing an entry to its original stream."""

from __future__ import annotations

from typing import Any

import msgspec

from contracts.outputs import DeadLetter
from contracts.streams import DATA_FIELD, as_text, input_streams
from store import keys
from store.scripts import REQUEUE, AnyRedis

_LETTER = msgspec.json.Decoder(DeadLetter)


class RequeueError(ValueError):
    pass


async def list_dead_letters(
    redis: AnyRedis, partition: int, *, start: str = "-", count: int = 100
) -> list[tuple[str, DeadLetter]]:
    """Oldest first from `start` (an entry id, inclusive): (dead-letter entry id, letter)."""
    reply: Any = await redis.xrange(keys.dead_letters_stream(partition), start, "+", count=count)
    return [
        (as_text(entry_id), _LETTER.decode(fields[DATA_FIELD.encode()]))
        for entry_id, fields in reply
    ]


async def requeue(redis: AnyRedis, partition: int, dead_letter_id: str) -> str | None:
    """XADD the letter's original fields to its original stream and XDEL it, atomically.

    Returns the new input entry id, or None when the letter no longer exists. The entry
    goes through the ordering gate again like any other: a duplicate has no effect.
    """
    stream = keys.dead_letters_stream(partition)
    reply: Any = await redis.xrange(stream, dead_letter_id, dead_letter_id)
    if not reply:
        return None
    letter = _LETTER.decode(reply[0][1][DATA_FIELD.encode()])
    if letter.stream not in input_streams(partition):
        raise RequeueError(f"{letter.stream!r} is not an input stream of partition {partition}")
    if any("redacted>" in value for value in letter.fields.values()):
        raise RequeueError("the letter's text was redacted (dead_letter_keep_text off)")
    fields = [x for name, value in letter.fields.items() for x in (name, value)]
    new_id = await REQUEUE.run(redis, [stream, letter.stream], [dead_letter_id, *fields])
    return None if new_id is None else as_text(new_id)
