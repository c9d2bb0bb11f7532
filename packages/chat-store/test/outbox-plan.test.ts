// The plans of the outbox's "which replies are due" reads (`due`, `nextDueAt`) under a backlog of
// 10,000 pending replies, on a table with no statistics yet and after ANALYZE. Each reads the thread
// heads (outbox_heads, store step 13) and then only the outbox rows it returns, whatever the
// estimates. Before: a `NOT EXISTS (an earlier pending row of the same thread)`, planned on
// statistics that showed no pending rows as a nested-loop anti-join (O(pending²): 114-268 ms a call
// at 586-1,338 pending replies on PostgreSQL, #45), then a DISTINCT ON pass over every pending row
// (O(pending): 28-55 ms at 10,000). Plan shapes and rows read are asserted, never a time.
import { createHash } from "node:crypto";
import { postgresMissing } from "@agentsvc/pg-test";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { openStore, tempRoot } from "./helpers.js";
import { statementsOf, withOwnConnection } from "./pg-statements.js";
import { nodes, type PlanNode, rowsRead } from "./plan-nodes.js";

const PENDING = 10_000;
/** Five pending replies a thread, so most pending rows are not thread heads. */
const PER_THREAD = 5;
/** Replies sent already (the table is pruned only now and then). */
const SENT = 2_000;
const NOW = 1_000;
const THREADS = PENDING / PER_THREAD;

/** The ids `due(NOW, 32)` must return: each thread's oldest pending row, oldest first. */
const expectedDue = Array.from({ length: 32 }, (_, i) => SENT + 1 + i * PER_THREAD);

/** A sender's share of the partitions (outbox-share.ts): a quarter, as a helper holding one of four. */
const SHARE = { of: 4, parts: [1], hashed: ["http"] };

/** The ids `due(NOW, 32, undefined, SHARE)` must return: the heads of threads in partition 1 (session-core's hash). */
const expectedShareDue = Array.from({ length: THREADS }, (_, t) => t)
  .filter((t) => createHash("md5").update(`http\nt-${t}`, "utf8").digest().readUInt32BE(0) % 4 === 1)
  .slice(0, 32)
  .map((t) => SENT + 1 + t * PER_THREAD);

describe.skipIf(postgresMissing)("[postgres] the outbox's due reads under a backlog", () => {
  for (const [analyzed, shared] of [
    [false, false],
    [true, false],
    [false, true],
    [true, true],
  ]) {
    it(`read the thread heads and only the outbox rows returned, no anti-join, ${analyzed ? "after ANALYZE" : "on a table with no statistics"}${shared ? ", for a quarter share of the partitions" : ""}`, async () => {
      await withOwnConnection(async (db, client) => {
        await client.query(
          `INSERT INTO outbox (gateway, thread, idem_key, kind, payload, status, attempts, next_attempt_at, created_at, finished_at)
           SELECT 'http', 'sent-' || g, 'sent-' || g, 'text', '{}', 'sent', 1, 0, 0, 0 FROM generate_series(1, ${SENT}) AS g`,
        );
        await client.query(
          `INSERT INTO outbox (gateway, thread, idem_key, kind, payload, status, attempts, next_attempt_at, created_at)
           SELECT 'http', 't-' || (g / ${PER_THREAD}), 'p-' || g, 'text', '{}', 'pending', 0, 0, 0
           FROM generate_series(0, ${PENDING - 1}) AS g`,
        );
        if (analyzed) await client.query("ANALYZE outbox; ANALYZE outbox_heads");
        let due: number[] = [];
        let next: number | undefined;
        const sent = await statementsOf(async () => {
          due = (await db.outbox.due(NOW, 32, undefined, shared ? SHARE : undefined)).map((r) => r.id);
          next = await db.outbox.nextDueAt(shared ? SHARE : undefined);
        });
        expect(due).toEqual(shared ? expectedShareDue : expectedDue);
        expect(next).toBe(0);
        const reads = sent.filter((s) => /^\s*select/i.test(s.text) && s.text.includes("outbox"));
        expect(reads).toHaveLength(2);
        for (const read of reads) {
          // The pool runs named statements (store-postgres): a custom plan first, maybe a generic one later.
          for (const mode of ["force_custom_plan", "force_generic_plan"]) {
            await client.query(`SET plan_cache_mode = ${mode}`);
            await client.query(`PREPARE due_read AS ${read.text}`);
            const args = read.values.map((v) =>
              typeof v === "number" ? String(v) : Array.isArray(v) ? `'{${v.join(",")}}'` : `'${v}'`,
            );
            const { rows } = await client.query(
              `EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE due_read${args.length ? `(${args.join(", ")})` : ""}`,
            );
            await client.query("DEALLOCATE due_read");
            const plan = (rows[0] as { "QUERY PLAN": [{ Plan: PlanNode }] })["QUERY PLAN"][0].Plan;
            const all = [...nodes(plan)];
            const where = `${mode}: ${read.text}\n${JSON.stringify(plan)}`;
            expect(
              all.filter((n) => n["Join Type"] === "Anti" || n["Node Type"] === "SubPlan"),
              where,
            ).toEqual([]);
            // The heads at most once each, and of outbox only the rows returned (by primary key).
            expect(rowsRead(plan, "outbox_heads"), where).toBeLessThanOrEqual(THREADS);
            // A quarter share walks the heads in order to its limit (about 32 x 4 of them, 131
            // here), not every due head read and sorted (2,000 with the filter as `= ANY`).
            if (shared && read.text.includes("LIMIT"))
              expect(rowsRead(plan, "outbox_heads"), where).toBeLessThanOrEqual(32 * 4 * 2);
            // Its next due time: the due index walked to the first head of the share (about 4 at a
            // quarter), not the 2,000 heads read for their minimum.
            if (shared && read.text.includes("min("))
              expect(rowsRead(plan, "outbox_heads"), where).toBeLessThanOrEqual(32);
            expect(rowsRead(plan, "outbox"), where).toBeLessThanOrEqual(32);
          }
        }
      });
    }, 60_000);
  }
});

