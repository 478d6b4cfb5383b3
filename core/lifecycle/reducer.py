"""The agreement lifecycle: the only entry by which agreement state changes.

`apply_input` runs one input: it expires its session's due records, hands the input
to its handler, and folds the changes once (`fold.commit`) into the step the store
commits. The parts, each a module of `core.lifecycle`:

- `transitions`: the table (`TRANSITIONS`), the only arrows a record may take;
- `proposal`, `targeted` (confirm, cancel, withdraw), `amendment`, `tools` (the
  agent's acceptance, verified delivery), `claims`: the handlers, which *decide*
  changes (`changes`) and answers (`answers`) from a `context.Context`;
- `expiry`: deadlines (R9), before every input and in the sweeper's `expire_due`;
- `fold`: `evolve` folds one change into its record, `commit` a step into the scope.

An input that the rules refuse changes nothing: it may only owe an answer (a tool
outcome, a clarification, a refused proposal). Time is an argument, never a clock:
an input acts at its own `ts`, so the outcome depends only on event time (DESIGN 3).
"""

from __future__ import annotations

from contracts.common import Provenance, Role
from contracts.inputs import ChatTurn, InputEvent, ToolCall
from contracts.outputs import sealed
from contracts.step import CoreStep
from contracts.tools import ACCEPT_TOOL_NAME
from core.intents import (
    Acceptance,
    AmendmentCancellation,
    Cancellation,
    Claims,
    Intent,
    NoIntent,
    Proposal,
)
from core.intents import Amendment as AmendmentIntent
from core.lifecycle import claims
from core.lifecycle.amendment import amend
from core.lifecycle.context import NOTHING, Context, Outcome, Policy
from core.lifecycle.expiry import deadline_entries, expire_due, expired
from core.lifecycle.fold import commit, evolve
from core.lifecycle.proposal import propose
from core.lifecycle.state import ScopeState, SessionState
from core.lifecycle.targeted import targeted
from core.lifecycle.tools import on_call, on_result
from core.lifecycle.transitions import TRANSITIONS

# The lifecycle's public names, for the engine, the harness and the tests.
__all__ = [
    "TRANSITIONS",
    "Policy",
    "apply_input",
    "deadline_entries",
    "evolve",
    "expire_due",
    "quiet_step",
]


def apply_input(  # noqa: PLR0913, PLR0917 - the agreed interface (core_api): each argument is distinct data
    scope: ScopeState,
    session: SessionState,
    event: InputEvent,
    intent: Intent,
    provenance: Provenance,
    policy: Policy,
) -> CoreStep[ScopeState, SessionState]:
    """Apply one input at its own time. `intent` is NO_INTENT unless a chat turn."""
    # Only this session's records are expired here: its seq order guarantees that every
    # earlier input of the session has been applied, so an acceptance or delivery stamped
    # before the deadline has already counted. Another session's records past their
    # deadline are left to that session's next input or to the watermark-gated sweeper
    # (DESIGN 3); until then the handlers treat them as past due, so a concurrent
    # session can neither pre-empt an in-time input nor act on a dead record.
    expiries = expired(scope, event.ts, session_id=event.session_id)
    if not expiries and _unhandled(event, intent):
        return _nothing(scope, session)
    current, changed = commit(scope, expiries)
    context = Context(scope=current, session=session, provenance=provenance, policy=policy)
    if isinstance(event, ChatTurn):
        outcome = _on_turn(context, event, intent)
    elif isinstance(event, ToolCall):
        outcome = on_call(context, event)
    else:
        outcome = on_result(context, event)
    after, acted = commit(current, outcome.changes)
    new_session = session if outcome.session is None else outcome.session
    changes = expiries + outcome.changes
    return CoreStep(
        scope=after,
        session=new_session,
        events=tuple(map(sealed, changes + outcome.answers)),
        # A record both expired and acted on keeps its place from its expiry.
        records=tuple((changed | acted).values()),
        scope_changed=bool(changes),
        # Only a handler that returns a session can change it: no compare for the rest.
        session_changed=outcome.session is not None and new_session != session,
    )


def quiet_step(
    scope: ScopeState, session: SessionState, event: InputEvent, intent: Intent
) -> CoreStep[ScopeState, SessionState] | None:
    """The step `apply_input` returns for an input that changes nothing, decided without
    its provenance: a turn without an intent or a call of a tool other than the
    acceptance, with nothing of its session due. None: `apply_input` must decide.

    Most inputs are such: the engine asks this first and builds the provenance (R14)
    only for the rest, where a change may carry it.
    """
    if _unhandled(event, intent) and not expired(scope, event.ts, session_id=event.session_id):
        return _nothing(scope, session)
    return None


def _unhandled(event: InputEvent, intent: Intent) -> bool:
    """Whether no handler acts on the input: a turn without an intent (`_on_turn`), or a
    call of a tool other than the acceptance (`on_call`, R10). This runs for nearly
    every input, so it is decided without building the handler's context."""
    if isinstance(event, ChatTurn):
        return isinstance(intent, NoIntent)
    return isinstance(event, ToolCall) and event.name != ACCEPT_TOOL_NAME


def _nothing(scope: ScopeState, session: SessionState) -> CoreStep[ScopeState, SessionState]:
    """The step of an input that changed nothing (most turns: no phrase, no claim,
    nothing due)."""
    return CoreStep(
        scope=scope, session=session, events=(), records=(),
        scope_changed=False, session_changed=False,
    )  # fmt: skip


def _on_turn(context: Context, turn: ChatTurn, intent: Intent) -> Outcome:
    """User turns propose (R1, R2, R11), confirm (R4), cancel (R8) or amend (R17)."""
    if turn.role != Role.USER:
        # R1: assistant, system and tool text never creates, accepts or cancels.
        # R18: an assistant's claims are checked against the state, which stays as it is.
        if isinstance(intent, Claims) and turn.role == Role.ASSISTANT:
            return Outcome(answers=claims.unverified(context, turn, intent.claims))
        return NOTHING
    if isinstance(intent, Proposal):
        return propose(context, turn, intent)
    if isinstance(intent, AmendmentIntent):
        return amend(context, turn, intent)
    if isinstance(intent, Acceptance | Cancellation | AmendmentCancellation):
        return targeted(context, turn, intent)
    return NOTHING
