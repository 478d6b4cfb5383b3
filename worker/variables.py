"""The environment variables: one table from variable to field, and how each is read.

`worker.settings.Settings.from_env` walks `VARIABLES`; each parser returns the value or
raises ValueError saying what the text must be, and `least` is checked on any Settings.
docs/cli.md lists exactly this table (a test keeps the two equal).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from store.config import stream_maxlens

# Parsers: each returns the value or raises ValueError saying what the text must be.


def _integer(raw: str) -> int:
    try:
        return int(raw)
    except ValueError:
        raise ValueError("must be an integer") from None


_TRUE, _FALSE = {"1", "true", "yes", "on"}, {"0", "false", "no", "off"}


def _flag(raw: str) -> bool:
    lowered = raw.strip().lower()
    if lowered not in _TRUE | _FALSE:
        raise ValueError("must be 1 or 0 (true/false, yes/no, on/off)")
    return lowered in _TRUE


def _string(raw: str) -> str:
    return raw


LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def _log_level(raw: str) -> str:
    if raw.upper() not in LOG_LEVELS:
        raise ValueError(f"must be one of {', '.join(LOG_LEVELS)}")
    return raw.upper()


def _partition_list(raw: str) -> tuple[int, ...] | None:
    parts = [p.strip() for p in raw.split(",") if p.strip()]
    if not all(p.isdigit() for p in parts):
        raise ValueError("must be partition numbers separated by commas")
    return tuple(int(p) for p in parts) or None


def _streams_memory(raw: str) -> tuple[int, int]:
    megabytes = _integer(raw)
    if megabytes < 1:
        raise ValueError("must be at least 1")
    return stream_maxlens(megabytes * 2**20)


def _mebibytes(raw: str) -> int:
    megabytes = _integer(raw)
    if megabytes < 0:
        raise ValueError("must be at least 0")
    return megabytes * 2**20


class Variable(NamedTuple):
    """One environment variable: the field (or fields) it sets and how its text is read."""

    name: str
    # Dotted path into Settings; a tuple when the parser returns one value per path.
    path: str | tuple[str, ...]
    parse: Callable[[str], Any]
    # For integers: the least value that makes sense (checked on any Settings).
    least: int | None = None


def _int(name: str, path: str, least: int = 0) -> Variable:
    return Variable(name, path, _integer, least)


VARIABLES: tuple[Variable, ...] = (
    Variable("REDIS_URL", "redis_url", _string),
    Variable("ACCORD_REDIS_CLUSTER", "redis_cluster", _flag),
    Variable("ACCORD_REDIS_INSECURE_TLS", "redis_insecure_tls", _flag),
    Variable("ACCORD_REDIS_FUNCTIONS", "redis_functions", _flag),
    _int("ACCORD_PARTITIONS", "store.partitions", least=1),
    Variable("ACCORD_SERVE_PARTITIONS", "serve_partitions", _partition_list),
    # Workers beat every quarter of it: shorter, and a busy process loses its leases.
    _int("ACCORD_LEASE_MS", "lease_ms", least=500),
    Variable("ACCORD_GROUP", "store.group", _string),
    Variable("ACCORD_CONSUMER", "consumer", _string),
    _int("ACCORD_BATCH_SIZE", "batch_size", least=1),
    Variable("ACCORD_READ_MB", "read_bytes", _mebibytes),
    _int("ACCORD_COMMIT_ENTRIES", "store.commit_entries", least=1),
    # BLOCK 0 would wait for ever: a stop would wait for the next entry.
    _int("ACCORD_BLOCK_MS", "block_ms", least=1),
    _int("ACCORD_GAP_TIMEOUT_MS", "store.gap_timeout_ms", least=1),
    _int("ACCORD_MAX_PARKED_ENTRIES", "store.max_parked_entries"),
    _int("ACCORD_MAX_PARKED_BYTES", "store.max_parked_bytes"),
    _int("ACCORD_MAX_PARTITION_PARKED_ENTRIES", "store.max_partition_parked_entries"),
    _int("ACCORD_MAX_PARTITION_PARKED_BYTES", "store.max_partition_parked_bytes"),
    _int("ACCORD_DELIVERY_LIMIT", "store.delivery_limit"),
    _int("ACCORD_SUSPECT_ATTEMPTS", "store.suspect_attempts"),
    _int("ACCORD_RECLAIM_IDLE_MS", "reclaim_idle_ms", least=1),
    _int("ACCORD_PRUNE_IDLE_MS", "prune_idle_ms"),
    _int("ACCORD_STATE_CACHE_SIZE", "store.cache_size"),
    Variable("ACCORD_STATE_CACHE_MB", "store.cache_bytes", _mebibytes),
    _int("ACCORD_GC_THRESHOLD", "gc_threshold"),
    _int("ACCORD_SWEEP_INTERVAL_MS", "sweep_interval_ms", least=1),
    Variable("ACCORD_DEFAULT_TIMEZONE", "default_timezone", _string),
    Variable("ACCORD_LOG_LEVEL", "log_level", _log_level),
    _int("ACCORD_METRICS_PORT", "metrics_port"),
    Variable("ACCORD_METRICS_HOST", "metrics_host", _string),
    Variable("ACCORD_OTLP_ENDPOINT", "otlp_endpoint", _string),
    # The budget first: an explicit length below overrides what it derives.
    Variable(
        "ACCORD_STREAMS_MEMORY_MB",
        ("store.events_maxlen", "store.dead_letters_maxlen"),
        _streams_memory,
    ),
    _int("ACCORD_EVENTS_MAXLEN", "store.events_maxlen"),
    _int("ACCORD_DEAD_LETTERS_MAXLEN", "store.dead_letters_maxlen"),
    Variable("ACCORD_DEAD_LETTER_KEEP_TEXT", "store.dead_letter_keep_text", _flag),
    # Retention (docs/operations.md, "Memory model"): 0, the default, keeps everything.
    _int("ACCORD_RECORD_RETENTION_MS", "store.record_retention_ms"),
    _int("ACCORD_SESSION_RETENTION_MS", "store.session_retention_ms"),
    _int("ACCORD_TRIM_INTERVAL_MS", "store.trim_interval_ms"),
    # Durability across failover (docs/operations.md): 0, the default, waits for nothing.
    _int("ACCORD_WAIT_REPLICAS", "store.wait_replicas"),
    _int("ACCORD_WAIT_TIMEOUT_MS", "store.wait_timeout_ms", least=1),
    Variable("ACCORD_WAIT_AOF", "store.wait_aof", _flag),
    _int("ACCORD_MAX_RECORDS_PER_SCOPE", "policy.max_records_per_scope", least=1),
    _int("ACCORD_MAX_TERMS_CHARS", "policy.max_terms_chars", least=1),
    _int("ACCORD_MAX_TODO_STATE_BYTES", "policy.max_todo_state_bytes"),
    _int("ACCORD_MAX_ENTRY_BYTES", "store.limits.max_entry_bytes", least=1),
    _int("ACCORD_MAX_TEXT_BYTES", "store.limits.max_text_bytes", least=1),
    _int("ACCORD_MAX_TODOS", "store.limits.max_todos"),
    _int("ACCORD_MAX_TODO_CONTENT_BYTES", "store.limits.max_todo_content_bytes", least=1),
    _int("ACCORD_MAX_ARGUMENT_BYTES", "store.limits.max_argument_bytes", least=1),
    _int("ACCORD_MAX_TS_BEHIND_S", "store.limits.max_ts_behind_s"),
    _int("ACCORD_MAX_TS_AHEAD_S", "store.limits.max_ts_ahead_s"),
)

# Variables that no longer exist: set to anything but their one remaining meaning, the
# worker would silently run otherwise than asked, so it refuses to start.
REMOVED: dict[str, tuple[str, str]] = {
    "ACCORD_READER": (
        "merged",
        (
            "the FastStream per-stream subscribers were removed, every worker reads with"
            " the merged reader (docs/store.md, 'Reading the input streams'): unset it"
        ),
    ),
}


def refuse_removed(env: Mapping[str, str]) -> None:
    for name, (harmless, why) in REMOVED.items():
        raw = env.get(name, "")
        if raw not in {"", harmless}:
            raise ValueError(f"{name}={raw}: {why}")
