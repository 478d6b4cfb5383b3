"""The TypeScript client as a gateway installs it: the package `npm pack` makes.

`npm pack --dry-run` lists what would be published; then the packed tarball is installed
into a fresh Node project outside the repository, where its types check a consumer's
code (and refuse a wrong call) and docs/gateway.md's TypeScript turn runs against a real
worker, importing the package by its name.
"""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from contracts import CONTRACTS_VERSION
from tests.support.gateway_docs_kit import blocks
from tests.support.typescript_kit import TS_DIR, node_tools, run_in_client
from tests.support.worker_kit import flushed, worker_env, worker_processes

PARTITIONS = 2
NAME = "@accord/client"
# What a gateway gets: the compiled modules with their declarations, and the notes.
PACKED = {
    "package.json",
    "README.md",
    "CHANGELOG.md",
    *(
        f"dist/src/{module}.{ext}"
        for module in (
            "index",
            "sentinel",
            "generated/contracts",
            "generated/append-lua",
            "generated/tools",
        )
        for ext in ("js", "d.ts")
    ),
}
CONSUMER = """\
import { AccordClient, toolResultText, type SessionView, type ToolOutcome } from "@accord/client";
import { Redis } from "ioredis";

export function context(view: SessionView): string[] {
  return (view.pending_proposals ?? []).map((p) => `${p.terms} (${p.record_id}@${p.revision})`);
}
export function answer(outcome: ToolOutcome | null): string {
  return toolResultText(outcome);
}
export const open = (url: string): AccordClient =>
  new AccordClient(new Redis(url), { partitions: 2 });
"""

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]


def _run(command: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # noqa: S603
        command, cwd=cwd, env={**os.environ, **env},
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


@pytest.mark.usefixtures("built")
def test_npm_pack_publishes_the_compiled_client_with_its_types() -> None:
    """`npm pack --dry-run`: not private, at the contracts' version, exactly the compiled
    modules with their `.d.ts` files and the README and CHANGELOG (no tests, sources or
    scripts); `exports` and `types` name files that are in it."""
    _, npm = node_tools()
    manifest = json.loads((TS_DIR / "package.json").read_text("utf-8"))
    assert "private" not in manifest
    assert manifest["version"] == CONTRACTS_VERSION
    entry = manifest["exports"]["."]
    for path in (entry["types"], entry["default"], manifest["types"], manifest["main"]):
        assert path.removeprefix("./") in PACKED, path
    # --ignore-scripts: `built` compiled it already (prepack would run tsc again).
    packed = run_in_client([npm, "pack", "--dry-run", "--json", "--ignore-scripts"])
    assert packed.returncode == 0, packed.stderr
    [summary] = json.loads(packed.stdout)
    assert (summary["name"], summary["version"]) == (NAME, CONTRACTS_VERSION)
    assert {f["path"] for f in summary["files"]} == PACKED


@pytest.fixture(scope="module")
def consumer(built: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh Node project with the packed client installed (and so ioredis)."""
    assert Path(built).exists()  # compiled: `npm pack` takes dist/ as it is
    _, npm = node_tools()
    project = tmp_path_factory.mktemp("gateway")
    packed = run_in_client([npm, "pack", "--ignore-scripts", "--pack-destination", str(project)])
    assert packed.returncode == 0, packed.stderr
    (tarball,) = project.glob("accord-client-*.tgz")
    manifest = {"name": "gateway", "version": "0.0.0", "private": True, "type": "module"}
    (project / "package.json").write_text(json.dumps(manifest), "utf-8")
    install = ["install", "--no-audit", "--no-fund", "--ignore-scripts", "--prefer-offline"]
    installed = _run([npm, *install, f"./{tarball.name}"], project)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return project


def _tsc(project: Path, code: str) -> subprocess.CompletedProcess[str]:
    (project / "consumer.ts").write_text(code, "utf-8")
    config = {
        "compilerOptions": {
            "target": "ES2022",
            "module": "NodeNext",
            "moduleResolution": "NodeNext",
            "strict": True,
            "noEmit": True,
            "skipLibCheck": True,
            # ioredis's declarations need Node's: a gateway has @types/node; the repo's here.
            "typeRoots": [str(TS_DIR / "node_modules" / "@types")],
            "types": ["node"],
        },
        "files": ["consumer.ts"],
    }
    (project / "tsconfig.json").write_text(json.dumps(config), "utf-8")
    tsc = TS_DIR / "node_modules" / "typescript" / "bin" / "tsc"
    node, _ = node_tools()
    return _run([node, str(tsc), "-p", "tsconfig.json"], project)


def test_the_installed_package_types_a_gateway_s_code(consumer: Path) -> None:
    """The installed package's declarations type a consumer's calls by the contracts'
    types, so a call with the wrong type does not compile."""
    typed = _tsc(consumer, CONSUMER)
    assert typed.returncode == 0, typed.stdout + typed.stderr
    wrong = _tsc(consumer, CONSUMER.replace("toolResultText(outcome)", "toolResultText(42)"))
    assert wrong.returncode != 0
    assert "not assignable to parameter of type 'ToolOutcome'" in wrong.stdout


@pytest.fixture(scope="module")
def worker_url(redis_url: str) -> Iterator[str]:
    with worker_processes(1, worker_env(flushed(redis_url), ACCORD_PARTITIONS=str(PARTITIONS))):
        yield redis_url


@pytest.mark.redis
def test_the_installed_package_runs_the_gateway_example_against_a_worker(
    consumer: Path, worker_url: str
) -> None:
    """R3, R6 from the installed package: docs/gateway.md's TypeScript turn proposes,
    accepts through the tool and the user's confirmation, and ends with the agreement in
    current memory."""
    node, _ = node_tools()
    [code] = blocks("js")
    script = consumer / f"example-{uuid.uuid4().hex[:8]}.mjs"
    script.write_text(code, "utf-8")
    done = _run(
        [node, script.name],
        consumer,
        REDIS_URL=worker_url,
        ACCORD_PARTITIONS=str(PARTITIONS),
        RUN_ID=uuid.uuid4().hex[:8],
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "tool result: Accepted: " in done.stdout
    assert "current: [ 'always offer green tea first' ]" in done.stdout
