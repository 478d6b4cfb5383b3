"""The worker's garbage-collector settings (worker/gc_tuning.py, ACCORD_GC_THRESHOLD)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from worker import gc_tuning
from worker.settings import Settings


@pytest.fixture
def restored_gc() -> Iterator[None]:
    threshold = gc.get_threshold()
    yield
    gc.set_threshold(*threshold)
    gc.unfreeze()


def test_the_threshold_is_50000_by_default_and_configurable() -> None:
    assert Settings.from_env({}).gc_threshold == 50_000
    assert Settings.from_env({"ACCORD_GC_THRESHOLD": "0"}).gc_threshold == 0
    with pytest.raises(ValueError, match="ACCORD_GC_THRESHOLD"):
        Settings.from_env({"ACCORD_GC_THRESHOLD": "many"})


@pytest.mark.usefixtures("restored_gc")
def test_tune_sets_the_young_threshold_and_freezes_what_exists() -> None:
    middle, old = gc.get_threshold()[1:]
    gc_tuning.tune(12_345)
    assert gc.get_threshold() == (12_345, middle, old)
    assert gc.get_freeze_count() > 0, "start-up objects are out of the collector's walks"


@pytest.mark.usefixtures("restored_gc")
def test_zero_leaves_cpythons_settings_alone() -> None:
    before = gc.get_threshold()
    gc_tuning.tune(0)
    assert gc.get_threshold() == before
