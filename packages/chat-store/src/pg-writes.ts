// PostgreSQL: a gateway message's own statements (its inbox row accepted, taken and ended with the
// turn's messages and reply, the reply marked sent) as SQL written here once, instead of built by
// drizzle on every call: in a V8 profile of an ingest-pg burst, drizzle building the statement that
// ends a turn was 11-13% of the server's CPU and building the accepts' multi-row INSERT 8% (#45).
// Rows travel as arrays (unnest), so one text serves any number of rows: each text is a named
// statement, parsed and planned once per connection (store-postgres named-statements.ts).
import type { Db } from "./context.js";
import type { AcceptRow } from "./accept-batch.js";
import type { OutboxValues } from "./outbox.js";
import type { UsageEntry } from "./usage-ledger.js";

/** One statement: its text (placeholders `$1`...) and parameters. */
export interface PgQuery {
  text: string;
  params: unknown[];
}

type Row = Record<string, unknown>;

interface Queryable {
  query(config: { text: string; values: unknown[] }): Promise<{ rows: Row[] }>;
}

/**
 * The node-postgres pool (or a transaction's pooled connection) under a drizzle handle: drizzle's
 * session holds it, on the root handle and on a transaction's alike.
 */
function clientOf(db: Db): Queryable {
  const client = (db as unknown as { session?: { client?: Queryable } }).session?.client;
  if (typeof client?.query !== "function")
    throw new TypeError("pg-writes: not a node-postgres drizzle handle");
  return client;
}

/** Runs `q` on the handle's connection (the transaction's when it is one); its rows. */
export async function pgRows(db: Db, q: PgQuery): Promise<Row[]> {
  return (await clientOf(db).query({ text: q.text, values: q.params })).rows;
}

/** bigint columns come back as strings from node-postgres (drizzle's mapping made them numbers). */
export const ids = (rows: Row[], column = "id"): number[] => rows.map((r) => Number(r[column]));

const INBOX_COLUMNS = "gateway, dedup_key, thread, text, origin, status, received_at, attachments";

// unnest yields the rows in the arrays' order: ids follow the callers' order, as a VALUES list's do.
const INBOX_ACCEPT = `INSERT INTO "inbox" (${INBOX_COLUMNS}) SELECT g, k, t, x, o, 'queued', r, a \
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::text[]) \
AS u(g, k, t, x, o, r, a) ON CONFLICT (gateway, dedup_key) DO NOTHING RETURNING id, gateway, dedup_key`;

// The same, each inserted row announced to its thread's holder in the statement (several instances):
// a NOTIFY of the row's payload, its id added, when another session holds the thread's advisory lock
// exclusively, as every instance holds a thread's (the recorder's rows carry `announce` only for
// threads its instance does not hold). Sent on commit, so the holder reads a committed row; a row
// whose thread is free is not announced (its recorder takes it). A key in a batch twice: one row
// inserted, one answer. The payload carries the record (`record`: text, origin, attachments) and
// `prior`, the thread's queued records older than it as the statement saw them (rows committed
// before it), so a holder that took all of those takes this one without reading it. NOTIFY refuses
// 8000 bytes: a record that does not fit goes without itself and `prior`, and `prior` with more ids
// than fit beside the record is left out (the holder reads the thread either way).
// "Held" is asked of the lock manager, in O(1) a row: `pg_try_advisory_xact_lock_shared` fails at once
// when a session holds the key exclusively. pg_locks (read before) copies the server's whole lock
// table, every held thread a row (~1,000 in a burst: 0.35-0.45 ms a statement, growing with the
// threads held; on three instances 0.20 exec ms a message against 0.03 on one, #45.3). Two things
// differ from that read:
// - The holder is not named: a thread the recorder's own instance holds (its take answered after the
//   recording was prepared, or its give-back in flight) is announced too, to every instance. Its own
//   link hears it: a take in flight reads the thread's queue after the lock was granted, and this
//   record committed before the NOTIFY came (session-core: an instance that holds the thread, or let
//   it go in the last 500 ms, looks; the others ignore a `held` announcement).
// - A free key is held shared by this transaction until it commits (sub-ms): a take of the thread
//   elsewhere meanwhile fails as if it were held (the recorder of another message, a sweep). Such a
//   row is not announced, and its recorder takes the thread after this commit and reads its queued
//   records then (session-core dispatch.ts): whatever the failed take was for, committed before it,
//   is read by that take. (A recorder that holds no room for it announces it as free, after the
//   commit; one inside a transaction of its caller's holds the key until that commits.)
// The statement lives in a function (store-schema step 23, `inbox_accept_announcing`; step 21's
// `inbox_accept_announced` stays for instances of the version before) whose settings give it a
// generic plan cached per connection, its `prior` read by inbox_thread_open whatever the statistics:
// planned here at each run (store-postgres's force_custom_plan), it cost ~0.2 ms a plan against ~0.03
// for the plain INSERT (#45.3). The record goes in the payload here (the statement only adds the id
// and `prior`), and each inserted row finds its announcement by its place in the arrays, not by a
// join and a sort: step 21's json work and join were ~20 us of a call's ~110 over the plain INSERT
// (pgexec12). A change of the statement is a new schema step.
const INBOX_ACCEPT_ANNOUNCING = `SELECT id, gateway, dedup_key, announced FROM inbox_accept_announcing(\
$1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::text[], $8::bigint[], \
$9::text[], $10::text[], $11::int[])`;

