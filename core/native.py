"""The compiled build of the recognizer and the deadline grammar, used only when it is current.

`scripts/build_native.py` compiles `core/recognition` and `core/deadlines` with mypyc into
`core/_native/` (never committed) and writes a manifest: the interpreter's cache tag
and the SHA-256 of every source it compiled. Each of the two packages calls `search_path`
from its `__init__`, which puts the compiled modules ahead of the sources on the
package's `__path__` only if the manifest matches the interpreter and every source as it
is now. A source edited after the build makes the whole build stale, so a stale `.so`
never shadows newer Python. The pure-Python modules are the reference: the compiled
ones must give the same results (tests/e2e/test_native_build.py compares them).

`ACCORD_NATIVE` chooses: `auto` (default) uses a current build and otherwise the
sources; `0` always the sources; `1` requires a current build and refuses to start
without one (an image built to run compiled must not quietly run slower).

This is the core's one loader, not logic: it reads files and the environment at import
time, which the import-linter contract for the core allows for this module alone.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from typing import Final

import msgspec

# The compiled packages, by directory under core/.
PACKAGES: Final = ("recognition", "deadlines")
# The project's top-level packages a compiled module may import from.
PROJECT_PACKAGES: Final = frozenset({"core", "contracts"})
CORE_DIR: Final = Path(__file__).resolve().parent
NATIVE_DIR: Final = CORE_DIR / "_native"
MANIFEST: Final = "manifest.json"
# mypyc's shared runtime for the group; imported by its dotted name from each module.
GROUP: Final = "core._native.accord"


class NativeState(msgspec.Struct, frozen=True):
    """Whether the compiled modules are in use, and why (the worker logs it at start)."""

    active: bool
    reason: str


class NativeUnavailableError(RuntimeError):
    """ACCORD_NATIVE=1, and there is no current compiled build."""


class Manifest(msgspec.Struct, frozen=True):
    cache_tag: str
    sources: dict[str, str]  # path under core/ -> SHA-256 of the source compiled
    # The project's modules the compiled ones import, directly or not (path from the
    # directory holding core/ -> SHA-256): mypyc compiles their types in and inlines
    # their Final constants, so an edit there makes the build stale too.
    dependencies: dict[str, str] = {}


def source_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def compiled_sources(core_dir: Path = CORE_DIR) -> list[str]:
    """The sources a build compiles: every module of PACKAGES but the package `__init__`s."""
    return sorted(
        str(path.relative_to(core_dir))
        for package in PACKAGES
        for path in (core_dir / package).glob("*.py")
        if path.name != "__init__.py"
    )


def check(
    native_dir: Path, core_dir: Path, cache_tag: str | None, extension_suffix: str | None = None
) -> NativeState:
    """Whether the build in `native_dir` is current for the sources in `core_dir`.

    With `extension_suffix` (this interpreter's, as the loader passes it) every compiled
    module must be there under that suffix, and the group's runtime too: a module missing
    (a partial copy) or built for another platform (a tree built on one machine and
    mounted on another; the cache tag is the same) would load from its `.py` while the
    build is reported in use.
    """
    try:
        raw = (native_dir / MANIFEST).read_bytes()
    except FileNotFoundError:
        return NativeState(active=False, reason="not built (scripts/build_native.py)")
    try:
        manifest = msgspec.json.decode(raw, type=Manifest)
    except msgspec.DecodeError as error:
        return NativeState(active=False, reason=f"unreadable manifest: {error}")
    if manifest.cache_tag != cache_tag:
        return NativeState(
            active=False, reason=f"built for {manifest.cache_tag}, running {cache_tag}"
        )
    expected = compiled_sources(core_dir)
    problem = _stale(manifest, core_dir, expected) or _incomplete(
        native_dir, expected, extension_suffix
    )
    if problem is not None:
        return NativeState(active=False, reason=problem)
    return NativeState(active=True, reason="compiled with mypyc, current")


def _stale(manifest: Manifest, core_dir: Path, expected: list[str]) -> str | None:
    if sorted(manifest.sources) != expected:
        return "stale: the set of modules changed"
    changed = next(
        (n for n in expected if source_digest(core_dir / n) != manifest.sources[n]), None
    )
    if changed is not None:
        return f"stale: {changed} changed since the build"
    root = core_dir.parent
    changed = next(
        (n for n, digest in manifest.dependencies.items() if _digest_or_none(root / n) != digest),
        None,
    )
    return None if changed is None else f"stale: {changed} changed since the build"


def _digest_or_none(path: Path) -> str | None:
    try:
        return source_digest(path)
    except FileNotFoundError:
        return None


def dependencies(core_dir: Path) -> list[str]:
    """The project's modules (under the directory holding core/) that the compiled sources
    import, directly or through each other, but for the compiled ones: by path from there."""
    root = core_dir.parent
    todo = [f"core/{name}" for name in compiled_sources(core_dir)]
    # The compiled packages' own `__init__`s only hold this loader's hook.
    compiled = {*todo, *(f"core/{package}/__init__.py" for package in PACKAGES)}
    seen: set[str] = set()
    while todo:
        tree = ast.parse((root / todo.pop()).read_bytes())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
            else:
                continue
            for found in (_module_path(root, name) for name in names):
                if found is not None and found not in seen and found not in compiled:
                    seen.add(found)
                    todo.append(found)
    return sorted(seen)


def _module_path(root: Path, module: str) -> str | None:
    """`module`'s source under `root`, if it is one of the project's packages."""
    if module.split(".", 1)[0] not in PROJECT_PACKAGES:
        return None
    base = module.replace(".", "/")
    for candidate in (f"{base}.py", f"{base}/__init__.py"):
        if (root / candidate).is_file():
            return candidate
    return None


def _incomplete(native_dir: Path, sources: list[str], extension_suffix: str | None) -> str | None:
    """The first compiled module (or the group's runtime) missing from the build."""
    if extension_suffix is None:
        return None
    shared = GROUP.rsplit(".", 1)[-1] + "__mypyc"
    built = (native_dir / (n.removesuffix(".py") + extension_suffix) for n in [shared, *sources])
    absent = next((path for path in built if not path.exists()), None)
    return None if absent is None else f"incomplete: no {absent.name} in {absent.parent}"


def decide(mode: str, found: NativeState) -> NativeState:
    """What ACCORD_NATIVE (`mode`) makes of the build `found`."""
    if mode in {"0", "off", "false"}:
        return NativeState(active=False, reason="ACCORD_NATIVE=0")
    if mode in {"1", "on", "true"} and not found.active:
        message = f"ACCORD_NATIVE=1 but the compiled build cannot be used: {found.reason}"
        raise NativeUnavailableError(message)
    if mode not in {"", "auto", "1", "on", "true"}:
        message = f"ACCORD_NATIVE must be auto, 0 or 1, not {mode!r}"
        raise NativeUnavailableError(message)
    return found


_state: NativeState | None = None


def state() -> NativeState:
    """This process's choice, made once (the first package import asks)."""
    global _state  # noqa: PLW0603  (one decision per process, at import)
    if _state is None:
        found = check(NATIVE_DIR, CORE_DIR, sys.implementation.cache_tag, EXTENSION_SUFFIXES[0])
        _state = decide(os.environ.get("ACCORD_NATIVE", "auto").strip().lower(), found)
    return _state


def search_path(package: str, path: list[str]) -> list[str]:
    """The package's `__path__`: its compiled modules first when the build is current."""
    if not state().active:
        return path
    return [str(NATIVE_DIR / package.rsplit(".", 1)[-1]), *path]


def manifest_for(core_dir: Path, cache_tag: str) -> bytes:
    """The manifest a build of the sources in `core_dir` writes."""
    sources = {name: source_digest(core_dir / name) for name in compiled_sources(core_dir)}
    root = core_dir.parent
    imported = {name: source_digest(root / name) for name in dependencies(core_dir)}
    return json.dumps(
        {"cache_tag": cache_tag, "sources": sources, "dependencies": imported}, indent=1
    ).encode()
