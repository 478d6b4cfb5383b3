// The client under `accord repartition` (store/repartition.py), against a real Redis with no
// worker: tests/e2e/test_client_typescript_layout.py empties it and runs this file. The
// test plays the mover's part by hand: it writes `accord:config`, the partitions' layout
// markers (`layout:{p}`) and copies a session's seq counter and idempotency memory to the
// scope's new partition, as the copy step does.
import assert from "node:assert/strict";
import { after, beforeEach, describe, test } from "node:test";
import { Redis } from "ioredis";
import {
  AccordClient,
  AccordClientError,
  AppendUnavailableError,
  CONFIG_KEY,
  keys,
  partitionOf,
  type Delivery,
  type Subscription,
} from "../src/index.js";

const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
const run = Math.random().toString(16).slice(2, 8);
after(() => redis.disconnect());

const AGENT = "agent-mira";

async function setLayout(partitions: number, movingTo?: number): Promise<void> {
  const layout = { partitions, group: "accord", ...(movingTo === undefined ? {} : { moving_to: movingTo }) };
  await redis.set(CONFIG_KEY, JSON.stringify(layout));
}

/** A user whose scope is in another partition under 3 than under 2: a scope the move moves. */
function movedUser(label: string): string {
  for (let i = 0; ; i++) {
    const user = `u-${label}-${run}-${i}`;
    if (partitionOf(AGENT, user, 2) !== partitionOf(AGENT, user, 3)) return user;
  }
}

/** The copy step for one session: its seq counter and idempotency memory under their
 * names in partition `to` (the originals stay, as the mover leaves them until clean-up). */
async function copySession(user: string, sessionId: string, from: number, to: number): Promise<void> {
  for (const name of [keys.gatewaySeq, keys.gatewayIdem]) {
    const dump = await redis.dumpBuffer(name(from, AGENT, user, sessionId));
    if (dump !== null) await redis.restore(name(to, AGENT, user, sessionId), 0, dump, "REPLACE");
  }
}

/** The flip from 2 to 3 partitions: the new count, every partition's marker saying it. */
async function flipTo3(): Promise<void> {
  for (let p = 0; p < 3; p++) await redis.set(keys.layout(p), "3");
  await setLayout(3);
}

/** How many appends Redis refused with ACCORDLAYOUT so far (INFO errorstats). */
async function refusals(): Promise<number> {
  const stats = await redis.info("errorstats");
  return Number(/errorstat_ACCORDLAYOUT:count=(\d+)/.exec(stats)?.[1] ?? "0");
}