/** PostgreSQL refuses a NOTIFY payload of 8000 bytes or more (in the server encoding, UTF-8). */
const NOTIFY_LIMIT = 8000;
/** What the statement adds besides `prior`: `,"id":`, up to 19 digits, the closing brace. */
const ID_BYTES = 26;
/** `,"prior":[` and `]`, then up to 19 digits and a comma an id. */
const PRIOR_BYTES = 11;
const PRIOR_ID_BYTES = 20;

/**
 * A row's NOTIFY payload as the statement gets it (`announce.payload` with the record in it) and how
 * many `prior` ids fit beside it under the limit (-1: no `prior`). A record too large to carry goes
 * without the record and `prior` (the holder reads the thread), as a payload reaching 8000 bytes did.
 */
export function announcePayload(row: AcceptRow, payload: string): { payload: string; priorCap: number } {
  const withRecord = `${payload.slice(0, -1)},"record":{"text":${JSON.stringify(row.text)},"origin":${row.origin},"attachments":${row.attachments ?? "null"}}}`;
  const room = NOTIFY_LIMIT - 1 - Buffer.byteLength(withRecord, "utf8") - ID_BYTES - PRIOR_BYTES;
  // n ids take 20n - 1 bytes.
  if (room >= 0) return { payload: withRecord, priorCap: Math.floor((room + 1) / PRIOR_ID_BYTES) };
  return { payload, priorCap: -1 };
}

/**
 * Queued inbox rows unless their (gateway, dedupKey) exists; returns the inserted ones (id, gateway,
 * dedup_key, and `announced` when a row had `announce` and its thread's lock was held: the NOTIFY went).
 */
export function inboxAccept(rows: readonly AcceptRow[]): PgQuery {
  const params: unknown[] = [
    rows.map((r) => r.gateway),
    rows.map((r) => r.dedupKey),
    rows.map((r) => r.thread),
    rows.map((r) => r.text),
    rows.map((r) => r.origin),
    rows.map((r) => r.receivedAt),
    rows.map((r) => r.attachments),
  ];
  // Without announcements (one instance, a thread held here), the plain INSERT.
  if (!rows.some((r) => r.announce)) return { text: INBOX_ACCEPT, params };
  const payloads = rows.map((r) => (r.announce ? announcePayload(r, r.announce.payload) : undefined));
  params.push(
    rows.map((r) => r.announce?.lock.key ?? null),
    rows.map((r) => r.announce?.channel ?? null),
    payloads.map((p) => p?.payload ?? null),
    payloads.map((p) => p?.priorCap ?? null),
  );
  return { text: INBOX_ACCEPT_ANNOUNCING, params };
}

