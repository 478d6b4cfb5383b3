// accord's TypeScript client for chat gateways and subscribers (docs/gateway.md).
//
// The same operations as the Python client (clients/python/): every write allocates the
// session's next seq and XADDs its entry in ONE server-side script
// (clients/python/src/accord_client/lua/append.lua, embedded by scripts/generate.mjs; with
// `functions: true`, the same script as the Redis 7 function `accord_append`) whose keys
// share the partition's hash tag, so it runs on Redis Cluster too; writes are idempotent
// by message id / call id. Types come from contracts/schemas (src/generated/contracts.ts),
// never written by hand.
import { createHash, randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { Cluster, Redis } from "ioredis";
import { APPEND_LUA } from "./generated/append-lua.js";
import { ACCEPT_TOOL } from "./generated/tools.js";
import { SCOPE_VIEW_SCHEMA_VERSION } from "./generated/contracts.js";
import type {
  AgreementEvent,
  CurrentAgreement,
  PendingAmendment,
  PendingProposal,
  ScopeAmendment,
  ScopeProposal,
  ScopeView,
  ScopeViewDocument,
  SessionView,
  TodoItem,
  ToolOutcome,
} from "./generated/contracts.js";

export type * from "./generated/contracts.js";
export { SCOPE_VIEW_SCHEMA_VERSION };
export { isSentinelUrl, sentinelOptions } from "./sentinel.js";

export type AnyRedis = Redis | Cluster;

// ---------------------------------------------------------------------------- errors

export class AccordClientError extends Error {}

/** The caller's input breaks the wire contract; nothing was written. */
export class InvalidInputError extends AccordClientError {
  constructor(readonly field: string, readonly detail: string) {
    super(`${field}: ${detail}`);
    this.name = "InvalidInputError";
  }
}

/** Redis did not confirm the append after every retry; retrying with the same key is safe. */
export class AppendUnavailableError extends AccordClientError {
  constructor(readonly idempotencyKey: string, override readonly cause: unknown) {
    super(`append ${JSON.stringify(idempotencyKey)} not confirmed: ${String(cause)}`);
    this.name = "AppendUnavailableError";
  }
}

/**
 * Fewer replicas than `waitReplicas` acknowledged an append within the wait: the primary
 * has it, a failover could lose it. Retried like a lost connection (the idempotency key
 * keeps the retry from appending twice); past the retries, an AppendUnavailableError.
 */
export class NotReplicatedError extends AccordClientError {
  constructor(readonly acknowledged: number, readonly wanted: number) {
    super(`${acknowledged} of ${wanted} replicas acknowledged the append`);
    this.name = "NotReplicatedError";
  }
}

/**
 * Function mode (`functions: true`), but Redis has no `accord_append` to call: the library
 * is not loaded (or is a release without it). Nothing was written and nothing is retried:
 * an operator loads it with `accord functions load`.
 */
export class FunctionMissingError extends AccordClientError {
  constructor(readonly functionName: string, override readonly cause: unknown) {
    super(
      `FCALL ${functionName}: no such function on this Redis (${String(cause)}); load this release's` +
        " library with `accord functions load` (an operator's Redis user)",
    );
    this.name = "FunctionMissingError";
  }
}

/** No tool outcome in time; the call is written, a retry with the same callId waits again. */
export class AcceptTimeoutError extends AccordClientError {
  constructor(readonly callId: string, readonly seq: number, timeoutMs: number) {
    super(`no outcome for call ${JSON.stringify(callId)} (seq ${seq}) within ${timeoutMs} ms`);
    this.name = "AcceptTimeoutError";
  }
}

export class AppliedTimeoutError extends AccordClientError {
  constructor(readonly seq: number, readonly applied: number, timeoutMs: number) {
    super(`seq ${seq} not applied within ${timeoutMs} ms (applied: ${applied})`);
    this.name = "AppliedTimeoutError";
  }
}

// ------------------------------------------------------------------ partitions, keys

function u32be(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

/** docs/partitions.md: SHA-256 of the length-prefixed UTF-8 ids, first 8 bytes. */
export function stableHash(agentId: string, userId: string): bigint {
  const a = Buffer.from(agentId, "utf8");
  const u = Buffer.from(userId, "utf8");
  const message = Buffer.concat([u32be(a.length), a, u32be(u.length), u]);
  return createHash("sha256").update(message).digest().readBigUInt64BE(0);
}

export function partitionOf(agentId: string, userId: string, partitions: number): number {
  return Number(stableHash(agentId, userId) % BigInt(partitions));
}

/** Code points, as Python's len (a JS string's length counts UTF-16 units). */
function codePoints(value: string): number {
  return [...value].length;
}

const ident = (value: string): string => `${codePoints(value)}:${value}`;
const tag = (p: number): string => `{${p}}`;

/** The key names of contracts/keys.py and contracts/streams.py. */
export const keys = {
  stream: (family: string, p: number): string => `${family}:${tag(p)}`,
  view: (p: number, agentId: string, userId: string): string =>
    `view:${tag(p)}:${ident(agentId)}:${ident(userId)}`,
  appliedField: (sessionId: string): string => `applied:${sessionId}`,
  gatewaySeq: (p: number, a: string, u: string, s: string): string =>
    `gateway-seq:${tag(p)}:${ident(a)}:${ident(u)}:${ident(s)}`,
  gatewayIdem: (p: number, a: string, u: string, s: string): string =>
    `gateway-idem:${tag(p)}:${ident(a)}:${ident(u)}:${ident(s)}`,
  /** Partition p's layout marker: the count its streams belong to, or `moving` (absent
   * before the first `accord repartition`); the append script checks it. */
  layout: (p: number): string => `layout:${tag(p)}`,
};

/** The deployment's layout, `{"partitions": P, "group": …, "moving_to"?: P2}` JSON
 * (contracts.keys.CONFIG_KEY): the partition count every worker and client hashes with. */
export const CONFIG_KEY = "accord:config";
/** A layout marker's value while a repartition moves the partition's data. */
export const LAYOUT_MOVING = "moving";
/** The append script's refusal when the partition belongs to another layout:
 * `ACCORDLAYOUT <count>` or `ACCORDLAYOUT moving`; nothing was written. */
export const LAYOUT_REFUSAL = "ACCORDLAYOUT";

export const ACCEPT_TOOL_NAME = "soul_agreement_accept";
/** The append script's name in the function library (worker/functions.py). */
export const APPEND_FUNCTION = "accord_append";
const MAX_SEQ = 2 ** 53 - 1;

// --------------------------------------------------------------------------- limits

/** The workers' input limits (contracts.codec.Limits): bad input is refused here first. */
export interface Limits {
  maxEntryBytes: number;
  maxTextBytes: number;
  maxTodos: number;
  maxTodoContentBytes: number;
  maxArgumentBytes: number;
  /** How far `ts` may lie before / after the entry's id time (the worker's envelope check). */
  maxTsBehindS: number;
  maxTsAheadS: number;
}

export const DEFAULT_LIMITS: Limits = {
  maxEntryBytes: 256 * 1024,
  maxTextBytes: 64 * 1024,
  maxTodos: 500,
  maxTodoContentBytes: 2 * 1024,
  maxArgumentBytes: 4 * 1024,
  maxTsBehindS: 10 * 366 * 86_400,
  maxTsAheadS: 60 * 86_400,
};

const bytes = (text: string): number => Buffer.byteLength(text, "utf8");

function checkIdent(field: string, value: unknown): void {
  if (typeof value !== "string" || codePoints(value) < 1 || codePoints(value) > 256) {
    throw new InvalidInputError(field, "must be a string of 1 to 256 characters");
  }
}

function knownZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------- views

/** How a view reads its instant: `now` when it is the reader's clock for the present
 * rather than an instant asked for (contracts.view's `now=True`). */
export interface ViewReading {
  now?: boolean;
}

/** Shown at `asOf`: held as shown by then (`since`; none in older documents; not asked
 * when `now`) and not yet past its deadline (an exclusive instant). */
const live = (
  deadline: string | null | undefined,
  since: string | null | undefined,
  asOf: Date,
  now: boolean,
): boolean =>
  (now || since == null || Date.parse(since) <= asOf.getTime()) &&
  (deadline == null || asOf.getTime() < Date.parse(deadline));

/** A stored view document (`HGET view:… doc`, parsed) as its type says: every field
 * present. The worker writes them all, but a document an older worker wrote may lack one
 * added since (`amendments` before version 2); it reads as the field's default, as the
 * Python client's decoder does. */
export function viewDocument(
  stored: Partial<ScopeViewDocument> & Pick<ScopeViewDocument, "agent_id" | "user_id">,
): ScopeViewDocument {
  return {
    ...stored,
    schema_version: stored.schema_version ?? SCOPE_VIEW_SCHEMA_VERSION,
    agreements: stored.agreements ?? [],
    proposals: stored.proposals ?? [],
    amendments: stored.amendments ?? [],
  };
}

/** contracts.view.scope_view_as_of: the document without what is past its deadline at
 * `asOf` (R9), nor what was not yet so then (`since`, R6). With `{ now: true }` (`asOf` is
 * the reader's present) every committed entry is shown whatever its `since`: the clock
 * that stamped it, the gateway's, may run ahead of the reader's, and a proposal hidden
 * from the next turn's view could not be accepted (R3). Only deadlines apply then. */
export function scopeViewAsOf(document: ScopeViewDocument, asOf: Date, reading: ViewReading = {}): ScopeView {
  const now = reading.now ?? false;
  return {
    agent_id: document.agent_id,
    user_id: document.user_id,
    as_of: asOf.toISOString(),
    current_agreements: document.agreements
      .filter((a) => live(a.deadline_at, a.since, asOf, now))
      .map((a): CurrentAgreement => ({ record_id: a.record_id, terms: a.terms })),
    pending_proposals: document.proposals.filter((p) => live(p.deadline_at, p.since, asOf, now)),
    // R17: shown while the agreement itself is live.
    pending_amendments: document.amendments.filter((a) =>
      live(a.agreement_deadline_at, a.since, asOf, now),
    ),
  };
}

// Proposals and amendments are built field by field on purpose, as in contracts/view.py:
// tsc checks every field (CONTRIBUTING.md, "Repeated shapes").
/** contracts.view.session_view_as_of: the scope's memory and this session's proposals (R6). */
export function sessionViewAsOf(
  document: ScopeViewDocument,
  sessionId: string,
  asOf: Date,
  reading: ViewReading = {},
): SessionView {
  const scope = scopeViewAsOf(document, asOf, reading);
  return {
    agent_id: document.agent_id,
    user_id: document.user_id,
    session_id: sessionId,
    as_of: scope.as_of,
    current_agreements: scope.current_agreements,
    pending_proposals: scope.pending_proposals
      .filter((p: ScopeProposal) => p.session_id === sessionId)
      .map(
        (p): PendingProposal => ({
          record_id: p.record_id,
          revision: p.revision,
          terms: p.terms,
          status: p.status,
          deadline_at: p.deadline_at ?? null,
        }),
      ),
    pending_amendments: scope.pending_amendments
      .filter((a: ScopeAmendment) => a.session_id === sessionId)
      .map(
        (a): PendingAmendment => ({
          record_id: a.record_id,
          revision: a.revision,
          terms: a.terms,
          current_terms: a.current_terms,
          status: a.status,
          deadline_at: a.deadline_at ?? null,
        }),
      ),
  };
}

// --------------------------------------------------------------------------- client

export interface ClientOptions {
  /**
   * The partition count while Redis has none (`accord:config` is absent until the first
   * worker starts); default 1. Otherwise the client hashes with Redis's count, read before
   * the first call that needs it, and follows `accord repartition` (docs/gateway.md).
   */
  partitions?: number;
  /** How long an append waits while a repartition moves its partition (ms), then
   * AppendUnavailableError; default 60,000. */
  layoutWaitMs?: number;
  limits?: Partial<Limits>;
  retries?: number;
  retryBackoffMs?: number;
  idempotencyWindow?: number;
  idempotencyTtlS?: number;
  /**
   * Redis 7 function mode: append by `FCALL accord_append` from the library an operator
   * loaded (`accord functions load`) instead of EVALSHA/EVAL, so the gateway's Redis user
   * needs `+fcall`, not `+eval +evalsha` (deploy/redis/users-redis7.acl).
   */
  functions?: boolean;
  /**
   * Called at each write: the W3C `traceparent` of the gateway's current span, or null.
   * The input carries it; a tracing worker and the subscribers continue that trace
   * (docs/operations.md, "Traces"). The client depends on no tracing library.
   */
  traceContext?: () => string | null | undefined;
  /**
   * Durability across failover (docs/gateway.md): an append returns its seq only once
   * this many replicas acknowledged it (`WAIT` on the client's connection after the
   * append), like the workers' ACCORD_WAIT_REPLICAS. 0, the default: no wait. On Redis
   * Cluster the append and its WAIT go together to the primary of the partition's slot,
   * so the count is that shard's replicas.
   */
  waitReplicas?: number;
  /** How long one wait blocks (ms); a shortfall raises NotReplicatedError, retried. */
  waitTimeoutMs?: number;
}

// contracts.common.Traceparent: W3C trace context, version 00, lowercase hex.
const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

export interface Appended {
  seq: number;
  entryId: string;
  stream: string;
  /** True when this idempotency key was appended before: nothing was written now. */
  repeated: boolean;
}

// The append script's keys and arguments, in order (append.lua's header says what each is).
type AppendCommand = (
  seqKey: string,
  idemKey: string,
  stream: string,
  layoutKey: string,
  idempotencyKey: string,
  data: string,
  window: number,
  ttl: number,
  /** "1" when the caller WAITs after the call: a repeated key is written again. */
  touch: "1" | "0",
  /** The partition count the scope was hashed with. */
  partitions: number,
) => Promise<[number, string, number]>;

const APPEND_KEYS = 4;

/** The tool names of a client's recent calls, by session and call id, so a tool result can
 * omit the name whichever `Session` object writes it (a gateway often makes one per
 * request, and the result comes in a later one than its call). Bounded: the oldest are
 * forgotten first, and a result of a forgotten call names its tool. */
export class ToolNames {
  private readonly names = new Map<string, string>();

  constructor(readonly kept = 4096) {}

  remember(key: string, name: string): void {
    this.names.delete(key); // a Map keeps insertion order: re-inserting makes it the newest
    this.names.set(key, name);
    for (const oldest of this.names.keys()) {
      if (this.names.size <= this.kept) break;
      this.names.delete(oldest);
    }
  }

  get(key: string): string | undefined {
    return this.names.get(key);
  }
}

export class AccordClient {
  /** The names of this client's tool calls: a tool result may omit its call's name. */
  readonly toolNames = new ToolNames();
  readonly limits: Limits;
  readonly retries: number;
  readonly retryBackoffMs: number;
  readonly idempotencyWindow: number;
  readonly idempotencyTtlS: number;
  readonly functions: boolean;
  readonly traceContext: (() => string | null | undefined) | undefined;
  readonly waitReplicas: number;
  readonly waitTimeoutMs: number;
  readonly layoutWaitMs: number;
  /** The `partitions` option: the count while Redis has none. */
  private readonly given: number;
  /** The count as known now, and when it was last read from Redis (0: not yet). */
  private count: number;
  private learnedAt = 0;
  /** A read of the count under way: concurrent first calls share it. */
  private learning: Promise<number> | null = null;

  constructor(readonly redis: AnyRedis, options: ClientOptions = {}) {
    this.given = options.partitions ?? 1;
    if (!validCount(this.given)) throw new InvalidInputError("partitions", "must be 1 to 16384");
    this.count = this.given;
    this.layoutWaitMs = options.layoutWaitMs ?? 60_000;
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.retries = options.retries ?? 3;
    this.retryBackoffMs = options.retryBackoffMs ?? 50;
    this.idempotencyWindow = options.idempotencyWindow ?? 256;
    this.idempotencyTtlS = options.idempotencyTtlS ?? 7 * 24 * 3600;
    this.functions = options.functions ?? false;
    this.traceContext = options.traceContext;
    this.waitReplicas = options.waitReplicas ?? 0;
    this.waitTimeoutMs = options.waitTimeoutMs ?? 1000;
    if (!Number.isInteger(this.waitReplicas) || this.waitReplicas < 0 || this.waitTimeoutMs < 1) {
      throw new InvalidInputError("waitReplicas", "must be >= 0, with waitTimeoutMs >= 1");
    }
    // ioredis runs it by EVALSHA and falls back to EVAL on NOSCRIPT.
    if (!this.functions && !("accordAppend" in redis)) {
      redis.defineCommand("accordAppend", { numberOfKeys: APPEND_KEYS, lua: APPEND_LUA });
    }
  }

  /** @internal */
  get append(): AppendCommand {
    if (this.functions) return (...args) => this.callAppend(args);
    return (this.redis as unknown as { accordAppend: AppendCommand }).accordAppend.bind(this.redis);
  }

  /** @internal The append, and with `waitReplicas` its WAIT on the same connection:
   * NotReplicatedError when fewer replicas acknowledged it in time. */
  async appendDurably(args: Parameters<AppendCommand>): Promise<[number, string, number]> {
    if (this.waitReplicas === 0) return this.append(...args);
    if (!("nodes" in this.redis)) {
      // ioredis sends every command of a client on its one connection, in order.
      const appended = await this.append(...args);
      this.checkReplicated(await this.redis.wait(this.waitReplicas, this.waitTimeoutMs));
      return appended;
    }
    // WAIT names no key, so alone a cluster client would send it to any node. A pipeline
    // goes to the one node that serves its keys' slot (every key of an append carries the
    // partition's tag), on that node's one connection, in order: the WAIT counts the
    // replicas of the shard that took the append. (A MOVED reply sends the whole
    // pipeline again to the new node: the append is idempotent by its key.)
    const pipeline = this.redis.pipeline();
    if (this.functions) pipeline.fcall(APPEND_FUNCTION, APPEND_KEYS, ...args);
    else (pipeline as unknown as { accordAppend: (...a: unknown[]) => unknown }).accordAppend(...args);
    pipeline.wait(this.waitReplicas, this.waitTimeoutMs);
    const replies = (await pipeline.exec()) ?? [];
    const [appendError, appended] = replies[0] ?? [new Error("the pipeline returned no reply"), null];
    if (appendError) throw this.functions ? functionError(appendError) : appendError;
    const [waitError, acknowledged] = replies[1] ?? [new Error("the pipeline returned no WAIT reply"), null];
    if (waitError) throw waitError;
    this.checkReplicated(acknowledged);
    return appended as [number, string, number];
  }

  private checkReplicated(acknowledged: unknown): void {
    const count = Number(acknowledged);
    if (count < this.waitReplicas) throw new NotReplicatedError(count, this.waitReplicas);
  }

  private async callAppend(args: Parameters<AppendCommand>): Promise<[number, string, number]> {
    try {
      return (await this.redis.fcall(APPEND_FUNCTION, APPEND_KEYS, ...args)) as [number, string, number];
    } catch (error) {
      throw functionError(error);
    }
  }

  session(agentId: string, userId: string, sessionId: string): Session {
    return new Session(this, agentId, userId, sessionId);
  }

  /** The partition count as known now (`learnPartitions`). */
  get partitions(): number {
    return this.count;
  }

  /** The scope's partition under the count as known now. */
  partitionOf(agentId: string, userId: string): number {
    return partitionOf(agentId, userId, this.count);
  }

  /** Read the partition count from Redis (`accord:config`; the `partitions` option when
   * absent), remember it and return it. During a repartition it is the count being moved
   * from: appends wait until the move is done, then learn the new one. */
  async learnPartitions(): Promise<number> {
    let raw: string | null;
    try {
      raw = await this.redis.get(CONFIG_KEY);
    } catch (error) {
      if ((error as Error).name === "ReplyError" && /NOPERM/.test((error as Error).message)) {
        throw new AccordClientError(
          `cannot read the partition count (${CONFIG_KEY}): the Redis user needs GET on it` +
            ` (deploy/redis/users.acl grants it to gateway): ${String(error)}`,
        );
      }
      throw error;
    }
    this.count = raw == null ? this.given : layoutCount(raw);
    this.learnedAt = Date.now();
    return this.count;
  }

  /** The count, read from Redis the first time (one GET however many calls wait for it). */
  async knownPartitions(): Promise<number> {
    if (this.learnedAt > 0) return this.count;
    this.learning ??= this.learnPartitions().finally(() => {
      this.learning = null;
    });
    return this.learning;
  }

  /** The count read again, unless it was read within RELEARN_AFTER_MS: for a read that
   * found nothing, since a repartition may have moved the scope. */
  async relearnPartitions(): Promise<number> {
    if (this.learnedAt > 0 && Date.now() - this.learnedAt < RELEARN_AFTER_MS) return this.count;
    return this.learnPartitions();
  }

  /** @internal Act on the append script's `ACCORDLAYOUT <value>`: a count is taken as
   * the count (true: retry at once); `moving` (false: retry after a pause). */
  followRefusal(refusal: string): boolean {
    const value = /^ACCORDLAYOUT (\S+)/.exec(refusal)?.[1] ?? LAYOUT_MOVING;
    if (!/^\d+$/.test(value) || !validCount(Number(value))) return false;
    this.count = Number(value);
    return true;
  }

  /** @internal `read` with the partition count as known; when it finds nothing, the count
   * is read again (at most once a second) and, if it changed, so is `read`: a repartition
   * may have moved what it looks for. */
  async readFollowing<T>(read: (partitions: number) => Promise<T | null>): Promise<T | null> {
    const before = await this.knownPartitions();
    const found = await read(before);
    if (found != null) return found;
    const now = await this.relearnPartitions();
    return now === before ? null : read(now);
  }

  /** The scope's stored view document, unfiltered (one HGET; a scope without one is
   * looked up again if the partition count changed, `readFollowing`). */
  async scopeViewDocument(agentId: string, userId: string): Promise<ScopeViewDocument> {
    const raw = await this.readFollowing((count) =>
      this.redis.hget(keys.view(partitionOf(agentId, userId, count), agentId, userId), "doc"),
    );
    const stored = raw == null ? { agent_id: agentId, user_id: userId } : JSON.parse(raw);
    return viewDocument(stored as Parameters<typeof viewDocument>[0]);
  }

  /** Current agreements and every session's pending proposals at `asOf` (R6, R9); without
   * `asOf`, the committed state now (even what a gateway clock ahead of this one stamped). */
  async scopeView(agentId: string, userId: string, options: { asOf?: Date } = {}): Promise<ScopeView> {
    const document = await this.scopeViewDocument(agentId, userId);
    return scopeViewAsOf(document, options.asOf ?? new Date(), { now: options.asOf === undefined });
  }

  /** Agreement events in the consumer group `group` (see Subscription). */
  subscribe(group: string, options: SubscribeOptions = {}): Subscription {
    return new Subscription(this, group, options);
  }
}

// -------------------------------------------------------------------------- session

export interface WriteOptions {
  ts?: Date;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

// A read that finds nothing asks Redis for the count again at most this often.
const RELEARN_AFTER_MS = 1000;
// The longest pause between an append's tries while a repartition moves its partition.
const LAYOUT_PAUSE_MAX_MS = 1000;

const validCount = (n: number): boolean => Number.isInteger(n) && n >= 1 && n <= 16384;

/** The partition count of `accord:config`'s JSON; a malformed one is an error, never a guess. */
function layoutCount(raw: string): number {
  let partitions: unknown;
  try {
    partitions = (JSON.parse(raw) as { partitions?: unknown }).partitions;
  } catch {
    partitions = undefined;
  }
  if (typeof partitions !== "number" || !validCount(partitions)) {
    throw new AccordClientError(`${CONFIG_KEY} holds no partition count: ${JSON.stringify(raw.slice(0, 200))}`);
  }
  return partitions;
}

/** Redis 7's answer to an FCALL of a name no loaded library registers, as
 * FunctionMissingError; any other error as it is. */
function functionError(error: unknown): unknown {
  if ((error as Error).name === "ReplyError" && /function not found/i.test((error as Error).message)) {
    return new FunctionMissingError(APPEND_FUNCTION, error);
  }
  return error;
}

/** The refusal's text when `error` is the append script's `ACCORDLAYOUT …`, else null. */
function layoutRefusal(error: unknown): string | null {
  const { name, message } = error as Error;
  return name === "ReplyError" && typeof message === "string" && message.startsWith(LAYOUT_REFUSAL) ? message : null;
}

function msBefore(entryId: string): string {
  const ms = Number(entryId.split("-")[0]);
  return ms > 0 ? `${ms - 1}-18446744073709551615` : "0-0";
}

function fieldsOf(flat: string[]): Map<string, string> {
  const map = new Map<string, string>();
  for (let i = 0; i + 1 < flat.length; i += 2) map.set(flat[i] as string, flat[i + 1] as string);
  return map;
}

export class Session {
  /** The scope's partition under `count`, the partition count it was computed with. */
  private at = { count: 0, partition: 0 };

  constructor(
    readonly client: AccordClient,
    readonly agentId: string,
    readonly userId: string,
    readonly sessionId: string,
  ) {
    checkIdent("$.agent_id", agentId);
    checkIdent("$.user_id", userId);
    checkIdent("$.session_id", sessionId);
  }

  /** The scope's partition under the client's partition count as known now (learned
   * from Redis by the first call that needs it; a repartition changes it). */
  get partition(): number {
    return this.place(this.client.partitions);
  }

  private place(count: number): number {
    if (count !== this.at.count) this.at = { count, partition: partitionOf(this.agentId, this.userId, count) };
    return this.at.partition;
  }

  /** The partition, after learning the count from Redis the first time. */
  private async placed(): Promise<number> {
    return this.place(await this.client.knownPartitions());
  }

  async user(text: string, options: WriteOptions & { timezone?: string | null; messageId?: string } = {}): Promise<Appended> {
    return this.chat("user", text, options.timezone ?? null, options.messageId, options.ts);
  }

  async assistant(text: string, options: WriteOptions & { messageId?: string } = {}): Promise<Appended> {
    return this.chat("assistant", text, null, options.messageId, options.ts);
  }

  async system(text: string, options: WriteOptions & { messageId?: string } = {}): Promise<Appended> {
    return this.chat("system", text, null, options.messageId, options.ts);
  }

  async toolCall(
    name: string,
    args: Record<string, unknown>,
    options: WriteOptions & { callId?: string } = {},
  ): Promise<Appended> {
    const callId = options.callId ?? `call-${randomUUID()}`;
    checkIdent("$.name", name);
    if (typeof args !== "object" || args === null || Array.isArray(args)) {
      throw new InvalidInputError("$.arguments", "must be an object");
    }
    // Another tool's oversize arguments are never read: the worker drops them, so they are
    // written; only the accept tool's are refused.
    if (name === ACCEPT_TOOL_NAME && bytes(JSON.stringify(args)) > this.client.limits.maxArgumentBytes) {
      throw new InvalidInputError("$.arguments", `longer than ${this.client.limits.maxArgumentBytes} bytes`);
    }
    const appended = await this.write({ type: "tool_call", call_id: callId, name, arguments: args }, callId, options.ts);
    this.client.toolNames.remember(this.callKey(callId), name);
    return appended;
  }

  private callKey(callId: string): string {
    return JSON.stringify([this.agentId, this.userId, this.sessionId, callId]);
  }

  /** A tool's result; for `todo_write`, `todos` is the whole list after the write. `name`
   * defaults to the name of call `callId` of this session, written through this client (any
   * of its `Session` objects); a call it did not write needs `name`. */
  async toolResult(
    callId: string,
    ok: boolean,
    options: WriteOptions & { todos?: TodoItem[] | null; name?: string } = {},
  ): Promise<Appended> {
    const name = options.name ?? this.client.toolNames.get(this.callKey(callId));
    if (name === undefined) throw new InvalidInputError("name", `unknown call ${JSON.stringify(callId)}: pass the tool's name`);
    checkIdent("$.name", name);
    if (typeof ok !== "boolean") throw new InvalidInputError("$.ok", "must be a boolean");
    const body: Record<string, unknown> = { type: "tool_result", call_id: callId, name, ok };
    if (options.todos != null) {
      const { maxTodos, maxTodoContentBytes } = this.client.limits;
      let oversize: InvalidInputError | null = null;
      if (options.todos.length > maxTodos) oversize = new InvalidInputError("$.todos", `more than ${maxTodos} items`);
      options.todos.forEach((item, i) => {
        if (typeof item.content !== "string" || item.content.length === 0) {
          throw new InvalidInputError(`$.todos[${i}].content`, "must be a non-empty string");
        }
        if (!["pending", "in_progress", "completed"].includes(item.status)) {
          throw new InvalidInputError(`$.todos[${i}].status`, "must be pending, in_progress or completed");
        }
        if (oversize === null && bytes(item.content) > maxTodoContentBytes) {
          oversize = new InvalidInputError(`$.todos[${i}].content`, `longer than ${maxTodoContentBytes} bytes`);
        }
      });
      // Only a successful todo_write's list is read (R12); the worker drops any other.
      if (oversize !== null && name === "todo_write" && ok) throw oversize;
      if (oversize === null) body.todos = options.todos.map((item) => ({ content: item.content, status: item.status }));
    }
    return this.write(body, callId, options.ts);
  }

  private async chat(
    role: string,
    text: string,
    timezone: string | null,
    messageId: string | undefined,
    ts: Date | undefined,
  ): Promise<Appended> {
    const id = messageId ?? `msg-${randomUUID()}`;
    if (typeof text !== "string") throw new InvalidInputError("$.text", "must be a string");
    if (bytes(text) > this.client.limits.maxTextBytes) {
      throw new InvalidInputError("$.text", `longer than ${this.client.limits.maxTextBytes} bytes`);
    }
    if (timezone !== null && (typeof timezone !== "string" || !knownZone(timezone))) {
      throw new InvalidInputError("$.timezone", `unknown time zone ${JSON.stringify(timezone)}`);
    }
    const body: Record<string, unknown> = { type: "chat_turn", role, text, message_id: id };
    if (timezone !== null) body.timezone = timezone;
    return this.write(body, id, ts);
  }

  private async write(body: Record<string, unknown>, key: string, ts: Date | undefined): Promise<Appended> {
    checkIdent(body.type === "chat_turn" ? "$.message_id" : "$.call_id", key);
    if (ts !== undefined && Number.isNaN(ts.getTime())) throw new InvalidInputError("$.ts", "invalid date");
    const { maxTsBehindS, maxTsAheadS } = this.client.limits;
    if (ts !== undefined && ts.getTime() < Date.now() - maxTsBehindS * 1000) {
      throw new InvalidInputError("$.ts", `more than ${maxTsBehindS} s before now`);
    }
    if (ts !== undefined && ts.getTime() > Date.now() + maxTsAheadS * 1000) {
      throw new InvalidInputError("$.ts", `more than ${maxTsAheadS} s after now`);
    }
    const traceparent = this.client.traceContext?.() ?? null;
    if (traceparent !== null && !TRACEPARENT.test(traceparent)) {
      throw new InvalidInputError("$.traceparent", "must be W3C trace context 00-<32 hex>-<16 hex>-<2 hex>");
    }
    const document = {
      ...body,
      agent_id: this.agentId,
      user_id: this.userId,
      session_id: this.sessionId,
      ts: (ts ?? new Date()).toISOString(),
      ...(traceparent === null ? {} : { traceparent }),
    };
    const data = JSON.stringify(document);
    // The largest seq stands in for the real one: the worker's entry size check.
    if (bytes(data) + `"seq":${MAX_SEQ},`.length > this.client.limits.maxEntryBytes) {
      throw new InvalidInputError("$", `entry longer than ${this.client.limits.maxEntryBytes} bytes`);
    }
    const family = { chat_turn: "chat-turn", tool_call: "tool-call", tool_result: "tool-result" }[
      body.type as "chat_turn" | "tool_call" | "tool_result"
    ];
    const idempotencyKey = `${String(body.type)}:${key}`;
    const c = this.client;
    await this.placed();
    let attempt = 0;
    // Refusals by the layout (`accord repartition`): when to stop waiting, the next pause,
    // and whether the last one named a count (retried at once, once in a row).
    let waitingUntil: number | null = null;
    let pause = c.retryBackoffMs;
    let followed = false;
    for (;;) {
      // The key names under the count as known now: a refusal may have changed it.
      const [p, count] = [this.partition, c.partitions];
      const stream = keys.stream(family, p);
      try {
        const args: Parameters<AppendCommand> = [
          keys.gatewaySeq(p, this.agentId, this.userId, this.sessionId),
          keys.gatewayIdem(p, this.agentId, this.userId, this.sessionId),
          stream,
          keys.layout(p),
          idempotencyKey,
          data,
          c.idempotencyWindow,
          c.idempotencyTtlS,
          // With the wait, a repeated key is written again (unchanged): the WAIT counts this
          // connection's writes, and the first append may have gone out on an earlier one.
          c.waitReplicas > 0 ? "1" : "0",
          count,
        ];
        const [seq, entryId, repeated] = await c.appendDurably(args);
        return { seq: Number(seq), entryId: String(entryId), stream, repeated: Number(repeated) === 1 };
      } catch (error) {
        const refusal = layoutRefusal(error);
        if (refusal !== null) {
          // Nothing was written. A new count: its partition, at once.
          if (!followed && c.followRefusal(refusal)) {
            followed = true;
            continue;
          }
          // A move under way (or refused again): wait for it, up to layoutWaitMs.
          followed = false;
          const now = Date.now();
          waitingUntil ??= now + c.layoutWaitMs;
          if (now >= waitingUntil) throw new AppendUnavailableError(key, error);
          await sleep(Math.min(pause, waitingUntil - now));
          pause = Math.min(pause * 2, LAYOUT_PAUSE_MAX_MS);
          await c.learnPartitions();
          continue;
        }
        // Another reply error is the server's answer (WRONGTYPE, NOPERM, a missing
        // function): retrying changes nothing.
        if ((error as Error).name === "ReplyError" || error instanceof FunctionMissingError) throw error;
        if (attempt >= c.retries) throw new AppendUnavailableError(key, error);
        await sleep(c.retryBackoffMs * 2 ** attempt);
        attempt++;
      }
    }
  }

  /** Call `soul_agreement_accept` and wait for its outcome (R3), or AcceptTimeoutError. */
  async accept(
    recordId: string,
    expectedRevision: number,
    options: WriteOptions & { timeoutMs?: number; callId?: string } = {},
  ): Promise<ToolOutcome> {
    if (!Number.isInteger(expectedRevision)) throw new InvalidInputError("$.arguments.expected_revision", "must be an integer");
    if (expectedRevision < 1) throw new InvalidInputError("$.arguments.expected_revision", "must be >= 1");
    checkIdent("$.arguments.record_id", recordId);
    const callId = options.callId ?? `accept-${randomUUID()}`;
    const timeoutMs = options.timeoutMs ?? 10_000;
    const appended = await this.toolCall(
      ACCEPT_TOOL_NAME,
      { record_id: recordId, expected_revision: expectedRevision },
      { callId, ts: options.ts },
    );
    const outcome = await this.waitOutcome(callId, appended.entryId, timeoutMs);
    if (outcome === null) throw new AcceptTimeoutError(callId, appended.seq, timeoutMs);
    return outcome;
  }

  /** The tool outcome for `callId` published after entry `after`, or null in time.
   * Polls (no blocking read), so it never holds up the client's shared connection. */
  async waitOutcome(callId: string, after: string, timeoutMs: number): Promise<ToolOutcome | null> {
    const stream = keys.stream("agreement-events", await this.placed());
    let cursor = msBefore(after);
    const deadline = Date.now() + timeoutMs;
    let delay = 2;
    while (Date.now() < deadline) {
      const reply = await this.client.redis.xread("COUNT", 500, "STREAMS", stream, cursor);
      const entries = reply?.[0]?.[1] ?? [];
      for (const [entryId, flat] of entries) {
        cursor = entryId;
        const data = fieldsOf(flat).get("__data__");
        if (data === undefined || !data.includes(callId)) continue;
        const event = JSON.parse(data) as { type?: string; call_id?: string; session_id?: string };
        if (event.type === "agreement.tool_outcome" && event.call_id === callId && event.session_id === this.sessionId) {
          return event as ToolOutcome;
        }
      }
      if (entries.length === 0) {
        await sleep(delay);
        delay = Math.min(delay * 2, 50);
      }
    }
    return null;
  }

  /** This session's view (R6): one HGET, filtered by deadline at `asOf` (default now);
   * without `asOf`, the committed state, as `scopeView`. */
  async view(options: { asOf?: Date } = {}): Promise<SessionView> {
    const document = await this.client.scopeViewDocument(this.agentId, this.userId);
    const now = options.asOf === undefined;
    return sessionViewAsOf(document, this.sessionId, options.asOf ?? new Date(), { now });
  }

  /** Every seq up to the returned one is applied (or skipped as a gap). */
  async appliedSeq(): Promise<number> {
    const raw = await this.client.readFollowing((count) =>
      this.client.redis.hget(keys.view(this.place(count), this.agentId, this.userId), keys.appliedField(this.sessionId)),
    );
    return raw == null ? 0 : Number(raw);
  }

  async applied(seq: number): Promise<boolean> {
    return (await this.appliedSeq()) >= seq;
  }

  async waitApplied(seq: number, options: { timeoutMs?: number } = {}): Promise<void> {
    const timeoutMs = options.timeoutMs ?? 10_000;
    const deadline = Date.now() + timeoutMs;
    let delay = 2;
    for (;;) {
      const applied = await this.appliedSeq();
      if (applied >= seq) return;
      if (Date.now() >= deadline) throw new AppliedTimeoutError(seq, applied, timeoutMs);
      await sleep(delay);
      delay = Math.min(delay * 2, 50);
    }
  }
}

// --------------------------------------------------------------------- subscription

export interface SubscribeOptions {
  consumer?: string;
  /** The partitions to read; without, every partition of the layout, followed as it changes. */
  partitions?: number[];
  /** Where a new group starts: "0" the whole retained stream, "$" new events only. */
  start?: string;
  /** Move the group of a partition to an entry id (XGROUP SETID). */
  resumeFrom?: Record<number, string>;
  blockMs?: number;
  count?: number;
  dedupSize?: number;
  /** How often a subscription that follows the layout asks for the partition count (ms). */
  layoutCheckMs?: number;
}

/** An event this client cannot type: a newer kind (outputs only grow), or malformed. */
export interface UnknownEvent {
  type: string;
  data: string;
  unknown: true;
}

export interface Delivery {
  partition: number;
  stream: string;
  /** The stream entry id: what is acked, where to resume from. */
  entryId: string;
  /** Deterministic per event: the key to deduplicate by. */
  eventId: string;
  event: AgreementEvent | UnknownEvent;
}

// How often a subscription that follows the layout asks Redis for the partition count.
const LAYOUT_CHECK_MS = 1000;

const KNOWN = new Set([
  "agreement.state_changed",
  "agreement.tool_outcome",
  "agreement.clarification_requested",
  "agreement.proposal_refused",
  "agreement.claim_unverified",
]);

/**
 * `for await (const delivery of subscription)`: agreement events, at least once, in the
 * consumer group `group` (one per service). A delivery is acked when the next one is
 * asked for, that is after the loop body returned; call `ackCurrent()` after a `break`.
 * An event id already handed out by this process is acked and skipped (last `dedupSize`).
 * Reads block on a connection of its own (`redis.duplicate()`); `close()` ends it.
 *
 * Without `partitions` it follows the deployment's layout (asked every `layoutCheckMs`, 1 s):
 * after `accord repartition` grows it, the new partitions' streams join (their groups at
 * `0`: nothing published there is missed), but only once this consumer has read every
 * stream it reads already up to where that stream ended when the change was seen (or a
 * read found nothing new there). A scope's events from before the move are all in its old
 * partition's stream by then, so they are handed out before its first event in the new
 * one (R15's order, kept across the move). Partitions a shrink retired are still read:
 * they only fall quiet.
 */
export class Subscription implements AsyncIterableIterator<Delivery> {
  readonly consumer: string;
  /** The streams read, by partition; with `partitions` unset, filled by `setup()`. */
  private readonly streams = new Map<number, string>();
  private readonly seen = new Set<string>();
  private buffer: Delivery[] = [];
  private current: Delivery | null = null;
  private reader: AnyRedis | null = null;
  /** Partitions whose own pending entries (delivered before a restart) are not read yet. */
  private readonly backlog = new Set<number>();
  private ready = false;
  /** Following the layout: when it was last asked, the partitions waiting to join, and
   * per stream read now, the entry it must be read to first (`barrier`) and the last
   * entry a new-entries read reached (`reached`). */
  private readonly follows: boolean;
  private layoutCheckedAt = 0;
  private joining: number[] = [];
  private barrier = new Map<number, string>();
  private readonly reached = new Map<number, string>();

  constructor(
    readonly client: AccordClient,
    readonly group: string,
    readonly options: SubscribeOptions,
  ) {
    if (!group) throw new InvalidInputError("group", "must not be empty");
    this.consumer = options.consumer ?? `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
    this.follows = options.partitions === undefined;
    for (const p of options.partitions ?? []) this.addStream(p);
  }

  /** The partitions read now. */
  get partitions(): number[] {
    return [...this.streams.keys()];
  }

  private addStream(p: number): void {
    this.streams.set(p, keys.stream("agreement-events", p));
    this.backlog.add(p);
  }

  [Symbol.asyncIterator](): Subscription {
    return this;
  }

  async setup(): Promise<void> {
    if (this.ready) return;
    if (this.follows) {
      const count = await this.client.learnPartitions();
      this.layoutCheckedAt = Date.now();
      for (let p = 0; p < count; p++) this.addStream(p);
    }
    for (const [p, stream] of this.streams) {
      await this.createGroup(stream, this.options.start ?? "0");
      const resume = this.options.resumeFrom?.[p];
      if (resume !== undefined) await this.client.redis.xgroup("SETID", stream, this.group, resume);
    }
    this.reader = this.client.redis.duplicate();
    this.ready = true;
  }

  private async createGroup(stream: string, start: string): Promise<void> {
    try {
      await this.client.redis.xgroup("CREATE", stream, this.group, start, "MKSTREAM");
    } catch (error) {
      if (!String(error).includes("BUSYGROUP")) throw error;
    }
  }

  /** Ask for the partition count now and then; let new partitions join once every stream
   * read now is read up to where it ended when the change was seen. */
  private async followLayout(): Promise<void> {
    if (!this.follows) return;
    const every = this.options.layoutCheckMs ?? LAYOUT_CHECK_MS;
    if (this.joining.length === 0 && Date.now() - this.layoutCheckedAt >= every) {
      this.layoutCheckedAt = Date.now();
      const count = await this.client.learnPartitions();
      const added = [...Array(count).keys()].filter((p) => !this.streams.has(p));
      if (added.length > 0) {
        this.joining = added;
        for (const [p, stream] of this.streams) {
          const [last] = (await this.client.redis.xrevrange(stream, "+", "-", "COUNT", 1)) as [string, string[]][];
          if (last !== undefined) this.barrier.set(p, last[0]);
        }
      }
    }
    if (this.joining.length === 0) return;
    for (const [p, mark] of this.barrier) {
      const reached = this.reached.get(p);
      if (reached === undefined || compareEntryIds(reached, mark) < 0) return;
    }
    for (const p of this.joining) {
      // At 0: every event of the new partition, from its first.
      await this.createGroup(keys.stream("agreement-events", p), "0");
      this.addStream(p);
    }
    this.joining = [];
    this.barrier = new Map();
  }

  async next(): Promise<IteratorResult<Delivery>> {
    await this.setup();
    await this.ackCurrent();
    for (;;) {
      const delivery = this.buffer.shift();
      if (delivery === undefined) {
        if (this.reader === null) return { done: true, value: undefined };
        await this.fill();
        continue;
      }
      if (delivery.eventId && this.seen.has(delivery.eventId)) {
        await this.ack(delivery);
        continue;
      }
      this.remember(delivery.eventId);
      this.current = delivery;
      return { done: false, value: delivery };
    }
  }

  async return(): Promise<IteratorResult<Delivery>> {
    return { done: true, value: undefined };
  }

  async ack(delivery: Delivery): Promise<void> {
    await this.client.redis.xack(delivery.stream, this.group, delivery.entryId);
  }

  async ackCurrent(): Promise<void> {
    if (this.current !== null) {
      const current = this.current;
      this.current = null;
      await this.ack(current);
    }
  }

  async close(): Promise<void> {
    const reader = this.reader;
    this.reader = null;
    reader?.disconnect();
  }

  private remember(eventId: string): void {
    if (!eventId) return;
    this.seen.add(eventId);
    if (this.seen.size > (this.options.dedupSize ?? 100_000)) {
      const oldest = this.seen.values().next().value;
      if (oldest !== undefined) this.seen.delete(oldest);
    }
  }

  private async read(ids: Map<number, string>, block: number | null): Promise<number> {
    const reader = this.reader;
    if (reader === null) return 0;
    const streams = [...ids.keys()].map((p) => this.streams.get(p) as string);
    const args: (string | number)[] = ["GROUP", this.group, this.consumer, "COUNT", this.options.count ?? 100];
    if (block !== null) args.push("BLOCK", block);
    args.push("STREAMS", ...streams, ...ids.values());
    let reply: unknown;
    try {
      reply = await (reader as Redis).call("XREADGROUP", ...args);
    } catch (error) {
      if (this.reader === null) return 0; // closed while blocked
      throw error;
    }
    let got = 0;
    const replied = (reply ?? []) as [string, [string, string[] | null][]][];
    for (const [p, id] of ids) {
      // A stream a new-entries read found nothing in is read to its end: past its barrier.
      const mark = this.barrier.get(p);
      if (id === ">" && mark !== undefined && !replied.some(([s, e]) => s === this.streams.get(p) && e.length > 0)) {
        this.reached.set(p, mark);
      }
    }
    for (const [stream, entries] of replied) {
      const p = [...this.streams].find(([, s]) => s === stream)?.[0] as number;
      const lastId = entries[entries.length - 1]?.[0];
      if (ids.get(p) === ">" && lastId !== undefined) this.reached.set(p, lastId);
      for (const [entryId, flat] of entries) {
        got += 1;
        if (flat === null) {
          await this.client.redis.xack(stream, this.group, entryId); // trimmed meanwhile
          continue;
        }
        this.buffer.push(decodeDelivery(p, stream, entryId, fieldsOf(flat).get("__data__")));
      }
    }
    return got;
  }

  private async fill(): Promise<void> {
    await this.followLayout();
    for (const p of [...this.backlog]) {
      if ((await this.read(new Map([[p, "0"]]), null)) === 0) this.backlog.delete(p);
    }
    if (this.buffer.length) return;
    const partitions = [...this.streams.keys()];
    if (this.client.redis.isCluster && partitions.length > 1) {
      // Streams in different slots cannot share one blocking read: poll each.
      let got = 0;
      for (const p of partitions) got += await this.read(new Map([[p, ">"]]), null);
      if (!got) await sleep(Math.min(50, this.options.blockMs ?? 1000));
      return;
    }
    await this.read(new Map(partitions.map((p) => [p, ">"])), this.options.blockMs ?? 1000);
  }
}

/** Stream entry ids (`<ms>-<seq>`) in stream order: negative, zero or positive. */
function compareEntryIds(a: string, b: string): number {
  const [am, as] = a.split("-").map(BigInt) as [bigint, bigint];
  const [bm, bs] = b.split("-").map(BigInt) as [bigint, bigint];
  return am !== bm ? (am < bm ? -1 : 1) : as === bs ? 0 : as < bs ? -1 : 1;
}

function decodeDelivery(partition: number, stream: string, entryId: string, data: string | undefined): Delivery {
  if (data === undefined) {
    return { partition, stream, entryId, eventId: "", event: { type: "?", data: "", unknown: true } };
  }
  let parsed: { type?: unknown; event_id?: unknown };
  try {
    parsed = JSON.parse(data) as { type?: unknown; event_id?: unknown };
  } catch {
    return { partition, stream, entryId, eventId: "", event: { type: "?", data, unknown: true } };
  }
  const type = typeof parsed.type === "string" ? parsed.type : "?";
  const eventId = typeof parsed.event_id === "string" ? parsed.event_id : "";
  const event = KNOWN.has(type) ? (parsed as AgreementEvent) : { type, data, unknown: true as const };
  return { partition, stream, entryId, eventId, event };
}

// ------------------------------------------------------------------- the accept tool

export type ToolApi = "openai_chat" | "openai_responses" | "anthropic" | "gemini";

/** `soul_agreement_accept` in the tool format of `api`, ready to register as it is (R3). */
export function acceptTool(api: ToolApi): Record<string, unknown> {
  return JSON.parse(JSON.stringify(ACCEPT_TOOL[api])) as Record<string, unknown>;
}

/** What the model sees as the tool's result (docs/gateway.md); null: the call timed out. */
export function toolResultText(outcome: ToolOutcome | null): string {
  const texts: Record<string, string> = ACCEPT_TOOL.result_texts;
  if (outcome === null) return texts.timeout as string;
  const reason = outcome.reason ?? "unknown";
  const values: Record<string, string> = {
    record_id: outcome.record_id ?? "the record",
    current_revision: String(outcome.current_revision ?? "None"),
    state: outcome.state ?? "unknown",
    reason,
  };
  const template = outcome.accepted ? texts.accepted : (texts[reason] ?? texts.rejected_other);
  // Python's str.format: {name} is a value, {{ and }} are literal braces.
  return (template as string).replace(/\{\{|\}\}|\{(\w+)\}/g, (match, name?: string) =>
    name === undefined ? match[0] as string : (values[name] ?? match),
  );
}
