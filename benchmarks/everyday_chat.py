# ruff: noqa: T201  (a benchmark prints its figures)
"""Real everyday chat through the recognizer: does anything fire? (issue 39 item 5, R1)

    uv run --frozen python benchmarks/everyday_chat.py --format lines tests/corpus/everyday/*.txt
    uv run --frozen python benchmarks/everyday_chat.py --format dailydialog dialogues_text.txt

Every utterance of every corpus is recognized twice: as a user turn, where an intent
is a fire to examine (a true explicit proposal, acceptance or cancellation in the
seed's sense is right; anything else is a false fire), and as an assistant turn, which
must always give none (R1). Printed per corpus: utterances, how many reached the full
grammar (they hold "agree" or 约定; the rest leave by the fast path), fires by intent,
each fired utterance with its intent, assistant fires (always 0) and user turns per
second (wall clock, one pass).
The exit status is 1 when anything fired, so a run is also a check.

Formats (`--format`), each file one corpus:

- `lines`: one utterance a line (blank lines skipped);
- `dailydialog`: one dialogue a line, utterances separated by `__eou__`
  (DailyDialog's `dialogues_text.txt` and its split files);
- `chatterbot`: chatterbot-corpus YAML (`conversations:` lists of utterances);
- `segmented`: one utterance a line, words separated by spaces as word-segmented
  Chinese corpora ship them; the spaces between two CJK characters are removed first,
  so the recognizer reads the text as it was typed; a tab ends the utterance (the
  Tencent prompt-response file holds `prompt<TAB>response<TAB>score`: both are read).

- `jsonl`: one JSON object a line with a `text` field (the turns `accord recognize`
  reads, and the committed sample in tests/corpus/everyday/);
- `conv`: the dgk_lost_conv subtitle format, `E` opening a dialogue and `M ` each line.

A directory argument stands for every file under it with a suffix the format reads.
The recognizer is the one the worker imports: the compiled build when it is current,
else the sources (`ACCORD_NATIVE=0` forces the sources).
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import msgspec
import yaml

from contracts.common import Role
from core.intents import NoIntent
from core.recognition.normalize import may_hold_trigger
from core.recognition.recognizer import recognize

# Two CJK characters (or CJK punctuation) with only spaces between them: the spaces are
# the segmenter's, not the writer's.
_CJK = r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]"
_SEGMENT_SPACE = re.compile(rf"(?<={_CJK}) +(?={_CJK})")


def _lines(path: Path) -> Iterator[str]:
    with path.open(encoding="utf-8-sig", errors="replace") as lines:
        for line in lines:
            if text := line.strip():
                yield text


def _dailydialog(path: Path) -> Iterator[str]:
    for dialogue in _lines(path):
        for utterance in dialogue.split("__eou__"):
            if text := utterance.strip():
                yield text


def _chatterbot(path: Path) -> Iterator[str]:
    with path.open(encoding="utf-8") as source:
        document = yaml.safe_load(source) or {}
    for conversation in document.get("conversations") or []:
        for utterance in conversation:
            if isinstance(utterance, str) and (text := utterance.strip()):
                yield text


def _segmented(path: Path) -> Iterator[str]:
    for line in _lines(path):
        for field in line.split("\t"):
            text = _SEGMENT_SPACE.sub("", field.strip())
            # The score column of a prompt-response-score file is not an utterance.
            if text and not re.fullmatch(r"[\d.]+", text):
                yield text


def _jsonl(path: Path) -> Iterator[str]:
    for line in _lines(path):
        if text := str(msgspec.json.decode(line).get("text", "")).strip():
            yield text


def _conv(path: Path) -> Iterator[str]:
    for line in _lines(path):
        if line.startswith("M ") and (text := line[2:].strip()):
            yield text


FORMATS: dict[str, tuple[Callable[[Path], Iterator[str]], tuple[str, ...]]] = {
    "lines": (_lines, (".txt",)),
    "dailydialog": (_dailydialog, (".txt",)),
    "chatterbot": (_chatterbot, (".yml", ".yaml")),
    "segmented": (_segmented, (".txt", ".tsv")),
    "jsonl": (_jsonl, (".jsonl",)),
    "conv": (_conv, (".conv",)),
}


def corpus_files(arguments: list[str], suffixes: tuple[str, ...]) -> list[Path]:
    files: list[Path] = []
    for argument in arguments:
        path = Path(argument)
        if path.is_dir():
            files.extend(sorted(p for p in path.rglob("*") if p.suffix in suffixes))
        else:
            files.append(path)
    return files


def intent_name(text: str, role: Role) -> str:
    intent = recognize(text, role)
    if isinstance(intent, NoIntent):
        return "none"
    return str(msgspec.to_builtins(intent)["type"])


def measure(name: str, utterances: list[str], *, show: int) -> int:
    """Print one corpus's figures; return how many utterances fired (user or assistant)."""
    started = time.perf_counter()
    user = [intent_name(text, Role.USER) for text in utterances]
    seconds = time.perf_counter() - started
    assistant = sum(intent_name(text, Role.ASSISTANT) != "none" for text in utterances)
    fired = [(kind, text) for kind, text in zip(user, utterances, strict=True) if kind != "none"]
    by_intent = Counter(kind for kind, _ in fired)
    unique = len(set(utterances))
    # Utterances past the fast path (they hold "agree" or 约定): the grammar read them.
    full = sum(may_hold_trigger(text) for text in utterances)
    rate = len(utterances) / seconds if seconds else float("inf")
    print(f"== {name}")
    print(f"   utterances {len(utterances)} ({unique} distinct), {rate:,.0f} user turns/s")
    print(f"   past the keyword fast path (full grammar): {full}")
    kinds = dict(sorted(by_intent.items()))
    print(f"   user fires {len(fired)} {kinds}; assistant fires {assistant}")
    for kind, text in fired[:show]:
        print(f"   {kind:>12}: {text[:200]}")
    if len(fired) > show:
        print(f"   ... {len(fired) - show} more (--show)")
    return len(fired) + assistant


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", help="corpus files or directories")
    parser.add_argument("--format", choices=sorted(FORMATS), default="lines")
    parser.add_argument("--show", type=int, default=50, help="fired utterances printed per corpus")
    parser.add_argument(
        "--total", action="store_true", help="also measure all files together as one corpus"
    )
    args = parser.parse_args(argv)
    reader, suffixes = FORMATS[args.format]
    files = corpus_files(args.paths, suffixes)
    fires = 0
    everything: list[str] = []
    for path in files:
        utterances = list(reader(path))
        everything.extend(utterances)
        fires += measure(str(path), utterances, show=args.show)
    if args.total and len(files) > 1:
        measure(f"all {len(files)} files", everything, show=0)
    return 1 if fires else 0


if __name__ == "__main__":
    sys.exit(main())
