"""FastStream batch subscribers on the input streams, feeding the Dispatcher.

Choices forced by FastStream 0.7.8 on Redis (../shared/notes/faststream-0.7-redis.md):
- batch subscribers with `max_records` (the per-message one is ~40x slower, and an
  unbounded read pulls the whole backlog into one PEL);
- groups are created by the worker at id 0 before the subscribers start, so the
  subscriber's own `XGROUP CREATE ... $` finds them and skips nothing;
- `AckPolicy.MANUAL` and no ack from here: the store XACKs inside the same Lua
  script that commits the effect, so an entry is acked iff it was applied (or
  parked, or dead-lettered);
- a parser that keeps the raw entries: the default one decodes every body as JSON
  and dumps the list again, work the store's msgspec decoding does once.
"""

from __future__ import annotations

from typing import Any, cast

from faststream import AckPolicy
from faststream.redis import RedisBroker, StreamSub
from faststream.redis.message import RedisBatchStreamMessage

from contracts.streams import Entry, input_streams
from worker.consumer import Dispatcher


async def _keep_raw(message: Any) -> RedisBatchStreamMessage:  # noqa: ANN401  (FastStream's raw dict)
    return RedisBatchStreamMessage(
        raw_message=message, body=b"", consumer=cast("Any", None), group=None
    )


async def _raw_body(message: RedisBatchStreamMessage) -> Any:  # noqa: ANN401  (FastStream awaits decoders)
    return message.raw_message


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def raw_entries(raw: Any) -> list[Entry]:  # noqa: ANN401
    """Entry list from FastStream's batch message dict (channel, message_ids, data)."""
    stream = raw["channel"]
    counts = raw.get("delivery_counts")
    return [
        Entry(stream, _text(entry_id), fields, (counts[i] + 1) if counts else 1)
        for i, (entry_id, fields) in enumerate(zip(raw["message_ids"], raw["data"], strict=True))
    ]


def register_subscribers(  # noqa: PLR0913  (the subscriber's knobs, keyword-only)
    broker: RedisBroker,
    dispatcher: Dispatcher,
    *,
    partitions: tuple[int, ...],
    group: str,
    consumer: str,
    batch_size: int,
    block_ms: int,
) -> None:
    """One batch subscriber per input stream of every served partition."""

    for partition in partitions:
        for stream in input_streams(partition):
            subscriber = broker.subscriber(
                stream=StreamSub(
                    stream,
                    group=group,
                    consumer=consumer,
                    batch=True,
                    max_records=batch_size,
                    polling_interval=block_ms,
                ),
                parser=_keep_raw,
                decoder=_raw_body,
                ack_policy=AckPolicy.MANUAL,
                no_reply=True,
                title=f"{stream}/accord",
            )
            subscriber(_handler(dispatcher))


def _handler(dispatcher: Dispatcher) -> Any:  # noqa: ANN401
    # A fresh function per subscriber: FastStream wraps the function object it gets.
    async def handle(raw: Any) -> None:  # noqa: ANN401
        await dispatcher.handle(raw_entries(raw))

    return handle
