"""The examples in docs/cli.md for `accord recognize` and `accord schema` run as written.

The documented output is compared with what the command prints now, so the page cannot
drift from the tool (R1: the recognizer's answers shown are its real answers). The
recognize example runs as a user runs it (a subprocess), the schema ones in this process
(typer's CliRunner).
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli_kit import Ran, accord_here
from tests.support.paths import ROOT

pytestmark = [pytest.mark.timeout(120)]

PAGE = ROOT / "docs" / "cli.md"


def console_block(section: str) -> list[str]:
    """The lines of the first ```console block under the `## section` heading."""
    text = PAGE.read_text(encoding="utf-8")
    start = text.index(f"\n## {section}\n")
    block = text.index("```console\n", start) + len("```console\n")
    return text[block : text.index("```", block)].splitlines()


def accord(args: list[str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # noqa: S603  (our own CLI, arguments from our own docs)
        [sys.executable, "-c", "from worker.cli import main; main()", *args],
        cwd=ROOT,
        env=docs_env(),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def docs_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(("ACCORD_", "REDIS_"))}


def test_recognize_example_prints_what_the_page_says() -> None:
    """`cat turns.jsonl` then `accord recognize ... < turns.jsonl` gives the shown lines (R1)."""
    lines = console_block("`accord recognize`")
    command = next(i for i, line in enumerate(lines) if line.startswith("$ accord recognize"))
    assert lines[0] == "$ cat turns.jsonl"
    turns = "".join(f"{line}\n" for line in lines[1:command])
    args = shlex.split(lines[command].removeprefix("$ accord "))
    assert args[-2:] == ["<", "turns.jsonl"]
    done = accord(args[:-2], stdin=turns)
    assert done.stdout.splitlines() == lines[command + 1 :]
    assert done.returncode == 1, "the page shows an unreadable line, so the status is 1"


def test_schema_check_example_prints_what_the_page_says(monkeypatch: pytest.MonkeyPatch) -> None:
    """`accord schema --out contracts/schemas --check` says the committed schemas are current."""
    monkeypatch.chdir(ROOT)  # the page's paths are relative to the checkout
    lines = console_block("`accord schema`")
    args = shlex.split(lines[0].removeprefix("$ accord "), comments=True)
    done: Ran = accord_here(*args, env=docs_env())
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [lines[1]]


def test_schema_write_example_writes_one_file_per_shown_path(tmp_path: Path) -> None:
    """`accord schema --out DIR` prints each written path; the page's first ones are among them."""
    lines = console_block("`accord schema`")
    shown = [Path(line).name for line in lines[3:] if line.endswith(".schema.json")]
    done = accord_here("schema", "--out", str(tmp_path), env=docs_env())
    assert done.returncode == 0, done.stderr
    written = [Path(line).name for line in done.stdout.splitlines()]
    assert set(shown) <= set(written)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(written)
    assert f"({len(written)} files)" in PAGE.read_text(encoding="utf-8")
