"""The held-out sets of tests/corpus keep the targets they were written for (R1, R2, R4, R8, R14).

Written from the seed, DESIGN.md and the issue's families before the recognizer was read
(tests/corpus/README.md, "Held-out sets"); their first scores are in docs/recognizer.md.
Here they guard what was reached: no false proposal, every turn labelled `none` gives
none (hostile ones included), the terms of every proposal found are the visible text
alone, and the intent is right for all but the cases docs/recognizer.md lists as
deliberately refused.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

import pytest

from core.intents import Proposal
from core.recognition.recognizer import recognize
from tests.support.corpus_kit import load_corpus, reading

SETS = (
    "heldout_intent.jsonl",
    "heldout_hostile.jsonl",
    "heldout2_intent.jsonl",
    "heldout2_hostile.jsonl",
)
ROWS: list[dict[str, Any]] = [row for name in SETS for row in load_corpus(name)]
# Refused on purpose, the set's label notwithstanding (docs/recognizer.md, "Held-out
# sets"): laughter after an act ('lol') may mean it was a joke, and "after" + a noun
# phrase ("After a long week:", 看完…以后) may defer the act as well as look back.
REFUSED_ON_PURPOSE = frozenset({"ho-i047", "ho-i072", "ho-i120"})
_MARKUP = re.compile(r"<[a-zA-Z/!]|-->|\[//\]: #|\]\(")


def _norm(terms: str) -> str:
    return re.sub(r"\s+", " ", terms).strip().rstrip(".\u3002!\uff01~\uff5e ").strip()


def _ids(rows: list[dict[str, Any]]) -> list[str]:
    return [row["id"] for row in rows]


@pytest.mark.parametrize("row", ROWS, ids=_ids(ROWS))
def test_held_out_turn_gives_its_labelled_intent_and_visible_terms_r1_r2(
    row: dict[str, Any],
) -> None:
    """R1, R4, R8: the labelled intent (an assistant or system turn: no act); R2, R14: a
    proposal's terms are its visible words, no markup and no invisible character."""
    intent = recognize(row["text"], row["role"])
    got = reading(intent)["intent"]
    if row["id"] in REFUSED_ON_PURPOSE:
        assert got == "none"
        return
    assert got == row["expect"]
    if isinstance(intent, Proposal):
        wanted = {_norm(row["terms"]), *(_norm(terms) for terms in row.get("terms_alt", []))}
        assert _norm(intent.terms) in wanted
        assert _MARKUP.search(intent.terms) is None
        assert all(unicodedata.category(char) != "Cf" for char in intent.terms)


def test_held_out_sets_are_the_size_written_and_hold_every_kind() -> None:
    """The sets are whole: 299 + 103 + 123 + 38 turns, every intent and language."""
    assert len(ROWS) == 299 + 103 + 123 + 38
    assert {row["expect"] for row in ROWS} == {"proposal", "acceptance", "cancellation", "none"}
    assert {row["lang"] for row in ROWS} == {"en", "zh", "mix"}
