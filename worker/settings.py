"""Settings from the environment, with documented defaults (README, "Operate").

The one composition root (worker/app.py) reads these; nothing else reads os.environ.
"""

from __future__ import annotations

import dataclasses
import os
import socket
import zoneinfo
from dataclasses import dataclass, field
from typing import Self
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from contracts.codec import Limits
from contracts.streams import GROUP
from store.config import (
    DEFAULT_DEAD_LETTERS_MAXLEN,
    DEFAULT_EVENTS_MAXLEN,
    STREAMS_MEMORY_BYTES,
    stream_maxlens,
)


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
    parts = urlsplit(url)
    if parts.password is not None:
        user = f"{parts.username}:***" if parts.username else ":***"
        parts = parts._replace(netloc=f"{user}@{parts.netloc.rpartition('@')[2]}")
    # redis-py also takes `?password=` (and `ssl_password=`) from the query string.
    query = parse_qsl(parts.query, keep_blank_values=True)
    if query:
        shown = [(k, "***" if "password" in k else v) for k, v in query]
        parts = parts._replace(query=urlencode(shown, safe="*/"))
    return urlunsplit(parts)


READERS = ("faststream", "merged")


def _reader(name: str) -> str:
    if name not in READERS:
        raise ValueError(f"ACCORD_READER must be one of {', '.join(READERS)}, got {name!r}")
    return name


