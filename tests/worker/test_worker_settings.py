"""Settings: one table from environment variable to field, defaults written once.

`Settings` composes the store's `StoreConfig` and the core's `Policy`; `VARIABLES` maps
each variable to the field it sets. What must hold: every variable reaches its field
(and so the store or the core), nothing else sets one, the documented list is the
table, and a value the worker must not run with is refused naming the variable (R15:
a wrong setting must not lose input). The refusals as a process sees them (one line,
exit 2) are in tests/worker/test_worker_settings_check.py.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import pytest

from contracts.codec import Limits
from core.lifecycle.context import Policy
from store.config import StoreConfig
from tests.support.paths import ROOT
from worker import settings as settings_module
from worker.settings import Settings, redacted_url
from worker.variables import REMOVED, VARIABLES, Variable

INTEGERS = [v for v in VARIABLES if v.least is not None]


def _field(settings: Settings, path: str) -> Any:
    return functools.reduce(getattr, path.split("."), settings)


def test_defaults_are_the_store_and_core_structs_own() -> None:
    """No default is restated: the worker's store and core settings are their Structs'."""
    settings = Settings.from_env({})
    assert settings.store == StoreConfig()
    assert settings.policy == Policy()
    assert settings.store.limits == Limits()
    assert (settings.partitions, settings.group) == (1, "accord")


@pytest.mark.parametrize("variable", INTEGERS, ids=lambda v: v.name)
def test_every_integer_variable_sets_its_field(variable: Variable) -> None:
    """Each variable of the table reaches the field it names, and only that field."""
    assert isinstance(variable.path, str)
    default = Settings.from_env({})
    # One off the default (down for the reclaim idle time: up would reclaim too late
    # for the default gap timeout, a refused combination).
    step = -1 if variable.name == "ACCORD_RECLAIM_IDLE_MS" else 1
    value = int(_field(default, variable.path)) + step
    changed = Settings.from_env({variable.name: str(value)})
    assert _field(changed, variable.path) == value
    others = [v.path for v in INTEGERS if v.path != variable.path and isinstance(v.path, str)]
    assert [_field(changed, p) for p in others] == [_field(default, p) for p in others]


def test_text_flag_and_list_variables_set_their_fields() -> None:
    settings = Settings.from_env(
        {
            "REDIS_URL": "redis://h:1/0",
            "ACCORD_REDIS_CLUSTER": "true",
            "ACCORD_PARTITIONS": "4",
            "ACCORD_SERVE_PARTITIONS": "1, 3",
            "ACCORD_GROUP": "other",
            "ACCORD_CONSUMER": "me",
            "ACCORD_DEFAULT_TIMEZONE": "Asia/Shanghai",
            "ACCORD_LOG_LEVEL": "debug",
            "ACCORD_METRICS_HOST": "0.0.0.0",  # noqa: S104  (a value, not a bind)
            "ACCORD_DEAD_LETTER_KEEP_TEXT": "1",
        }
    )
    assert settings.redis_url == "redis://h:1/0"
    assert settings.redis_cluster is True
    assert settings.served() == (1, 3)
    assert settings.owns_by_lease is False
    assert settings.group == settings.store.group == "other"
    assert settings.consumer == "me"
    assert settings.default_timezone == "Asia/Shanghai"
    assert settings.log_level == "DEBUG"
    assert settings.metrics_host == "0.0.0.0"  # noqa: S104
    assert settings.store.dead_letter_keep_text is True


def test_an_empty_variable_is_unset() -> None:
    """Compose and Kubernetes write `VAR: ""` for "not set": the default stays."""
    assert Settings.from_env({v.name: "" for v in VARIABLES}) == Settings.from_env(
        {"ACCORD_CONSUMER": Settings.from_env({}).consumer}
    ).replaced(consumer=Settings.from_env({"ACCORD_CONSUMER": ""}).consumer)


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"ACCORD_PARTITIONS": "two"}, "ACCORD_PARTITIONS must be an integer, got 'two'"),
        ({"ACCORD_PARTITIONS": "0"}, "ACCORD_PARTITIONS must be at least 1, got 0"),
        ({"ACCORD_BLOCK_MS": "0"}, "ACCORD_BLOCK_MS must be at least 1, got 0"),
        ({"ACCORD_LEASE_MS": "100"}, "ACCORD_LEASE_MS must be at least 500, got 100"),
        ({"ACCORD_EVENTS_MAXLEN": "-1"}, "ACCORD_EVENTS_MAXLEN must be at least 0, got -1"),
        ({"ACCORD_STREAMS_MEMORY_MB": "0"}, "ACCORD_STREAMS_MEMORY_MB must be at least 1"),
        ({"ACCORD_REDIS_INSECURE_TLS": "sure"}, "ACCORD_REDIS_INSECURE_TLS must be 1 or 0"),
        ({"ACCORD_LOG_LEVEL": "LOUD"}, "ACCORD_LOG_LEVEL must be one of DEBUG"),
        ({"ACCORD_SERVE_PARTITIONS": "0;1"}, "ACCORD_SERVE_PARTITIONS must be partition"),
        ({"ACCORD_METRICS_PORT": "70000"}, "ACCORD_METRICS_PORT must be a TCP port"),
        ({"ACCORD_OTLP_ENDPOINT": "collector:4318"}, "ACCORD_OTLP_ENDPOINT must be an http"),
        ({"ACCORD_READER": "faststream"}, "ACCORD_READER=faststream: the FastStream"),
        (
            {"ACCORD_MAX_TODO_STATE_BYTES": "0"},
            "ACCORD_MAX_TODO_STATE_BYTES=0 is below one todo item",
        ),
        (
            {"ACCORD_MAX_TODO_STATE_BYTES": "2000", "ACCORD_MAX_TODO_CONTENT_BYTES": "2048"},
            "(use at least 2073)",
        ),
        (
            {"REDIS_URL": "rediss://h:1/0?ssl_cert_reqs=none"},
            "REDIS_URL turns TLS verification off (ssl_cert_reqs=none)",
        ),
        (
            {"REDIS_URL": "redis+sentinel://u:pw@s1,s2/"},
            "REDIS_URL names no service: the path is the name the sentinels monitor",
        ),
        ({"REDIS_URL": "redis+sentinel://s1:x/svc"}, "REDIS_URL has a bad sentinel port 'x'"),
        (
            {"REDIS_URL": "redis+sentinel://s1/svc", "ACCORD_REDIS_CLUSTER": "1"},
            "REDIS_URL is a Sentinel URL and ACCORD_REDIS_CLUSTER is set",
        ),
        (
            {"REDIS_URL": "rediss+sentinel://s1/svc?ssl_check_hostname=false"},
            "REDIS_URL turns TLS verification off (ssl_check_hostname=false)",
        ),
    ],
)
def test_a_value_the_worker_must_not_run_with_is_refused_naming_the_variable(
    env: dict[str, str], message: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        Settings.from_env(env)


def test_tracing_without_the_otel_extra_is_refused_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """ACCORD_OTLP_ENDPOINT asks for traces the worker could not send without the `otel`
    extra: refused at start (one line), not a traceback when the first partition is
    built; with the extra (the dev environment) the same URL is accepted."""
    env = {"ACCORD_OTLP_ENDPOINT": "http://collector:4318/v1/traces"}
    assert Settings.from_env(env).otlp_endpoint == env["ACCORD_OTLP_ENDPOINT"]
    monkeypatch.setattr(settings_module, "tracing_installed", lambda: False)
    with pytest.raises(ValueError, match="pip install 'accord\\[otel\\]'"):
        Settings.from_env(env)


def test_a_removed_variable_with_its_one_remaining_meaning_is_accepted() -> None:
    """ACCORD_READER=merged asks for what every worker does: nothing to refuse."""
    assert Settings.from_env({"ACCORD_READER": "merged"}) == Settings.from_env(
        {"ACCORD_CONSUMER": "c"}
    ).replaced(consumer=Settings.from_env({"ACCORD_READER": "merged"}).consumer)


def test_replaced_routes_each_name_to_the_struct_that_owns_it() -> None:
    settings = Settings(consumer="c").replaced(
        partitions=3, batch_size=7, max_terms_chars=20, limits=Limits(max_todos=2)
    )
    assert (settings.store.partitions, settings.batch_size) == (3, 7)
    assert settings.policy.max_terms_chars == 20
    assert settings.store.limits.max_todos == 2
    with pytest.raises(TypeError, match="no setting named 'reader'"):
        settings.replaced(reader="faststream")


def test_the_documented_variables_are_the_table() -> None:
    """docs/cli.md's settings table names exactly the variables the worker reads."""
    page = (ROOT / "docs" / "cli.md").read_text()
    section = page.split("## Settings (environment variables)", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"`((?:ACCORD|REDIS)_[A-Z_]+)`", section))
    assert documented - set(REMOVED) == {v.name for v in VARIABLES}


def test_a_sentinel_url_is_accepted_and_shown_without_either_password() -> None:
    """redis+sentinel:// and rediss+sentinel:// are REDIS_URL forms (docs/cli.md); the
    data nodes' password and the sentinels' (`sentinel_password=`) are both redacted
    wherever the settings are shown."""
    url = "redis+sentinel://accord:pa55-word@s1:26379,s2/accord/0?sentinel_password=w4tch"
    settings = Settings.from_env({"REDIS_URL": url})
    assert settings.redis_url == url
    shown = redacted_url(url)
    assert shown == "redis+sentinel://accord:***@s1:26379,s2/accord/0?sentinel_password=***"
    assert "pa55-word" not in repr(settings)
    assert "w4tch" not in repr(settings)
    # A mistyped IPv6 bracket: nothing after the scheme can be split right, so none is shown.
    assert redacted_url("redis+sentinel://u:pw@[::1/accord") == "redis+sentinel://***"