/** Poll `condition` until it holds, or fail after a generous timeout. */
async function until(condition: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The entries of one user's session "s" in `stream`. */
async function sessionEntries(stream: string, userId: string): Promise<{ seq: number; message_id: string }[]> {
  return ((await redis.xrange(stream, "-", "+")) as [string, string[]][])
    .map(([, fields]) => JSON.parse(fields[fields.indexOf("__data__") + 1]!) as Record<string, unknown>)
    .filter((doc) => doc.user_id === userId && doc.session_id === "s")
    .map((doc) => ({ seq: doc.seq as number, message_id: doc.message_id as string }));
}

beforeEach(async () => {
  const markers = await redis.keys("layout:{*}");
  await redis.del(CONFIG_KEY, ...markers);
});

describe("the partition count", () => {
  test("is learned from accord:config, once, before the first call that needs it", async () => {
    await setLayout(3);
    const client = new AccordClient(redis); // no `partitions`: Redis's count is the one
    assert.equal(client.partitions, 1, "not read before a call needs it");
    const user = movedUser("learn");
    const session = client.session(AGENT, user, "s");
    // The GETs the client sends (the append script's own GET of the marker runs in Redis).
    const counted = redis as unknown as { get: (...args: unknown[]) => Promise<unknown> };
    const get = counted.get;
    let gets = 0;
    counted.get = (...args) => {
      gets++;
      return get.apply(redis, args);
    };
    let written;
    try {
      written = await Promise.all([...Array(10).keys()].map((i) => session.user(`turn ${i}`, { messageId: `m-${i}` })));
    } finally {
      counted.get = get;
    }
    assert.equal(gets, 1, "ten concurrent first writes share one GET");
    assert.equal(client.partitions, 3);
    assert.equal(session.partition, partitionOf(AGENT, user, 3));
    assert.deepEqual(new Set(written.map((w) => w.stream)), new Set([keys.stream("chat-turn", partitionOf(AGENT, user, 3))]));
  });

  test("is the `partitions` option while Redis has none; a malformed accord:config is an error, nothing written", async () => {
    const user = movedUser("given");
    const client = new AccordClient(redis, { partitions: 2 });
    const appended = await client.session(AGENT, user, "s").user("hello", { messageId: "m-1" });
    assert.equal(appended.stream, keys.stream("chat-turn", partitionOf(AGENT, user, 2)));
    await redis.set(CONFIG_KEY, JSON.stringify({ group: "accord" }));
    const fresh = new AccordClient(redis, { partitions: 2 }).session(AGENT, user, "s2");
    await assert.rejects(fresh.user("hello", { messageId: "m-1" }), (error: unknown) => {
      assert.ok(error instanceof AccordClientError, String(error));
      assert.match(error.message, /accord:config holds no partition count/);
      return true;
    });
    assert.equal(await redis.exists(keys.gatewaySeq(partitionOf(AGENT, user, 2), AGENT, user, "s2")), 0);
  });
});

describe("appends across a repartition", () => {
  test("refused with ACCORDLAYOUT 3, an append is retried at once at the scope's new partition with the next seq (R15)", async () => {
    const client = new AccordClient(redis, { partitions: 2 });
    const user = movedUser("refused");
    const [old, moved] = [partitionOf(AGENT, user, 2), partitionOf(AGENT, user, 3)];
    const session = client.session(AGENT, user, "s");
    assert.deepEqual((await session.user("one", { messageId: "m-1" })).seq, 1);
    // The move: the session's counter and memory copied, the new count in force.
    await copySession(user, "s", old, moved);
    await flipTo3();
    const refusedBefore = await refusals();
    const second = await session.user("two", { messageId: "m-2" });
    assert.equal(await refusals(), refusedBefore + 1, "refused once, then written");
    assert.deepEqual([second.seq, second.repeated, second.stream], [2, false, keys.stream("chat-turn", moved)]);
    assert.deepEqual([client.partitions, session.partition], [3, moved]);
    // Nothing was written in the old partition; the first turn's retry keeps its seq.
    assert.deepEqual(await sessionEntries(keys.stream("chat-turn", old), user), [{ seq: 1, message_id: "m-1" }]);
    assert.deepEqual(await sessionEntries(keys.stream("chat-turn", moved), user), [{ seq: 2, message_id: "m-2" }]);
    const again = await session.user("one", { messageId: "m-1" });
    assert.deepEqual([again.seq, again.repeated], [1, true]);
    // Another client that still hashes with 2 is refused the same way (through the same Redis).
    const stale = new AccordClient(redis, { partitions: 2 });
    await redis.set(CONFIG_KEY, JSON.stringify({ partitions: 2, group: "accord" })); // it learns 2, then the flip
    await stale.knownPartitions();
    await flipTo3();
    assert.deepEqual((await stale.session(AGENT, user, "s").user("three", { messageId: "m-3" })).seq, 3);
  });

  test("while the partition is moving, an append waits and is written once the marker flips, in seq order (R15)", async () => {
    const client = new AccordClient(redis, { partitions: 2, retryBackoffMs: 5 });
    const user = movedUser("moving");
    const [old, moved] = [partitionOf(AGENT, user, 2), partitionOf(AGENT, user, 3)];
    const session = client.session(AGENT, user, "s");
    assert.equal((await session.user("one", { messageId: "m-1" })).seq, 1);
    // Announce and freeze: every partition of both layouts is `moving`.
    await setLayout(2, 3);
    for (let p = 0; p < 3; p++) await redis.set(keys.layout(p), "moving");
    const refusedBefore = await refusals();
    let settled = false;
    const pending = session.user("two", { messageId: "m-2" }).finally(() => {
      settled = true;
    });
    await until(async () => (await refusals()) >= refusedBefore + 2, "the append to be refused and tried again");
    assert.equal(settled, false, "it waits while the move runs");
    assert.deepEqual(await sessionEntries(keys.stream("chat-turn", old), user), [{ seq: 1, message_id: "m-1" }]);
    await copySession(user, "s", old, moved);
    await flipTo3();
    const second = await pending;
    assert.deepEqual([second.seq, second.repeated, second.stream], [2, false, keys.stream("chat-turn", moved)]);
    assert.deepEqual(await sessionEntries(keys.stream("chat-turn", moved), user), [{ seq: 2, message_id: "m-2" }]);
    assert.deepEqual(await sessionEntries(keys.stream("chat-turn", old), user), [{ seq: 1, message_id: "m-1" }]);
  });

  test("a move longer than layoutWaitMs: AppendUnavailableError, nothing written, and the same message id later gets the next seq", async () => {
    const client = new AccordClient(redis, { partitions: 2, retryBackoffMs: 5, layoutWaitMs: 100 });
    const user = movedUser("timeout");
    const p = partitionOf(AGENT, user, 2);
    await redis.set(keys.layout(p), "moving");
    const session = client.session(AGENT, user, "s");
    await assert.rejects(session.user("one", { messageId: "m-1" }), (error: unknown) => {
      assert.ok(error instanceof AppendUnavailableError, String(error));
      assert.match(String(error.cause), /ACCORDLAYOUT moving/);
      return true;
    });
    assert.equal(await redis.exists(keys.gatewaySeq(p, AGENT, user, "s"), keys.gatewayIdem(p, AGENT, user, "s")), 0);
    await redis.del(keys.layout(p));
    assert.equal((await session.user("one", { messageId: "m-1" })).seq, 1);
  });
});

describe("reads across a repartition", () => {
  test("a view and an applied seq not found under the old count are read under the new one", async () => {
    const client = new AccordClient(redis, { partitions: 2 });
    const user = movedUser("read");
    const session = client.session(AGENT, user, "s");
    assert.equal(await session.appliedSeq(), 0); // learns 2 (none in Redis)
    // Moved: the view hash is in the new partition only, and the count is 3.
    const document = { schema_version: 2, agent_id: AGENT, user_id: user, agreements: [], proposals: [], amendments: [] };
    await redis.hset(keys.view(partitionOf(AGENT, user, 3), AGENT, user), "doc", JSON.stringify(document), keys.appliedField("s"), "5");
    await setLayout(3);
    // The count is asked again at most once a second: polled, as a gateway's waitApplied does.
    await session.waitApplied(5, { timeoutMs: 20_000 });
    assert.deepEqual([client.partitions, session.partition], [3, partitionOf(AGENT, user, 3)]);
    assert.equal((await session.view()).agent_id, AGENT);
    assert.equal((await client.scopeViewDocument(AGENT, user)).schema_version, 2);
  });
});

/** The next delivery, or a failure after a generous timeout (the subscription closed). */
async function nextWithin(subscription: Subscription, timeoutMs = 20_000): Promise<Delivery> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("no delivery in time")), timeoutMs);
  });
  try {
    const result = await Promise.race([subscription.next(), timeout]);
    assert.equal(result.done, false);
    return result.value as Delivery;
  } finally {
    clearTimeout(timer);
  }
}

