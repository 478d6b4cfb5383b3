// The redis+sentinel:// URL as ioredis options (src/sentinel.ts): every vector of
// contracts/vectors/sentinel_url.json, as the Python parser reads them; and with
// ACCORD_SENTINEL_URL set (tests/e2e/test_client_typescript_sentinel.py starts a primary,
// a replica and three sentinels), a client connected through the sentinels appends and
// reads back.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import { AccordClient, InvalidInputError, isSentinelUrl, keys, partitionOf, sentinelOptions } from "../src/index.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..");
const VECTORS = JSON.parse(readFileSync(join(ROOT, "contracts", "vectors", "sentinel_url.json"), "utf8"));

describe("the Sentinel URL form", () => {
  test("every good vector: sentinels, service, database and both pairs of credentials", () => {
    assert.ok(VECTORS.good.length >= 5);
    for (const row of VECTORS.good) {
      assert.ok(isSentinelUrl(row.url), row.url);
      // The files a TLS option names are read through this: the vectors name none that exist.
      const options = sentinelOptions(row.url, (path) => Buffer.from(path));
      assert.deepEqual(
        options.sentinels?.map((s) => [s.host, s.port]),
        row.sentinels,
        row.url,
      );
      assert.equal(options.name, row.service);
      assert.equal(options.db, row.db);
      assert.equal(options.username ?? null, row.username);
      assert.equal(options.password ?? null, row.password);
      assert.equal(options.sentinelUsername ?? null, row.sentinel_username);
      assert.equal(options.sentinelPassword ?? null, row.sentinel_password);
      assert.equal(options.enableTLSForSentinelMode === true, row.tls, row.url);
      if (row.tls) assert.equal(String(options.tls?.ca), "/ca.pem");
    }
  });

  test("every bad vector: InvalidInputError of one line with the vector's phrase", () => {
    for (const row of VECTORS.bad) {
      assert.throws(
        () => sentinelOptions(row.url),
        (error: unknown) =>
          error instanceof InvalidInputError && error.message.includes(row.error) && !error.message.includes("\n"),
        row.url,
      );
    }
  });
});

const SENTINEL_URL = process.env.ACCORD_SENTINEL_URL;

describe("through the sentinels", { skip: SENTINEL_URL === undefined && "ACCORD_SENTINEL_URL is not set" }, () => {
  test("a client on the primary the sentinels name appends and reads back", async () => {
    const redis = new Redis(sentinelOptions(SENTINEL_URL as string));
    try {
      const client = new AccordClient(redis);
      const session = client.session("agent-ts", "user-ts", `s-${Date.now()}`);
      const appended = await session.user("Let's agree: start with the conclusion.");
      assert.equal(appended.seq, 1);
      assert.equal(appended.stream, keys.stream("chat-turn", partitionOf("agent-ts", "user-ts", 1)));
      const [entry] = await redis.xrange(appended.stream, appended.entryId, appended.entryId);
      assert.ok(entry !== undefined, "the appended entry is on the primary");
      assert.match(String(entry[1][1]), /start with the conclusion/);
      const role = (await redis.call("ROLE")) as unknown[];
      assert.equal(String(role[0]), "master");
    } finally {
      redis.disconnect();
    }
  });
});
