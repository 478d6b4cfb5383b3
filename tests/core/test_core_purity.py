"""The functional core stays pure: no clock, no shell (STYLE.md rule 1; R9 takes time from ts).

Two guards. import-linter's contracts (pyproject, run by `./dev test`) forbid the core
any I/O, clock or shell module, indirect imports included; here a copy of the tree with
one planted import of the shell proves those contracts break. A clock read needs no
import of its own (`datetime.now()` comes with `datetime`), so the core's syntax tree
is also scanned for clock calls.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import ROOT

CLIENT = ROOT / "clients" / "python" / "src" / "accord_client"

CLOCK_CALLS = {
    ("datetime", "now"),
    ("datetime", "utcnow"),
    ("datetime", "today"),
    ("date", "today"),
    ("time", "time"),
    ("time", "time_ns"),
    ("time", "monotonic"),
    ("time", "monotonic_ns"),
    ("time", "perf_counter"),
    ("time", "localtime"),
    ("time", "gmtime"),
}


def clock_calls(source: str) -> list[str]:
    """`owner.name(...)` calls that read a clock, as `owner.name` at `line`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        owner = node.func.value
        owner_name = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", "")
        if (owner_name, node.func.attr) in CLOCK_CALLS:
            found.append(f"{owner_name}.{node.func.attr} at {node.lineno}")
    return found


def test_the_clock_scan_finds_a_planted_clock_read() -> None:
    """The scanner is not blind: each way of reading the clock in a snippet is reported."""
    planted = (
        "import datetime as dt\nfrom datetime import datetime\nimport time\n"
        "a = datetime.now()\nb = dt.datetime.now(dt.UTC)\nc = time.monotonic()\n"
        "d = dt.date.today()\n"
    )
    assert clock_calls(planted) == [
        "datetime.now at 4",
        "datetime.now at 5",
        "time.monotonic at 6",
        "date.today at 7",
    ]
    assert clock_calls("from datetime import datetime\nx = datetime.fromisoformat(s)\n") == []


@pytest.mark.parametrize(
    "module", sorted((ROOT / "core").rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT))
)
def test_no_module_of_the_core_reads_the_clock(module: Path) -> None:
    """R9, R15: the core takes time from the event (`ts`) or the sweep's instant only."""
    assert clock_calls(module.read_text(encoding="utf-8")) == []


def _copy_tree(tree: Path) -> None:
    """The packages lint-imports checks, side by side in `tree`, with the configuration."""
    for name in ("contracts", "core", "store", "worker"):
        shutil.copytree(ROOT / name, tree / name, ignore=shutil.ignore_patterns("__pycache__"))
    for package in (ROOT / "harness" / "accord_harness", CLIENT):
        shutil.copytree(package, tree / package.name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(ROOT / "pyproject.toml", tree / "pyproject.toml")


def _lint_imports(tree: Path) -> subprocess.CompletedProcess[str]:
    executable = Path(sys.executable).with_name("lint-imports")
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run(  # noqa: S603
        [str(executable), "--no-cache"],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_a_planted_import_of_the_shell_into_the_core_breaks_the_contracts(
    tmp_path: Path,
) -> None:
    """The committed tree keeps every contract; the same tree with one core module
    importing the worker breaks the core's contract, and names the offending import."""
    _copy_tree(tmp_path)
    clean = _lint_imports(tmp_path)
    assert clean.returncode == 0, clean.stdout + clean.stderr

    state = tmp_path / "core" / "lifecycle" / "state.py"
    state.write_text(state.read_text(encoding="utf-8") + "\nimport worker.consumer\n")
    broken = _lint_imports(tmp_path)
    assert broken.returncode != 0
    assert "The functional core imports only contracts" in broken.stdout
    assert "core.lifecycle.state -> worker.consumer" in broken.stdout


@pytest.mark.timeout(600)
def test_a_planted_import_of_the_contracts_into_the_client_breaks_its_contract(
    tmp_path: Path,
) -> None:
    """The gateway client is installed without the worker, where `contracts` does not
    exist: one client module importing it (instead of its generated copy,
    `accord_client.contracts`) breaks the client's contract."""
    _copy_tree(tmp_path)
    session = tmp_path / "accord_client" / "session.py"
    session.write_text(session.read_text(encoding="utf-8") + "\nimport contracts.view\n")
    broken = _lint_imports(tmp_path)
    assert broken.returncode != 0
    assert "The gateway client needs only" in broken.stdout
    assert "accord_client.session -> contracts.view" in broken.stdout
