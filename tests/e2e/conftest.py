"""Fixtures of the end-to-end tier."""

from __future__ import annotations

import pytest

from tests.support.typescript_kit import node_tools, run_in_client


@pytest.fixture(scope="module")
def built() -> str:
    """The TypeScript client compiled once per module; the node binary to run it with."""
    node, _ = node_tools()
    compiled = run_in_client([node, "node_modules/typescript/bin/tsc", "-p", "tsconfig.json"])
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr
    return node
