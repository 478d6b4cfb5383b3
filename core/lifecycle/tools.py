"""Tool inputs: the agent's acceptance tool (R3, R17) and verified delivery (R10, R12, R13).

A tool call changes a record only through `soul_agreement_accept`, and always gets an
answer; a tool result changes one only when an adapter verifies the delivery of its
binding. Any other tool is not an agreement (R10).
"""

from __future__ import annotations

from typing import Final

from contracts.common import Cause
from contracts.inputs import ToolCall, ToolResult
from contracts.outputs import StateChanged, ToolOutcome
from contracts.records import Acceptances, AgreementRecord, Evidence
from contracts.tools import ACCEPT_TOOL_NAME, RejectionReason
from core.lifecycle import acceptance
from core.lifecycle.amendment import accept_amendment
from core.lifecycle.answers import envelope
from core.lifecycle.changes import Grounds, change, closing
from core.lifecycle.context import NOTHING, Context, Outcome
from core.lifecycle.delivery import ADAPTERS
from core.lifecycle.state import ClosedRecord, SessionState
from core.lifecycle.todo import capped, within_bytes
from core.lifecycle.transitions import acts_on

_DELIVERABLE: Final = acts_on(Cause.DELIVERY_VERIFIED)


def on_call(context: Context, call: ToolCall) -> Outcome:
    """The agent's acceptance: a change when the checks pass, and the outcome either way."""
    if call.name != ACCEPT_TOOL_NAME:
        return NOTHING
    raw_id = call.arguments.get("record_id")
    record_id = raw_id if isinstance(raw_id, str) else None
    record: AgreementRecord | ClosedRecord | None = None
    if record_id is not None:
        # A closed record still answers the agent (wrong state, past deadline).
        record = context.scope.find(record_id) or context.scope.find_closed(record_id)
    arguments = acceptance.parse_arguments(call.arguments)
    if arguments is None:
        reason: RejectionReason | None = RejectionReason.MALFORMED_ARGUMENTS
    else:
        reason = acceptance.rejection(record, arguments, call.session_id, call.ts)
    changes: tuple[StateChanged, ...] = ()
    revision, state = (None, None) if record is None else (record.revision, record.state)
    if reason is None and isinstance(record, AgreementRecord):
        grounds = Grounds(
            call.ts, context.provenance, Evidence(input_at=call.ts, arguments=arguments)
        )
        if record.amendment is not None:
            accepted_change = accept_amendment(record, record.amendment, "agent", grounds)
        else:
            accepted = Acceptances(agent=True, user=record.acceptances.user)
            accepted_change = change(record, Cause.AGENT_ACCEPTED, grounds, accepted)
        changes = (accepted_change,)
        # The outcome tells the agent where the record stands after its acceptance.
        revision, state = accepted_change.revision, accepted_change.to_state
    outcome = ToolOutcome(
        **envelope(call, "tool_outcome"),
        call_id=call.call_id,
        accepted=reason is None,
        record_id=record_id,
        reason=reason,
        current_revision=revision,
        state=state,
    )
    return Outcome(changes=changes, answers=(outcome,))


def on_result(context: Context, result: ToolResult) -> Outcome:
    """Closes every record whose binding the result delivers; updates the todo tracking."""
    session = after = context.session
    for adapter in ADAPTERS.values():
        after = adapter.observe(after, result)
    after = _within_limit(context, after)
    # Tracking unchanged means no item moved, so nothing can have been delivered.
    if after == session:
        return NOTHING
    delivered = tuple(
        delivery
        for record in context.scope.records
        if record.binding is not None
        and record.state in _DELIVERABLE
        and ADAPTERS[type(record.binding)].delivered(record.binding, session, after)
        for delivery in closing(
            record,
            Cause.DELIVERY_VERIFIED,
            Grounds(
                result.ts,
                context.provenance,
                Evidence(
                    input_at=result.ts,
                    origin_seq=record.binding.origin_seq,
                    snapshot_seq=result.seq,
                ),
            ),
        )
    )
    return Outcome(changes=delivered, session=after)


def _within_limit(context: Context, session: SessionState) -> SessionState:
    """The session's todo tracking within `Policy.max_todo_state_bytes` (`todo.capped`),
    keeping every item a live binding of this session names, a pending amendment's too."""
    limit = context.policy.max_todo_state_bytes
    if within_bytes(session.todos, limit):
        return session
    bound = frozenset(b.content for b in context.scope.bindings_in(session.session_id))
    return SessionState(session_id=session.session_id, todos=capped(session.todos, bound, limit))
