"""Bad input to the command line: one line on stderr and a documented exit code
(docs/cli.md, "Exit codes"), never a traceback, for any argument, setting or URL.

The cases a new user met (a database the server does not have, `--last 0`, a requeue
of a word, a port out of range, a missing or empty transcript), then a property test
that feeds random arguments to every command that does not serve for ever.
"""

from __future__ import annotations

import io
import json
import string
from importlib.metadata import version
from pathlib import Path
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

import pytest
import redis
import typer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from redis.exceptions import AuthenticationError, ResponseError

from tests.support.cli_kit import Ran, accord_here, accord_process, command_env
from worker.cli import DEV_COMMANDS, INTERNAL_ERROR, application, run
from worker.commands._shared import refused_line, unreachable_line
from worker.commands.recognize import run as recognize_lines
from worker.settings import Settings
from worker.variables import VARIABLES

pytestmark = [pytest.mark.timeout(300)]


def one_line(ran: Ran) -> str:
    """The single line a failed command printed on stderr (and no traceback)."""
    lines = [line for line in ran.stderr.splitlines() if line.strip()]
    assert "Traceback" not in ran.stderr + ran.stdout
    assert len(lines) == 1, ran.stderr
    return lines[0]


@pytest.fixture
def missing_db_url(redis_url: str) -> str:
    """The test server's URL naming database 99 (a Redis has 16 unless configured)."""
    return urlsplit(redis_url)._replace(path="/99").geturl()


@pytest.mark.redis
@pytest.mark.parametrize(
    "args",
    [
        ["view", "s1", "--agent", "a", "--user", "u"],
        ["status"],
        ["check"],
        ["replay", "worker/transcripts/07-todo-delivery.en.jsonl"],
        ["console", "--port", "0"],
    ],
)
def test_a_database_the_server_lacks_is_one_line_with_a_hint(
    missing_db_url: str, args: list[str]
) -> None:
    """REDIS_URL naming database 99: one line naming the refusal and the cause, exit 2
    (`check`: unhealthy, exit 1)."""
    ran = accord_here(*args, env=command_env(missing_db_url))
    assert ran.returncode == (1 if args == ["check"] else 2)
    if args == ["check"]:
        assert "DB index is out of range" in ran.stdout + ran.stderr
        return
    line = one_line(ran)
    assert "refused: DB index is out of range" in line
    assert "names database 99; this Redis has fewer" in line


@pytest.mark.redis
def test_the_entry_point_itself_answers_one_line(missing_db_url: str) -> None:
    """As a shell runs it: the same one line and exit 2."""
    ran = accord_process("status", env=command_env(missing_db_url))
    assert ran.returncode == 2
    assert "DB index is out of range" in one_line(ran)


@pytest.mark.redis
def test_events_last_zero_shows_none_and_a_negative_count_is_a_usage_error(
    redis_client: redis.Redis, redis_url: str
) -> None:
    """`--last 0`: no backlog, exit 0; `--last -1`: one usage line, exit 2."""
    redis_client.xadd("agreement-events:{0}", {"__data__": "{}"})  # one not to be shown
    none = accord_here("events", "--last", "0", env=command_env(redis_url))
    assert (none.returncode, none.stdout, none.stderr) == (0, "", "")
    negative = accord_here("events", "--last", "-1", env=command_env(redis_url))
    assert negative.returncode == 2
    assert one_line(negative).startswith("accord events: Invalid value for '--last'")


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["dlq", "requeue", "nonsense"], "not a dead-letter id: nonsense"),
        (["dlq", "requeue", "1-0", "--partition", "7"], "no partition 7"),
        (["console", "--port", "99999"], "Invalid value for '--port'"),
        (["events", "--nonsense"], "No such option: --nonsense"),
        (["no-such-command"], "No such command 'no-such-command'"),
        # Refused before any server starts: a negative count would reach the workers.
        (["chaos", "--size", "failover-small", "--wait-replicas", "-1"], "'--wait-replicas'"),
        (["chaos", "--size", "failover-small", "--gateway-wait", "-2"], "'--gateway-wait'"),
        (["chaos", "--size", "failover", "--plant", "nope"], "--plant must be one of"),
        (["chaos", "--size", "cluster-failover-small", "--sentinel-url"], "has no Sentinel"),
    ],
)
def test_bad_arguments_are_one_line_and_exit_2(args: list[str], said: str) -> None:
    """Refused before any Redis is asked (the URL below is never dialled)."""
    ran = accord_here(*args, env=command_env("redis://127.0.0.1:1/0"))
    assert ran.returncode == 2
    assert said in one_line(ran)


def test_version_flag_and_command_print_the_installed_version() -> None:
    """`accord --version` and `accord version`: the distribution's version, exit 0."""
    for args in (["--version"], ["version"]):
        ran = accord_here(*args, env=command_env(None))
        assert (ran.returncode, ran.stdout.strip()) == (0, version("accord"))


