"""Redis ACL files from templates: no password, nor the hash of one, lives in the repository.

The shipped `deploy/redis/users*.acl` carry a placeholder where each user's password
hash goes (`#<password-hash:gateway>`); Redis refuses to load a file that still holds one
(a hash is 64 hex digits), so the files as committed open nothing. `render` puts in the
SHA-256 of each user's password, taken from `ACCORD_PASSWORD_<USER>` variables (an
operator's secrets, or the env file `accord acl secrets` writes for a development
machine); a user without one is an error, never an open account.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Iterable, Mapping

# `#<password-hash:USER>`: one ACL rule (no spaces), not a valid hash.
PLACEHOLDER = re.compile(r"#<password-hash:([a-z][a-z0-9_-]*)>")
# Shorter passwords are refused: an ACL user is one guess per connection away.
MIN_PASSWORD_CHARS = 16


class AclError(ValueError):
    """A template or a password that cannot make a safe ACL file."""


def variable(user: str) -> str:
    """The environment variable that holds `user`'s password."""
    return "ACCORD_PASSWORD_" + re.sub(r"[^A-Z0-9]", "_", user.upper())


def users(template: str) -> list[str]:
    """The users whose password hash `template` asks for, in order of appearance."""
    return list(dict.fromkeys(PLACEHOLDER.findall(template)))


def render(template: str, passwords: Mapping[str, str]) -> str:
    """`template` with every placeholder replaced by its user's password hash."""
    needed = users(template)
    if not needed:
        raise AclError("the template holds no #<password-hash:USER> placeholder")
    missing = [variable(user) for user in needed if not passwords.get(user)]
    if missing:
        raise AclError(f"no password for {', '.join(missing)}")
    short = [variable(u) for u in needed if len(passwords[u]) < MIN_PASSWORD_CHARS]
    if short:
        raise AclError(f"shorter than {MIN_PASSWORD_CHARS} characters: {', '.join(short)}")
    return PLACEHOLDER.sub(lambda match: "#" + password_hash(passwords[match[1]]), template)


def password_hash(password: str) -> str:
    """What Redis stores for a password: its SHA-256, in hex."""
    return hashlib.sha256(password.encode()).hexdigest()


def passwords_from(environment: Mapping[str, str], wanted: Iterable[str]) -> dict[str, str]:
    """The passwords of `wanted` users found in `environment` (by `variable`)."""
    return {user: environment[variable(user)] for user in wanted if environment.get(variable(user))}


def generated(wanted: Iterable[str]) -> dict[str, str]:
    """A fresh random password for each user (192 bits, URL-safe: fits a REDIS_URL)."""
    return {user: secrets.token_urlsafe(24) for user in wanted}


def env_file(passwords: Mapping[str, str]) -> str:
    """`passwords` as an env file (`VARIABLE=value` lines) for compose and `--env-file`."""
    lines = [f"{variable(user)}={password}" for user, password in passwords.items()]
    return "\n".join(lines) + "\n"


def read_env_file(text: str) -> dict[str, str]:
    """The `NAME=value` lines of an env file (blank lines and `#` comments skipped)."""
    found: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        name, equals, value = stripped.partition("=")
        if not equals or not name.strip():
            raise AclError(f"line {number}: not NAME=value")
        found[name.strip()] = value.strip()
    return found
