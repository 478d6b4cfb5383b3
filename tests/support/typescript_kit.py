"""The TypeScript client (clients/typescript): tools, runs from its folder."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.support.paths import ROOT

TS_DIR = ROOT / "clients" / "typescript"


def node_tools() -> tuple[str, str]:
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.fail("node and npm are required for the TypeScript client (install Node >= 20)")
    if not (TS_DIR / "node_modules" / "ioredis").is_dir():
        subprocess.run(  # noqa: S603
            [npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts"],
            cwd=TS_DIR, check=True, capture_output=True, timeout=300,
        )  # fmt: skip
    return node, npm


def run_in_client(
    command: list[str], env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # noqa: S603
        command, cwd=TS_DIR, env=env, capture_output=True, text=True, timeout=280, check=False
    )
