"""Settings from the environment: the worker's own, the store's and the core's.

`Settings` holds what the worker itself needs and composes the store's `StoreConfig`
and the core's `Policy`: each default is written once, in the Struct that uses it.
`VARIABLES` (worker/variables.py) is the one table from environment variable to field
(docs/cli.md lists them); `Settings.from_env` reads it and `Settings.checked` refuses,
in one line naming the variable, a value or a combination the worker must not run with
(exit 2).
The one composition root (worker/app.py) reads these; nothing else reads os.environ.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.util
import os
import socket
import zoneinfo
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Self, TypeVar
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from contracts.redis_url import SENTINEL_SCHEMES, is_sentinel_url, parse_sentinel_url
from core.lifecycle.context import Policy
from core.lifecycle.todo import ITEM_OVERHEAD_BYTES
from store.config import StoreConfig
from worker.variables import VARIABLES, refuse_removed

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

_Config = TypeVar("_Config", bound="DataclassInstance")


def _default_consumer() -> str:
    # Unique per process: `faststream run -w N` forks N processes from one import,
    # and processes sharing a consumer name would share one PEL.
    return f"{socket.gethostname()}-{os.getpid()}"


def _unverified_tls(url: str) -> str | None:
    """The query argument of `url` that switches off certificate or host-name checks."""
    for name, value in parse_qsl(urlsplit(url).query):
        lowered = (name.lower(), value.strip().lower())
        if lowered[0] == "ssl_cert_reqs" and lowered[1] in {"none", "cert_none"}:
            return f"{name}={value}"
        if lowered[0] == "ssl_check_hostname" and lowered[1] in {"false", "0", "no", "off"}:
            return f"{name}={value}"
    return None


def redacted_url(url: str | None) -> str | None:
    """`url` with its password replaced by `***`: the only form of it fit to print."""
    if url is None:
        return None
    try:
        parts = urlsplit(url)
    except ValueError:
        # An unbalanced IPv6 bracket (a mistyped Sentinel URL): nothing after the scheme
        # can be trusted to be split right, so none of it is shown.
        return f"{url.partition('://')[0]}://***"
    if parts.password is not None:
        user = f"{parts.username}:***" if parts.username else ":***"
        parts = parts._replace(netloc=f"{user}@{parts.netloc.rpartition('@')[2]}")
    # redis-py also takes `?password=` (and `ssl_password=`) from the query string.
    query = parse_qsl(parts.query, keep_blank_values=True)
    if query:
        shown = [(k, "***" if "password" in k else v) for k, v in query]
        parts = parts._replace(query=urlencode(shown, safe="*/"))
    return urlunsplit(parts)


@dataclass(frozen=True, slots=True)
class Settings:
    # Where Redis is; unset means "start an embedded one" for the demo and tests only.
    redis_url: str | None = None
    # REDIS_URL names a node of a Redis Cluster (partitions spread over its shards).
    redis_cluster: bool = False
    # Which partitions this worker serves. None (the default): the workers share the
    # partitions by leases in Redis, each partition read by one live worker at a time
    # (store/ownership.py); a list is a manual override, read without leases.
    serve_partitions: tuple[int, ...] | None = None
    # A partition's lease: a crashed worker's partitions move after at most this plus
    # a beat (lease_ms / 4); a worker that stalls longer loses them (docs/store.md).
    lease_ms: int = 10_000
    consumer: str = field(default_factory=_default_consumer)
    # Entries per XREADGROUP of each stream (bounded reads; never the whole backlog into
    # one PEL). On a backlog a batch costs mostly per session in it, so larger batches
    # cost less CPU per entry and hold more memory (docs/performance.md, "Settings that
    # trade memory for speed").
    batch_size: int = 2000
    # Bytes one read of a partition's streams may bring, at the entry size seen lately:
    # the COUNT shrinks below batch_size for large entries (worker/read_size.py; 0: the
    # COUNT alone).
    read_bytes: int = 4 * 2**20
    # XREADGROUP BLOCK in milliseconds.
    block_ms: int = 100
    # An entry idle this long in another consumer's PEL is reclaimed (XCLAIM); polled
    # every half of it. With the gap timeout at its default, reclaim happens well inside it
    # (`_paired`).
    reclaim_idle_ms: int = 10_000
    # Remove group consumers idle this long with nothing pending (0: never). Off by default:
    # it needs XINFO CONSUMERS and XGROUP DELCONSUMER, which the production ACL withholds
    # from the worker (deploy/redis/users.acl); an operator prunes with the ops user instead.
    prune_idle_ms: int = 0
    # Net allocations between the garbage collector's young collections (0: CPython's
    # default, 700). Rarer collections cut the worker's CPU per entry by a third
    # (worker/gc_tuning.py, docs/performance.md).
    gc_threshold: int = 50_000
    # Expiry sweep period.
    sweep_interval_ms: int = 1_000
    # Time zone for deadlines when a turn carries none (IANA name).
    default_timezone: str = "UTC"
    log_level: str = "INFO"
    # Prometheus metrics and health HTTP port (0 disables), and the address it binds:
    # loopback unless set (the Kubernetes manifests set 0.0.0.0 for the kubelet and
    # Prometheus; elsewhere nothing outside the host should reach /metrics).
    metrics_port: int = 9108
    metrics_host: str = "127.0.0.1"
    # Traces: where to send them by OTLP over HTTP (e.g. http://collector:4318/v1/traces).
    # Unset (the default), the worker does not trace and never imports OpenTelemetry.
    otlp_endpoint: str | None = None
    # A REDIS_URL that turns TLS certificate or host-name verification off is refused
    # unless this is set (a test rig with a throwaway certificate, never production).
    redis_insecure_tls: bool = False
    # Redis 7 function mode: every script runs as `FCALL accord_<name>` from the library
    # an operator loaded (`accord functions load`), so the Redis user needs no EVAL.
    redis_functions: bool = False
    # The store's own configuration (partitions, group, gap timeout, delivery limit,
    # output stream lengths, input limits, state cache) and the core's scope limits.
    store: StoreConfig = field(default_factory=StoreConfig)
    policy: Policy = field(default_factory=Policy)
    # Whether ACCORD_PARTITIONS was set. Unset, the worker and the commands take the count
    # Redis holds (`accord:config`, changed by `accord repartition`) and only a new
    # deployment starts with 1; set, it must be Redis's count (store/layout.py).
    partitions_given: bool = False

    @property
    def partitions(self) -> int:
        """Number of partitions P (the store's); every producer must use the same value."""
        return self.store.partitions

    @property
    def group(self) -> str:
        """The consumer group the worker reads as (the store's: its commit acks in it)."""
        return self.store.group

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Self:
        """Settings from `env` (default: os.environ), checked; ValueError naming the variable.

        An unset or empty variable leaves its default. Variables are applied in table
        order, so ACCORD_EVENTS_MAXLEN overrides the length ACCORD_STREAMS_MEMORY_MB derives.
        """
        e = os.environ if env is None else env
        refuse_removed(e)
        settings = cls()
        for variable in VARIABLES:
            raw = e.get(variable.name, "")
            if raw == "":
                continue
            try:
                value = variable.parse(raw)
            except ValueError as error:
                raise ValueError(f"{variable.name} {error}, got {raw!r}") from None
            paths = (variable.path,) if isinstance(variable.path, str) else variable.path
            values = (value,) if isinstance(variable.path, str) else value
            for path, one in zip(paths, values, strict=True):
                settings = _replace(settings, path, one)
        if e.get("ACCORD_PARTITIONS", ""):
            settings = dataclasses.replace(settings, partitions_given=True)
        return settings.checked()

    def checked(self) -> Self:
        """These settings, or ValueError naming the first variable (or pair) that is wrong."""
        for problem in (
            _least(self),
            _single(self),
            _tracing(self),
            _paired(self),
            _durability(self),
        ):
            if problem:
                raise ValueError(problem)
        return self

    def replaced(self, **changes: object) -> Self:
        """These settings with fields changed by name, wherever they live (tests, tools):
        `settings.replaced(partitions=2, batch_size=50)` sets `store.partitions` and
        `batch_size`."""
        settings = self
        for name, value in changes.items():
            settings = _replace(settings, _path_of(name), value)
        return settings

    def __repr__(self) -> str:
        # REDIS_URL may carry the ACL user's password: a logged or printed Settings
        # (a traceback, a debug line) shows it redacted (docs/security.md).
        shown = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        shown["redis_url"] = redacted_url(self.redis_url)
        return f"Settings({', '.join(f'{k}={v!r}' for k, v in shown.items())})"

    def served(self) -> tuple[int, ...]:
        """Every partition this worker may serve (with ownership: the ones it may own)."""
        return self.serve_partitions or tuple(range(self.partitions))

    @property
    def owns_by_lease(self) -> bool:
        """Partitions are shared by leases unless a manual list names them."""
        return self.serve_partitions is None


def _replace(config: _Config, path: str, value: object) -> _Config:
    """`config` with the field at dotted `path` (`store.limits.max_text_bytes`) set."""
    name, _, rest = path.partition(".")
    if rest:
        value = _replace(getattr(config, name), rest, value)
    return dataclasses.replace(config, **{name: value})


def _get(config: object, path: str) -> Any:  # noqa: ANN401  (a field of any type)
    return functools.reduce(getattr, path.split("."), config)


def _path_of(name: str) -> str:
    """The dotted path of the field called `name` in Settings, its StoreConfig or Policy."""
    for prefix, owner in (("", Settings), ("store.", StoreConfig), ("policy.", Policy)):
        if name in {f.name for f in dataclasses.fields(owner)}:
            return prefix + name
    raise TypeError(f"no setting named {name!r}")


REDIS_SCHEMES = ("redis", "rediss", "unix", *SENTINEL_SCHEMES)


def _least(s: Settings) -> str | None:
    """The first integer below the least its variable allows (one line), or None."""
    for variable in VARIABLES:
        if variable.least is not None and isinstance(variable.path, str):
            value = _get(s, variable.path)
            if value < variable.least:
                return f"{variable.name} must be at least {variable.least}, got {value}"
    return None


def _single(s: Settings) -> str | None:
    """The first setting that is wrong on its own (one line), or None."""
    outside = [p for p in s.serve_partitions or () if not 0 <= p < s.partitions]
    if outside:
        return (
            f"ACCORD_SERVE_PARTITIONS names partition {outside[0]}, outside 0..{s.partitions - 1}"
            f" (ACCORD_PARTITIONS={s.partitions})"
        )
    try:
        zoneinfo.ZoneInfo(s.default_timezone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return f"ACCORD_DEFAULT_TIMEZONE: unknown IANA time zone {s.default_timezone!r}"
    if s.redis_url is not None and (problem := _url_problem(s)):
        return problem
    unverified = _unverified_tls(s.redis_url or "")
    if unverified and not s.redis_insecure_tls:
        return (
            f"REDIS_URL turns TLS verification off ({unverified}); "
            "set ACCORD_REDIS_INSECURE_TLS=1 to allow it"
        )
    if s.metrics_port > 65535:
        return f"ACCORD_METRICS_PORT must be a TCP port (0-65535; 0: off), got {s.metrics_port}"
    return None


def _url_problem(s: Settings) -> str | None:
    """What is wrong with REDIS_URL on its own or beside ACCORD_REDIS_CLUSTER, or None."""
    url = s.redis_url or ""
    shown = redacted_url(url)
    if is_sentinel_url(url):
        try:
            parse_sentinel_url(url)
        except ValueError as error:
            return f"REDIS_URL {error}, got {shown!r}"
        if s.redis_cluster:
            # A cluster fails over by itself; Sentinel watches primaries outside one.
            return (
                "REDIS_URL is a Sentinel URL and ACCORD_REDIS_CLUSTER is set: Redis Cluster"
                " is not run under Sentinel; use one of the two"
            )
        return None
    if urlsplit(url).scheme not in REDIS_SCHEMES:
        return (
            "REDIS_URL must start with redis://, rediss://, unix:// or redis+sentinel://,"
            f" got {shown!r}"
        )
    return None


def _tracing(s: Settings) -> str | None:
    """What stops the worker sending the traces it is asked for (one line), or None."""
    if not s.otlp_endpoint:
        return None
    if urlsplit(s.otlp_endpoint).scheme not in {"http", "https"}:
        return f"ACCORD_OTLP_ENDPOINT must be an http:// or https:// URL, got {s.otlp_endpoint!r}"
    if not tracing_installed():
        return (
            "ACCORD_OTLP_ENDPOINT is set but OpenTelemetry is not installed: install the"
            " otel extra (pip install 'accord[otel]'), or unset it"
        )
    return None


def _durability(s: Settings) -> str | None:
    """What the durability setting cannot do as configured (one line), or None."""
    store = s.store
    if store.wait_aof and not store.wait_replicas:
        return (
            "ACCORD_WAIT_AOF waits for the replicas of ACCORD_WAIT_REPLICAS, which is 0 (off):"
            " set ACCORD_WAIT_REPLICAS to at least 1"
        )
    return None


def tracing_installed() -> bool:
    """The `otel` extra's SDK and OTLP exporter can be imported (only looked up, not
    imported: asked only when ACCORD_OTLP_ENDPOINT is set)."""
    try:
        return all(
            importlib.util.find_spec(name) is not None
            for name in ("opentelemetry.sdk.trace", "opentelemetry.exporter.otlp.proto.http")
        )
    except ModuleNotFoundError:  # a parent package is missing
        return False


def _paired(s: Settings) -> str | None:
    """The first combination of settings that can lose or dead-letter good input, or None.

    A gap is never skipped while its seq is pending (docs/store.md), so a slow reclaim
    only delays; but a crashed worker's entries should be reclaimed (idle time, then up
    to half of it until the next poll) within half the gap timeout, so that a session
    behind a crash moves on well before its gap could be given up. A delivery limit of 1
    dead-letters an entry whose worker crashed once.
    """
    gap_timeout_ms = s.store.gap_timeout_ms
    reclaim_by = s.reclaim_idle_ms * 3 // 2
    if reclaim_by > gap_timeout_ms // 2:
        return (
            f"ACCORD_RECLAIM_IDLE_MS={s.reclaim_idle_ms} is too long for ACCORD_GAP_TIMEOUT_MS="
            f"{gap_timeout_ms}: a crashed worker's entries are reclaimed up to {reclaim_by} ms"
            f" later, which must be within half the gap timeout"
            f" (ACCORD_RECLAIM_IDLE_MS <= {gap_timeout_ms // 3}"
            f" or ACCORD_GAP_TIMEOUT_MS >= {reclaim_by * 2})"
        )
    if s.block_ms >= s.reclaim_idle_ms:
        return (
            f"ACCORD_BLOCK_MS={s.block_ms} must be below ACCORD_RECLAIM_IDLE_MS="
            f"{s.reclaim_idle_ms}: a live worker's entries would be reclaimed from it"
        )
    one_item = s.store.limits.max_todo_content_bytes + ITEM_OVERHEAD_BYTES
    if s.policy.max_todo_state_bytes < one_item:
        return (
            f"ACCORD_MAX_TODO_STATE_BYTES={s.policy.max_todo_state_bytes} is below one todo"
            f" item at ACCORD_MAX_TODO_CONTENT_BYTES={s.store.limits.max_todo_content_bytes}"
            f" (+{ITEM_OVERHEAD_BYTES}): a session's todos could not be tracked, so no"
            f" agreement could be bound to one (use at least {one_item})"
        )
    if s.store.delivery_limit < 2:
        return (
            f"ACCORD_DELIVERY_LIMIT={s.store.delivery_limit} dead-letters an entry whose worker"
            f" crashed once (ACCORD_RECLAIM_IDLE_MS={s.reclaim_idle_ms} redelivers it):"
            " use at least 2"
        )
    return None
