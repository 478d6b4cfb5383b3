"""Which record a user confirmation, cancellation or amendment means (R4, R8, R17).

Exactly one candidate resolves; with a target hint, exactly one candidate whose
terms contain the hint (after normalisation) resolves. Anything else is ambiguous:
nothing changes and the user is asked for clearer terms. The bridge never chooses.
"""

from __future__ import annotations

import re
import unicodedata

from contracts.records import AgreementRecord

# Quotes and closing punctuation around a hint carry no meaning for matching.
# NFKC has already turned full-width punctuation into ASCII; curly quotes stay.
_QUOTES = "\"'`\u2018\u2019\u201c\u201d\u300c\u300d\u300e\u300f\u300a\u300b"
_EDGE = _QUOTES + "()[].,;:!?\u3002\u3001 \t\n"
_SPACE = re.compile(r"\s+")


def normalise(text: str) -> str:
    """Case-, width- and space-insensitive form used to match a hint against terms."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return _SPACE.sub(" ", folded).strip(_EDGE)


def texts(record: AgreementRecord) -> tuple[str, ...]:
    """What a hint may name: the terms, and a pending amendment's new terms (R17)."""
    if record.amendment is None:
        return (record.terms,)
    return (record.terms, record.amendment.terms)


def resolve(
    candidates: tuple[AgreementRecord, ...], hint: str | None
) -> tuple[AgreementRecord | None, tuple[AgreementRecord, ...]]:
    """The one record meant (or None), and the candidates to list when it is None.

    A hint that matches several narrows the list to those; a hint that matches none
    lists every candidate, so the user sees what can be meant.
    """
    wanted = normalise(hint) if hint is not None else ""
    matching = tuple(c for c in candidates if any(wanted in normalise(t) for t in texts(c)))
    if len(matching) == 1:
        return matching[0], ()
    return None, matching or candidates
