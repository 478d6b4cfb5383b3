"""Where the repository's own files are, for the tests that read them."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "contracts" / "examples"
SCHEMAS = ROOT / "contracts" / "schemas"
DEPLOY = ROOT / "deploy"
CORPUS = ROOT / "tests" / "corpus"
