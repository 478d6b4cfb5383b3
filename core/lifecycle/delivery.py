"""The delivery-adapter interface: bind at proposal time, verify on a tool result.

An adapter owns one artifact kind (the todo list first, R11-R13). The reducer only
asks the adapters (`ADAPTERS`); adding a kind adds an adapter and a `Binding` member, never a
branch in the lifecycle table (DESIGN section 3, "Delivery adapters").
"""

from __future__ import annotations

from typing import Final, Protocol

from contracts.inputs import ToolResult
from contracts.records import Binding, TodoBinding
from core.intents import Proposal
from core.lifecycle.state import SessionState
from core.lifecycle.todo import TODO_ADAPTER


class DeliveryAdapter(Protocol):
    def bind(self, proposal: Proposal, session: SessionState) -> Binding | None:
        """The binding the proposal gets from the session's real state, if any.

        Only host-observed state counts: the model never submits a binding.
        """
        ...

    def observe(self, session: SessionState, result: ToolResult) -> SessionState:
        """The session's tracking after a tool result (unchanged if not this kind's)."""
        ...

    def delivered(self, binding: Binding, before: SessionState, after: SessionState) -> bool:
        """Whether the step `before -> after` of the binding's session delivers it."""
        ...


# Binding kind -> the adapter that verifies it.
ADAPTERS: Final[dict[type[Binding], DeliveryAdapter]] = {TodoBinding: TODO_ADAPTER}
