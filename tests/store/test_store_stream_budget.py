"""Output stream lengths derived from a memory budget (docs/operations.md, "Memory model")."""

from __future__ import annotations

from store.config import (
    DEAD_LETTER_ENTRY_BYTES,
    EVENT_ENTRY_BYTES,
    STREAMS_MEMORY_BYTES,
    StoreConfig,
    stream_maxlens,
)
from worker.settings import Settings


def test_the_default_stream_lengths_fit_the_default_budget() -> None:
    """Events and dead letters at their default lengths take at most 256 MiB per
    partition (the fixed 1,000,000 events were about 1.5 GB, most of the shipped 2 GB)."""
    config = StoreConfig()
    used = (
        config.events_maxlen * EVENT_ENTRY_BYTES
        + config.dead_letters_maxlen * DEAD_LETTER_ENTRY_BYTES
    )
    assert used <= STREAMS_MEMORY_BYTES
    assert used > 0.99 * STREAMS_MEMORY_BYTES, "the budget is used, not wasted"


def test_the_budget_setting_derives_both_lengths_and_an_explicit_length_wins() -> None:
    """ACCORD_STREAMS_MEMORY_MB scales both lengths; ACCORD_EVENTS_MAXLEN overrides."""
    small = Settings.from_env({"ACCORD_STREAMS_MEMORY_MB": "64"})
    assert (small.store.events_maxlen, small.store.dead_letters_maxlen) == stream_maxlens(
        64 * 2**20
    )
    fixed = Settings.from_env({"ACCORD_EVENTS_MAXLEN": "5"})
    assert fixed.store.events_maxlen == 5
    assert fixed.store.dead_letters_maxlen == StoreConfig().dead_letters_maxlen
    both = Settings.from_env({"ACCORD_STREAMS_MEMORY_MB": "64", "ACCORD_EVENTS_MAXLEN": "5"})
    assert both.store.events_maxlen == 5, "an explicit length wins over the budget"
    assert both.store.dead_letters_maxlen == stream_maxlens(64 * 2**20)[1]
    assert Settings().store == StoreConfig()
