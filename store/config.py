"""What a deployment configures about the store (built from `worker.settings.Settings`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from contracts.codec import Limits
from contracts.streams import GROUP

# What one output stream entry costs in Redis, for lengths derived from a memory budget
# (docs/operations.md, "Memory model"): an agreement event about 1.5 KB, a redacted dead
# letter about 1 KB (2 KB allowed for longer details).
EVENT_ENTRY_BYTES = 1536
DEAD_LETTER_ENTRY_BYTES = 2048
# The default budget of both output streams of one partition, and the events' share.
STREAMS_MEMORY_BYTES = 256 * 1024 * 1024
EVENTS_SHARE = 0.9


def stream_maxlens(budget_bytes: int) -> tuple[int, int]:
    """(events_maxlen, dead_letters_maxlen) that fit `budget_bytes` per partition."""
    events = int(budget_bytes * EVENTS_SHARE) // EVENT_ENTRY_BYTES
    dead_letters = int(budget_bytes * (1 - EVENTS_SHARE)) // DEAD_LETTER_ENTRY_BYTES
    return max(events, 1), max(dead_letters, 1)


DEFAULT_EVENTS_MAXLEN, DEFAULT_DEAD_LETTERS_MAXLEN = stream_maxlens(STREAMS_MEMORY_BYTES)


@dataclass(frozen=True, slots=True)
class StoreConfig:
    # Number of partitions P: an entry of another partition is a dead letter.
    partitions: int = 1
    # The consumer group whose pending entries the commit acknowledges.
    group: str = GROUP
    # A gap in a session's seq observed this long ago, with every entry written up to
    # that much after the observation finished (none pending, none unread), is skipped.
    gap_timeout_ms: int = 30_000
    # An entry delivered more often than this without being applied is a suspect: it is
    # tried alone, in a commit of its own, and becomes a dead letter only when
    # `suspect_attempts` such tries did not commit it (docs/store.md, "Suspects").
    delivery_limit: int = 10
    # Tries alone a suspect gets (each counted in Redis before it starts); 0: a suspect
    # is a dead letter at once.
    suspect_attempts: int = 3
    # Approximate MAXLEN of `agreement-events:{p}` and `dead-letters:{p}` (0 keeps all),
    # derived from a memory budget (256 MiB per partition: 157,286 and 13,107).
    events_maxlen: int = DEFAULT_EVENTS_MAXLEN
    dead_letters_maxlen: int = DEFAULT_DEAD_LETTERS_MAXLEN
    # Off: a dead letter's chat text is replaced by its size (it can then not be requeued).
    # Off by default, like the worker's ACCORD_DEAD_LETTER_KEEP_TEXT: user text is kept
    # only where a deployment asks for it (docs/security.md).
    dead_letter_keep_text: bool = False
    limits: Limits = field(default_factory=Limits)
    # Units whose version check failed are reloaded and retried this often, with backoff.
    commit_retries: int = 8
    # A batch's scopes are committed in scripts of about this many input entries each (a
    # scope is never split): a script holds Redis for its whole run, about 10-15 us per
    # entry, so this bounds what other clients wait for while a worker drains a backlog.
    commit_entries: int = 500
    # Scopes and sessions a processor remembers between batches (0: load every time).
    # A scope's decoded state is a few KB (tens with many records): bounded for RSS.
    # Safe when Redis loses acknowledged writes (appendfsync everysec after a power cut,
    # a failover to a lagging replica): every decision taken from it, duplicates too, is
    # checked against Redis's version in the commit, and versions are tokens unique to one
    # commit, so a rolled-back key never matches a cached one (docs/reliability.md).
    # A live gateway's read holds about one entry per session over tens of thousands of
    # sessions: the cache must keep them all between batches, or every batch loads.
    cache_size: int = 16_384
    # And the bytes they may take, scopes and sessions together (0: no byte bound),
    # counted by store.state_cache's weights (a session, its state kept encoded, and its
    # scope's share: about 1.1 KB, benchmarks/cache_memory.py).
    cache_bytes: int = 24 * 1024 * 1024
    # A session may hold this many parked entries (early seqs behind a gap), and this
    # many bytes of them; past either, its gap is skipped at once, as after the gap
    # timeout (recorded in `k`, counted in `stats:{p}`). A flood bound, far above what a
    # conversation parks while a seq is in flight (docs/operations.md, memory model).
    max_parked_entries: int = 2_000
    max_parked_bytes: int = 8 * 1024 * 1024
    # The same for all sessions of a partition together: a flood that opens gaps in many
    # sessions at once gives them up early past these (0 entries or bytes: no parking).
    max_partition_parked_entries: int = 50_000
    max_partition_parked_bytes: int = 64 * 1024 * 1024
    # Retention (docs/store.md, "Retention"; 0 switches each off, the default).
    # A record that left the scope's state for good (cancelled, fulfilled, expired with
    # nothing left to deliver) keeps its `record:` key this long after its last change,
    # for `history` and `explain`; then Redis removes it (SET ... PX in the commit).
    record_retention_ms: int = 0
    # A session with nothing parked and no commit for this long is compacted by the
    # sweeper to its ordering watermark (next expected seq, skipped ranges): its core
    # state goes, unless a live record of its scope is bound to one of its todos.
    session_retention_ms: int = 0
    # Durability across a failover (docs/operations.md, "Durability across failover"):
    # with N > 0 a commit counts as done only once N replicas acknowledged it (WAIT), and
    # its agreement events and dead letters reach subscribers only then: the commit
    # writes them to `outbox:{p}`, and they move to the output streams after the wait
    # (store/lua/publish.lua). 0: off, commits publish at once and do not wait.
    wait_replicas: int = 0
    # How long one WAIT blocks; a shortfall is waited for again, the partition held.
    wait_timeout_ms: int = 1_000
    # Also wait until the primary and those replicas wrote the commit to their AOF
    # (WAITAOF 1 N; Redis 7.2 and later, Valkey): it then survives a restart of all of
    # them too, not only the loss of the primary.
    wait_aof: bool = False
    # The sweeper trims the input streams below what every group finished this often
    # (store/retention.py); trimming gives up rebuilding by replay (R15).
    trim_interval_ms: int = 0
