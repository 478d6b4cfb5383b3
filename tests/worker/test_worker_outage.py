"""Redis unreachable, and entries Redis lost while pending: the worker says it once per
step, answers not-ready, and carries on when Redis is back (R15: nothing is lost)."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

import pytest
import redis.asyncio
import structlog
from accord_harness.chaos.proxy import FaultProxy
from accord_harness.store_harness import chat
from structlog.testing import capture_logs

from contracts.streams import DATA_FIELD, GROUP
from store.config import StoreConfig
from store.embedded import free_port
from store.intake import ensure_groups
from store.processor import PartitionProcessor
from tests.support.fake_core import FakeCore
from tests.support.worker_kit import http_get, running_worker, wait_for, worker_settings
from worker.consumer import Dispatcher
from worker.observability import Metrics
from worker.reclaim import Reclaimer

pytestmark = [pytest.mark.redis, pytest.mark.asyncio]
SCOPE = ("agent", "user")


@pytest.mark.usefixtures("redis_client")  # a flushed Redis: no layout of an earlier test
async def test_while_redis_is_unreachable_each_loop_logs_one_line_per_step_and_readyz_is_503(
    redis_url: str,
) -> None:
    """Redis goes away under a running worker: every loop says `redis_unavailable` once per
    backoff step (attempts 1, 2, 3, ..., waits growing; no traceback anywhere), /readyz
    answers 503 while it lasts and 200 again once Redis is back."""
    target = urlsplit(redis_url)
    assert target.hostname
    assert target.port
    proxy = FaultProxy(target.hostname, target.port)
    await proxy.start()
    port = free_port()
    settings = worker_settings(proxy.url, metrics_port=port)
    try:
        with capture_logs() as logs:
            async with running_worker(settings) as worker:
                assert (await http_get(port, "/readyz"))[0] == 200
                await proxy.close()

                def steps(loop: str) -> list[Any]:
                    return [
                        line
                        for line in logs
                        if line["event"] == "redis_unavailable" and line["loop"] == loop
                    ]

                async def every_loop_backed_off_thrice() -> bool:
                    return all(len(steps(loop)) >= 3 for loop in ("read-0", "sweep", "watchdog"))

                await wait_for(every_loop_backed_off_thrice, 60)
                status, body = await http_get(port, "/readyz")
                assert (status, body) == (503, "redis unreachable\n")
                assert (await http_get(port, "/healthz"))[0] == 200, (
                    "alive: a restart fixes nothing"
                )
                await proxy.start()  # the same port again

                async def ready_again() -> bool:
                    return (await http_get(port, "/readyz"))[0] == 200

                await wait_for(ready_again, 60)
                assert worker.exit_code == 0
    finally:
        await proxy.close()
    for loop in ("read-0", "sweep", "watchdog"):
        attempts = [line["attempt"] for line in steps(loop)]
        assert attempts[:3] == [1, 2, 3], (loop, attempts)
        waits = [line["retry_in_s"] for line in steps(loop)]
        assert waits == sorted(waits), "the wait grows with each step"
    assert not [line for line in logs if "exc_info" in line or line["log_level"] == "error"], (
        "no traceback while Redis is away"
    )
    assert any(line["event"] == "redis_available" for line in logs)


async def test_a_pending_entry_deleted_from_its_stream_is_acked_and_reported_not_raised(
    aredis: redis.asyncio.Redis,
) -> None:
    """R15: the worker's reclaimer (the store's reclaim) meets an entry pending on a dead
    consumer whose stream entry was deleted (XDEL, a trim): it acks it and logs it, and the
    other entry pending beside it is applied. Before, the reclaimer raised on it and left
    both pending."""
    await ensure_groups(aredis, [0], GROUP)
    stream = "chat-turn:{0}"
    gone: Any = await aredis.xadd(stream, {DATA_FIELD: json.dumps(chat(SCOPE, "s", 1, "one"))})
    await aredis.xadd(stream, {DATA_FIELD: json.dumps(chat(SCOPE, "s", 2, "two"))})
    await aredis.xreadgroup(GROUP, "dead", {stream: ">"})
    await aredis.xdel(stream, gone)
    processor = PartitionProcessor(aredis, 0, FakeCore(), StoreConfig(gap_timeout_ms=0))
    with capture_logs() as logs:
        log = structlog.get_logger()
        dispatcher = Dispatcher({0: processor}, Metrics(), log)
        reclaimer = Reclaimer(aredis, dispatcher, (0,), GROUP, "live", 0, 100, log)
        assert await reclaimer.reclaim_once() == 1
    summary: Any = await aredis.xpending(stream, GROUP)
    assert summary["pending"] == 0, "the deleted entry was acked, the other applied"
    reported = [line for line in logs if line["event"] == "reclaim_deleted"]
    assert reported
    assert reported[0]["entries"] == [f"{stream}/{gone.decode()}"]
