"""Field types shared by the input and output events."""

from __future__ import annotations

import enum
from datetime import datetime
from typing import Annotated

import msgspec

# An instant on the wire: RFC 3339 with an explicit offset. Naive times are refused
# because a deadline resolved from a naive time would silently depend on the host.
Instant = Annotated[datetime, msgspec.Meta(tz=True)]

# Identifiers are opaque strings chosen by the gateway; bounded so one entry cannot
# blow up a key name or a log line.
Ident = Annotated[str, msgspec.Meta(min_length=1, max_length=256)]

# Session sequence numbers start at 1 (DESIGN section 2). The upper bound is the
# largest integer a double holds exactly: Redis Lua numbers and JavaScript gateways
# use doubles, and msgpack state cannot hold more than 64 bits, so a larger seq
# would be misordered or crash the commit instead of being refused at the door.
MAX_SEQ = 2**53 - 1
Seq = Annotated[int, msgspec.Meta(ge=1, le=MAX_SEQ)]

Revision = Annotated[int, msgspec.Meta(ge=1)]

# W3C trace context (https://www.w3.org/TR/trace-context/#traceparent-header), version
# 00 in lowercase hex as the specification writes it: the span that wrote an input, or
# the worker's span that committed an event, so a trace goes on from gateway to worker
# to subscriber (docs/operations.md, "Traces"). Absent when nobody traces.
Traceparent = Annotated[str, msgspec.Meta(pattern=r"^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$")]


class Role(enum.StrEnum):
    USER = "user"
    ASSISTANT = "assistant"
    SYSTEM = "system"


class TodoStatus(enum.StrEnum):
    PENDING = "pending"
    IN_PROGRESS = "in_progress"
    COMPLETED = "completed"


class AgreementState(enum.StrEnum):
    PROPOSED = "proposed"
    OPEN = "open"
    FULFILLED = "fulfilled"
    CANCELLED = "cancelled"
    EXPIRED = "expired"


class Cause(enum.StrEnum):
    """Why a record changed: one value per arrow of the lifecycle."""

    PROPOSED = "proposed"
    AGENT_ACCEPTED = "agent_accepted"
    USER_ACCEPTED = "user_accepted"
    USER_CANCELLED = "user_cancelled"
    DEADLINE_REACHED = "deadline_reached"
    DELIVERY_VERIFIED = "delivery_verified"
    # R17: a pending amendment of an open agreement and what becomes of it. The
    # acceptance that completes both sides also replaces the terms (as R5's opens).
    AMENDMENT_PROPOSED = "amendment_proposed"
    AMENDMENT_AGENT_ACCEPTED = "amendment_agent_accepted"
    AMENDMENT_USER_ACCEPTED = "amendment_user_accepted"
    AMENDMENT_CANCELLED = "amendment_cancelled"
    AMENDMENT_LAPSED = "amendment_lapsed"


class Provenance(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """Where a change came from (R14). Expiry has no input entry: only `seq` of none."""

    stream: str | None = None
    entry_id: str | None = None
    session_id: str | None = None
    seq: int | None = None
    message_id: str | None = None
    call_id: str | None = None
