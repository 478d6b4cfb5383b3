# ruff: noqa: T201  (a benchmark prints its figures)
"""Score `accord recognize` on a labelled held-out set (tests/corpus/heldout_*.jsonl).

Usage: uv run --frozen python benchmarks/score_heldout.py tests/corpus/heldout_intent.jsonl [...]

Each line of a set carries the turn (`role`, `text`, `ts`, `timezone`) and its label:
`expect` (proposal, acceptance, cancellation or none), for proposals `terms` (the visible
text only) and optionally `terms_alt`. Only the turn's fields go to the recognizer, through
the CLI a gateway operator would use, so the score is of the shipped path. An assistant or
system turn labelled `none` also counts as right when it gives `claims` (R18: checked,
never acted on). Prints the figures and every miss.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

TURN_FIELDS = ("role", "text", "ts", "timezone")
# Characters no chat client draws: format controls (zero-width, bidi, tags) and
# variation selectors. Their presence in stored terms means hidden text got in.
_MARKUP = re.compile(r"<[a-zA-Z/!]|-->|\[//\]: #|\]\(")


def _norm(terms: str) -> str:
    return re.sub(r"\s+", " ", terms).strip().rstrip(".\u3002!\uff01~\uff5e ").strip()


def _invisible(terms: str) -> bool:
    return any(
        unicodedata.category(ch) == "Cf"
        or 0xFE00 <= ord(ch) <= 0xFE0F
        or 0xE0100 <= ord(ch) <= 0xE01EF
        for ch in terms
    )


def score(path: Path) -> bool:
    rows = [
        json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
    ]
    turns = "".join(
        json.dumps({k: row[k] for k in TURN_FIELDS if k in row}, ensure_ascii=False) + "\n"
        for row in rows
    )
    # The console script of this environment (`uv run` puts it on PATH).
    out = subprocess.run(
        ["accord", "recognize"],  # noqa: S607
        input=turns,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    assert len(out) == len(rows), (len(out), len(rows))
    right = false_proposals = refused = hostile_none = terms_right = proposals_found = leaks = 0
    misses: list[str] = []
    for row, line in zip(rows, out, strict=True):
        got = json.loads(line)
        intent = got["intent"]
        ok = intent == row["expect"] or (
            row["role"] != "user" and row["expect"] == "none" and intent == "claims"
        )
        note = ""
        if row["expect"] == "none":
            hostile_none += 1
            refused += intent in ("none", "claims")
        if intent == "proposal":
            terms = got["terms"] or ""
            if _MARKUP.search(terms) or _invisible(terms):
                leaks += 1
                note += " HIDDEN/MARKUP IN TERMS"
            if row["expect"] == "proposal":
                proposals_found += 1
                wanted = {_norm(row["terms"]), *(_norm(t) for t in row.get("terms_alt", []))}
                if _norm(terms) in wanted:
                    terms_right += 1
                else:
                    ok = False
                    note += f" terms={terms!r} want={row['terms']!r}"
            else:
                false_proposals += 1
        right += ok
        if not ok or note:
            misses.append(
                f"  {row['id']} [{row['family']}] want={row['expect']} got={intent}{note}\n"
                f"      {row['text']!r}"
            )
    expected_props = sum(r["expect"] == "proposal" for r in rows)
    print(f"{path.name}: {len(rows)} turns")
    print(f"  intent and terms right: {right}/{len(rows)} = {100 * right / len(rows):.1f} %")
    print(f"  false proposals: {false_proposals}")
    print(f"  turns that must give no intent, refused: {refused}/{hostile_none}")
    print(f"  proposals found: {proposals_found}/{expected_props}, terms right: {terms_right}")
    print(f"  terms with hidden text or markup: {leaks}")
    for miss in misses:
        print(miss)
    return not misses


if __name__ == "__main__":
    results = [score(Path(arg)) for arg in sys.argv[1:]]
    sys.exit(0 if all(results) else 1)
