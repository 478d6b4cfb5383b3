"""The compiled recognizer and deadline grammar (core/native.py, scripts/build_native.py).

The build is what the container image and `./dev native` ship; `./dev test` builds it
before the suite, and this module builds it itself when it is missing or stale, so it
never passes on a build it did not check. The Python modules are the reference (R1, R9,
R14): on every corpus turn, every deadline example of docs/deadlines.md and thousands of
spliced turns, the compiled modules must give exactly their results. A build that no
longer matches its sources must never be loaded.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest

from core import native
from tests.support.paths import ROOT

# Building compiles 14 modules (about a minute of one core); the comparison runs the
# probe twice.
pytestmark = pytest.mark.timeout(900)
# Every module a build compiles: each must load compiled, not only the busiest ones.
MODULES = tuple(
    "core." + name.removesuffix(".py").replace("/", ".") for name in native.compiled_sources()
)


def _env(mode: str) -> dict[str, str]:
    return {**os.environ, "ACCORD_NATIVE": mode, "PYTHONPATH": str(ROOT)}


def _probe(mode: str, cwd: Path = ROOT) -> tuple[dict[str, object], str]:
    done = subprocess.run(
        [sys.executable, "-m", "tests.support.native_probe"],
        cwd=cwd, env={**_env(mode), "PYTHONPATH": str(cwd)}, capture_output=True, text=True,
        check=True, timeout=600,
    )  # fmt: skip
    head, _, body = done.stdout.partition("\n")
    return json.loads(head), body


@pytest.fixture(scope="module")
def built() -> Path:
    """The tree's build, made current first (a no-op when `./dev test` already built it)."""
    subprocess.run(  # noqa: S603  (this interpreter, the repo's own build script)
        [sys.executable, str(ROOT / "scripts" / "build_native.py")],
        cwd=ROOT, check=True, timeout=840,
    )  # fmt: skip
    found = native.check(
        native.NATIVE_DIR, native.CORE_DIR, sys.implementation.cache_tag, EXTENSION_SUFFIXES[0]
    )
    assert found.active, found.reason
    return native.NATIVE_DIR


def test_compiled_modules_give_the_python_modules_results_r1_r9_r14(built: Path) -> None:
    """Same intents, terms, spans, deadline phrases, specs and instants, input for input."""
    del built
    compiled_head, compiled = _probe("1")
    python_head, python = _probe("0")
    assert compiled_head == {"native": True, "compiled_modules": dict.fromkeys(MODULES, True)}
    assert python_head == {"native": False, "compiled_modules": dict.fromkeys(MODULES, False)}
    compiled_rows, python_rows = json.loads(compiled), json.loads(python)
    assert len(compiled_rows) == len(python_rows) > 10_000
    differing = [
        i for i, (a, b) in enumerate(zip(compiled_rows, python_rows, strict=True)) if a != b
    ]
    assert differing == [], f"{len(differing)} results differ, first at {differing[:5]}"


def _copy_tree(built: Path, to: Path) -> Path:
    """The packages the probe imports, with the build, in a scratch tree."""
    for name in ("contracts", "core", "tests/support", "tests/corpus", "docs"):
        shutil.copytree(ROOT / name, to / name, ignore=shutil.ignore_patterns("__pycache__"))
    assert (to / "core" / "_native" / native.MANIFEST).exists()
    del built
    return to


def test_a_build_older_than_its_sources_is_never_loaded(built: Path, tmp_path: Path) -> None:
    """One edited source makes the whole build stale: auto falls back to Python, 1 refuses."""
    tree = _copy_tree(built, tmp_path)
    head, _ = _probe("auto", tree)
    assert head["native"] is True  # the copy is current as copied
    finder = tree / "core" / "deadlines" / "finder.py"
    finder.write_text(finder.read_text(encoding="utf-8") + "\n# edited after the build\n")
    head, _ = _probe("auto", tree)
    assert head == {"native": False, "compiled_modules": dict.fromkeys(MODULES, False)}
    refused = subprocess.run(
        [sys.executable, "-m", "tests.support.native_probe"],
        cwd=tree, env={**_env("1"), "PYTHONPATH": str(tree)}, capture_output=True, text=True,
        check=False, timeout=600,
    )  # fmt: skip
    assert refused.returncode != 0
    assert "ACCORD_NATIVE=1 but the compiled build cannot be used" in refused.stderr
    assert "stale: deadlines/finder.py changed since the build" in refused.stderr


def test_the_comparison_catches_a_compiled_module_that_differs(built: Path, tmp_path: Path) -> None:
    """The equivalence check is not blind: a planted change in the Python finder, with
    the manifest re-stamped so the (unchanged) compiled build still loads, shows up."""
    tree = _copy_tree(built, tmp_path)
    finder = tree / "core" / "deadlines" / "finder.py"
    source = finder.read_text(encoding="utf-8")
    planted = source.replace("def find_deadline_phrase(terms: str) -> str | None:\n", (
        "def find_deadline_phrase(terms: str) -> str | None:\n"
        "    if terms.endswith('by Friday'):\n"
        "        return None\n"
    ), 1)  # fmt: skip
    assert planted != source
    finder.write_text(planted, encoding="utf-8")
    manifest = tree / "core" / "_native" / native.MANIFEST
    manifest.write_bytes(native.manifest_for(tree / "core", sys.implementation.cache_tag))
    compiled_head, compiled = _probe("1", tree)
    python_head, python = _probe("0", tree)
    assert compiled_head["native"] is True
    assert python_head["native"] is False
    assert compiled != python


def test_the_cli_refuses_a_bad_accord_native_in_one_line() -> None:
    """A mistyped ACCORD_NATIVE stops `accord` with one line and exit 2, no traceback."""
    done = subprocess.run(  # noqa: S603  (the installed entry point)
        [str(Path(sys.executable).parent / "accord"), "--help"],
        env={**os.environ, "ACCORD_NATIVE": "yes please"}, capture_output=True, text=True,
        check=False, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr == "accord: ACCORD_NATIVE must be auto, 0 or 1, not 'yes please'\n"