def test_replay_of_a_missing_empty_or_binary_file_names_the_file(tmp_path: Path) -> None:
    """One line naming the file and what is wrong with it; exit 2."""
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n")
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(b'{"type": "chat_turn"\xff\xfe}\n')
    env = command_env("redis://127.0.0.1:1/0")
    for path, said in [
        (tmp_path / "missing.jsonl", "missing.jsonl: cannot read it: No such file or directory"),
        (empty, "empty.jsonl: holds no input event"),
        (binary, "binary.jsonl: not UTF-8 text"),
    ]:
        ran = accord_here("replay", str(path), env=env)
        assert ran.returncode == 2
        assert said in one_line(ran)


def test_recognize_names_the_line_of_bytes_that_are_not_utf8() -> None:
    """An undecodable line is an error of that line only, with its number; exit 1."""
    stdin = io.TextIOWrapper(
        io.BytesIO(b'{"text": "\xff", "role": "user"}\n{"text": "hi", "role": "user"}\n'),
        encoding="utf-8",
        errors="surrogateescape",
    )
    out = io.StringIO()
    assert recognize_lines(stdin, out, ZoneInfo("UTC")) == 1
    rows = [json.loads(line) for line in out.getvalue().splitlines()]
    assert rows[0]["line"] == 1
    assert rows[1]["intent"] == "none"


def test_a_redis_that_wants_a_password_says_so() -> None:
    """NOAUTH, or an authentication error without a password in the URL: the hint says
    where the password goes; with one, that it was not accepted."""
    bare = Settings(redis_url="redis://127.0.0.1:6379/0")
    with_password = Settings(redis_url="redis://u:pw@127.0.0.1:6379/0")
    noauth = ResponseError("NOAUTH HELLO must be called with the client already authenticated")
    assert "needs a password: put it in REDIS_URL" in refused_line(bare, noauth)
    assert "needs a password" in unreachable_line(bare, AuthenticationError("Authentication"))
    wrong = unreachable_line(with_password, AuthenticationError("WRONGPASS invalid username"))
    assert "not accepted" in wrong
    assert "pw@" not in wrong


def test_development_commands_missing_say_how_to_get_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Without the harness installed, `bench` and `chaos` explain themselves."""
    bare = typer.Typer()

    @bare.command()
    def version() -> None:
        """A stand-in command (typer needs one)."""

    @bare.command()
    def other() -> None:
        """A second one, so commands are named."""

    for name in DEV_COMMANDS:
        assert run(bare, [name]) == 2
        line = capsys.readouterr().err.strip()
        assert f"`{name}` is a development command" in line
        assert "./dev test" in line


def test_an_unforeseen_failure_is_one_line_and_exit_1(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bug says "internal error" in one line, exit 1; ACCORD_DEBUG=1 adds the traceback."""
    broken = typer.Typer()

    @broken.command()
    def boom() -> None:
        """Fails as a bug would."""
        raise KeyError("nobody expected this")

    @broken.command()
    def other() -> None:
        """A second command."""

    assert run(broken, ["boom"]) == 1
    err = capsys.readouterr().err
    assert err.strip() == (
        f"{INTERNAL_ERROR} KeyError: 'nobody expected this'"
        " (a bug: ACCORD_DEBUG=1 prints the traceback)"
    )
    monkeypatch.setenv("ACCORD_DEBUG", "1")
    assert run(broken, ["boom"]) == 1
    assert "Traceback" in capsys.readouterr().err


# Commands that serve until stopped (worker, demo, console on a Redis that answers) or
# write files (asyncapi, schema) or are development tools are left out of the property
# test; every other command is fed random arguments.
_FED = ["view", "history", "records", "scopes", "explain", "events", "dlq", "check", "status",
        "trim", "replay", "recognize", "functions", "version", "repartition",
        "reindex"]  # fmt: skip
_WORDS = st.sampled_from([
    "--agent", "--user", "--as-of", "--tz", "--timeout", "--json", "--last", "--partition",
    "--count", "--dry-run", "--default-timezone", "--require-worker", "-f", "--follow",
    "--state", "--since", "--cursor", "--prefix", "--limit", "--open", "open", "1h", "--to",
    "list", "requeue", "load", "0", "-1", "99999999999999999999", "1-0", "Mars/Base",
    "2026-13-45T00:00:00Z", "agr-", "", "\x00", "é", "--", "-", "nan", "1e309",
])  # fmt: skip
_TEXT = st.text(string.printable + "é約定\u202e", max_size=12)


@pytest.fixture(scope="module")
def cli_env() -> dict[str, str]:
    """A Redis that refuses at once (port 1)."""
    return command_env("redis://127.0.0.1:1/0")


