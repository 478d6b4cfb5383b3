"""Building and installing accord's distributions the way a user does, for the packaging
tests (the worker's wheel and image install, the gateway client's wheel)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest


def uv() -> str:
    found = shutil.which("uv")
    if found is None:
        pytest.fail("uv is required (./dev installs it)")
    return found


def run(command: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """`command` outside this test environment: no virtualenv or import path of ours, and
    uv never fetches an interpreter."""
    environment = {**os.environ, "UV_PYTHON_DOWNLOADS": "never", **env}
    for name in ("VIRTUAL_ENV", "PYTHONPATH"):
        environment.pop(name, None)
    return subprocess.run(  # noqa: S603
        command, cwd=cwd, env=environment, capture_output=True, text=True, timeout=540, check=False
    )
