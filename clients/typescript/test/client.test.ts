// The TypeScript client against a real Redis (REDIS_URL), and with ACCORD_EXPECTED set,
// against a real worker too: tests/e2e/test_client_typescript.py starts both and runs this.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { after, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import {
  AccordClient,
  acceptTool,
  AppendUnavailableError,
  InvalidInputError,
  keys,
  partitionOf,
  scopeViewAsOf,
  SCOPE_VIEW_SCHEMA_VERSION,
  sessionViewAsOf,
  stableHash,
  toolResultText,
  ToolNames,
  viewDocument,
  type ToolOutcome,
  type Delivery,
  type ScopeViewDocument,
  type Session,
  type StateChanged,
} from "../src/index.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..");
const PARTITIONS = Number(process.env.ACCORD_PARTITIONS ?? "1");
const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
const run = Math.random().toString(16).slice(2, 8);
after(() => redis.disconnect());

describe("partitions and keys", () => {
  test("every partition vector of contracts/vectors/partition.json", () => {
    const vectors = JSON.parse(readFileSync(join(ROOT, "contracts", "vectors", "partition.json"), "utf8"));
    const rows = Array.isArray(vectors) ? vectors : vectors.vectors;
    assert.ok(rows.length >= 10);
    for (const row of rows) {
      assert.equal(stableHash(row.agent_id, row.user_id).toString(16).padStart(16, "0"), row.stable_hash);
      for (const [p, expected] of Object.entries(row.partitions as Record<string, number>)) {
        assert.equal(partitionOf(row.agent_id, row.user_id, Number(p)), expected);
      }
    }
  });

  test("ids are length-prefixed in code points, as contracts/keys.py does", () => {
    assert.equal(keys.view(3, "agent-🙂", "user"), "view:{3}:7:agent-🙂:4:user");
    assert.equal(keys.gatewaySeq(0, "a", "u:x", "s"), "gateway-seq:{0}:1:a:3:u:x:1:s");
  });
});

describe("views", () => {
  test("as of an instant: nothing that was not yet so then (since), as contracts.view does", () => {
    const path = join(ROOT, "contracts", "examples", "scope_view_document.json");
    const document = JSON.parse(readFileSync(path, "utf8")) as ScopeViewDocument;
    const shown = (iso: string) => {
      const view = scopeViewAsOf(document, new Date(iso));
      return [view.current_agreements.map((a) => a.record_id), view.pending_proposals.map((p) => p.record_id)];
    };
    const [agreement, proposal] = [document.agreements[0]?.record_id, document.proposals[0]?.record_id];
    assert.ok(agreement !== undefined && proposal !== undefined);
    assert.deepEqual(shown("2026-11-30T09:00:00Z"), [[], []]);
    assert.deepEqual(shown("2026-11-30T09:01:59Z"), [[agreement], []]);
    assert.deepEqual(shown("2026-11-30T09:02:00Z"), [[agreement], [proposal]]);
    const older = { ...document, agreements: document.agreements.map(({ since, ...rest }) => rest) };
    assert.equal(scopeViewAsOf(older, new Date("2026-11-30T09:00:00Z")).current_agreements.length, 1);
  });

  test("of now: every committed entry, even stamped ahead of the reader's clock; deadlines still apply", () => {
    const path = join(ROOT, "contracts", "examples", "scope_view_document.json");
    const document = JSON.parse(readFileSync(path, "utf8")) as ScopeViewDocument;
    const clock = new Date("2026-11-30T09:00:00Z"); // before every `since` in the example
    const scope = scopeViewAsOf(document, clock, { now: true });
    assert.equal(scope.current_agreements.length, 1);
    assert.equal(scope.pending_proposals.length, 1);
    const proposal = document.proposals[0];
    assert.ok(proposal !== undefined);
    const session = sessionViewAsOf(document, proposal.session_id, clock, { now: true });
    assert.deepEqual(session.pending_proposals.map((p) => p.record_id), [proposal.record_id]);
    const due = { ...document, agreements: document.agreements.map((a) => ({ ...a, deadline_at: clock.toISOString() })) };
    assert.equal(scopeViewAsOf(due, clock, { now: true }).current_agreements.length, 0);
  });
});

