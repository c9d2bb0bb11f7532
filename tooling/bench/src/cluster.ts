// PostgreSQL figures, both sides in the same run on a throwaway PostgreSQL with its durability on:
// `/agent/invoke` throughput of three instances over one database beside one instance (the same
// total connections), and persisting one turn on PostgreSQL beside the same on SQLite.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Message } from "@agentsvc/agent-core";
import { ChatDb, openPostgresChatDb } from "@agentsvc/chat-store";
import { startPostgres } from "@agentsvc/pg-test";
import autocannon from "autocannon";
import { type ChildServer, startChildServer } from "./child-server.ts";
import { fmt, percentile, type Row, timeEach } from "./stats.ts";

const DURATION_S = Number(process.env.BENCH_DURATION ?? 5);
const CONNECTIONS = 30;
const SAMPLES = 200;

async function invokeRps(url: string, connections: number, tag: string): Promise<number> {
  let seq = 0;
  const body = (conversationId: string) => JSON.stringify({ input: "hello benchmark", conversationId });
  const result = await autocannon({
    url,
    method: "POST",
    connections,
    duration: DURATION_S,
    headers: { "content-type": "application/json" },
    // One conversation per request, as in the agent-route rows: no history grows over the run.
    requests: [{ setupRequest: (req) => ({ ...req, body: body(`${tag}-${++seq}`) }) }],
  });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result.requests.average;
}

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
  const pg = await startPostgres({ durable: true });
  const root = mkdtempSync(join(tmpdir(), "agentsvc-bench-cluster-"));
  const servers: ChildServer[] = [];
  try {
    const url = await pg.createDatabase();
    const route = resolve(import.meta.dirname, "servers/route-pg.ts");
    // The first instance migrates; the others find the schema in place.
    servers.push(await startChildServer(route, { BENCH_PG_URL: url }));
    servers.push(...(await Promise.all([1, 2].map(() => startChildServer(route, { BENCH_PG_URL: url })))));
    const [first] = servers as [ChildServer];
    await invokeRps(`${first.url}/agent/invoke`, CONNECTIONS, "warm"); // warm-up, not reported
    const one = await invokeRps(`${first.url}/agent/invoke`, CONNECTIONS, "one");
    const three = (
      await Promise.all(
        servers.map((s, i) => invokeRps(`${s.url}/agent/invoke`, CONNECTIONS / servers.length, `three-${i}`)),
      )
    ).reduce((a, b) => a + b, 0);

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
    return [
      {
        metric: `/agent/invoke req/s, 3 instances over one PostgreSQL (${CONNECTIONS} connections in all)`,
        value: fmt(three, 0),
        baseline: `1 instance ${fmt(one, 0)}`,
        ratio: `${fmt(three / one)}x`,
        target: "grows with cores (this machine: 2, shared)",
      },
      {
        metric: "persist one turn (memory + index) p50 ms, PostgreSQL (fsync on)",
        value: fmt(pgTurn, 3),
        baseline: `SQLite ${fmt(sqliteTurn, 3)}`,
        ratio: `${fmt(pgTurn / sqliteTurn)}x`,
        target: "",
      },
    ];
  } finally {
    for (const s of servers) await s.stop();
    rmSync(root, { recursive: true, force: true });
    await pg.stop();
  }
}
