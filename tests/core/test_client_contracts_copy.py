"""One source of the contract types: the Python client's copy is generated.

The client is installed without the worker, so it carries `accord_client.contracts`,
generated from `contracts/` by scripts/sync_client.py, which also keeps both clients at
the contracts' version. `--check` (run by scripts/check) must pass on the committed tree
and fail on a tree where the copy, the source or a version moved on alone.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import ROOT

SCRIPT = ROOT / "scripts" / "sync_client.py"
COPY = Path("clients/python/src/accord_client/contracts")
# What the script reads and writes, copied for a planted change.
TREE = (
    "contracts",
    "clients/python",
    "clients/typescript/package.json",
    "clients/typescript/package-lock.json",
    "pyproject.toml",
)


def _check(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # noqa: S603
        [sys.executable, str(SCRIPT), "--check", "--root", str(root)],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for name in TREE:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        if (ROOT / name).is_dir():
            ignore = shutil.ignore_patterns("__pycache__")
            shutil.copytree(ROOT / name, tmp_path / name, ignore=ignore)
        else:
            shutil.copy2(ROOT / name, tmp_path / name)
    return tmp_path


def test_the_committed_copy_and_versions_are_current() -> None:
    """The copy in the repository is what the script generates from contracts/ today."""
    checked = _check(ROOT)
    assert checked.returncode == 0, checked.stderr


def test_a_contract_changed_without_the_copy_is_stale(tree: Path) -> None:
    """A field added to a contract the client uses, with no regeneration, fails the check
    naming the copy; writing regenerates it, and the check passes again."""
    view = tree / "contracts" / "view.py"
    view.write_text(view.read_text("utf-8") + "\nPLANTED = 1\n", "utf-8")
    stale = _check(tree)
    assert stale.returncode == 1
    assert f"{COPY / 'view.py'} is not current" in stale.stderr
    written = subprocess.run(  # noqa: S603
        [sys.executable, str(SCRIPT), "--root", str(tree)], capture_output=True, check=False
    )
    assert written.returncode == 0, written.stderr
    assert "PLANTED = 1" in (tree / COPY / "view.py").read_text("utf-8")
    assert _check(tree).returncode == 0


def test_a_hand_edit_or_a_hand_added_file_in_the_copy_is_stale(tree: Path) -> None:
    """The copy is never edited by hand: an edit and an extra module both fail the check."""
    codec = tree / COPY / "codec.py"
    codec.write_text(codec.read_text("utf-8").replace("256", "257", 1), "utf-8")
    (tree / COPY / "extra.py").write_text("X = 1\n", "utf-8")
    stale = _check(tree)
    assert stale.returncode == 1
    assert f"{COPY / 'codec.py'} is not current" in stale.stderr
    assert f"{COPY / 'extra.py'} is not generated from contracts/" in stale.stderr


def test_a_client_at_another_version_than_the_contracts_is_stale(tree: Path) -> None:
    """Both clients carry the contracts' version: a package.json that moved alone fails."""
    package = tree / "clients" / "typescript" / "package.json"
    document = json.loads(package.read_text("utf-8"))
    package.write_text(json.dumps({**document, "version": "9.9.9"}, indent=2) + "\n", "utf-8")
    stale = _check(tree)
    assert stale.returncode == 1
    assert "clients/typescript/package.json is not current" in stale.stderr


def test_the_copy_imports_only_itself() -> None:
    """Relative imports only: the installed client finds its contracts in its own package."""
    for module in (ROOT / COPY).glob("*.py"):
        text = module.read_text("utf-8")
        assert "from contracts." not in text, module.name
        assert "import contracts" not in text, module.name
