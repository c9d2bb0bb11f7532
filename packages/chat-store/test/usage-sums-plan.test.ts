// What a budget's refresh read (usage-sums.ts: the rows since the settled part's cutoff) reads on a
// ledger grown to 200,000 rows this month: the rows of its last minutes and their neighbours on the
// same pages, not the month. PostgreSQL: EXPLAIN ANALYZE of the statement the store sent, as a
// custom and a generic plan; SQLite: EXPLAIN QUERY PLAN (an index search bounded by `at`). Rows
// read are asserted, never a time.
import { postgresMissing } from "@agentsvc/pg-test";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { UsageSums, type UsageScope } from "../src/index.js";
import { openStore, tempRoot } from "./helpers.js";
import { statementsOf, withOwnConnection } from "./pg-statements.js";
import { nodes, type PlanNode, rowsRead } from "./plan-nodes.js";

const NOW = Date.UTC(2026, 11, 20, 12);
const MONTH = Date.UTC(2026, 11, 1);
const DAY = Date.UTC(2026, 11, 20);
const GROWN = 200_000;
/** Rows of the last ten minutes (one every 3 s), after the grown month. */
const RECENT = 200;
const STEP = Math.floor((NOW - 10 * 60_000 - MONTH) / GROWN);
const SCOPES: [string, UsageScope][] = [
  ["the service", {}],
  ["a user", { userId: "u150" }],
  ["a gateway", { gateway: "g1" }],
  ["an agent", { agent: "a1" }],
];

/** Row `i` of the month, in time order as calls are recorded: 1,000 users, 4 gateways, 2 agents. */
const ROW = (i: string, at: string) =>
  `${at}, 'u' || (${i} % 1000), 'g' || (${i} % 4), 'a' || (${i} % 2), 'c', 'openai', 'gpt-4o-mini', 'turn', 'ok', 100, 20, 0, 0, 27000`;
const COLUMNS =
  "at, user_id, gateway, agent, conversation_id, provider, model, kind, outcome, input_tokens, output_tokens, cached_input_tokens, reasoning_tokens, cost_nanos";

describe.skipIf(postgresMissing)("[postgres] a budget's refresh read on a grown ledger", () => {
  // Statistics as autovacuum leaves them: taken when the month's first 1,000 rows were in (a
  // table is analyzed from its first 50 rows on), or after the whole month (ANALYZE).
  for (const analyzed of ["early", "late"] as const) {
    it(`reads the rows since the cutoff and their pages' neighbours, not the month's ${GROWN.toLocaleString("en")}, ${analyzed === "late" ? "after ANALYZE" : "on statistics of its first 1,000 rows"}`, async () => {
      await withOwnConnection(async (db, client) => {
        const { rows: index } = await client.query(
          "SELECT reloptions FROM pg_class WHERE relname = 'usage_ledger_at'",
        );
        expect(index[0]?.reloptions).toEqual(["pages_per_range=16", "autosummarize=on"]);
        await client.query("ALTER TABLE usage_ledger SET (autovacuum_enabled = false)");
        const grow = (from: number, to: number) =>
          client.query(
            `INSERT INTO usage_ledger (${COLUMNS}) SELECT ${ROW("i", `${MONTH} + i * ${STEP}`)} FROM generate_series(${from}, ${to}) i`,
          );
        await grow(0, 999);
        if (analyzed === "early") await client.query("ANALYZE usage_ledger");
        await grow(1_000, GROWN - 1);
        await client.query(
          `INSERT INTO usage_ledger (${COLUMNS}) SELECT ${ROW("i", `${NOW - 10 * 60_000} + i * 3000`)} FROM generate_series(0, ${RECENT - 1}) i`,
        );
        if (analyzed === "late") await client.query("ANALYZE usage_ledger");
        // What the index's autosummarize (store step 22) has autovacuum do as each range of pages
        // fills, within its naptime; a test cannot wait for it.
        await client.query("SELECT brin_summarize_new_values('usage_ledger_at')");
        for (const [name, scope] of SCOPES) {
          const sums = new UsageSums(db.usageLedger);
          const full = await sums.read(scope, { day: DAY, month: MONTH }, NOW);
          const sent = await statementsOf(() => sums.read(scope, { day: DAY, month: MONTH }, NOW + 1_000));
          const reads = sent.filter((s) => /^\s*select/i.test(s.text) && s.text.includes("usage_ledger"));
          expect(reads, name).toHaveLength(1);
          const read = reads[0]!;
          expect(await sums.read(scope, { day: DAY, month: MONTH }, NOW + 2_000), name).toEqual(full);
          for (const mode of ["force_custom_plan", "force_generic_plan"]) {
            await client.query(`SET plan_cache_mode = ${mode}`);
            await client.query(`PREPARE refresh AS ${read.text}`);
            const args = read.values.map((v) => (typeof v === "number" ? String(v) : `'${String(v)}'`));
            const { rows } = await client.query(
              `EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE refresh(${args.join(", ")})`,
            );
            await client.query("DEALLOCATE refresh");
            const plan = (rows[0] as { "QUERY PLAN": [{ Plan: PlanNode }] })["QUERY PLAN"][0].Plan;
            const where = `${name}, ${mode}: ${read.text}\n${JSON.stringify(plan)}`;
            expect(
              [...nodes(plan)].filter((n) => n["Node Type"] === "Seq Scan"),
              where,
            ).toEqual([]);
            // The five minutes since the cutoff (100 rows) and the rest of the ranges of pages they
            // are in: 16 pages a range (step 22) at about 60 rows a page. 120 read here; at 128
            // pages a range (step 19) 5,000; from the month's start 200,000.
            expect(rowsRead(plan, "usage_ledger"), where).toBeLessThanOrEqual(2_000);
          }
        }
      });
    }, 120_000);
  }
});