@dataclass(frozen=True, slots=True)
class Settings:
    # Where Redis is; unset means "start an embedded one" for the demo and tests only.
    redis_url: str | None = None
    # REDIS_URL names a node of a Redis Cluster (partitions spread over its shards).
    redis_cluster: bool = False
    # Number of partitions P; every producer must use the same value.
    partitions: int = 1
    # Which partitions this worker serves. None (the default): the workers share the
    # partitions by leases in Redis, each partition read by one live worker at a time
    # (store/ownership.py); a list is a manual override, read without leases.
    serve_partitions: tuple[int, ...] | None = None
    # A partition's lease: a crashed worker's partitions move after at most this plus
    # a beat (lease_ms / 4); a worker that stalls longer loses them (docs/store.md).
    lease_ms: int = 10_000
    group: str = GROUP
    consumer: str = field(default_factory=_default_consumer)
    # Entries per XREADGROUP (bounded reads; never the whole backlog into one PEL).
    batch_size: int = 100
    # XREADGROUP BLOCK in milliseconds.
    block_ms: int = 100
    # How input is read: "merged" (one loop per partition, in the FastStream app's
    # lifecycle, handing the store its three streams merged in XADD order) or
    # "faststream" (a FastStream batch subscriber per stream). Merged by default: read
    # stream by stream, a backlog parks about half its entries in the ordering gate,
    # which costs 1.5-2x the CPU per entry (docs/performance.md, "End to end").
    reader: str = "merged"
    # A gap in a session's seq open this long is skipped (recorded and counted).
    gap_timeout_ms: int = 30_000
    # Parked entries (and their bytes) a session may hold before its gap is skipped at
    # once (store.config.StoreConfig; docs/operations.md, memory model).
    max_parked_entries: int = 2_000
    max_parked_bytes: int = 8 * 1024 * 1024
    # An entry delivered this many times without being applied goes to dead letters.
    delivery_limit: int = 10
    # An entry idle this long in another consumer's PEL is reclaimed (XAUTOCLAIM); polled
    # every half of it. With the gap timeout at its default, reclaim happens well inside it
    # (`check_settings`).
    reclaim_idle_ms: int = 10_000
    # Remove group consumers idle this long with nothing pending (0: never). Off by default:
    # it needs XINFO CONSUMERS and XGROUP DELCONSUMER, which the production ACL withholds
    # from the worker (deploy/redis/users.acl); an operator prunes with the ops user instead.
    prune_idle_ms: int = 0
    # The store's state cache (scopes and sessions kept between batches, per partition;
    # 0: off). Every decision taken from it is version-checked in the commit, and versions
    # are unique tokens, so it stays exact when Redis loses acknowledged writes.
    state_cache_size: int = 4096
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
    # A REDIS_URL that turns TLS certificate or host-name verification off is refused
    # unless this is set (a test rig with a throwaway certificate, never production).
    redis_insecure_tls: bool = False
    # Approximate MAXLEN of the agreement-events and dead-letters streams (0: keep all).
    # Unless set, derived from ACCORD_STREAMS_MEMORY_MB, the two streams' memory budget
    # per partition (store.config.stream_maxlens; docs/operations.md, "Memory model").
    events_maxlen: int = DEFAULT_EVENTS_MAXLEN
    dead_letters_maxlen: int = DEFAULT_DEAD_LETTERS_MAXLEN
    # Keep message text in dead letters (off: text fields are redacted).
    dead_letter_keep_text: bool = False
    # Open plus pending records a scope may hold; past it a proposal is refused.
    max_records_per_scope: int = 50
    max_terms_chars: int = 1_000
    limits: Limits = field(default_factory=Limits)

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Self:
        e = dict(os.environ if env is None else env)
        base = cls()
        serve = e.get("ACCORD_SERVE_PARTITIONS")

        def num(name: str, default: int) -> int:
            raw = e.get(name)
            if raw is None or raw == "":
                return default
            try:
                return int(raw)
            except ValueError as error:
                raise ValueError(f"{name} must be an integer, got {raw!r}") from error

        budget = stream_maxlens(
            num("ACCORD_STREAMS_MEMORY_MB", STREAMS_MEMORY_BYTES // 2**20) * 2**20
        )
        serve_raw = [p.strip() for p in serve.split(",") if p.strip()] if serve else []
        if not all(p.isdigit() for p in serve_raw):
            raise ValueError(
                "ACCORD_SERVE_PARTITIONS must be partition numbers separated by commas,"
                f" got {serve!r}"
            )
        limits = Limits(
            max_entry_bytes=num("ACCORD_MAX_ENTRY_BYTES", base.limits.max_entry_bytes),
            max_text_bytes=num("ACCORD_MAX_TEXT_BYTES", base.limits.max_text_bytes),
            max_todos=num("ACCORD_MAX_TODOS", base.limits.max_todos),
            max_todo_content_bytes=num(
                "ACCORD_MAX_TODO_CONTENT_BYTES", base.limits.max_todo_content_bytes
            ),
            max_argument_bytes=num("ACCORD_MAX_ARGUMENT_BYTES", base.limits.max_argument_bytes),
            max_ts_behind_s=num("ACCORD_MAX_TS_BEHIND_S", base.limits.max_ts_behind_s),
            max_ts_ahead_s=num("ACCORD_MAX_TS_AHEAD_S", base.limits.max_ts_ahead_s),
        )
        insecure = e.get("ACCORD_REDIS_INSECURE_TLS", "0").lower() in {"1", "true", "yes"}
        unverified = _unverified_tls(e.get("REDIS_URL") or "")
        if unverified and not insecure:
            raise ValueError(
                f"REDIS_URL turns TLS verification off ({unverified}); "
                "set ACCORD_REDIS_INSECURE_TLS=1 to allow it"
            )
        return cls(
            redis_url=e.get("REDIS_URL") or None,
            redis_cluster=e.get("ACCORD_REDIS_CLUSTER", "0").lower() in {"1", "true", "yes"},
            partitions=num("ACCORD_PARTITIONS", base.partitions),
            serve_partitions=tuple(int(p) for p in serve_raw) or None,
            lease_ms=num("ACCORD_LEASE_MS", base.lease_ms),
            group=e.get("ACCORD_GROUP", base.group),
            consumer=e.get("ACCORD_CONSUMER") or _default_consumer(),
            batch_size=num("ACCORD_BATCH_SIZE", base.batch_size),
            block_ms=num("ACCORD_BLOCK_MS", base.block_ms),
            reader=_reader(e.get("ACCORD_READER") or base.reader),
            gap_timeout_ms=num("ACCORD_GAP_TIMEOUT_MS", base.gap_timeout_ms),
            max_parked_entries=num("ACCORD_MAX_PARKED_ENTRIES", base.max_parked_entries),
            max_parked_bytes=num("ACCORD_MAX_PARKED_BYTES", base.max_parked_bytes),
            delivery_limit=num("ACCORD_DELIVERY_LIMIT", base.delivery_limit),
            reclaim_idle_ms=num("ACCORD_RECLAIM_IDLE_MS", base.reclaim_idle_ms),
            prune_idle_ms=num("ACCORD_PRUNE_IDLE_MS", base.prune_idle_ms),
            state_cache_size=num("ACCORD_STATE_CACHE_SIZE", base.state_cache_size),
            gc_threshold=num("ACCORD_GC_THRESHOLD", base.gc_threshold),
            sweep_interval_ms=num("ACCORD_SWEEP_INTERVAL_MS", base.sweep_interval_ms),
            default_timezone=e.get("ACCORD_DEFAULT_TIMEZONE", base.default_timezone),
            log_level=e.get("ACCORD_LOG_LEVEL", base.log_level).upper(),
            metrics_port=num("ACCORD_METRICS_PORT", base.metrics_port),
            metrics_host=e.get("ACCORD_METRICS_HOST") or base.metrics_host,
            redis_insecure_tls=insecure,
            events_maxlen=num("ACCORD_EVENTS_MAXLEN", budget[0]),
            dead_letters_maxlen=num("ACCORD_DEAD_LETTERS_MAXLEN", budget[1]),
            dead_letter_keep_text=e.get("ACCORD_DEAD_LETTER_KEEP_TEXT", "0").lower()
            in {"1", "true", "yes"},
            max_records_per_scope=num("ACCORD_MAX_RECORDS_PER_SCOPE", base.max_records_per_scope),
            max_terms_chars=num("ACCORD_MAX_TERMS_CHARS", base.max_terms_chars),
            limits=limits,
        ).checked()

    def checked(self) -> Self:
        """These settings, or ValueError naming the first setting (or pair) that is wrong."""
        for problem in (_single(self), _paired(self)):
            if problem:
                raise ValueError(problem)
        return self

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
        """Partitions are shared by leases: no manual list, and the merged reader (the
        FastStream subscribers are fixed at start, so they serve every partition)."""
        return self.serve_partitions is None and self.reader == "merged"


REDIS_SCHEMES = ("redis", "rediss", "unix")
MIN_LEASE_MS = 500


def _single(s: Settings) -> str | None:
    """The first setting that is wrong on its own (one line), or None."""
    if s.partitions < 1:
        return f"ACCORD_PARTITIONS must be at least 1, got {s.partitions}"
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
    if s.redis_url is not None and urlsplit(s.redis_url).scheme not in REDIS_SCHEMES:
        return (
            f"REDIS_URL must start with redis://, rediss:// or unix://,"
            f" got {redacted_url(s.redis_url)!r}"
        )
    for name, value, least in (
        ("ACCORD_BATCH_SIZE", s.batch_size, 1),
        ("ACCORD_GAP_TIMEOUT_MS", s.gap_timeout_ms, 1),
        ("ACCORD_RECLAIM_IDLE_MS", s.reclaim_idle_ms, 1),
        ("ACCORD_SWEEP_INTERVAL_MS", s.sweep_interval_ms, 1),
        # Workers beat every quarter of it: shorter, and a busy process loses its leases.
        ("ACCORD_LEASE_MS", s.lease_ms, MIN_LEASE_MS),
    ):
        if value < least:
            return f"{name} must be at least {least}, got {value}"
    return None


def _paired(s: Settings) -> str | None:
    """The first combination of settings that can lose or dead-letter good input, or None.

    A gap is never skipped while its seq is pending (docs/store.md), so a slow reclaim
    only delays; but a crashed worker's entries should be reclaimed (idle time, then up
    to half of it until the next poll) within half the gap timeout, so that a session
    behind a crash moves on well before its gap could be given up. A delivery limit of 1
    dead-letters an entry whose worker crashed once.
    """
    reclaim_by = s.reclaim_idle_ms * 3 // 2
    if reclaim_by > s.gap_timeout_ms // 2:
        return (
            f"ACCORD_RECLAIM_IDLE_MS={s.reclaim_idle_ms} is too long for ACCORD_GAP_TIMEOUT_MS="
            f"{s.gap_timeout_ms}: a crashed worker's entries are reclaimed up to {reclaim_by} ms"
            f" later, which must be within half the gap timeout"
            f" (ACCORD_RECLAIM_IDLE_MS <= {s.gap_timeout_ms // 3}"
            f" or ACCORD_GAP_TIMEOUT_MS >= {reclaim_by * 2})"
        )
    if s.block_ms >= s.reclaim_idle_ms:
        return (
            f"ACCORD_BLOCK_MS={s.block_ms} must be below ACCORD_RECLAIM_IDLE_MS="
            f"{s.reclaim_idle_ms}: a live worker's entries would be reclaimed from it"
        )
    if s.delivery_limit < 2:
        return (
            f"ACCORD_DELIVERY_LIMIT={s.delivery_limit} dead-letters an entry whose worker crashed"
            f" once (ACCORD_RECLAIM_IDLE_MS={s.reclaim_idle_ms} redelivers it): use at least 2"
        )
    return None