const event = (label: string): string =>
  JSON.stringify({ type: "agreement.something_new", event_id: `${label}-${run}`, label });

const labelOf = (delivery: Delivery): string => JSON.parse((delivery.event as { data: string }).data).label as string;

describe("a subscription that follows the layout", () => {
  test("hands out a scope's events from before a growth before its first event in a new partition (R15)", async () => {
    await setLayout(2);
    const events = (p: number) => keys.stream("agreement-events", p);
    await redis.del(events(0), events(1), events(2), events(3));
    const client = new AccordClient(redis);
    // One entry a read, and the layout asked at every read: a subscription that let the new
    // partition join at once would hand out `new-1` right after `old-1`.
    const subscription = client.subscribe(`follow-${run}`, { count: 1, blockMs: 50, layoutCheckMs: 0 });
    for (const label of ["old-0", "old-1", "old-2", "old-3", "old-4"]) await redis.xadd(events(1), "*", "__data__", event(label));
    try {
      await subscription.setup();
      assert.deepEqual(subscription.partitions, [0, 1]);
      assert.equal(labelOf(await nextWithin(subscription)), "old-0");
      // The move to 3: the scope's next event is published in partition 2.
      await setLayout(3);
      await redis.xadd(events(2), "*", "__data__", event("new-0"));
      const order: string[] = [];
      while (order.length < 5) order.push(labelOf(await nextWithin(subscription)));
      assert.deepEqual(order, ["old-1", "old-2", "old-3", "old-4", "new-0"]);
      assert.deepEqual(subscription.partitions, [0, 1, 2]);
      // A shrink back to 2: partition 2 stays read (its stream only falls quiet).
      await setLayout(2);
      await redis.xadd(events(2), "*", "__data__", event("new-1"));
      assert.equal(labelOf(await nextWithin(subscription)), "new-1");
      assert.deepEqual(subscription.partitions, [0, 1, 2]);
    } finally {
      await subscription.ackCurrent();
      await subscription.close();
    }
  });

  test("asks for the count about every second by default, and reads a new partition from its first event", async () => {
    await setLayout(1);
    const events = (p: number) => keys.stream("agreement-events", p);
    await redis.del(events(0), events(1));
    const subscription = new AccordClient(redis).subscribe(`default-${run}`, { start: "$", blockMs: 50 });
    try {
      await subscription.setup();
      assert.deepEqual(subscription.partitions, [0]);
      // Published before the subscription sees the new partition: its group starts at 0.
      await setLayout(2);
      await redis.xadd(events(1), "*", "__data__", event("grown-0"));
      assert.equal(labelOf(await nextWithin(subscription)), "grown-0");
      assert.deepEqual(subscription.partitions, [0, 1]);
    } finally {
      await subscription.ackCurrent();
      await subscription.close();
    }
  });

  test("with partitions named, the layout is not followed", async () => {
    await setLayout(2);
    const subscription = new AccordClient(redis).subscribe(`fixed-${run}`, { partitions: [0], blockMs: 50 });
    await subscription.setup();
    await subscription.close();
    assert.deepEqual(subscription.partitions, [0]);
  });
});