describe("the view types", () => {
  test("every list is always present: the document as the worker writes it, an older one, and none", () => {
    const path = join(ROOT, "contracts", "examples", "scope_view_document.json");
    const written = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
    for (const field of ["schema_version", "agent_id", "user_id", "agreements", "proposals", "amendments"]) {
      assert.ok(field in written, `the example, as the worker writes it, has ${field}`);
    }
    const { amendments, ...versionOne } = written as unknown as ScopeViewDocument;
    assert.deepEqual(amendments, []);
    const older = viewDocument({ ...versionOne, schema_version: 1 });
    assert.deepEqual([older.schema_version, older.amendments], [1, []]);
    const none = viewDocument({ agent_id: "a", user_id: "u" });
    assert.deepEqual(none, {
      schema_version: SCOPE_VIEW_SCHEMA_VERSION,
      agent_id: "a",
      user_id: "u",
      agreements: [],
      proposals: [],
      amendments: [],
    });
    // No `?.` and no `?? []`: the types say the lists are there (tsc checks this line).
    const view = sessionViewAsOf(none, "s", new Date());
    assert.deepEqual([view.current_agreements.length, view.pending_proposals.length, view.pending_amendments.length], [0, 0, 0]);
  });
});

describe("the accept tool", () => {
  test("every format names the tool and its two arguments (R3)", () => {
    const chat = acceptTool("openai_chat") as any; // eslint-disable-line @typescript-eslint/no-explicit-any
    assert.equal(chat.function.name, "soul_agreement_accept");
    assert.deepEqual(chat.function.parameters.required, ["record_id", "expected_revision"]);
    assert.deepEqual((acceptTool("anthropic") as any).input_schema, chat.function.parameters); // eslint-disable-line @typescript-eslint/no-explicit-any
    assert.equal((acceptTool("gemini") as any).parameters.properties.expected_revision.type, "integer"); // eslint-disable-line @typescript-eslint/no-explicit-any
  });

  test("the result text of each outcome, as the Python client words it", () => {
    const outcome = JSON.parse(readFileSync(join(ROOT, "contracts", "examples", "tool_outcome.rejected.json"), "utf8")) as ToolOutcome;
    assert.equal(
      toolResultText(outcome),
      "Not accepted: agr-710cd6a194fe7d630c4c97a0 has changed and is now at revision 2. Re-read its terms before accepting that revision.",
    );
    assert.equal(
      toolResultText({ ...outcome, reason: "malformed_arguments" }),
      'Not accepted: the arguments must be exactly {"record_id": string, "expected_revision": integer}.',
    );
    assert.match(toolResultText({ ...outcome, accepted: true, reason: null, current_revision: 3 }), /^Accepted: .*revision 3/);
    assert.match(toolResultText({ ...outcome, reason: "brand_new_reason" as never }), /^Not accepted \(brand_new_reason\)/);
    assert.match(toolResultText(null), /^No answer yet/);
  });
});

describe("subscription", () => {
  test("acks after the handler, skips a repeated event_id, replays from an entry id, keeps unknown kinds", async () => {
    const p = 9000 + Math.floor(Math.random() * 1000); // a partition no worker serves
    const stream = keys.stream("agreement-events", p);
    const example = (name: string) => readFileSync(join(ROOT, "contracts", "examples", `${name}.json`), "utf8");
    const newer = JSON.stringify({ type: "agreement.something_new", event_id: "x@1" });
    const ids: string[] = [];
    for (const data of [example("state_changed.proposed"), example("state_changed.proposed"), example("tool_outcome.accepted"), newer]) {
      ids.push((await redis.xadd(stream, "*", "__data__", JSON.stringify(JSON.parse(data)))) as string);
    }
    const client = new AccordClient(redis, { partitions: PARTITIONS });
    const group = `svc-${run}`;
    const subscription = client.subscribe(group, { partitions: [p], blockMs: 50 });
    const got: Delivery[] = [];
    const pendingIds = async () =>
      ((await redis.xpending(stream, group, "-", "+", 10)) as [string][]).map(([id]) => id);
    try {
      for await (const delivery of subscription) {
        got.push(delivery);
        if (got.length === 2) {
          // The first is acked once its handler returned; this one and the batch's rest are not.
          assert.deepEqual(await pendingIds(), [ids[2], ids[3]]);
        }
        if (got.length === 3) break;
      }
      await subscription.ackCurrent();
    } finally {
      await subscription.close();
    }
    assert.deepEqual(await pendingIds(), []);
    assert.deepEqual(got.map((d) => d.entryId), [ids[0], ids[2], ids[3]], "the repeated event_id is skipped");
    assert.deepEqual(got.map((d) => d.event.type), ["agreement.state_changed", "agreement.tool_outcome", "agreement.something_new"]);
    assert.equal((got[2]!.event as { unknown?: boolean }).unknown, true);
    const replay = client.subscribe(group, { partitions: [p], resumeFrom: { [p]: ids[1]! }, blockMs: 50 });
    const again: string[] = [];
    try {
      for await (const delivery of replay) {
        again.push(delivery.entryId);
        if (again.length === 2) break;
      }
    } finally {
      await replay.close();
    }
    assert.deepEqual(again, [ids[2], ids[3]]);
  });
});

