"""The loader's choice between the compiled and the Python modules (core/native.py).

Pure decisions over a manifest and source files in a scratch directory; the real build
and its equivalence with the Python modules are tested in tests/e2e/test_native_build.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from core import native

TAG = "cpython-311"


def _sources(core: Path) -> None:
    for package in native.PACKAGES:
        (core / package).mkdir(parents=True)
        (core / package / "__init__.py").write_text("")
        (core / package / "one.py").write_text(f"X = '{package}'\n")


def _built(tmp_path: Path) -> tuple[Path, Path]:
    core = tmp_path / "core"
    _sources(core)
    built = tmp_path / "native"
    built.mkdir()
    (built / native.MANIFEST).write_bytes(native.manifest_for(core, TAG))
    return built, core


def test_a_build_matching_interpreter_and_every_source_is_used(tmp_path: Path) -> None:
    built, core = _built(tmp_path)
    assert native.check(built, core, TAG) == native.NativeState(
        active=True, reason="compiled with mypyc, current"
    )


def test_no_build_means_the_python_modules(tmp_path: Path) -> None:
    core = tmp_path / "core"
    _sources(core)
    found = native.check(tmp_path / "absent", core, TAG)
    assert found.active is False
    assert "not built" in found.reason


def test_an_edited_source_makes_the_build_stale(tmp_path: Path) -> None:
    built, core = _built(tmp_path)
    (core / "deadlines" / "one.py").write_text("X = 'edited'\n")
    assert native.check(built, core, TAG) == native.NativeState(
        active=False, reason="stale: deadlines/one.py changed since the build"
    )


def test_an_added_module_makes_the_build_stale(tmp_path: Path) -> None:
    built, core = _built(tmp_path)
    (core / "recognition" / "two.py").write_text("Y = 1\n")
    assert native.check(built, core, TAG).reason == "stale: the set of modules changed"


def test_another_interpreter_does_not_load_the_build(tmp_path: Path) -> None:
    built, core = _built(tmp_path)
    found = native.check(built, core, "cpython-312")
    assert found == native.NativeState(
        active=False, reason="built for cpython-311, running cpython-312"
    )


def test_an_unreadable_manifest_is_reported_not_raised(tmp_path: Path) -> None:
    built, core = _built(tmp_path)
    (built / native.MANIFEST).write_text("{not json")
    found = native.check(built, core, TAG)
    assert found.active is False
    assert found.reason.startswith("unreadable manifest")


def test_an_edited_module_the_compiled_ones_import_makes_the_build_stale(tmp_path: Path) -> None:
    """mypyc compiles in the types of what a compiled module imports and inlines its
    Final constants (a compiled `return LIMIT` keeps the old value after LIMIT changes in
    an uncompiled module): the project's modules they import, directly or through each
    other, are part of the build; the standard library and third parties are not."""
    core = tmp_path / "core"
    _sources(core)
    (tmp_path / "contracts").mkdir()
    (tmp_path / "contracts" / "__init__.py").write_text("")
    (tmp_path / "contracts" / "common.py").write_text(
        "from typing import Final\nLIMIT: Final = 1\n"
    )
    (core / "__init__.py").write_text("")
    (core / "intents.py").write_text("import re\nimport msgspec\nfrom contracts import common\n")
    (core / "recognition" / "one.py").write_text(
        "from core.intents import NOTHING\nfrom core.deadlines.one import X\n"
    )
    assert native.dependencies(core) == [
        "contracts/__init__.py",
        "contracts/common.py",
        "core/intents.py",
    ]
    built = tmp_path / "native"
    built.mkdir()
    (built / native.MANIFEST).write_bytes(native.manifest_for(core, TAG))
    assert native.check(built, core, TAG).active
    (tmp_path / "contracts" / "common.py").write_text(
        "from typing import Final\nLIMIT: Final = 2\n"
    )
    assert native.check(built, core, TAG) == native.NativeState(
        active=False, reason="stale: contracts/common.py changed since the build"
    )
    (tmp_path / "contracts" / "common.py").unlink()
    assert (
        native.check(built, core, TAG).reason
        == "stale: contracts/common.py changed since the build"
    )


def _with_modules(built: Path, suffix: str) -> None:
    (built / f"accord__mypyc{suffix}").write_bytes(b"")
    for package in native.PACKAGES:
        (built / package).mkdir()
        (built / package / f"one{suffix}").write_bytes(b"")


def test_with_a_suffix_every_compiled_module_must_be_there(tmp_path: Path) -> None:
    """A partial copy, or a build for another platform under the same cache tag (a tree
    built on one machine and mounted on another), would load the missing modules from
    their .py while the worker reports the build in use: it is not current."""
    suffix = ".cpython-311-x86_64-linux-gnu.so"
    built, core = _built(tmp_path)
    _with_modules(built, suffix)
    assert native.check(built, core, TAG, suffix).active
    (built / "deadlines" / f"one{suffix}").unlink()
    assert native.check(built, core, TAG, suffix) == native.NativeState(
        active=False, reason=f"incomplete: no one{suffix} in {built / 'deadlines'}"
    )
    assert native.check(built, core, TAG, ".cpython-311-aarch64-linux-gnu.so").reason == (
        f"incomplete: no accord__mypyc.cpython-311-aarch64-linux-gnu.so in {built}"
    )


def test_accord_native_modes() -> None:
    current = native.NativeState(active=True, reason="current")
    missing = native.NativeState(active=False, reason="not built")
    assert native.decide("auto", current) == current
    assert native.decide("", missing) == missing
    assert native.decide("0", current) == native.NativeState(active=False, reason="ACCORD_NATIVE=0")
    assert native.decide("1", current) == current
    with pytest.raises(native.NativeUnavailableError, match="cannot be used: not built"):
        native.decide("1", missing)
    with pytest.raises(native.NativeUnavailableError, match="must be auto, 0 or 1"):
        native.decide("yes", current)
