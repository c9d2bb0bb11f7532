// The plans of the prompt window's reads, for a short scope (as many messages as the window) among
// many others and for a long one stored after all of them, on a table with no statistics yet and
// after ANALYZE. Each read must be a range scan of the scope index under its LIMIT: nothing sorted,
// nothing read and thrown away. Two regressions this guards, both measured on PostgreSQL:
// - `user_id = $1 AND conversation_id = $2 ORDER BY id LIMIT n`: the planner drops the equated
//   columns from the ORDER BY, so the primary key provides the order too, and after ANALYZE it
//   walked it for the long scope, filtering out 38,000 rows for one head read (a turn 2.8x slower).
// - `user_id >= $1 AND user_id <= $1 AND ...`: btree costing counts index conditions only up to the
//   first column without an equality, so the scan was priced as reading every user's rows; a short
//   scope gets no LIMIT discount, and after ANALYZE it was a sequential scan of the table and a sort
//   (a short turn 3-7x slower than a long one in `pnpm bench memory`).
// Not covered: a table never analyzed that already holds ~50,000 rows or more, with a 100-message
// window. PostgreSQL then estimates a scope at 1-2 rows (default selectivities) and prefers a bitmap
// scan of the scope and a sort, with every form of these reads tried; autovacuum's first ANALYZE
// (after 50 rows are written) ends that state.
import { postgresMissing } from "@agentsvc/pg-test";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { openStore, tempRoot } from "./helpers.js";
import { statementsOf, withOwnConnection } from "./pg-statements.js";

/** The prompt window: the short scope holds exactly this many messages. */
const WINDOW = 20;
const OTHERS = 200;
const LONG = 2_000;
const SHORT_SCOPE = { userId: "u", conversationId: `other-${OTHERS / 2}` };
const LONG_SCOPE = { userId: "u", conversationId: "long" };
/**
 * Message sizes: which wrong plan the planner prefers depends on how many rows fit a page (short
 * rows make the sequential scan cheap, long ones the primary-key walk), so both are checked.
 */
const BODIES = [1, 150].map((n) => ({
  size: `${n}-character`,
  body: JSON.stringify({ role: "user", content: "x".repeat(n) }),
}));
const BODY = BODIES[1]!.body;

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Rows Removed by Filter"?: number;
  Plans?: PlanNode[];
}

/** Every node with its parent's type. */
function* nodes(plan: PlanNode, parent = ""): Generator<{ node: PlanNode; parent: string }> {
  yield { node: plan, parent };
  for (const child of plan.Plans ?? []) yield* nodes(child, plan["Node Type"]);
}

/** How each read of memory_messages in a plan is done, as `<parent> > <scan> <index> removed=<n>`. */
function scansOf(plan: PlanNode): string[] {
  return [...nodes(plan)]
    .filter(({ node }) => node["Relation Name"] === "memory_messages" || node["Node Type"] === "Sort")
    .map(
      ({ node, parent }) =>
        `${parent} > ${node["Node Type"]} ${node["Index Name"] ?? ""} removed=${node["Rows Removed by Filter"] ?? 0}`,
    );
}

const RANGE_SCAN = /^Limit > Index Scan( Backward)? memory_messages_scope removed=0$/;

