"""The labelled recognizer corpus (tests/corpus) and how a case is read off an intent."""

from __future__ import annotations

import json
from typing import Any

from core.intents import Acceptance, Cancellation, Intent, Proposal
from tests.support.paths import CORPUS


def load_corpus(name: str) -> list[dict[str, Any]]:
    with (CORPUS / name).open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


POSITIVE = load_corpus("recognizer_positive.jsonl")


NEGATIVE = load_corpus("recognizer_negative.jsonl")


def reading(intent: Intent) -> dict[str, str | None]:
    """The fields a corpus case labels, read off an intent."""
    match intent:
        case Proposal():
            return {
                "intent": "proposal",
                "terms": intent.terms,
                "todo_target": intent.todo_target,
                "target_hint": None,
            }
        case Acceptance() | Cancellation():
            kind = "acceptance" if isinstance(intent, Acceptance) else "cancellation"
            return {
                "intent": kind,
                "terms": None,
                "todo_target": None,
                "target_hint": intent.target_hint,
            }
        case _:
            return {"intent": "none", "terms": None, "todo_target": None, "target_hint": None}
