"""scripts/build_native.py's own bookkeeping, with mypyc stood in for (it takes a minute).

The compile is replaced by a stand-in that writes placeholder modules where mypyc puts
them, so these check only what the script decides around it: which digests its manifest
holds, and that it never leaves a manifest that calls a build current when it is not
(core/native.py loads a build only on that manifest's word). The real build is
tests/e2e/test_native_build.py.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from types import ModuleType

import pytest

from core import native
from tests.support.paths import ROOT

TAG = sys.implementation.cache_tag
SUFFIX = EXTENSION_SUFFIXES[0]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "build_native_under_test", ROOT / "scripts" / "build_native.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _tree(root: Path) -> Path:
    core = root / "core"
    for package in native.PACKAGES:
        (core / package).mkdir(parents=True)
        (core / package / "__init__.py").write_text("")
        (core / package / "one.py").write_text(f"X = '{package}'\n")
    return core


def _stand_in_for_mypyc(
    during: Path | None = None,
) -> object:
    """A compile that writes placeholder modules, and edits `during` while it runs."""

    def run(command: list[str], **_: object) -> subprocess.CompletedProcess[str]:
        lib = Path(command[1]).parent / "lib"
        for package in native.PACKAGES:
            (lib / "core" / package).mkdir(parents=True)
            (lib / "core" / package / f"one{SUFFIX}").write_bytes(b"placeholder")
        (lib / "core" / "_native").mkdir(parents=True)
        (lib / "core" / "_native" / f"accord__mypyc{SUFFIX}").write_bytes(b"placeholder")
        if during is not None:
            during.write_text("X = 'edited while the compile ran'\n")
        return subprocess.CompletedProcess(command, 0, "", "")

    return run


def test_a_source_edited_during_the_compile_leaves_the_build_stale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The compile read the source before the edit: the manifest must hold the digest it
    compiled, not the edited one, or the old code would load as current."""
    script = _script()
    core = _tree(tmp_path)
    edited = core / "deadlines" / "one.py"
    monkeypatch.setattr(script, "ROOT", tmp_path)
    monkeypatch.setattr(script.subprocess, "run", _stand_in_for_mypyc(during=edited))
    assert script.build(core, force=False) == 1
    assert native.check(core / "_native", core, TAG) == native.NativeState(
        active=False, reason="stale: deadlines/one.py changed since the build"
    )
    assert "cannot be used: stale: deadlines/one.py" in capsys.readouterr().err


def test_a_build_beside_other_sources_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--into` a `core` whose sources differ from the compiled ones: an error, not a
    build that the runtime then quietly ignores (or refuses under ACCORD_NATIVE=1)."""
    script = _script()
    _tree(tmp_path / "tree")
    installed = _tree(tmp_path / "installed")
    (installed / "recognition" / "one.py").write_text("X = 'another release'\n")
    monkeypatch.setattr(script, "ROOT", tmp_path / "tree")
    monkeypatch.setattr(script.subprocess, "run", _stand_in_for_mypyc())
    assert script.build(installed, force=False) == 1
    assert "stale: recognition/one.py changed" in capsys.readouterr().err


def test_a_build_interrupted_while_copying_is_not_current(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A forced rebuild over a current one that stops midway leaves "not built", never
    the old manifest over a half-replaced set of modules."""
    script = _script()
    core = _tree(tmp_path)
    monkeypatch.setattr(script, "ROOT", tmp_path)
    monkeypatch.setattr(script.subprocess, "run", _stand_in_for_mypyc())
    assert script.build(core, force=False) == 0
    assert native.check(core / "_native", core, TAG).active

    def interrupted(*_: object, **__: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(script.shutil, "rmtree", interrupted)
    with pytest.raises(KeyboardInterrupt):
        script.build(core, force=True)
    assert native.check(core / "_native", core, TAG).reason.startswith("not built")


def test_without_a_c_compiler_the_build_stops_with_one_clear_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A machine without gcc (a fresh clone on a slim image) is told what to install
    before mypyc runs, not handed a setuptools traceback after it."""
    script = _script()
    core = _tree(tmp_path)
    monkeypatch.setattr(script, "ROOT", tmp_path)
    monkeypatch.setenv("CC", str(tmp_path / "no-such-gcc"))

    def never(*_: object, **__: object) -> None:
        pytest.fail("mypyc ran without a compiler to finish its build")

    monkeypatch.setattr(script.subprocess, "run", never)
    assert script.build(core, force=False) == 1
    err = capsys.readouterr().err
    assert err.startswith("build_native: cannot compile: no C compiler")
    assert "apt-get install gcc libc6-dev" in err
    assert not (core / "_native" / native.MANIFEST).exists()