describe.skipIf(postgresMissing)("[postgres] the prompt window's reads", () => {
  for (const analyzed of [false, true]) {
    it.each(BODIES)(
      `are range scans of the scope index under their LIMIT, for a short and a long scope, ${analyzed ? "after ANALYZE" : "on a table with no statistics"} (messages of $size content)`,
      async ({ body }) => {
        await withOwnConnection(async (db, client) => {
          // 200 conversations of a window's length each, then the long one after all of them.
          await client.query(
            `INSERT INTO memory_messages (user_id, conversation_id, role, body, created_at)
           SELECT 'u', 'other-' || (g / ${WINDOW}), 'user', $1, 0 FROM generate_series(0, ${OTHERS * WINDOW - 1}) AS g`,
            [body],
          );
          await client.query(
            `INSERT INTO memory_messages (user_id, conversation_id, role, body, created_at)
           SELECT 'u', 'long', 'user', $1, 0 FROM generate_series(0, ${LONG - 1}) AS g`,
            [body],
          );
          if (analyzed) await client.query("ANALYZE memory_messages");
          const memory = db.createMemory({ canSummarize: false, maxMessages: WINDOW });
          for (const scope of [SHORT_SCOPE, LONG_SCOPE]) {
            const sent = await statementsOf(() => memory.loadPrompt(scope));
            const reads = sent.filter(
              (s) => /^\s*\(?select/i.test(s.text) && s.text.includes("memory_messages"),
            );
            expect(reads.length).toBeGreaterThan(0);
            for (const read of reads) {
              // The pool runs its statements as named ones (store-postgres), which PostgreSQL plans
              // for their parameters at first and may then replace by one generic plan: both count.
              for (const mode of ["force_custom_plan", "force_generic_plan"]) {
                await client.query(`SET plan_cache_mode = ${mode}`);
                await client.query(`PREPARE window_read AS ${read.text}`);
                // An array parameter (the grouped read's scopes) as an array literal.
                const literal = (v: unknown) =>
                  Array.isArray(v) ? `'{${v.map((x) => JSON.stringify(x)).join(",")}}'` : `'${v}'`;
                const args = read.values.map((v) => (typeof v === "number" ? String(v) : literal(v)));
                const { rows } = await client.query(
                  `EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE window_read(${args.join(", ")})`,
                );
                await client.query("DEALLOCATE window_read");
                const plan = (rows[0] as { "QUERY PLAN": [{ Plan: PlanNode }] })["QUERY PLAN"][0].Plan;
                const scans = scansOf(plan);
                expect(scans.length, read.text).toBeGreaterThan(0);
                for (const scan of scans)
                  expect(scan, `${mode}, ${scope.conversationId}: ${read.text}`).toMatch(RANGE_SCAN);
              }
            }
          }
        });
      },
      60_000,
    );
  }
});

describe("[sqlite] the prompt window's reads", () => {
  for (const analyzed of [false, true]) {
    it(`search the scope index without a sort, for a short and a long scope, ${analyzed ? "after ANALYZE" : "with no statistics"}`, async () => {
      const appRoot = tempRoot();
      const seeding = openStore({ appRoot });
      // Seed in one transaction through a second connection to the file.
      const raw = new Database(seeding.file);
      try {
        const insert = raw.prepare(
          "INSERT INTO memory_messages (user_id, conversation_id, role, body, created_at) VALUES ('u', ?, 'user', ?, 0)",
        );
        raw.transaction(() => {
          for (let i = 0; i < OTHERS * WINDOW; i++) insert.run(`other-${Math.floor(i / WINDOW)}`, BODY);
          for (let i = 0; i < LONG; i++) insert.run("long", BODY);
        })();
        if (analyzed) raw.exec("ANALYZE");
      } finally {
        raw.close();
      }
      // Statements as the store prepares them: its connection binds `prepare` when it opens, so a
      // wrapper on the prototype at that moment sees every text it prepares (once: the store keeps
      // prepared statements by text, so both scopes' reads are the texts the first one prepared).
      // A store opened after the seeding also reads the new statistics.
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
      const memory = db.createMemory({ canSummarize: false, maxMessages: WINDOW });
      for (const scope of [SHORT_SCOPE, LONG_SCOPE]) await memory.loadPrompt(scope);
      const reads = [...prepared].filter((s) => /^\s*select/i.test(s) && s.includes("memory_messages"));
      expect(reads.length).toBeGreaterThan(0);
      for (const scope of [SHORT_SCOPE, LONG_SCOPE]) {
        for (const read of reads) {
          // Parameters: the scope's ids, then the LIMIT (a cached window reads nothing: prompt-cache.ts).
          const plan = db.explain(read, scope.userId, scope.conversationId, WINDOW).join("\n");
          expect(plan, `${scope.conversationId}: ${read}`).toMatch(
            /^SEARCH memory_messages USING INDEX memory_messages_scope \(user_id=\? AND conversation_id=\?\)$/,
          );
        }
      }
    });
  }
});
