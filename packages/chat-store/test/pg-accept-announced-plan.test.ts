// The announcing inbox accept's plan on a grown inbox (store-schema steps 21 and 23, #45.3): its
// statement runs in a function with a generic plan cached per connection, made on the statistics of
// its first call, and finds each inserted row's announcement by its place in the arrays (step 23: no
// join back to them, no sort). Made on a fresh database's few rows, a generic plan of the `prior` lookup (the thread's
// queued records older than the new one) would scan inbox, and keep scanning it as inbox grew. The
// plans are the store's own connections' as executed, read from auto_explain (nested statements,
// with their rows, sent to them as notices); scan nodes and rows read are asserted, never a time.
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it } from "vitest";
import type { ChatDb } from "../src/index.js";
import { postgresDriver, postgresUrlOf, tempRoot } from "./helpers.js";
import { nodes, type PlanNode, rowsRead } from "./plan-nodes.js";
import { type PgClient, storePg } from "./pg-statements.js";

const CHANNEL = "accept_plan_test";
/** Threads and records of the grown inbox: 20 records a thread, a third of them unfinished. */
const THREADS = 500;
const GROWN = 10_000;
/** The advisory key of thread `t<n>`, held by another session for the threads the accepts go to. */
const keyOf = (n: number) => String(9_000_000 + n);

type Sql = (text: string, values?: unknown[]) => Promise<Record<string, unknown>[]>;

interface Explained {
  "Query Text": string;
  Plan: PlanNode & { "Function Call"?: string };
}

/** Records of `count` threads from `from`: the rest done, each third queued, each ninth running. */
async function grow(sql: Sql, count: number) {
  await sql(
    `INSERT INTO inbox (gateway, dedup_key, thread, text, origin, status, received_at, finished_at)
     SELECT 'g', 'old' || i, 't' || (i % ${THREADS}), 'x', '{}',
       CASE WHEN i % 9 = 0 THEN 'running' WHEN i % 3 = 0 THEN 'queued' ELSE 'done' END, 0,
       CASE WHEN i % 3 = 0 THEN NULL ELSE 0 END
     FROM generate_series(1, ${count}) i`,
  );
}

/**
 * Accepts of one message each to threads `t<n>` (held elsewhere, so announced), grouped in one
 * statement; returns that statement's plans and the unfinished records their threads had before.
 */
