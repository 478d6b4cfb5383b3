"""No working password in the repository (docs/security.md, "Passwords"): the shipped
ACL files are templates a real Redis refuses to load, and `accord acl` renders them from
passwords an operator (or `accord acl secrets`, on a development machine) provides."""

from __future__ import annotations

import re
import stat
import subprocess
import tempfile
from pathlib import Path

import pytest
import redis
from redis.exceptions import AuthenticationError

from store.embedded import free_port
from tests.support.cli_kit import accord_here, command_env
from tests.support.paths import DEPLOY, ROOT
from tests.support.redis_deploy_kit import (
    CONF,
    SERVERS,
    TEMPLATE,
    TEMPLATE7,
    binary_of,
    production_redis,
)
from worker import acl

pytestmark = [pytest.mark.timeout(180)]

USERS = ["accord", "gateway", "subscriber", "console", "keda", "replica", "ops"]


def test_the_templates_name_every_user_and_hold_no_hash() -> None:
    """Each shipped file asks for a password hash of every user that has a password and
    holds no hash itself (a hash is as good as its password against a weak password)."""
    for template in (TEMPLATE, TEMPLATE7):
        text = template.read_text()
        assert acl.users(text) == USERS, template
        assert not re.search(r"#[0-9a-f]{64}", text), template


def test_no_file_holds_a_development_password_or_an_acl_hash() -> None:
    """The old `<user>-dev-password` convention and literal ACL hashes are gone from every
    file of the repository, tracked or about to be (their plain texts were public, so
    the hashes opened the accounts)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],  # noqa: S607
        cwd=ROOT,
        capture_output=True,
        check=True,
    )
    tracked = listed.stdout.decode().split("\0")
    found = []
    for name in filter(None, tracked):
        path = ROOT / name
        if path == Path(__file__):
            continue  # it names the old convention to look for it
        if not path.is_file() or path.suffix in {".png", ".lock"}:
            continue
        text = path.read_text(errors="replace")
        if "-dev-password" in text or re.search(r"(?m)^user \S+ .*#[0-9a-f]{64}", text):
            found.append(name)
    assert found == [], found


@pytest.mark.redis
@pytest.mark.parametrize("which", SERVERS)
def test_redis_refuses_the_template_and_loads_it_rendered(which: str) -> None:
    """Redis 6.2, 7 and Valkey will not start on a template as committed (no account
    opens); the rendered file starts and takes each user's generated password, nothing
    else."""
    binary = binary_of(which)
    template = TEMPLATE if which == "6.2" else TEMPLATE7
    port = free_port()
    with tempfile.TemporaryDirectory() as directory:
        done = subprocess.run(  # noqa: S603  (the test's own redis-server)
            [str(binary), str(CONF), "--aclfile", str(template), "--port", str(port),
             "--bind", "127.0.0.1", "--dir", directory, "--daemonize", "no",
             "--logfile", ""],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
    assert done.returncode != 0
    assert "password hash must be exactly 64 characters" in done.stdout + done.stderr
    passwords = acl.generated(acl.users(template.read_text()))
    with tempfile.TemporaryDirectory() as directory:
        rendered = Path(directory) / "users.acl"
        rendered.write_text(acl.render(template.read_text(), passwords))
        with production_redis(binary=binary, acl=rendered) as server:
            good = redis.Redis(port=server, username="ops", password=passwords["ops"])
            assert good.ping()
            good.close()
            for password in ("ops-dev-password", passwords["accord"]):
                bad = redis.Redis(port=server, username="ops", password=password)
                with pytest.raises(AuthenticationError):
                    bad.ping()
                bad.close()


def test_render_refuses_a_missing_or_short_password() -> None:
    """Every user needs a password of at least 16 characters; the error names the variable."""
    text = TEMPLATE.read_text()
    passwords = acl.generated(USERS)
    del passwords["keda"]
    with pytest.raises(acl.AclError, match="no password for ACCORD_PASSWORD_KEDA"):
        acl.render(text, passwords)
    with pytest.raises(acl.AclError, match="shorter than 16 characters: ACCORD_PASSWORD_OPS"):
        acl.render(text, {**acl.generated(USERS), "ops": "short"})
    with pytest.raises(acl.AclError, match="no #<password-hash:USER> placeholder"):
        acl.render("user default off", {})


def test_secrets_then_render_as_the_compose_steps_say(tmp_path: Path) -> None:
    """`accord acl secrets FILE` writes an owner-only env file and will not overwrite it;
    `accord acl render --env-file FILE --out ACL` gives the file those passwords open."""
    env_file = tmp_path / ".env"
    env = command_env(None)
    made = accord_here("acl", "secrets", str(env_file), env=env)
    assert made.returncode == 0, made.stderr
    assert stat.S_IMODE(env_file.stat().st_mode) == 0o600
    passwords = {
        user: acl.read_env_file(env_file.read_text())[acl.variable(user)] for user in USERS
    }
    again = accord_here("acl", "secrets", str(env_file), env=env)
    assert again.returncode == 2
    assert "exists" in again.stderr
    out = tmp_path / "users.acl"
    rendered = accord_here(
        "acl", "render", str(TEMPLATE), "--env-file", str(env_file), "--out", str(out), env=env
    )
    assert rendered.returncode == 0, rendered.stderr
    assert out.read_text() == acl.render(TEMPLATE.read_text(), passwords)
    assert stat.S_IMODE(out.stat().st_mode) == 0o600


def test_render_without_passwords_is_one_line_and_exit_2() -> None:
    """No ACCORD_PASSWORD_* anywhere: nothing rendered, the missing variables named."""
    ran = accord_here("acl", "render", str(TEMPLATE), env=command_env(None))
    assert ran.returncode == 2
    assert ran.stdout == ""
    [line] = ran.stderr.strip().splitlines()
    assert "no password for ACCORD_PASSWORD_ACCORD" in line


def test_compose_reads_the_password_from_the_env_file_it_documents() -> None:
    """compose.yaml interpolates ACCORD_PASSWORD_ACCORD and mounts the rendered file."""
    compose = (DEPLOY / "compose.yaml").read_text()
    assert "${ACCORD_PASSWORD_ACCORD:?" in compose
    assert "./redis/users.rendered.acl" in compose
    assert "accord acl secrets deploy/.env" in compose
