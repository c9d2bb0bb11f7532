// PostgreSQL figures: what scale-out costs, one instance against three over one database
// (cluster-cost.ts), and persisting one turn on PostgreSQL (durable) beside the same on SQLite.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Message } from "@agentsvc/agent-core";
import { ChatDb, openPostgresChatDb } from "@agentsvc/chat-store";
import { startPostgres } from "@agentsvc/pg-test";
import { clusterCost, clusterCostRows } from "./cluster-cost.ts";
import { fmt, percentile, type Row, timeEach } from "./stats.ts";

const SAMPLES = 200;

function turn(i: number): Message[] {
  return [
    { role: "user", content: `question ${i}` },
    { role: "assistant", content: `answer ${i} `.repeat(20) },
  ];
}

/** p50 ms of one turn persisted: memory append (one transaction) and the conversation index. */
async function persistTurnMs(db: ChatDb): Promise<number> {
  const memory = db.createMemory({ canSummarize: false });
  const scope = { userId: "u", conversationId: `persist-${db.dialect}` };
  for (let i = 0; i < 20; i++) await memory.append(scope, turn(i));
  return percentile(
    await timeEach(SAMPLES, async (i) => {
      await memory.append(scope, turn(i));
      await db.conversations.recordTurn({
        userId: "u",
        conversationId: scope.conversationId,
        userMessage: `q${i}`,
      });
    }),
    50,
  );
}

export async function benchCluster(): Promise<Row[]> {
  const rows = clusterCostRows(await clusterCost());
  const pg = await startPostgres({ durable: true });
  const root = mkdtempSync(join(tmpdir(), "agentsvc-bench-cluster-"));
  try {
    const url = await pg.createDatabase();
    const onPg = await openPostgresChatDb({
      name: "bench",
      datasource: { type: "postgres", urlEnvVar: "BENCH_PG_URL", pool: 4, ssl: "off" },
      appRoot: root,
      env: { BENCH_PG_URL: url },
    });
    const onSqlite = ChatDb.open({ appRoot: root, path: "./bench.db" });
    const pgTurn = await persistTurnMs(onPg);
    const sqliteTurn = await persistTurnMs(onSqlite);
    onPg.close();
    await onPg.closedSettled;
    onSqlite.close();
    rows.push({
      metric: "persist one turn (memory + index) p50 ms, PostgreSQL (fsync on)",
      value: fmt(pgTurn, 3),
      baseline: `SQLite ${fmt(sqliteTurn, 3)}`,
      ratio: `${fmt(pgTurn / sqliteTurn)}x`,
      target: "",
    });
    return rows;
  } finally {
    // The SQLite store's files may still be closing: rm retries ENOTEMPTY rather than losing the rows.
    rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    await pg.stop();
  }
}