async function announcedAccepts(db: ChatDb, sql: Sql, plans: Explained[], round: string, threads: number[]) {
  const [{ n }] = (await sql(
    "SELECT count(*)::int AS n FROM inbox WHERE gateway = 'g' AND thread = ANY($1) AND finished_at IS NULL",
    [threads.map((t) => `t${t}`)],
  )) as [{ n: number }];
  plans.length = 0;
  const results = await Promise.all(
    threads.map((t) =>
      db.inbox.accept(
        {
          gateway: "g",
          dedupKey: `${round}-${t}`,
          thread: `t${t}`,
          text: "q",
          origin: { gateway: "g", thread: `t${t}`, meta: {} },
        },
        { announce: { lock: { pid: 0, key: keyOf(t) }, channel: CHANNEL, payload: '{"kind":"thread"}' } },
      ),
    ),
  );
  expect(results.every((r) => r.accepted && r.announced === true)).toBe(true);
  return { own: plans.filter((p) => /ins AS \(INSERT INTO "?inbox"? /.test(p["Query Text"])), unfinished: n };
}

/** What the test asserts of a run of the function's statement. */
const shape = (p: Explained) => ({
  seqScans: [...nodes(p.Plan)].filter((n) => n["Node Type"] === "Seq Scan").map((n) => n["Relation Name"]),
  // Step 21 joined the inserted rows back to the arrays and sorted them for DISTINCT ON (pgexec12).
  joinsAndSorts: [...nodes(p.Plan)]
    .filter((n) => /Join|Nested Loop|Hash|Sort|Unique/.test(n["Node Type"]))
    .map((n) => n["Node Type"]),
  prior: [...nodes(p.Plan)]
    .filter((n) => n["Relation Name"] === "inbox" && n["Node Type"] !== "ModifyTable")
    .map((n) => `${n["Node Type"]} using ${n["Index Name"]}`),
  // A cached generic plan names the function's arguments as parameters; a custom one their values.
  generic: [...nodes(p.Plan)].some((n) =>
    /^unnest\(\$1\), unnest\(\$2\)/.test((n as Explained["Plan"])["Function Call"] ?? ""),
  ),
});

describe.skipIf(postgresMissing)("[postgres] the announcing inbox accept on a grown inbox", () => {
  it("is planned once per connection, finds each row's announcement without a join or a sort, and reads a thread's prior records by inbox_thread_open, only its unfinished ones, on a plan made on few rows, before ANALYZE and after it", async () => {
    const appRoot = tempRoot();
    const created = await postgresDriver.open({ appRoot });
    created.close();
    await created.closedSettled;
    const url = await postgresUrlOf(appRoot);
    const clients: PgClient[] = [];
    const session = async () => {
      const client = new (storePg().Client)({ connectionString: url });
      await client.connect();
      clients.push(client);
      return client;
    };
    const admin = await session();
    const holder = await session();
    const sql: Sql = async (text, values = []) => (await admin.query(text, values)).rows;
    const pg = storePg().Client.prototype as unknown as {
      emit: (event: string, ...args: unknown[]) => boolean;
    };
    const emit = pg.emit;
    const plans: Explained[] = [];
    try {
      const [{ name }] = (await sql("SELECT current_database() AS name")) as [{ name: string }];
      // Every plan of the store's sessions to them as a notice (JSON, with rows read); no autovacuum ANALYZE in between.
      for (const setting of [
        "session_preload_libraries = 'auto_explain'",
        "auto_explain.log_min_duration = 0",
        "auto_explain.log_level = notice",
        "auto_explain.log_nested_statements = on",
        "auto_explain.log_analyze = on",
        "auto_explain.log_timing = off",
        "auto_explain.log_verbose = on",
        "auto_explain.log_format = json",
      ])
        await sql(`ALTER DATABASE "${name}" SET ${setting}`);
      await sql("ALTER TABLE inbox SET (autovacuum_enabled = false)");
      pg.emit = function (this: unknown, event: string, ...args: unknown[]) {
        const message = event === "notice" ? String((args[0] as { message?: string }).message) : "";
        if (message.includes("plan:"))
          plans.push(JSON.parse(message.slice(message.indexOf("{"))) as Explained);
        return emit.apply(this, [event, ...args]);
      };
      for (let t = 0; t < THREADS; t++) await holder.query("SELECT pg_advisory_lock($1::bigint)", [keyOf(t)]);
      // A fresh database's first minute: a few records, analyzed so (autovacuum's first pass), and
      // the statement's plan made on the store's connection by its first call.
      await grow(sql, 20);
      await sql("ANALYZE inbox");
      const db = await postgresDriver.open({ appRoot });
      const first = await announcedAccepts(db, sql, plans, "first", [1, 2, 3]);
      expect(first.own).toHaveLength(1);
      // Grown since, not analyzed (autovacuum's naptime is a minute; a burst fills it sooner).
      await sql("DELETE FROM inbox WHERE dedup_key LIKE 'old%'");
      await grow(sql, GROWN);
      const grown = await announcedAccepts(db, sql, plans, "grown", [10, 11, 12, 13, 14]);
      await sql("ANALYZE inbox");
      const analyzed = await announcedAccepts(db, sql, plans, "analyzed", [20, 21, 22, 23, 24]);
      for (const [when, run] of Object.entries({ grown, analyzed })) {
        expect(run.own.map(shape), when).toEqual([
          { seqScans: [], joinsAndSorts: [], prior: ["Index Scan using inbox_thread_open"], generic: true },
        ]);
        // Each announced record's `prior` read: its thread's unfinished records (a third of its 20),
        // no other; EXPLAIN gives a scan's rows as an average over its loops (one a record), rounded.
        const read = rowsRead(run.own[0]!.Plan, "inbox");
        expect(run.unfinished, when).toBeGreaterThanOrEqual(5 * 6);
        expect(Math.abs(read - run.unfinished), `${when}: ${read} rows read`).toBeLessThanOrEqual(5);
      }
    } finally {
      pg.emit = emit;
      for (const c of clients) await c.end();
    }
  }, 60_000);
});
