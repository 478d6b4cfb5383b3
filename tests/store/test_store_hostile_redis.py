"""A hostile or busy Redis is told apart from vanished input (DESIGN section 3): only "no
such key", a lost group or a key of another type make a stream missing; a server busy
running someone's script is an error to wait out, never a reason to stop the worker."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
import redis
import redis.asyncio
from redis.exceptions import ResponseError

from contracts.streams import GROUP
from store.intake import missing_groups

pytestmark = [pytest.mark.redis, pytest.mark.asyncio, pytest.mark.timeout(120)]

GROUP_PARTITIONS = (0,)


async def test_a_deleted_stream_a_lost_group_and_a_replaced_key_are_missing(
    client: redis.asyncio.Redis,
) -> None:
    """Each named, the replaced one with what it holds now."""
    assert await missing_groups(client, [0], GROUP) == []
    await client.delete("chat-turn:{0}")
    await client.xgroup_destroy("tool-call:{0}", GROUP)
    await client.delete("tool-result:{0}")
    await client.set("tool-result:{0}", "x")
    assert await missing_groups(client, [0], GROUP) == [
        "chat-turn:{0}",
        "tool-call:{0}",
        "tool-result:{0} (a string)",
    ]


async def test_a_busy_server_is_an_error_to_wait_out_not_a_vanished_stream(
    client: redis.asyncio.Redis, redis_url: str
) -> None:
    """While a script loops (as a stolen credential on Redis 6.2 can make one), every
    other client gets BUSY: raised as the Redis error it is (the watchdog backs off and
    logs it), and once the script is killed the streams are all there."""
    await client.config_set("lua-time-limit", 10)
    looping = redis.Redis.from_url(redis_url)
    failed: list[BaseException] = []

    def loop_forever() -> None:
        try:
            looping.eval("while true do end", 0)
        except redis.RedisError as error:  # "Script killed by user"
            failed.append(error)

    thread = threading.Thread(target=loop_forever, daemon=True)
    thread.start()
    try:
        await _until_busy(redis_url)
        with pytest.raises(ResponseError, match="BUSY"):
            await missing_groups(client, [0], GROUP)
    finally:
        killer = redis.Redis.from_url(redis_url)
        await asyncio.to_thread(_kill_script, killer)
        killer.close()
        thread.join(timeout=60)
        looping.close()
        await client.config_set("lua-time-limit", 5000)
    assert failed, "the script was killed"
    assert await missing_groups(client, [0], GROUP) == []


async def _until_busy(url: str) -> None:
    """Wait (on a condition, up to a minute) until Redis answers BUSY."""
    probe = redis.asyncio.Redis.from_url(url)
    try:
        for _ in range(600):
            try:
                await probe.ping()
            except ResponseError as error:
                if "BUSY" in str(error):
                    return
                raise
            await asyncio.sleep(0.1)
        pytest.fail("Redis never answered BUSY")
    finally:
        await probe.aclose()


def _kill_script(killer: redis.Redis) -> Any:
    """SCRIPT KILL, retried while the script has not yet started (NOTBUSY)."""
    for _ in range(600):
        try:
            return killer.script_kill()
        except ResponseError as error:
            if "NOTBUSY" not in str(error):
                raise
    return None
