// The durability setting (`waitReplicas`) on a real primary with a real replica:
// tests/e2e/test_client_typescript_durable.py starts them and sets ACCORD_PRIMARY_URL,
// ACCORD_REPLICA_URL and ACCORD_REPLICA_PID (this test stops and resumes the replica); on
// a Cluster of three primaries with a replica each, ACCORD_CLUSTER_URL and the replica of
// the shard serving partition 0, ACCORD_CLUSTER_REPLICA_URL and ACCORD_CLUSTER_REPLICA_PID.
// An append returns only once the replica has it; with the replica stopped it is not
// confirmed (NotReplicatedError, retried, then AppendUnavailableError); the retry with the
// same message id, once the replica runs, gets the same seq.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Cluster, Redis } from "ioredis";
import { AccordClient, AppendUnavailableError, InvalidInputError, NotReplicatedError } from "../src/index.js";

const PRIMARY = process.env.ACCORD_PRIMARY_URL;
const REPLICA = process.env.ACCORD_REPLICA_URL;
const REPLICA_PID = Number(process.env.ACCORD_REPLICA_PID);
const CLUSTER = process.env.ACCORD_CLUSTER_URL;
const CLUSTER_REPLICA = process.env.ACCORD_CLUSTER_REPLICA_URL;
const CLUSTER_REPLICA_PID = Number(process.env.ACCORD_CLUSTER_REPLICA_PID);

test("waitReplicas below zero is refused", () => {
  assert.throws(() => new AccordClient(new Redis({ lazyConnect: true }), { waitReplicas: -1 }), InvalidInputError);
});

describe("on a primary and its replica", { skip: PRIMARY === undefined && "ACCORD_PRIMARY_URL is not set" }, () => {
  test("an append returns once the replica has it, and a stopped replica leaves it unconfirmed", async () => {
    const primary = new Redis(PRIMARY as string);
    const replica = new Redis(REPLICA as string);
    try {
      const client = new AccordClient(primary, { waitReplicas: 1, waitTimeoutMs: 100, retries: 1, retryBackoffMs: 10 });
      const session = client.session("agent-ts", "user-ts", "s-durable");
      const first = await session.user("hello there", { messageId: "m1" });
      assert.equal(first.seq, 1);
      // No wait, no poll: the seq came back only once the replica acknowledged it.
      assert.equal(await replica.xlen(first.stream), 1);

      process.kill(REPLICA_PID, "SIGSTOP");
      try {
        await assert.rejects(
          session.user("second turn", { messageId: "m2" }),
          (error: unknown) => error instanceof AppendUnavailableError && error.cause instanceof NotReplicatedError,
        );
      } finally {
        process.kill(REPLICA_PID, "SIGCONT");
      }
      const again = await session.user("second turn", { messageId: "m2" });
      assert.deepEqual([again.seq, again.repeated], [2, true]);
      assert.equal(await replica.xlen(again.stream), 2);
    } finally {
      primary.disconnect();
      replica.disconnect();
    }
  });
});

describe("on a Redis Cluster", { skip: CLUSTER === undefined && "ACCORD_CLUSTER_URL is not set" }, () => {
  test("the append and its WAIT go to the shard that serves the partition (R15)", async () => {
    const seed = new URL(CLUSTER as string);
    const cluster = new Cluster([{ host: seed.hostname, port: Number(seed.port) }]);
    const replica = new Redis(CLUSTER_REPLICA as string);
    try {
      await replica.readonly();
      const client = new AccordClient(cluster, { waitReplicas: 1, waitTimeoutMs: 100, retries: 1, retryBackoffMs: 10 });
      const session = client.session("agent-ts", "user-ts", "s-cluster");
      const first = await session.user("hello there", { messageId: "m1" });
      assert.deepEqual([first.seq, first.stream], [1, "chat-turn:{0}"]);
      // Read from that shard's replica at once: the WAIT counted its replica, not another
      // node's (a WAIT sent elsewhere answers for a connection that wrote nothing).
      assert.equal(await replica.xlen(first.stream), 1);

      process.kill(CLUSTER_REPLICA_PID, "SIGSTOP");
      try {
        await assert.rejects(
          session.user("second turn", { messageId: "m2" }),
          (error: unknown) => error instanceof AppendUnavailableError && error.cause instanceof NotReplicatedError,
        );
      } finally {
        process.kill(CLUSTER_REPLICA_PID, "SIGCONT");
      }
      const again = await session.user("second turn", { messageId: "m2" });
      assert.deepEqual([again.seq, again.repeated], [2, true]);
      assert.equal(await replica.xlen(again.stream), 2);
    } finally {
      cluster.disconnect();
      replica.disconnect();
    }
  });
});