describe("[sqlite] the outbox's due reads under a backlog", () => {
  for (const analyzed of [false, true]) {
    it(`read the thread heads and outbox rows only by primary key, ${analyzed ? "after ANALYZE" : "with no statistics"}`, async () => {
      const appRoot = tempRoot();
      const seeding = openStore({ appRoot });
      const raw = new Database(seeding.file);
      try {
        const insert = raw.prepare(
          `INSERT INTO outbox (gateway, thread, idem_key, kind, payload, status, attempts, next_attempt_at, created_at, finished_at)
           VALUES ('http', ?, ?, 'text', '{}', ?, 0, 0, 0, ?)`,
        );
        raw.transaction(() => {
          for (let i = 1; i <= SENT; i++) insert.run(`sent-${i}`, `sent-${i}`, "sent", 0);
          for (let i = 0; i < PENDING; i++)
            insert.run(`t-${Math.floor(i / PER_THREAD)}`, `p-${i}`, "pending", null);
        })();
        if (analyzed) raw.exec("ANALYZE");
      } finally {
        raw.close();
      }
      // Statements as the store prepares them (its connection binds `prepare` when it opens).
      const prepared = new Set<string>();
      const original = Database.prototype.prepare;
      Database.prototype.prepare = function (this: Database.Database, source: string) {
        prepared.add(source);
        return original.call(this, source);
      } as typeof original;
      let db: ReturnType<typeof openStore>;
      try {
        db = openStore({ appRoot });
      } finally {
        Database.prototype.prepare = original;
      }
      expect((await db.outbox.due(NOW, 32)).map((r) => r.id)).toEqual(expectedDue);
      expect(await db.outbox.nextDueAt()).toBe(0);
      const reads = [...prepared].filter((s) => /^\s*select/i.test(s) && s.includes("outbox"));
      expect(reads).toHaveLength(2);
      for (const read of reads) {
        // Parameters in order: (due) the time and the LIMIT.
        const params = [NOW, 32].slice(0, (read.match(/\?/g) ?? []).length);
        const plan = db.explain(read, ...params);
        const where = `${read}\n${plan.join("\n")}`;
        expect(
          plan.filter((line) => /CORRELATED/.test(line)),
          where,
        ).toEqual([]);
        // outbox only looked up by primary key (a head each), never scanned or searched otherwise.
        expect(
          plan.filter((line) => /\boutbox\b/.test(line) && !/INTEGER PRIMARY KEY/.test(line)),
          where,
        ).toEqual([]);
      }
    });
  }
});
