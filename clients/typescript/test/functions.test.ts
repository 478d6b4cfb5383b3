// Function mode (`functions: true`) against a real Redis 7 with accord's function library
// loaded, as deploy/redis/users-redis7.acl's `gateway` user (+fcall, no +eval +evalsha):
// tests/e2e/test_client_typescript_functions.py starts that server, loads the library
// with `accord functions load` and runs this file with the two URLs below.
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { Redis } from "ioredis";
import {
  AccordClient,
  CONFIG_KEY,
  FunctionMissingError,
  keys,
  partitionOf,
  type Appended,
  type Session,
} from "../src/index.js";

const GATEWAY_URL = process.env.ACCORD_REDIS7_GATEWAY_URL;
const OPS_URL = process.env.ACCORD_REDIS7_OPS_URL;
const skip = GATEWAY_URL && OPS_URL ? false : "no Redis 7 (ACCORD_REDIS7_GATEWAY_URL, ACCORD_REDIS7_OPS_URL unset)";

describe("Redis 7 function mode", { skip }, () => {
  // No ready check: its INFO is not the gateway's to run (docs/security.md).
  const gateway = new Redis(GATEWAY_URL as string, { enableReadyCheck: false });
  const ops = new Redis(OPS_URL as string);
  after(() => {
    gateway.disconnect();
    ops.disconnect();
  });
  const ts = new Date("2026-01-02T03:04:05.000Z");
  const ids = ["a-fn", "u-fn", "s-fn"] as const;

  /** How many FCALL, EVAL and EVALSHA the server ran (INFO commandstats). */
  async function scriptCalls(): Promise<{ fcall: number; eval: number; evalsha: number }> {
    const stats = await ops.info("commandstats");
    const calls = (name: string): number => Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(stats)?.[1] ?? "0");
    return { fcall: calls("fcall"), eval: calls("eval"), evalsha: calls("evalsha") };
  }

  /** What one session's writes left in Redis, entry ids aside (they are times). */
  async function stored(session: Session): Promise<unknown> {
    const p = session.partition;
    const entries = [];
    for (const family of ["chat-turn", "tool-call", "tool-result"]) {
      for (const [, fields] of await ops.xrange(keys.stream(family, p), "-", "+")) entries.push([family, fields]);
    }
    const idem = await ops.hgetall(keys.gatewayIdem(p, ...ids));
    return {
      entries,
      seq: await ops.get(keys.gatewaySeq(p, ...ids)),
      idem: Object.fromEntries(Object.entries(idem).map(([k, v]) => [k, k.startsWith("i:") ? v.split(" ")[0] : v])),
      idemTtlSet: (await ops.ttl(keys.gatewayIdem(p, ...ids))) > 0,
    };
  }

  async function writeAll(session: Session): Promise<[number, boolean][]> {
    const todos = [{ content: "buy milk", status: "pending" as const }];
    const results: Appended[] = [
      await session.user("Let's agree: reply in metric units.", { messageId: "m-1", ts, timezone: "Europe/Berlin" }),
      await session.user("Let's agree: reply in metric units.", { messageId: "m-1", ts, timezone: "Europe/Berlin" }),
      await session.toolCall("todo_write", { todos }, { callId: "c-1", ts }),
      await session.toolResult("c-1", true, { todos, ts }),
    ];
    return results.map((r) => [r.seq, r.repeated]);
  }

  test("functions: true appends by FCALL accord_append only, and stores exactly what the EVALSHA path stores (R15)", async () => {
    await ops.flushall(); // functions survive it
    const before = await scriptCalls();
    const session = new AccordClient(gateway, { functions: true }).session(...ids);
    assert.deepEqual(await writeAll(session), [[1, false], [1, true], [2, false], [3, false]]);
    const sent = await scriptCalls();
    assert.deepEqual(
      [sent.fcall - before.fcall, sent.eval - before.eval, sent.evalsha - before.evalsha],
      [4, 0, 0],
    );
    const byFunction = await stored(session);
    // The same writes by the default path (EVALSHA, as `ops`, who may) on an empty server.
    await ops.flushall();
    const byScript = new AccordClient(ops).session(...ids);
    assert.deepEqual(await writeAll(byScript), [[1, false], [1, true], [2, false], [3, false]]);
    assert.ok((await scriptCalls()).evalsha > sent.evalsha, "the default path ran EVALSHA");
    assert.deepEqual(byFunction, await stored(byScript));
  });

  test("without functions, the Redis 7 gateway user is refused its script call (NOPERM) and nothing is written", async () => {
    await ops.flushall();
    const session = new AccordClient(gateway).session(...ids);
    await assert.rejects(session.user("hello", { messageId: "m-2" }), (error: Error) =>
      error.name === "ReplyError" && /NOPERM/.test(error.message),
    );
    assert.equal(await ops.exists(keys.gatewaySeq(session.partition, ...ids), keys.stream("chat-turn", session.partition)), 0);
  });

  test("refused by FCALL with ACCORDLAYOUT 3, an append is retried at once at the scope's new partition, with the next seq (R15)", async () => {
    await ops.flushall();
    // A user whose scope a move from 2 to 3 partitions moves.
    let user = "u-fn-moved";
    for (let i = 0; partitionOf("a-fn", user, 2) === partitionOf("a-fn", user, 3); i++) user = `u-fn-moved-${i}`;
    const [old, moved] = [partitionOf("a-fn", user, 2), partitionOf("a-fn", user, 3)];
    const client = new AccordClient(gateway, { functions: true, partitions: 2 });
    const session = client.session("a-fn", user, "s-fn");
    assert.equal((await session.user("one", { messageId: "m-1" })).seq, 1);
    // The mover's copy and flip, done by hand as the operator.
    for (const name of [keys.gatewaySeq, keys.gatewayIdem]) {
      const dump = await ops.dumpBuffer(name(old, "a-fn", user, "s-fn"));
      if (dump !== null) await ops.restore(name(moved, "a-fn", user, "s-fn"), 0, dump, "REPLACE");
    }
    for (let p = 0; p < 3; p++) await ops.set(keys.layout(p), "3");
    await ops.set(CONFIG_KEY, JSON.stringify({ partitions: 3, group: "accord" }));
    const second = await session.user("two", { messageId: "m-2" });
    assert.deepEqual([second.seq, second.stream, client.partitions], [2, keys.stream("chat-turn", moved), 3]);
    assert.equal(await ops.xlen(keys.stream("chat-turn", old)), 1, "nothing written in the old partition");
  });

  test("no library loaded: one FunctionMissingError naming the fix, one FCALL sent (no retry), nothing written", async () => {
    await ops.flushall();
    const dump = await ops.callBuffer("FUNCTION", "DUMP");
    await ops.call("FUNCTION", "DELETE", "accord");
    try {
      const session = new AccordClient(gateway, { functions: true, retries: 5 }).session(...ids);
      const before = await scriptCalls();
      await assert.rejects(session.user("hello", { messageId: "m-3" }), (error: unknown) => {
        assert.ok(error instanceof FunctionMissingError, String(error));
        assert.equal(error.functionName, "accord_append");
        assert.match(error.message, /accord functions load/);
        return true;
      });
      assert.equal((await scriptCalls()).fcall - before.fcall, 1);
      assert.equal(await ops.exists(keys.gatewaySeq(session.partition, ...ids), keys.stream("chat-turn", session.partition)), 0);
    } finally {
      await ops.call("FUNCTION", "RESTORE", dump as Buffer, "REPLACE");
    }
  });
});