async function entriesOf(stream: string, sessionId: string): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for (const [, flat] of await redis.xrange(stream, "-", "+")) {
    const doc = JSON.parse(flat[flat.indexOf("__data__") + 1] as string) as Record<string, unknown>;
    if (doc.session_id === sessionId) out.push(doc);
  }
  return out;
}

describe("writes", () => {
  test("50 concurrent writers with lost requests and replies: seqs 1..N, no gap, no duplicate (R15)", async () => {
    const client = new AccordClient(redis, { partitions: PARTITIONS, retries: 1, retryBackoffMs: 1 });
    const sessionId = `ts-busy-${run}`;
    const session = client.session("agent-mira", `user-many-${run}`, sessionId);
    // Inject faults into the append command: before it runs (nothing written) or after
    // (written, reply lost). The client retries; the writer retries on top.
    const target = redis as unknown as { accordAppend: (...a: unknown[]) => Promise<unknown> };
    const original = target.accordAppend;
    let lostBefore = 0;
    let lostAfter = 0;
    let seed = 7;
    const roll = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    target.accordAppend = async (...args: unknown[]) => {
      const r = roll();
      if (r < 0.125) {
        lostBefore++;
        throw new Error("injected: request lost");
      }
      const reply = await original.apply(redis, args);
      if (r < 0.25) {
        lostAfter++;
        throw new Error("injected: reply lost");
      }
      return reply;
    };
    const got = new Map<string, number>();
    let repeated = 0;
    try {
      await Promise.all(
        [...Array(50).keys()].map(async (w) => {
          for (let t = 0; t < 4; t++) {
            const messageId = `w${w}-t${t}`;
            for (;;) {
              try {
                const appended = await session.user(`turn ${t} of writer ${w}`, { messageId });
                got.set(messageId, appended.seq);
                if (appended.repeated) repeated++;
                break;
              } catch (error) {
                assert.ok(error instanceof AppendUnavailableError);
              }
            }
          }
        }),
      );
    } finally {
      target.accordAppend = original;
    }
    const entries = await entriesOf(keys.stream("chat-turn", session.partition), sessionId);
    const seqs = entries.map((e) => e.seq as number);
    assert.deepEqual([...seqs].sort((a, b) => a - b), [...Array(200).keys()].map((i) => i + 1));
    assert.deepEqual(seqs, [...seqs].sort((a, b) => a - b));
    assert.deepEqual(new Map(entries.map((e) => [e.message_id as string, e.seq as number])), got);
    assert.ok(lostBefore > 0 && lostAfter > 0 && repeated > 0);
  });

  test("bad input is a typed error before anything is written", async () => {
    const client = new AccordClient(redis, { partitions: PARTITIONS });
    const session = client.session("agent-mira", `user-bad-${run}`, `s-bad-${run}`);
    const cases: [() => Promise<unknown>, string][] = [
      [() => session.user("x".repeat(70_000)), "$.text"],
      [() => session.user("hi", { timezone: "Mars/Olympus_Mons" }), "$.timezone"],
      [() => session.user("hi", { messageId: "" }), "$.message_id"],
      [() => session.toolCall("soul_agreement_accept", { blob: "y".repeat(5000) }), "$.arguments"],
      [() => session.user("hi", { ts: new Date(Date.now() + 100 * 86_400_000) }), "$.ts"],
      [() => session.toolResult("c", true, { name: "todo_write", todos: [{ content: "", status: "pending" }] }), "$.todos[0].content"],
      [() => session.toolResult("c", true), "name"],
      [() => session.accept("r", 0), "$.arguments.expected_revision"],
    ];
    for (const [call, field] of cases) {
      await assert.rejects(call, (error: unknown) => error instanceof InvalidInputError && error.field === field);
    }
    assert.throws(() => client.session("", "u", "s"), InvalidInputError);
    const p = session.partition;
    assert.equal(await redis.exists(keys.gatewaySeq(p, "agent-mira", `user-bad-${run}`, `s-bad-${run}`)), 0);
  });

  test("a tool result takes its call's name through any Session object of the client", async () => {
    const client = new AccordClient(redis, { partitions: PARTITIONS });
    const ids = ["a", `u-names-${run}`] as const;
    await client.session(...ids, "s").toolCall("todo_write", { todos: [] }, { callId: "c-1" });
    const result = await client.session(...ids, "s").toolResult("c-1", true, { todos: [] });
    const stream = `tool-result:{${client.partitionOf(...ids)}}`;
    const stored = ((await redis.xrange(stream, "-", "+")) as [string, string[]][])
      .map(([, fields]) => JSON.parse(fields[fields.indexOf("__data__") + 1]!) as Record<string, unknown>)
      .filter((d) => d.user_id === ids[1]);
    assert.deepEqual(stored.map((d) => [d.call_id, d.name, d.seq]), [["c-1", "todo_write", result.seq]]);
    // Another session's call, or one another client wrote, is not known: the result names its tool.
    for (const other of [client.session(...ids, "s2"), new AccordClient(redis, { partitions: PARTITIONS }).session(...ids, "s")]) {
      await assert.rejects(other.toolResult("c-1", true), (e: unknown) => e instanceof InvalidInputError && e.field === "name");
    }
    const names = new ToolNames(2);
    names.remember("c-1", "one");
    names.remember("c-2", "two");
    names.remember("c-1", "one");
    names.remember("c-3", "three");
    assert.deepEqual(["c-1", "c-2", "c-3"].map((k) => names.get(k)), ["one", undefined, "three"]);
  });

  test("a write carries the gateway's trace context; a malformed one is refused before anything is written", async () => {
    let traceparent: string | null = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    const client = new AccordClient(redis, { partitions: PARTITIONS, traceContext: () => traceparent });
    const session = client.session("a", `u-trace-${run}`, "s");
    const traced = await session.user("hello", { messageId: "m-1" });
    traceparent = null;
    const plain = await session.user("hello", { messageId: "m-2" });
    traceparent = "00-not-a-trace";
    await assert.rejects(session.user("hello", { messageId: "m-3" }), (e: unknown) => e instanceof InvalidInputError && e.field === "$.traceparent");
    const stored = async (id: string) => {
      const [entry] = (await redis.xrange(traced.stream, id, id)) as [string, string[]][];
      const fields = entry![1];
      return JSON.parse(fields[fields.indexOf("__data__") + 1]!) as Record<string, unknown>;
    };
    assert.equal((await stored(traced.entryId)).traceparent, "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
    assert.equal("traceparent" in (await stored(plain.entryId)), false);
    assert.equal(await redis.get(keys.gatewaySeq(session.partition, "a", `u-trace-${run}`, "s")), "2");
  });

  test("a retry with the same message id gets the same seq", async () => {
    const session = new AccordClient(redis, { partitions: PARTITIONS }).session("a", `u-${run}`, "s");
    const first = await session.user("hello", { messageId: "m-1" });
    const again = await session.user("hello", { messageId: "m-1" });
    assert.deepEqual([first.seq, again.seq, first.repeated, again.repeated], [1, 1, false, true]);
    assert.equal(again.entryId, first.entryId);
  });
});

// ------------------------------------------------------------ seed scenarios, real worker

type Line = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

// The event summary of tests/support/worker_kit.py (and harness/node/gateway.mjs), written
// again on purpose: each client's test compares the same expected summaries in its language.
function summarize(e: any): string { // eslint-disable-line @typescript-eslint/no-explicit-any
  if (e.type === "agreement.state_changed") {
    let text = `${e.to_state}:${e.cause}:${e.revision}`;
    if (e.revision === 1) {
      if (e.deadline_at) text += ":deadline";
      if (e.binding) text += ":bound";
    }
    return text;
  }
  if (e.type === "agreement.tool_outcome") {
    return e.accepted ? "accepted" : `rejected:${e.reason}:${e.current_revision ?? "None"}`;
  }
  if (e.type === "agreement.clarification_requested") return `clarify:${e.kind}:${e.candidates.length}`;
  if (e.type === "agreement.claim_unverified") return `claim_unverified:${e.kind}`;
  return `refused:${e.reason}`;
}

const expectedAll = process.env.ACCORD_EXPECTED ? JSON.parse(process.env.ACCORD_EXPECTED) : null;

describe("seed scenarios through the TypeScript client", { skip: expectedAll === null ? "no worker (ACCORD_EXPECTED unset)" : false }, () => {
  const results: Record<string, unknown> = {};
  after(() => {
    if (process.env.ACCORD_RESULT_FILE) writeFileSync(process.env.ACCORD_RESULT_FILE, JSON.stringify(results));
  });
  for (const stem of Object.keys(expectedAll ?? {})) {
    for (const language of ["en", "zh"]) {
      test(`${stem} (${language})`, async () => {
        results[`${stem}.${language}`] = await play(stem, language, expectedAll[stem]);
      });
    }
  }
});

async function play(stem: string, language: string, expected: [string[], Record<string, [number, string[]]>]) {
  const client = new AccordClient(redis, { partitions: PARTITIONS });
  const suffix = `~ts${Math.random().toString(16).slice(2, 8)}`;
  const raw = readFileSync(join(ROOT, "worker", "transcripts", `${stem}.${language}.jsonl`), "utf8");
  const lines: Line[] = raw.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
  const first = Date.parse(lines[0]!.ts);
  const now = Math.floor(Date.now() / 1000) * 1000;
  const deliveries: Delivery[] = [];
  const subscription = client.subscribe(`observer-${suffix}`, { start: "$", blockMs: 100 });
  await subscription.setup();
  const follow = (async () => {
    for await (const d of subscription) deliveries.push(d);
  })();
  const ours = (sessions: Set<string>) =>
    deliveries.map((d) => d.event as any).filter((e) => sessions.has(e.session_id)); // eslint-disable-line @typescript-eslint/no-explicit-any
  const sessions = new Map<string, Session>();
  const last = new Map<string, Line>();
  try {
    for (const original of lines) {
      const line: Line = { ...original, user_id: original.user_id + suffix, session_id: original.session_id + suffix };
      const ts = new Date(Date.parse(line.ts) - first + now);
      let session = sessions.get(line.session_id);
      if (session === undefined) {
        session = client.session(line.agent_id, line.user_id, line.session_id);
        sessions.set(line.session_id, session);
      }
      let seq: number;
      if (line.type === "chat_turn") {
        const write = { user: session.user, assistant: session.assistant, system: session.system }[line.role as "user"];
        seq = (await write.call(session, line.text, { messageId: line.message_id, ts, timezone: line.timezone })).seq;
      } else if (line.type === "tool_result") {
        seq = (await session.toolResult(line.call_id, line.ok, { name: line.name, todos: line.todos, ts })).seq;
      } else {
        let target: string = line.arguments.record_id;
        if (target.startsWith("@proposal:")) {
          const turn = Number(target.slice("@proposal:".length));
          await session.waitApplied(turn, { timeoutMs: 30_000 });
          for (let i = 0; i < 400; i++) {
            const found = ours(new Set([line.session_id])).find(
              (e: StateChanged) => e.type === "agreement.state_changed" && e.from_state === null && e.provenance.seq === turn,
            );
            if (found) {
              target = found.record_id;
              break;
            }
            await new Promise((r) => setTimeout(r, 25));
          }
        }
        const outcome = await session.accept(target, line.arguments.expected_revision, {
          callId: line.call_id,
          ts,
          timeoutMs: 30_000,
        });
        assert.equal(outcome.call_id, line.call_id);
        seq = outcome.seq;
      }
      assert.equal(seq, line.seq, "the client numbers as the transcript");
      last.set(line.session_id, { ...line, ts: ts.toISOString() });
    }
    for (const [sid, session] of sessions) await session.waitApplied(last.get(sid)!.seq, { timeoutMs: 30_000 });
    const [expectedEvents] = expected;
    const deadline = Date.now() + 30_000;
    while (ours(new Set(sessions.keys())).length < expectedEvents.length && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const events = ours(new Set(sessions.keys())).map(summarize);
    assert.deepEqual(events, expectedEvents);
    const views: Record<string, unknown> = {};
    for (const [sid, session] of sessions) {
      const asOf = new Date(last.get(sid)!.ts);
      views[sid] = {
        view: await session.view({ asOf }),
        applied: await session.appliedSeq(),
        last_seq: last.get(sid)!.seq,
      };
    }
    return { events, views };
  } finally {
    await subscription.close();
    await follow;
  }
}
