"""accord's Python client for chat gateways and subscribers (docs/gateway.md).

Needs only redis-py, msgspec and tzdata; the wire types are `accord_client.contracts`, a copy
generated from accord's `contracts/` (scripts/sync_client.py):

    client = AccordClient(redis.asyncio.Redis.from_url(url), partitions=P)
    session = client.session(agent_id, user_id, session_id)
    turn = await session.user("Let's agree: ...", timezone="Europe/Berlin")
    view = await session.view()                       # R6, filtered by deadline now
    outcome = await session.accept(record_id, revision, timeout=10)
    await session.assistant("...")
    why = await client.explain(agent_id, user_id, record_id)  # R16, revision by revision
"""

from accord_client.client import AccordClient
from accord_client.contracts import CONTRACTS_VERSION
from accord_client.errors import (
    AcceptTimeoutError,
    AccordClientError,
    AppendUnavailableError,
    AppliedTimeoutError,
    InvalidInputError,
    NotReplicatedError,
    UnknownRecordError,
)
from accord_client.session import Appended, Session
from accord_client.subscription import Delivery, Subscription, UnknownEvent
from accord_client.tools import accept_tool, tool_result_text

# The distribution's version is its contracts' (scripts/sync_client.py keeps them equal).
__version__ = CONTRACTS_VERSION

__all__ = [
    "AcceptTimeoutError",
    "AccordClient",
    "AccordClientError",
    "AppendUnavailableError",
    "Appended",
    "AppliedTimeoutError",
    "Delivery",
    "InvalidInputError",
    "NotReplicatedError",
    "Session",
    "Subscription",
    "UnknownEvent",
    "UnknownRecordError",
    "accept_tool",
    "tool_result_text",
]
