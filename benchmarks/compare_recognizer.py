# ruff: noqa: T201  (a benchmark prints its figures)
"""`recognize` on the corpus proposals, for one source tree: compare two trees, same run.

    uv run --frozen python benchmarks/compare_recognizer.py /path/to/old/tree
    uv run --frozen python benchmarks/compare_recognizer.py .

Run old and new alternately and compare the ratio; the absolute figure depends on the
machine's load (CPU time, best of five passes of 20 rounds).
"""

from __future__ import annotations

import json
import sys
import time
import timeit
from pathlib import Path

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "corpus" / "recognizer_positive.jsonl"


def main(tree: str) -> None:
    sys.path.insert(0, str(Path(tree).resolve()))
    from core.recognition.recognizer import recognize  # noqa: PLC0415  # from the tree given

    with CORPUS.open(encoding="utf-8") as lines:
        rows = [json.loads(line) for line in lines if line.strip()]
    texts = [row["text"] for row in rows if row["intent"] == "proposal"]

    def run() -> None:
        for text in texts:
            recognize(text, "user")

    best = min(timeit.repeat(run, number=20, repeat=5, timer=time.process_time))
    print(f"{tree}: {len(texts)} proposals, {len(texts) * 20 / best:,.0f} recognized/s")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
