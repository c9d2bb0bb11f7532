// The statements that find inbox and outbox rows by id (`id = ANY($n)`: the running mark, the turn
// end's `ended`, the sent mark) after their tables grew past what a connection's first executions
// saw. A named statement's plan is cached per connection: after five custom plans PostgreSQL keeps a
// generic one when it is no dearer, planned on the statistics of that moment, and keeps it until
// the table's plans are invalidated (an ANALYZE). Planned on a fresh database's tiny tables, that
// plan scanned the whole table at every call as the tables grew (#45.2: 10-18 ms a call in an
// ingest-pg-ledger run); store-postgres now has its connections plan each run for its parameters
// (plan_cache_mode, connect.ts). The plans are the store's own connections' as executed, read from
// auto_explain (sent to them as notices); scan nodes are asserted, never a time.
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it } from "vitest";
import type { ChatDb } from "../src/index.js";
import { postgresDriver, postgresUrlOf, tempRoot } from "./helpers.js";
import { storePg } from "./pg-statements.js";

const GROWN = 5_000;

/** The statements under test, by a part of their text (pg-writes.ts, turn-end-batch.ts). */
const STATEMENTS = {
  running: /Query Text: UPDATE "inbox" SET status = 'running'/,
  ended: /ended AS \(UPDATE "inbox" SET status = u.status/,
  sent: /Query Text: UPDATE "outbox" SET status = 'sent'/,
};

type Sql = (text: string, values?: unknown[]) => Promise<Record<string, unknown>[]>;

/**
 * Two threads' messages through the store as turns write them, the two at once (their running
 * marks, turn ends and sent marks share statements): accepted, running, ended with a reply, sent.
 */
async function messages(db: ChatDb, sql: Sql, n: number) {
  const threads = [`a${n}`, `b${n}`];
  const ids = await Promise.all(
    threads.map(async (thread) => {
      const origin = { gateway: "g", thread, meta: {} };
      const accepted = await db.inbox.accept({ gateway: "g", dedupKey: thread, thread, text: "q", origin });
      if (!accepted.accepted) throw new Error("not accepted");
      return accepted.id;
    }),
  );
  expect(await Promise.all(ids.map((id) => db.inbox.markRunning(id)))).toEqual([true, true]);
  const reply = (thread: string) => [
    { gateway: "g", thread, idemKey: thread, kind: "text" as const, payload: {} },
  ];
  const ends = ids.map((id, i) => db.inbox.finish(id, "done", reply(threads[i]!), { last: true }));
  expect(await Promise.all(ends)).toEqual([true, true]);
  const pieces = await sql("SELECT id FROM outbox WHERE idem_key = ANY($1) ORDER BY id", [threads]);
  expect(await Promise.all(pieces.map((p) => db.outbox.markSent(Number(p.id), "p")))).toEqual([true, true]);
}

/** `count` finished records and sent pieces written beside the store's (`from` numbers them). */
async function history(sql: Sql, from: number, count: number) {
  const to = from + count - 1;
  await sql(
    `INSERT INTO inbox (gateway, dedup_key, thread, text, origin, status, received_at, finished_at)
     SELECT 'g', 'old' || i, 'old' || i, 'x', '{}', 'done', 0, 0 FROM generate_series(${from}, ${to}) i`,
  );
  await sql(
    `INSERT INTO outbox (gateway, thread, idem_key, kind, payload, status, attempts, next_attempt_at, created_at, finished_at)
     SELECT 'g', 'old' || i, 'old' || i, 'text', '{}', 'sent', 1, 0, 0, 0 FROM generate_series(${from}, ${to}) i`,
  );
}

describe.skipIf(postgresMissing)(
  "[postgres] id lookups on tables grown since a connection's first calls",
  () => {
    it("the running mark, the turn end's ended clause and the sent mark read their rows by index, not by a scan of the grown table", async () => {
      const appRoot = tempRoot();
      const created = await postgresDriver.open({ appRoot });
      created.close();
      await created.closedSettled;
      const admin = new (storePg().Client)({ connectionString: await postgresUrlOf(appRoot) });
      await admin.connect();
      const sql: Sql = async (text, values = []) => (await admin.query(text, values)).rows;
      const pg = storePg().Client.prototype as unknown as {
        emit: (event: string, ...args: unknown[]) => boolean;
      };
      const emit = pg.emit;
      const plans: string[] = [];
      try {
        const [{ name }] = (await sql("SELECT current_database() AS name")) as [{ name: string }];
        // Every plan of the store's sessions to them as a notice; no autovacuum ANALYZE replans in between.
        for (const setting of [
          "session_preload_libraries = 'auto_explain'",
          "auto_explain.log_min_duration = 0",
          "auto_explain.log_level = notice",
        ])
          await sql(`ALTER DATABASE "${name}" SET ${setting}`);
        await sql("ALTER TABLE inbox SET (autovacuum_enabled = false)");
        await sql("ALTER TABLE outbox SET (autovacuum_enabled = false)");
        pg.emit = function (this: unknown, event: string, ...args: unknown[]) {
          if (event === "notice") plans.push(String((args[0] as { message?: string }).message));
          return emit.apply(this, [event, ...args]);
        };
        // A fresh database's first minute: tables of a few rows, analyzed so (autovacuum's first
        // pass), then each statement past its five custom plans on each connection it ran on.
        await history(sql, 1, 20);
        await sql("ANALYZE inbox; ANALYZE outbox");
        const db = await postgresDriver.open({ appRoot });
        for (let n = 0; n < 10; n++) await messages(db, sql, n);
        // Grown since, not analyzed (autovacuum's naptime is a minute; a burst fills it sooner).
        await history(sql, 21, GROWN);
        plans.length = 0;
        for (let n = 10; n < 13; n++) await messages(db, sql, n);
        const ran = Object.entries(STATEMENTS).map(([statement, text]) => {
          const own = plans.filter((p) => text.test(p));
          const scans = own.flatMap((p) => [...p.matchAll(/Seq Scan on (inbox|outbox)\b/g)].map((m) => m[0]));
          return { statement, runs: own.length, scans };
        });
        // Each ran once a round or more (grouped: two records a statement), reading by index only.
        for (const r of ran) expect(r.runs, r.statement).toBeGreaterThanOrEqual(3);
        expect(
          ran.map((r) => [r.statement, r.scans]),
          plans.join("\n"),
        ).toEqual([
          ["running", []],
          ["ended", []],
          ["sent", []],
        ]);
      } finally {
        pg.emit = emit;
        await admin.end();
      }
    }, 60_000);
  },
);
