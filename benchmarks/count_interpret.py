"""Passes of `interpret` over the recognizer bench's proposal turns, for instruction counts.

The machine's speed swings by 2x within minutes; instructions counted by callgrind do
not. Run it twice, with N passes and with none, and divide the difference by N:

    export PYTHONHASHSEED=0
    for n in 0 3; do
        valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.$n.out \\
            .venv/bin/python benchmarks/count_interpret.py $n 2>&1 | grep Collected
    done

(`ACCORD_NATIVE=0` in front counts the Python build; `PYTHONPATH=<tree>` another tree.)
The turns are the bench's: the corpus proposals, and each again with a deadline added.
One pass runs before the counted ones, so both runs import and warm up alike.
"""

from __future__ import annotations

import sys

from bench_recognizer import proposal_turns

from core.interpret import interpret


def main() -> None:
    passes = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    turns = proposal_turns()
    for turn in turns:  # warm-up, in both runs
        interpret(turn, "UTC")
    for _ in range(passes):
        for turn in turns:
            interpret(turn, "UTC")


if __name__ == "__main__":
    main()
