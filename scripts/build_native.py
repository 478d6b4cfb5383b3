"""Compile the recognizer and the deadline grammar with mypyc into core/_native/.

    uv run --frozen python scripts/build_native.py [--force] [--into DIR]

Does nothing when the build there is current (core/native.py decides that from the
manifest); otherwise compiles every module of core/recognition and core/deadlines but
the package `__init__`s (about a minute of CPU on one core). The manifest holds the
sources' digests as they were when the compile started (a source edited meanwhile makes
the build stale, not current); the old manifest goes first and the new one is written
last, so an interrupted build is never taken for a current one; a second build of the
same tree waits for the first (a lock on the `core` directory) and then finds it
current. `--into` puts the build beside an installed copy of the `core` package (the
container image does this); its sources must be the same as this tree's, or the build
stops with an error.

Why these two packages: they are pure Python with no msgspec Struct defined in a way
mypyc mishandles, and the proposal path of the recognizer spends its time in them
(docs/performance.md, "Core: recognition, deadlines, lifecycle"). The worker's store
and lifecycle modules were tried too and measured no faster, so they stay Python.
"""

# ruff: noqa: T201  (a build script reports its steps)
from __future__ import annotations

import argparse
import fcntl
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core import native  # noqa: E402  (after the repo root is importable)

SETUP = """
import sys
from setuptools import setup
from mypyc.build import mypycify

sys.argv[1:] = ["build_ext", "--build-lib", {lib!r}, "--build-temp", {temp!r}]
setup(
    name="accord-native",
    packages=[],
    py_modules=[],
    ext_modules=mypycify({sources!r}, opt_level="3", group_name={group!r}, target_dir={temp!r}),
)
"""


def missing_toolchain() -> str | None:
    """What stops a compile before mypyc spends its minute on one: no C compiler, or no
    Python headers (Debian's own python3 keeps them in python3-dev)."""
    compiler = (os.environ.get("CC") or str(sysconfig.get_config_var("CC") or "cc")).split()[0]
    if shutil.which(compiler) is None:
        return f"no C compiler {compiler!r} (Debian: apt-get install gcc libc6-dev)"
    headers = Path(sysconfig.get_paths()["include"]) / "Python.h"
    if not headers.exists():
        return f"no {headers} (Debian: apt-get install python3-dev)"
    return None


def build(into: Path, *, force: bool) -> int:
    # One build of a tree at a time: a second one waits, then finds the first's current.
    lock = os.open(into, os.O_RDONLY)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _build(into, force=force)
    finally:
        os.close(lock)


def _build(into: Path, *, force: bool) -> int:
    tag = sys.implementation.cache_tag
    found = native.check(into / "_native", ROOT / "core", tag, EXTENSION_SUFFIXES[0])
    if found.active and not force:
        print(f"build_native: {into / '_native'} is current, nothing to do")
        return 0
    missing = missing_toolchain()
    if missing is not None:
        print(
            f"build_native: cannot compile: {missing}; until then the recognizer runs"
            " its Python modules (ACCORD_NATIVE=auto)",
            file=sys.stderr,
        )
        return 1
    # The digests of what is compiled, taken before the compile reads the sources.
    manifest = native.manifest_for(ROOT / "core", tag)
    sources = [f"core/{name}" for name in native.compiled_sources(ROOT / "core")]
    print(f"build_native: compiling {len(sources)} modules with mypyc ({found.reason})")
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="accord-native-") as work:
        lib, temp = Path(work) / "lib", Path(work) / "temp"
        script = Path(work) / "setup.py"
        script.write_text(
            SETUP.format(lib=str(lib), temp=str(temp), sources=sources, group=native.GROUP)
        )
        # mypyc reads the project's mypy settings from the repo root, where it runs.
        env = {**os.environ, "ACCORD_NATIVE": "0"}
        done = subprocess.run(  # noqa: S603  (this interpreter, our own script)
            [sys.executable, str(script)], cwd=ROOT, env=env, capture_output=True, text=True,
            check=False,
        )  # fmt: skip
        if done.returncode != 0:
            print(done.stdout[-4000:], done.stderr[-4000:], sep="\n", file=sys.stderr)
            print("build_native: mypyc failed; the sources stay in use", file=sys.stderr)
            return 1
        target = into / "_native"
        # The old manifest first: a build interrupted from here on is "not built".
        (target / native.MANIFEST).unlink(missing_ok=True)
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        for package in native.PACKAGES:
            (target / package).mkdir()
            for built in (lib / "core" / package).glob("*.so"):
                shutil.copy2(built, target / package / built.name)
        for shared in (lib / "core" / "_native").glob("*.so"):
            shutil.copy2(shared, target / shared.name)
    # The manifest last: without it the build is "not built", never half current.
    (target / native.MANIFEST).write_bytes(manifest)
    print(f"build_native: done in {time.monotonic() - started:.0f} s, in {target}")
    now = native.check(target, into, tag, EXTENSION_SUFFIXES[0])
    if not now.active:
        print(f"build_native: the build in {target} cannot be used: {now.reason}", file=sys.stderr)
        return 1
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true", help="rebuild even when current")
    parser.add_argument(
        "--into", type=Path, default=ROOT / "core",
        help="the `core` package directory to build beside (default: this tree's)",
    )  # fmt: skip
    args = parser.parse_args()
    return build(args.into.resolve(), force=args.force)


if __name__ == "__main__":
    sys.exit(main())
