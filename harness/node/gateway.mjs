// A chat gateway in Node.js: proof that accord's wire contract needs no Python.
//
// Usage: REDIS_URL=redis://... node gateway.mjs TRANSCRIPT.jsonl EXPECTED_JSON [PARTITIONS]
//
// It does what docs/asyncapi.json and docs/partitions.md describe, with ioredis only:
// picks the scope's partition (SHA-256 of the length-prefixed ids), XADDs each input
// event as JSON in the `__data__` field of chat-turn:{p} / tool-call:{p} /
// tool-result:{p}, resolves "@proposal:N" from the agreement events (as an agent
// reading the session view would), reads agreement-events:{p}, and compares what
// happened with EXPECTED_JSON (a list of event summaries). Exit 0 when they match.
import { createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import Redis from "ioredis";

const [transcriptPath, expectedJson, partitionsArg] = process.argv.slice(2);
const partitions = Number(partitionsArg ?? "1");
const expected = JSON.parse(expectedJson);
const redis = new Redis(process.env.REDIS_URL);

function partitionOf(agentId, userId) {
  const a = Buffer.from(agentId, "utf8");
  const u = Buffer.from(userId, "utf8");
  const len = (b) => { const x = Buffer.alloc(4); x.writeUInt32BE(b.length); return x; };
  const digest = createHash("sha256").update(Buffer.concat([len(a), a, len(u), u])).digest();
  return Number(digest.readBigUInt64BE(0) % BigInt(partitions));
}

const FAMILY = { chat_turn: "chat-turn", tool_call: "tool-call", tool_result: "tool-result" };
const suffix = "~node" + randomBytes(3).toString("hex");
const lines = readFileSync(transcriptPath, "utf8").split("\n").filter((l) => l.trim());
const first = Date.parse(JSON.parse(lines[0]).ts);
const now = Math.floor(Date.now() / 1000) * 1000;
const events = []; // agreement events of this run's sessions, in stream order
const cursors = {};

async function readEvents(partition) {
  const stream = `agreement-events:{${partition}}`;
  const start = cursors[stream] ? "(" + cursors[stream] : "-";
  const entries = await redis.xrange(stream, start, "+", "COUNT", 1000);
  for (const [id, fields] of entries) {
    cursors[stream] = id;
    const data = fields[fields.indexOf("__data__") + 1];
    const event = JSON.parse(data);
    if (event.session_id.endsWith(suffix)) events.push(event);
  }
}

async function proposalAt(partition, sessionId, seq) {
  for (let i = 0; i < 400; i++) {
    await readEvents(partition);
    const found = events.find((e) => e.type === "agreement.state_changed" &&
      e.session_id === sessionId && e.from_state === null && e.provenance.seq === seq);
    if (found) return found.record_id;
    await new Promise((r) => setTimeout(r, 25));
  }
  return `none-${sessionId}-${seq}`;
}

for (const raw of lines) {
  const event = JSON.parse(raw);
  event.user_id += suffix;
  event.session_id += suffix;
  // Rebase time so the first turn is now: deadlines lie ahead, expiry is by event time.
  event.ts = new Date(Date.parse(event.ts) - first + now).toISOString();
  const p = partitionOf(event.agent_id, event.user_id);
  const target = event.arguments?.record_id;
  if (typeof target === "string" && target.startsWith("@proposal:")) {
    event.arguments.record_id = await proposalAt(p, event.session_id, Number(target.slice(10)));
  }
  await redis.xadd(`${FAMILY[event.type]}:{${p}}`, "*", "__data__", JSON.stringify(event));
}

// The event summary of tests/support/worker_kit.py, written again on purpose: this
// gateway proves the contract with ioredis alone, so it imports nothing of ours.
function summarize(e) {
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

const scope = JSON.parse(lines[0]);
const p = partitionOf(scope.agent_id, scope.user_id + suffix);
const deadline = Date.now() + 20000;
while (events.length < expected.length && Date.now() < deadline) {
  await readEvents(p);
  await new Promise((r) => setTimeout(r, 25));
}
await new Promise((r) => setTimeout(r, 200)); // anything unexpected after the last one?
await readEvents(p);
redis.disconnect();
const got = events.map(summarize);
console.log(JSON.stringify({ partition: p, events: got }));
if (JSON.stringify(got) !== JSON.stringify(expected)) {
  console.error(`expected ${JSON.stringify(expected)}\n     got ${JSON.stringify(got)}`);
  process.exit(1);
}
