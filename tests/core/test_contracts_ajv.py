"""A second, independent validator in another language: ajv (Node.js, JSON Schema 2020-12
in strict mode, formats checked) compiles every published schema, accepts every example
and scenario line, and refuses their broken copies. A gateway outside Python can rely on
the schema files as they are.

Node and npm are required (as for the Node gateway test): without them this fails
loudly, it is never skipped. `npm ci` installs the locked ajv on first use.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from typing import Any

import pytest

from tests.support.paths import EXAMPLES, ROOT, SCHEMAS

NODE_DIR = ROOT / "harness" / "node-schema"

pytestmark = pytest.mark.timeout(360)


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.fail("node and npm are required to check the schemas with ajv (Node >= 18)")
    if not (NODE_DIR / "node_modules" / "ajv").is_dir():
        subprocess.run(  # noqa: S603 - fixed argv, locked packages, no install scripts
            [npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts"],
            cwd=NODE_DIR,
            check=True,
            capture_output=True,
            timeout=300,
        )
    done = subprocess.run(  # noqa: S603 - fixed argv: node, our script, the repository
        [node, "validate.mjs", str(ROOT)],
        cwd=NODE_DIR,
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_ajv_compiles_every_schema_in_strict_mode(report: dict[str, Any]) -> None:
    """Every document compiles: only standard 2020-12 keywords, self-contained refs."""
    assert sorted(report["compiled"]) == sorted(
        p.name.removesuffix(".schema.json") for p in SCHEMAS.glob("*.schema.json")
    )


def test_ajv_accepts_every_example_and_scenario_line(report: dict[str, Any]) -> None:
    """Every example file and every line of the seed scenarios is valid to ajv."""
    assert report["invalid"] == []
    lines = sum(
        len(p.read_text("utf-8").splitlines()) for p in (EXAMPLES / "scenarios").glob("*.jsonl")
    )
    assert len(report["valid"]) == len(list(EXAMPLES.glob("*.json"))) + lines


def test_ajv_refuses_every_broken_copy(report: dict[str, Any]) -> None:
    """Dropped required fields, an unknown `type` tag and a timestamp without an offset
    are refused by ajv too, as by jsonschema and msgspec (test_contracts_examples.py)."""
    assert report["accepted"] == []
    assert len(report["refused"]) >= 100
    assert any(label.endswith(": naive ts") for label in report["refused"])
