"""The Python client as a gateway installs it: its own wheel, alone.

The wheel is built with `uv build` (the sdist first, then the wheel from it) from a copy
of clients/python and nothing else, so a file it needs from elsewhere in the repository
fails the build here. A fresh virtualenv gets that wheel and its dependencies only, and
runs docs/gateway.md's examples against a real worker, with the interpreter isolated
(`-I`) and outside the repository, so nothing of the worker's can be imported.
"""

from __future__ import annotations

import re
import shutil
import uuid
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from contracts import CONTRACTS_VERSION
from tests.support.gateway_docs_kit import assert_subscriber_ran, assert_turn_ran, blocks
from tests.support.packaging_kit import run, uv
from tests.support.paths import ROOT
from tests.support.worker_kit import flushed, worker_env, worker_processes

PARTITIONS = 2
# What a gateway gets besides the client: no FastStream, uvicorn, typer, rich or structlog.
DEPENDENCIES = {"redis", "msgspec", "tzdata"}

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`uv build` of a copy of clients/python alone: the sdist and the wheel."""
    work = tmp_path_factory.mktemp("client-dist")
    source = work / "accord-client"
    shutil.copytree(
        ROOT / "clients" / "python", source, ignore=shutil.ignore_patterns("__pycache__")
    )
    built = run([uv(), "build", "--out-dir", str(work / "dist"), str(source)], work)
    assert built.returncode == 0, built.stdout + built.stderr
    return work / "dist"


@pytest.fixture(scope="module")
def venv(dist: Path) -> Path:
    """A fresh virtualenv with the client's wheel and its dependencies, nothing else."""
    (wheel,) = dist.glob("accord_client-*.whl")
    venv = dist.parent / "venv"
    made = run([uv(), "venv", "--quiet", "--python", "python3", str(venv)], dist.parent)
    assert made.returncode == 0, made.stderr
    python = str(venv / "bin" / "python")
    installed = run([uv(), "pip", "install", "--python", python, str(wheel)], dist.parent)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return venv


def test_the_wheel_is_the_client_alone_at_the_contracts_version(dist: Path) -> None:
    """One top-level package, `accord_client` (no `contracts`, `client` or worker package
    to collide with), typed, with its append script and tool definitions; versioned with
    the contracts; redis-py, msgspec and tzdata its only requirements, pinned."""
    (wheel,) = dist.glob("accord_client-*.whl")
    assert wheel.name == f"accord_client-{CONTRACTS_VERSION}-py3-none-any.whl"
    assert len(list(dist.glob(f"accord_client-{CONTRACTS_VERSION}.tar.gz"))) == 1
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = next(
            archive.read(n).decode() for n in names if n.endswith(".dist-info/METADATA")
        )
    tops = {name.split("/", 1)[0] for name in names if ".dist-info/" not in name}
    assert tops == {"accord_client"}
    for part in ("py.typed", "lua/append.lua", "contracts/tools/soul_agreement_accept.json"):
        assert f"accord_client/{part}" in names, part
    requires = [
        line.removeprefix("Requires-Dist: ")
        for line in metadata.splitlines()
        if line.startswith("Requires-Dist:")
    ]
    assert {r.split("==")[0] for r in requires} == DEPENDENCIES
    assert all("==" in r for r in requires), requires
    assert f"Version: {CONTRACTS_VERSION}" in metadata.splitlines()


def test_a_fresh_virtualenv_holds_the_client_and_its_dependencies_only(venv: Path) -> None:
    """What a gateway's `pip install` brings: the client (its `__version__` the
    contracts'), redis-py, msgspec, tzdata; the worker's packages and dependencies cannot
    be imported."""
    frozen = run([uv(), "pip", "freeze", "--python", str(venv / "bin" / "python")], venv)
    assert frozen.returncode == 0, frozen.stderr
    # `name==version`, or `name @ file:///...` for the wheel
    names = {re.split(r"==| @ ", line)[0] for line in frozen.stdout.splitlines()}
    assert names == {"accord-client", *DEPENDENCIES}
    absent = ("contracts", "client", "worker", "faststream", "uvicorn", "typer", "rich")
    probe = "\n".join(
        [
            "import importlib.util, accord_client",
            f"print([m for m in {absent!r} if importlib.util.find_spec(m)])",
            "print(accord_client.__file__)",
            "print(accord_client.__version__)",
        ]
    )
    shown = run([str(venv / "bin" / "python"), "-I", "-c", probe], venv)
    assert shown.returncode == 0, shown.stderr
    found, where, version = shown.stdout.splitlines()
    assert found == "[]"
    assert where.startswith(str(venv))
    assert version == CONTRACTS_VERSION


@pytest.fixture(scope="module")
def worker_url(redis_url: str) -> Iterator[str]:
    with worker_processes(1, worker_env(flushed(redis_url), ACCORD_PARTITIONS=str(PARTITIONS))):
        yield redis_url


@pytest.mark.redis
def test_the_installed_client_runs_the_gateway_examples_against_a_worker(
    venv: Path, worker_url: str
) -> None:
    """R3, R5, R6 from the wheel alone: docs/gateway.md's turn proposes, accepts through
    the tool and the user's confirmation, ends with the agreement in current memory, and
    its subscriber follows the events to the agreement's opening."""
    turn, _, subscriber = blocks("python")
    outputs = []
    for code in (turn, subscriber):
        script = venv / f"example-{uuid.uuid4().hex[:8]}.py"
        script.write_text(code, "utf-8")
        done = run(
            [str(venv / "bin" / "python"), "-I", str(script)],
            venv,
            REDIS_URL=worker_url,
            ACCORD_PARTITIONS=str(PARTITIONS),
            RUN_ID=uuid.uuid4().hex[:8],
        )
        assert done.returncode == 0, done.stdout + done.stderr
        outputs.append(done.stdout)
    assert_turn_ran(outputs[0])
    assert_subscriber_ran(outputs[1])
