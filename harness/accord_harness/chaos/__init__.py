"""The chaos harness: real workers against a real Redis, faults injected, an oracle to compare.

- `workload`: scripted agreement flows in English and Chinese, gateway duplicates,
  reordering within a window across the three streams, poison entries of every kind;
- the oracle (`accord_harness.oracle`, shared with the store tests and bench): what the
  pure core gives applied once per (session, seq), in seq order;
- `proxy`: an asyncio TCP fault proxy (latency, stalls, connection resets);
- `node`: one worker process (`accord worker`'s composition root) with crash points
  armed from the environment and, for the demonstration only, a planted bug;
- `faults`: the Redis server it restarts, the client killer, the worker supervisor;
- `check`: reads what the run left in Redis and lists every difference from the oracle;
- `run`: puts it together (`accord chaos --size small|full`);
- `replicated`: a primary, two replicas and three Sentinels, replication lagging through
  the proxy's `LagProxy`; `failover`: the run on it, with failovers as faults and the
  loss counted (`accord chaos --size failover|failover-small`).
"""
