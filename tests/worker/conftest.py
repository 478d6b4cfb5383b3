"""Fixtures of the worker tier."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.worker_kit import flushed, worker_env, worker_processes


@pytest.fixture(scope="module")
def deployment(redis_url: str) -> Iterator[str]:
    """One `accord worker` process on the flushed shared server, for a module of CLI
    tests: the REDIS_URL to point commands at."""
    with worker_processes(1, worker_env(flushed(redis_url))):
        yield redis_url
