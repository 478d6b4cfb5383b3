"""The Redis 7 function library (worker/functions.py) is generated from the script files
themselves: every script under store/lua and the client's append, each body verbatim.
Run on Redis 7 in tests/worker/test_security_acl_redis7.py; these need no Redis."""

from __future__ import annotations

import dataclasses
import re

import pytest

from accord_client.scripts import APPEND_FUNCTION
from store.scripts import SCRIPTS
from tests.support.paths import ROOT
from worker import functions
from worker.functions import LIBRARY, VERSION, VERSION_FUNCTION, function_names, library_source

REGISTERED = re.compile(r"redis\.register_function\{function_name='([a-z_]+)'")


def test_the_library_holds_every_script_under_store_lua_and_the_clients_append() -> None:
    """One function per script file, named accord_<file>, whose callback is the file's
    text unchanged (no second copy of a script to drift), plus the version function."""
    store = sorted((ROOT / "store" / "lua").glob("*.lua"))
    files = [*store, ROOT / "clients" / "python" / "src" / "accord_client" / "lua" / "append.lua"]
    source = library_source()
    assert source.startswith(f"#!lua name={LIBRARY}\n")
    registered = REGISTERED.findall(source)
    expected = [f"accord_{path.stem}" for path in files]
    assert sorted(registered) == sorted([*expected, VERSION_FUNCTION])
    assert registered == function_names()
    assert APPEND_FUNCTION in registered
    assert {f"accord_{path.stem}" for path in files[:-1]} == {s.function for s in SCRIPTS}
    for path in files:
        wrapped = f"callback=function(KEYS, ARGV)\n{path.read_text('utf-8')}\nend}}\n"
        assert wrapped in source, path.name


def test_only_the_read_only_scripts_are_flagged_no_writes() -> None:
    """`no-writes` lets a function run on a full Redis and a replica, so only the
    scripts that never write carry it: the state load and the version."""
    flagged = re.findall(r"function_name='([a-z_]+)', flags=\{'no-writes'\}", library_source())
    assert flagged == ["accord_load", VERSION_FUNCTION]


def test_only_session_compaction_may_run_past_maxmemory() -> None:
    """A function without `allow-oom` is refused on a full Redis before it starts, where
    the same script by EVAL runs until a write that needs memory. Compaction frees memory
    (a remedy docs/operations.md gives for a full Redis), so it alone carries the flag;
    the commit and the rest are refused there, as `noeviction` intends."""
    flagged = re.findall(r"function_name='([a-z_]+)', flags=\{'allow-oom'\}", library_source())
    assert flagged == ["accord_compact"]


def test_the_version_is_a_digest_of_the_registrations_and_the_version_function_returns_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A changed script changes the version, so a worker refuses another release's
    library: the version is in the library's own `accord_version`."""
    assert re.fullmatch(r"[0-9a-f]{16}", VERSION)
    assert functions._version() == VERSION
    changed = (dataclasses.replace(SCRIPTS[0], source=SCRIPTS[0].source + "\n"), *SCRIPTS[1:])
    monkeypatch.setattr(functions, "SCRIPTS", changed)
    assert functions._version() != VERSION
    # A function's flags are part of what is loaded, so they change the version too.
    assert not SCRIPTS[1].read_only
    assert not SCRIPTS[1].frees_memory
    reflagged = (SCRIPTS[0], dataclasses.replace(SCRIPTS[1], frees_memory=True), *SCRIPTS[2:])
    monkeypatch.setattr(functions, "SCRIPTS", reflagged)
    assert functions._version() != VERSION
    assert f"callback=function(KEYS, ARGV)\nreturn '{VERSION}'\nend}}" in library_source()
