"""The faults the harness injects: Redis restarts, killed clients, killed workers.

- `RedisNode`: a redis-server with `appendonly yes` in a directory of our own, so it
  restarts on the same data, after `SHUTDOWN NOSAVE` or after `kill -9`;
- `kill_clients`: `CLIENT KILL` of worker connections, those blocked in XREADGROUP or
  those whose last command was a commit script (the reply is lost after the commit:
  Redis runs one command at a time, so a kill lands between scripts, never inside one);
- `Workers`: N chaos worker processes (harness/accord_harness/chaos/node.py) that are SIGKILLed at
  random, some armed to die at a crash point, each restarted like a Deployment would.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import redis
import redis.asyncio

from store.crash import CRASH_POINTS
from store.embedded import EmbeddedRedis

HARNESS = "chaos-harness"


@dataclass
class RedisNode:
    directory: Path
    fsync: str = "always"
    port: int = 0
    server: EmbeddedRedis | None = None
    restarts: dict[str, int] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.server = EmbeddedRedis(
            port=self.port,
            directory=self.directory,
            startup_timeout=60.0,
            extra_args=("--appendonly", "yes", "--appendfsync", self.fsync),
        )
        self.server.start()
        self.port = self.server.port

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()
            self.server = None

    @property
    def aof(self) -> Path:
        """The file Redis appends to: Redis 6.2 keeps one; Redis 7 and Valkey keep a
        directory whose manifest names the increment being appended to (`type i`)."""
        manifest = self.directory / "appendonlydir" / "appendonly.aof.manifest"
        if manifest.exists():
            for line in reversed(manifest.read_text().splitlines()):
                words = line.split()  # file appendonly.aof.1.incr.aof seq 1 type i
                fields = dict(zip(words[::2], words[1::2], strict=False))
                if fields.get("type") == "i" and "file" in fields:
                    return manifest.parent / fields["file"]
        return self.directory / "appendonly.aof"

    def aof_bytes(self) -> int:
        try:
            return self.aof.stat().st_size
        except FileNotFoundError:
            return 0

    def restart(self, how: str, down_s: float = 0.5, keep_bytes: int | None = None) -> int:
        """Stop Redis and start it again on the same files; returns AOF bytes cut.

        `shutdown_nosave` sends SHUTDOWN NOSAVE; `kill9` sends SIGKILL, which keeps
        whatever Redis had written to the kernel; `power_loss` is SIGKILL and then the
        AOF cut back to `keep_bytes` (its size when the last fsync was certain): what
        an OS crash or a power cut leaves with `appendfsync everysec`, which a
        process kill alone cannot show because the page cache survives it.
        """
        client = redis.Redis(port=self.port, client_name=HARNESS)
        try:
            if how in {"kill9", "power_loss"}:
                pid = int(client.info("server")["process_id"])
                os.kill(pid, signal.SIGKILL)
            else:
                with contextlib.suppress(redis.ConnectionError):
                    client.shutdown(nosave=True)
        finally:
            client.close()
        self.stop()  # reaps the process; the directory is ours and stays
        cut = 0
        if how == "power_loss" and keep_bytes is not None:
            size = self.aof_bytes()
            if 0 < keep_bytes < size:  # (a rewrite in between may have shrunk it)
                with self.aof.open("r+b") as aof:
                    aof.truncate(keep_bytes)
                cut = size - keep_bytes
        time.sleep(down_s)
        self.start()
        self.restarts[how] = self.restarts.get(how, 0) + 1
        return cut


async def kill_clients(admin: redis.asyncio.Redis, kind: str, rng: random.Random) -> int:
    """CLIENT KILL one worker connection of `kind` (`blocked_read` or `after_script`)."""
    clients: Any = await admin.client_list()
    candidates = []
    for client in clients:
        if client.get("name", "").startswith(HARNESS):
            continue
        cmd, flags = client.get("cmd", ""), client.get("flags", "")
        blocked_read = cmd == "xreadgroup" and "b" in flags
        after_script = cmd in {"evalsha", "eval"}
        if (kind == "blocked_read" and blocked_read) or (kind == "after_script" and after_script):
            candidates.append(client["id"])
    if not candidates:
        return 0
    with contextlib.suppress(redis.ResponseError):
        await admin.execute_command(  # type: ignore[no-untyped-call]
            "CLIENT", "KILL", "ID", rng.choice(candidates)
        )
        return 1
    return 0


@dataclass
class Workers:
    """N worker processes; an exited one is restarted (as Kubernetes would)."""

    count: int
    env: dict[str, str]
    rng: random.Random
    logs: Path
    crash_share: float = 0.0
    # A process armed at a crash point dies there after this many batches (inclusive).
    crash_after: tuple[int, int] = (3, 60)
    procs: list[subprocess.Popen[bytes] | None] = field(default_factory=list)
    files: list[IO[bytes]] = field(default_factory=list)
    spawned: int = 0
    sigkills: int = 0
    crashes: dict[str, int] = field(default_factory=dict)
    exits: dict[int, int] = field(default_factory=dict)
    armed: dict[int, str] = field(default_factory=dict)
    killed: set[int] = field(default_factory=set)
    # Clean stops (SIGTERM) sent: partitions handed over at once.
    stops: int = 0
    # pid -> consumer name; SIGKILLs of a worker that held pending entries.
    consumers: dict[int, str] = field(default_factory=dict)
    kills_holding: int = 0
    # While paused (a whole-fleet outage) exited workers are not started again.
    paused: bool = False
    # Workers SIGKILLed and started again by `restart_all` (pointed at a new primary).
    restarted: int = 0

    def start(self) -> None:
        self.procs = [None] * self.count
        for slot in range(self.count):
            self._spawn(slot)

    def _spawn(self, slot: int) -> None:
        self.spawned += 1
        consumer = f"chaos-{slot}-{self.spawned}"
        env = {**self.env, "ACCORD_CONSUMER": consumer}
        point = None
        if self.rng.random() < self.crash_share:
            point = self.rng.choice(CRASH_POINTS)
            env["ACCORD_CHAOS_CRASH_AT"] = point
            env["ACCORD_CHAOS_CRASH_AFTER"] = str(self.rng.randint(*self.crash_after))
        log = (self.logs / f"worker-{self.spawned}.log").open("wb")
        self.files.append(log)
        proc = subprocess.Popen(
            [sys.executable, "-m", "accord_harness.chaos.node"], env=env, stdout=log, stderr=log
        )
        self.procs[slot] = proc
        self.consumers[proc.pid] = consumer
        if point is not None:
            self.armed[proc.pid] = point

    def tend(self) -> None:
        """Restart every worker that exited; count crash-point exits by point."""
        if self.paused:
            return
        for slot, proc in enumerate(self.procs):
            if proc is None or proc.poll() is None:
                continue
            code = proc.returncode
            if proc.pid not in self.killed:  # our SIGKILLs are counted in `sigkills`
                self.exits[code] = self.exits.get(code, 0) + 1
            point = self.armed.pop(proc.pid, None)
            if code == 137 and point is not None:
                self.crashes[point] = self.crashes.get(point, 0) + 1
            self._spawn(slot)

    def add(self) -> None:
        """Scale up by one (KEDA adding a pod): a new worker joins and takes a fair share."""
        self.procs.append(None)
        self.count += 1
        self._spawn(len(self.procs) - 1)

    def stop_random(self) -> bool:
        """A clean stop (SIGTERM, as a scale-down or a rollout): the worker releases its
        partitions at once; `tend` starts it again, and it takes a share back."""
        live = [p for p in self.procs if p is not None and p.poll() is None]
        if not live:
            return False
        victim = self.rng.choice(live)
        victim.send_signal(signal.SIGTERM)
        self.armed.pop(victim.pid, None)
        self.stops += 1
        return True

    def restart_all(self, env: dict[str, str]) -> None:
        """Every worker SIGKILLed and started again with `env` (a new primary's URL).

        SIGKILL, not SIGTERM: a clean stop releases leases on a primary that is dead or
        paused, and would wait out the client's timeouts first. The new primary's leases
        of these consumers expire by themselves (a replica's copy of a lease keeps its TTL).
        """
        self.env.update(env)
        for slot, proc in enumerate(self.procs):
            if proc is None:
                continue
            if proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                self.restarted += 1
                self.killed.add(proc.pid)
            elif proc.pid not in self.killed:  # it exited by itself, not yet tended
                self.exits[proc.returncode] = self.exits.get(proc.returncode, 0) + 1
            self.armed.pop(proc.pid, None)
            self._spawn(slot)

    def consumer_of(self, proc: subprocess.Popen[bytes]) -> str:
        return self.consumers.get(proc.pid, "")

    def live(self) -> list[subprocess.Popen[bytes]]:
        return [p for p in self.procs if p is not None and p.poll() is None]

    def kill_holding(self, holding: set[str]) -> bool:
        """SIGKILL a live worker whose consumer holds pending (read, uncommitted) entries,
        the work reclaim must recover; False if no live worker is among `holding`."""
        victims = [p for p in self.live() if self.consumer_of(p) in holding]
        if not victims:
            return False
        self.kills_holding += 1
        return self.kill_random(victims)

    def kill_random(self, among: list[subprocess.Popen[bytes]] | None = None) -> bool:
        live = among or self.live()
        if not live:
            return False
        victim = self.rng.choice(live)
        victim.send_signal(signal.SIGKILL)
        victim.wait()
        self.armed.pop(victim.pid, None)
        self.sigkills += 1
        self.killed.add(victim.pid)
        return True

    def stop(self) -> None:
        for proc in self.procs:
            if proc is not None and proc.poll() is None:
                proc.terminate()
        for proc in self.procs:
            if proc is None:
                continue
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for log in self.files:
            log.close()