@settings(
    max_examples=400,
    deadline=None,
    derandomize=True,  # the same 400 cases on every run: a landing never depends on luck
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    command=st.sampled_from(_FED),
    rest=st.lists(st.one_of(_WORDS, _TEXT), max_size=6),
)
def test_random_arguments_never_give_a_traceback(
    cli_env: dict[str, str], command: str, rest: list[str]
) -> None:
    """Any arguments: exit 0, 1 or 2, and on failure one line on stderr (docs/cli.md)."""
    assert application() is not None
    ran = accord_here(command, *rest, "--timeout", "0.2", env=cli_env, stdin="")
    assert ran.returncode in {0, 1, 2}, ran
    assert "Traceback" not in ran.stderr + ran.stdout
    if ran.returncode != 0 and command != "recognize":
        # One line on stderr; or, asked for JSON (`check --json`), the answer on stdout.
        lines = [line for line in ran.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 or (not lines and "--json" in rest and ran.stdout.strip()), ran


def test_a_file_the_system_refuses_is_one_line_and_exit_2(tmp_path: Path) -> None:
    """Writing the AsyncAPI document where no file can go: the system's reason, exit 2."""
    blocked = tmp_path / "file"
    blocked.write_text("")
    ran = accord_here("asyncapi", "--out", str(blocked / "asyncapi.json"), env=command_env(None))
    assert ran.returncode == 2
    assert one_line(ran) == f"accord: File exists: {blocked}"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["acl", "render", "/nonexistent.acl"], "/nonexistent.acl: cannot read it"),
        (["acl", "render", "README.md"], "holds no #<password-hash:USER> placeholder"),
        (["acl", "render", "deploy/redis/users.acl", "--env-file", "README.md"], "not NAME=value"),
        (["acl", "secrets", "/nonexistent/dir/.env"], "cannot write it"),
        (["acl", "render", "deploy/redis/users.acl", "--bogus"], "No such option: --bogus"),
        (["dev", "--port", "99999"], "Invalid value for '--port'"),
        (["dev", "--port", "-1"], "Invalid value for '--port'"),
    ],
)
def test_the_acl_and_dev_commands_answer_bad_arguments_in_one_line(
    args: list[str], said: str
) -> None:
    """The commands the random property leaves out (they write files or serve until
    stopped): each bad argument is one line and exit 2, and nothing is written or served."""
    ran = accord_here(*args, env=command_env(None))
    assert ran.returncode == 2, ran
    assert said in one_line(ran)


# Commands that read the settings, each with arguments it accepts: only the environment
# is random, so what is tested is how each setting's bad value is answered.
_READERS = {
    "check": [], "status": [], "view": ["--agent", "a", "--user", "u", "s"],
    "events": ["--last", "1"], "dlq": ["list"], "records": [], "scopes": [], "history": ["agr-1"],
    "explain": ["agr-1"], "trim": ["--dry-run"],
}  # fmt: skip
_NAMES = sorted({variable.name for variable in VARIABLES} | {"REDIS_URL"})
_VALUES = st.one_of(
    st.sampled_from([
        "", " ", "0", "-1", "1", "yes", "no", "true", "abc", "1e309", "nan", "inf",
        "99999999999999999999", "0x10", "1_000", "Mars/Base", "redis://", "redis://:@",
        "rediss://127.0.0.1:1/0", "redis://127.0.0.1:1/99999", "unix:///nonexistent",
        "http://127.0.0.1:1", "é約定", "\u202e", "redis+sentinel://127.0.0.1:1/accord",
        "redis+sentinel://[::1/[/db]", "rediss+sentinel://h:x/s?bad=[red]",
    ]),
    st.text(string.printable.replace("\x00", ""), max_size=12),
)  # fmt: skip


@settings(
    max_examples=200,
    deadline=None,
    derandomize=True,  # the same cases on every run
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    command=st.sampled_from(sorted(_READERS)),
    changes=st.dictionaries(st.sampled_from(_NAMES), _VALUES, max_size=4),
)
def test_random_environment_values_never_give_a_traceback(
    cli_env: dict[str, str], command: str, changes: dict[str, str]
) -> None:
    """Any value of any setting (docs/cli.md's variables and REDIS_URL): exit 0, 1 or 2,
    and on failure one line on stderr, naming the setting when its value is refused."""
    ran = accord_here(
        command, *_READERS[command], "--timeout", "0.2", env={**cli_env, **changes}, stdin=""
    )
    assert ran.returncode in {0, 1, 2}, ran
    assert "Traceback" not in ran.stderr + ran.stdout
    if ran.returncode != 0:
        lines = [line for line in ran.stderr.splitlines() if line.strip()]
        assert len(lines) == 1, ran
