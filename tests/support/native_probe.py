"""What the recognizer and the deadline grammar make of a fixed set of texts, as JSON.

    python -m tests.support.native_probe      # from the repo root; ACCORD_NATIVE decides

Run once with the compiled modules and once with the Python ones
(tests/e2e/test_native_build.py), the two outputs must be equal. The first line says
which modules were loaded, so a run that silently fell back to Python is caught.

The texts: every turn of the labelled recognizer corpus, as user and as assistant;
each proposal with one of the deadline examples of docs/deadlines.md appended (the
examples of every supported family, both languages); each of those examples alone
through the finder, the parser and the resolver, at two instants in two zones; and
seeded recombinations of corpus fragments (sentences spliced across turns), so inputs no
table holds are compared too.
"""

# ruff: noqa: T201  (its output is the result)
from __future__ import annotations

import importlib
import json
import random
import re
import sys
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import msgspec

from contracts.common import Role
from contracts.inputs import ChatTurn
from core import native
from core.deadlines import finder, resolve
from core.interpret import interpret
from core.recognition import recognizer
from tests.support.corpus_kit import NEGATIVE, POSITIVE
from tests.support.paths import ROOT

INSTANTS = (datetime(2026, 11, 27, 10, 0, tzinfo=UTC), datetime(2026, 12, 31, 23, 30, tzinfo=UTC))
ZONES = (ZoneInfo("Asia/Shanghai"), ZoneInfo("America/New_York"))
SPLICES = 3000


def corpus_texts() -> list[str]:
    return [row["text"] for row in (*POSITIVE, *NEGATIVE)]


def deadline_examples() -> list[str]:
    """The backticked examples in the tables of docs/deadlines.md."""
    rows = [
        line
        for line in (ROOT / "docs" / "deadlines.md").read_text(encoding="utf-8").splitlines()
        if line.startswith("|")
    ]
    return sorted({example for row in rows for example in re.findall(r"`([^`]+)`", row)})


def spliced(texts: list[str], count: int) -> list[str]:
    """Seeded splices: the head of one corpus turn joined to the tail of another."""
    rng = random.Random(20261202)
    out = []
    for _ in range(count):
        a, b = rng.choice(texts), rng.choice(texts)
        out.append(
            a[: rng.randrange(len(a) + 1)]
            + rng.choice(("", " ", "。", ", "))
            + b[rng.randrange(len(b) + 1) :]
        )
    return out


def _turn(text: str, seq: int, zone: str) -> ChatTurn:
    return ChatTurn(
        agent_id="a", user_id="u", session_id="s", seq=seq, ts=INSTANTS[seq % 2],
        role=Role.USER, text=text, message_id=f"m{seq}", timezone=zone,
    )  # fmt: skip


def results() -> list[object]:
    texts = corpus_texts()
    examples = deadline_examples()
    proposals = [t for t in texts if "agree" in t.lower() or "约定" in t][:400]
    ends = "。.!\uff01 "  # full-width and ASCII sentence ends
    appended = [f"{p.rstrip(ends)} {examples[i % len(examples)]}" for i, p in enumerate(proposals)]
    out: list[object] = []
    for text in [*texts, *spliced(texts, SPLICES)]:
        out.append(recognizer.recognize(text, Role.USER))
        out.append(recognizer.recognize(text, Role.ASSISTANT))
    for seq, text in enumerate(appended):
        out.append(
            interpret(_turn(text, seq, ("Asia/Shanghai", "America/New_York")[seq % 2]), "UTC")
        )
    for example in examples:
        out.append(finder.find_deadline_phrase(example))
        out.append(finder.find_deadline_phrase(f"send the report {example}"))
        out.append(resolve.parse_deadline(example))
        out.extend(resolve.resolve_deadline(example, ts, zone) for ts in INSTANTS for zone in ZONES)
    return out


def main() -> None:
    out = msgspec.json.encode(results()).decode()
    # Every module a build compiles, after the run (each imported by then, or now): a
    # partial build, where some load from their .py beside the compiled rest, shows here.
    modules = [
        "core." + name.removesuffix(".py").replace("/", ".") for name in native.compiled_sources()
    ]
    loaded = {
        name: str(getattr(importlib.import_module(name), "__file__", "")).endswith(".so")
        for name in modules
    }
    print(json.dumps({"native": native.state().active, "compiled_modules": loaded}))
    sys.stdout.write(out)


if __name__ == "__main__":
    main()