// The records by primary key, their status checked as NOT IN the others (the statuses are a CHECKed
// set, so it means the same; no index serves it): with `status = 'queued'` the generic plan, on
// statistics that show few unfinished records, read every unfinished one by inbox_status and
// filtered by id: the whole backlog, each call (#45.2).
const INBOX_RUNNING = `UPDATE "inbox" SET status = 'running', started_at = $1 \
WHERE id = ANY($2::bigint[]) AND status NOT IN ('running', 'done', 'rejected', 'failed') RETURNING id`;

/** queued -> running for the records `ids`; returns those it moved. */
export function inboxRunning(recordIds: readonly number[], now: number): PgQuery {
  return { text: INBOX_RUNNING, params: [now, recordIds] };
}

const INBOX_END = `UPDATE "inbox" SET status = $1, finished_at = $2 \
WHERE id = $3 AND status IN ('queued', 'running') RETURNING id`;

/** queued|running -> `status`; returns the record when it moved. */
export function inboxEnd(id: number, status: string, now: number): PgQuery {
  return { text: INBOX_END, params: [status, now, id] };
}

/** The main query over `ended` (inboxEnd as a WITH clause): how many rows it ended. */
export const ENDED_COUNT: PgQuery = { text: "SELECT count(*)::int AS n FROM ended", params: [] };

export const OUTBOX_COLUMNS =
  "gateway, thread, idem_key, kind, payload, status, next_attempt_at, created_at, traceparent";

const OUTBOX_INSERT = `INSERT INTO "outbox" (${OUTBOX_COLUMNS}) SELECT * FROM unnest($1::text[], \
$2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::bigint[], $9::text[]) \
ON CONFLICT (idem_key) DO NOTHING`;
const OUTBOX_INSERT_IDS = `${OUTBOX_INSERT} RETURNING id`;

/** Outbox pieces in order, those whose idemKey exists skipped; `returning`: their new ids. */
export function outboxInsert(rows: readonly OutboxValues[], returning = false): PgQuery {
  return {
    text: returning ? OUTBOX_INSERT_IDS : OUTBOX_INSERT,
    params: [
      rows.map((r) => r.gateway),
      rows.map((r) => r.thread),
      rows.map((r) => r.idemKey),
      rows.map((r) => r.kind),
      rows.map((r) => r.payload),
      rows.map((r) => r.status ?? "pending"),
      rows.map((r) => r.nextAttemptAt),
      rows.map((r) => r.createdAt),
      rows.map((r) => r.traceparent ?? null),
    ],
  };
}

// The rows by primary key (`id = ANY` beside the join), their status checked as NOT IN the others:
// with `status = 'pending'` the generic plan, on statistics that show few pending rows, walked the
// whole of outbox_thread_pending (every pending row) for each call and joined it to the marks.
const OUTBOX_SENT = `UPDATE "outbox" SET status = 'sent', attempts = "outbox".attempts + 1, \
platform_id = m.platform_id, finished_at = $1 FROM unnest($2::bigint[], $3::text[]) AS m(id, platform_id) \
WHERE "outbox".id = ANY($2::bigint[]) AND "outbox".id = m.id AND "outbox".status NOT IN ('sent', 'dead') \
RETURNING "outbox".id`;

/**
 * pending -> sent, one attempt more, for each `[id, platformId]`; returns the ids it moved. An id
 * listed twice takes its first platform id (a row is updated once).
 */
export function outboxSent(
  marks: readonly { id: number; platformId: string | null }[],
  now: number,
): PgQuery {
  const seen = new Set<number>();
  const unique = marks.filter((m) => !seen.has(m.id) && seen.add(m.id));
  return {
    text: OUTBOX_SENT,
    params: [now, unique.map((m) => m.id), unique.map((m) => m.platformId)],
  };
}

const MEMORY_INSERT = `INSERT INTO "memory_messages" (user_id, conversation_id, role, body, created_at) \
SELECT $1::text, $2::text, m.role, m.body, m.created_at FROM unnest($3::text[], $4::text[], $5::bigint[]) \
AS m(role, body, created_at)`;

