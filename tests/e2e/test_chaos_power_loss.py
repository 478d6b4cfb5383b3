"""The chaos harness's power loss (`accord chaos --fsync everysec`) cuts the append-only
file the server really appends to, on every embedded server: Redis 6.2 keeps one file,
Redis 7 and Valkey a directory of parts named by a manifest. A cut that missed the file
would leave the run a plain `kill -9`, and its report would claim a loss it never made."""

from __future__ import annotations

from pathlib import Path

import pytest
import redis
from accord_harness.chaos.faults import RedisNode

from store.embedded import SERVER_VARIABLE

pytestmark = [pytest.mark.redis, pytest.mark.timeout(120)]


@pytest.mark.parametrize("server", ["valkey", "redis"])
def test_a_power_loss_takes_back_what_was_appended_after_the_mark(
    server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write before the mark survives, one after it is gone once the AOF is cut back
    to the mark and the server restarted on it (R15's premise: only what reached the
    disk counts)."""
    monkeypatch.setenv(SERVER_VARIABLE, server)
    node = RedisNode(tmp_path / "redis")
    node.directory.mkdir()
    node.start()
    try:
        with redis.Redis(port=node.port) as client:
            client.set("kept", "1")
            mark = node.aof_bytes()
            client.set("lost", "1")
        assert node.aof_bytes() > mark > 0
        assert node.restart("power_loss", down_s=0, keep_bytes=mark) > 0
        with redis.Redis(port=node.port) as client:
            assert (client.exists("kept"), client.exists("lost")) == (1, 0)
    finally:
        node.stop()