describe("[sqlite] a budget's refresh read on a grown ledger", () => {
  it("searches an index by `at` from the cutoff (the user's, gateway's or agent's with its name), never scans the ledger", async () => {
    const appRoot = tempRoot();
    const seeding = openStore({ appRoot });
    const raw = new Database(seeding.file);
    try {
      raw.exec(
        `WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < ${GROWN - 1})
         INSERT INTO usage_ledger (${COLUMNS}) SELECT ${ROW("i", `${MONTH} + i * ${STEP}`)} FROM s`,
      );
      raw.exec("ANALYZE");
    } finally {
      raw.close();
    }
    // Statements as the store runs them, with their parameters (its connection binds `prepare` when it opens).
    const ran: { source: string; params: unknown[] }[] = [];
    const original = Database.prototype.prepare;
    Database.prototype.prepare = function (this: Database.Database, source: string) {
      const statement = original.call(this, source);
      for (const method of ["all", "get"] as const) {
        const run = statement[method].bind(statement) as (...params: unknown[]) => unknown;
        (statement as unknown as Record<string, unknown>)[method] = (...params: unknown[]) => {
          ran.push({ source, params });
          return run(...params);
        };
      }
      return statement;
    } as typeof original;
    let db: ReturnType<typeof openStore>;
    try {
      db = openStore({ appRoot });
    } finally {
      Database.prototype.prepare = original;
    }
    for (const [name, scope] of SCOPES) {
      const sums = new UsageSums(db.usageLedger);
      const full = await sums.read(scope, { day: DAY, month: MONTH }, NOW);
      ran.length = 0;
      expect(await sums.read(scope, { day: DAY, month: MONTH }, NOW + 1_000), name).toEqual(full);
      const reads = ran.filter((r) => /^\s*select/i.test(r.source) && r.source.includes("usage_ledger"));
      expect(reads, name).toHaveLength(1);
      const read = reads[0]!;
      // Its lower bound on `at` (the WHERE's first parameter, after the sums' period starts) is the
      // cutoff, five minutes back, not the month's start.
      const scoped = Object.keys(scope).length;
      expect(read.params.at(-1 - scoped), name).toBe(NOW - 5 * 60_000);
      const plan = db.explain(read.source, ...read.params);
      const where = `${name}: ${read.source}\n${plan.join("\n")}`;
      expect(
        plan.filter((line) => /\bSCAN usage_ledger\b/.test(line)),
        where,
      ).toEqual([]);
      expect(
        plan.filter((line) =>
          /SEARCH usage_ledger USING INDEX usage_ledger_\w+ \((\w+=\? AND |ANY\(\w+\) AND )?at>\?\)/.test(
            line,
          ),
        ),
        where,
      ).toHaveLength(1);
    }
  });
});