/** The columns of a MEMORY_INSERT query (`memoryInsert`), one entry a row; undefined for any other query. */
export function memoryRowsOf(
  q: PgQuery,
):
  | { userId: string; conversationId: string; role: unknown[]; body: unknown[]; createdAt: unknown[] }
  | undefined {
  if (q.text !== MEMORY_INSERT) return undefined;
  const [userId, conversationId, role, body, createdAt] = q.params as [
    string,
    string,
    unknown[],
    unknown[],
    unknown[],
  ];
  return { userId, conversationId, role, body, createdAt };
}

/** One scope's messages, numbered in their order. */
export function memoryInsert(
  rows: readonly { userId: string; conversationId: string; role: string; body: string; createdAt: number }[],
): PgQuery {
  const first = rows[0];
  return {
    text: MEMORY_INSERT,
    params: [
      first?.userId,
      first?.conversationId,
      rows.map((r) => r.role),
      rows.map((r) => r.body),
      rows.map((r) => r.createdAt),
    ],
  };
}

const USAGE_INSERT = `INSERT INTO "usage_ledger" (at, user_id, gateway, agent, conversation_id, provider, \
model, kind, outcome, input_tokens, output_tokens, cached_input_tokens, cache_write_input_tokens, reasoning_tokens, \
cost_nanos) SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], \
$7::text[], $8::text[], $9::text[], $10::bigint[], $11::bigint[], $12::bigint[], $13::bigint[], $14::bigint[], \
$15::bigint[])`;

/** Ledger rows, one a model call. */
export function usageInsert(rows: readonly UsageEntry[]): PgQuery {
  const column = <K extends keyof UsageEntry>(k: K) => rows.map((r) => r[k]);
  return {
    text: USAGE_INSERT,
    params: [
      column("at"),
      column("userId"),
      column("gateway"),
      column("agent"),
      column("conversationId"),
      column("provider"),
      column("model"),
      column("kind"),
      column("outcome"),
      column("inputTokens"),
      column("outputTokens"),
      column("cachedInputTokens"),
      rows.map((r) => r.cacheWriteInputTokens ?? 0),
      column("reasoningTokens"),
      column("costNanos"),
    ],
  };
}

const INBOX_RECORD = `id, gateway, dedup_key AS "dedupKey", thread, text, origin, status, \
received_at AS "receivedAt", started_at AS "startedAt", finished_at AS "finishedAt", attachments`;

/**
 * `... FROM inbox WHERE status IN (<statuses>) AND finished_at IS NULL AND (gateway, thread) IN (<the
 * threads>)` by statuses and lock (finished_at: the index of unfinished records, status-in.ts `unfinishedIn`).
 */
const INBOX_OF_THREADS = new Map(
  [["queued"], ["queued", "running"]].flatMap((statuses) =>
    [false, true].map((lock) => [
      `${statuses.join()}${lock ? " lock" : ""}`,
      `SELECT ${INBOX_RECORD} FROM "inbox" WHERE status IN (${statuses.map((x) => `'${x}'`).join(", ")}) \
AND finished_at IS NULL AND (gateway, thread) IN (SELECT * FROM unnest($1::text[], $2::text[])) ORDER BY id${lock ? " FOR UPDATE" : ""}`,
    ]),
  ),
);

/**
 * The inbox records of several threads in `statuses`, oldest first, locked (`FOR UPDATE`) with
 * `lock`; rows as drizzle maps them (`inboxRecordRow`).
 */
export function inboxOfThreads(
  keys: readonly { gateway: string; thread: string }[],
  statuses: readonly ("queued" | "running")[],
  lock: boolean,
): PgQuery {
  const text = INBOX_OF_THREADS.get(`${statuses.join()}${lock ? " lock" : ""}`);
  if (!text) throw new TypeError(`inboxOfThreads: no statement for ${statuses.join()}`);
  return { text, params: [keys.map((k) => k.gateway), keys.map((k) => k.thread)] };
}

