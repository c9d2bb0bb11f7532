// PostgreSQL's plans for the prompt window's reads. The scope's rows of a long conversation that
// started after many others sit at the end of the table; once the table is analyzed, a query that
// says `WHERE user_id = $1 AND conversation_id = $2 ORDER BY id LIMIT n` may be planned as a walk
// of the primary key that filters out every other scope's rows (the planner drops the equated
// columns from the ORDER BY, so the primary key provides the order too). Measured before the fix:
// 38,000 rows removed by the filter for one head read, a turn 2.8x slower at 10,000 stored messages.
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it } from "vitest";
import { postgresDriver, postgresUrlOf, tempRoot } from "./helpers.js";
import { statementsOf, storePg } from "./pg-statements.js";

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Rows Removed by Filter"?: number;
  Plans?: PlanNode[];
}

/** The index a scan reads: its own, or its bitmap index scan's. */
function indexOf(node: PlanNode): string | undefined {
  return node["Index Name"] ?? node.Plans?.map(indexOf).find((name) => name !== undefined);
}

function* nodes(plan: PlanNode): Generator<PlanNode> {
  yield plan;
  for (const child of plan.Plans ?? []) yield* nodes(child);
}

describe.skipIf(postgresMissing)("[postgres] the prompt window's reads", () => {
  it("go through the scope index and filter out no other scope's rows, after ANALYZE, for a scope stored last", async () => {
    const appRoot = tempRoot();
    const db = await postgresDriver.open({ appRoot });
    const client = new (storePg().Client)({ connectionString: await postgresUrlOf(appRoot) });
    await client.connect();
    try {
      // 40 older conversations of 100 messages, then the long one: 2,000 messages after all of them.
      const body = JSON.stringify({ role: "user", content: "x".repeat(150) });
      await client.query(
        `INSERT INTO memory_messages (user_id, conversation_id, role, body, created_at)
         SELECT 'u', 'other-' || (g / 100), 'user', $1, 0 FROM generate_series(0, 3999) AS g`,
        [body],
      );
      await client.query(
        `INSERT INTO memory_messages (user_id, conversation_id, role, body, created_at)
         SELECT 'u', 'long', 'user', $1, 0 FROM generate_series(0, 1999) AS g`,
        [body],
      );
      await client.query("ANALYZE memory_messages");
      const memory = db.createMemory({ canSummarize: false, maxMessages: 20 });
      const long = { userId: "u", conversationId: "long" };
      const sent = await statementsOf(() => memory.loadPrompt(long));
      const reads = sent.filter((s) => /^\s*\(?select/i.test(s.text) && s.text.includes("memory_messages"));
      expect(reads.length).toBeGreaterThan(0);
      for (const read of reads) {
        const { rows } = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${read.text}`, read.values);
        const plan = (rows[0] as { "QUERY PLAN": [{ Plan: PlanNode }] })["QUERY PLAN"][0].Plan;
        const scans = [...nodes(plan)].filter((n) => n["Relation Name"] === "memory_messages");
        // Index or bitmap scans of the scope index only; nothing read and thrown away.
        expect(
          scans.map((n) => `${n["Node Type"]} ${indexOf(n) ?? ""}`.trim()),
          read.text,
        ).toEqual(scans.map((n) => `${n["Node Type"]} memory_messages_scope`));
        expect(
          scans.map((n) => n["Rows Removed by Filter"] ?? 0),
          read.text,
        ).toEqual(scans.map(() => 0));
      }
    } finally {
      await client.end();
    }
  }, 60_000);
});