const orNull = (v: unknown) => (v === null || v === undefined ? null : Number(v));

/** A row of INBOX_RECORD with its bigint columns as numbers. */
export function inboxRecordRow<T>(row: Row): T {
  return {
    ...row,
    id: Number(row.id),
    receivedAt: Number(row.receivedAt),
    startedAt: orNull(row.startedAt),
    finishedAt: orNull(row.finishedAt),
  } as T;
}

const OUTBOX_DUE = `SELECT id, gateway, thread, idem_key AS "idemKey", kind, payload, status, attempts, \
next_attempt_at AS "nextAttemptAt", last_error AS "lastError", platform_id AS "platformId", \
created_at AS "createdAt", finished_at AS "finishedAt", traceparent FROM "outbox" \
WHERE id = ANY(ARRAY(SELECT head_id FROM "outbox_heads" WHERE next_attempt_at <= $1 ORDER BY head_id LIMIT $2)) \
ORDER BY id`;

/**
 * Each due thread's head row, oldest first: the heads first, then their rows by primary key
 * (`ARRAY(...)` is evaluated once, an init plan: no join that scans outbox).
 */
export function outboxDue(now: number, limit: number): PgQuery {
  return { text: OUTBOX_DUE, params: [now, limit] };
}

/** The earliest `next_attempt_at` among thread heads (`at`: null when nothing is pending). */
export const OUTBOX_NEXT_DUE: PgQuery = {
  text: 'SELECT min(next_attempt_at) AS at FROM "outbox_heads"',
  params: [],
};

/** A row of OUTBOX_DUE with its bigint columns as numbers. */
export function outboxRow<T>(row: Row): T {
  return {
    ...row,
    id: Number(row.id),
    attempts: Number(row.attempts),
    nextAttemptAt: Number(row.nextAttemptAt),
    createdAt: Number(row.createdAt),
    finishedAt: orNull(row.finishedAt),
  } as T;
}

/** Composed texts by the texts they are made of (trie over the parts' text strings). */
interface Composed {
  next: Map<string, Composed>;
  text?: string;
}
const composed: Composed = { next: new Map() };
let composedCount = 0;
/** The written texts make a handful of compositions; more than this is not kept. */
const MAX_COMPOSED = 64;

/** `text` with its placeholders moved up by `offset` (the texts here hold no other `$`). */
const shifted = (text: string, offset: number) =>
  offset === 0 ? text : text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);

function composeText(clauses: readonly PgQuery[], ended: PgQuery | undefined, main: PgQuery): string {
  const parts: string[] = [];
  let offset = 0;
  for (const [i, c] of clauses.entries()) {
    parts.push(`carried_${i} AS (${shifted(c.text, offset)})`);
    offset += c.params.length;
  }
  if (ended) {
    parts.push(`ended AS (${shifted(ended.text, offset)})`);
    offset += ended.params.length;
  }
  return `WITH ${parts.join(", ")} ${shifted(main.text, offset)}`;
}

/**
 * One statement of data-modifying WITH clauses (`carried_0`, `carried_1`, ..., then `ended` when
 * given) and `main` (PostgreSQL runs each clause once, to completion). The text of a sequence of
 * texts is made once and handed out as the same string (its name lookup then hashes nothing new).
 */
export function withClauses(clauses: readonly PgQuery[], ended: PgQuery | undefined, main: PgQuery): PgQuery {
  if (clauses.length === 0 && !ended) return main;
  const params = [...clauses.flatMap((c) => c.params), ...(ended?.params ?? []), ...main.params];
  let node = composed;
  // The clause count first: sequences of different shapes never share a path.
  for (const text of [String(clauses.length), ...clauses.map((c) => c.text), ended?.text ?? "", main.text]) {
    let child = node.next.get(text);
    if (!child) {
      if (composedCount >= MAX_COMPOSED) return { text: composeText(clauses, ended, main), params };
      child = { next: new Map() };
      node.next.set(text, child);
      composedCount++;
    }
    node = child;
  }
  node.text ??= composeText(clauses, ended, main);
  return { text: node.text, params };
}
