// Turn cost against conversation length: the same turn (demo model, no token delay, durable
// memory) in a conversation holding 10,000 stored messages beside one holding only as many as the
// prompt window carries, on SQLite and on PostgreSQL. Both prompts are the same size, so the ratio
// shows only whether a turn's cost grows with what the conversation has stored. Two windows: 10
// messages (the short side holds 10) and the default 100 (the short side holds 100). On PostgreSQL
// the table is analyzed after the fill, as autovacuum does on any database that lived a while.
import { Session } from "node:inspector/promises";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineAgent, type Message, RunManager } from "@agentsvc/agent-core";
import { ChatDb, openPostgresChatDb } from "@agentsvc/chat-store";
import { startPostgres } from "@agentsvc/pg-test";
import { connectPostgres } from "@agentsvc/store-postgres";
import { fmt, percentile, type Row, timeEach } from "./stats.ts";

const LONG = 10_000;
const SAMPLES = Number(process.env.BENCH_TURNS ?? 150);

function turn(i: number): Message[] {
  return [
    { role: "user", content: `question ${i} about the order` },
    { role: "assistant", content: `answer ${i}: `.padEnd(200, "text ") },
  ];
}

/** Stores `n` messages in `conversationId`, in one transaction. */
async function seed(db: ChatDb, conversationId: string, n: number): Promise<void> {
  const memory = db.createMemory({ canSummarize: false });
  await db.transaction(async () => {
    for (let i = 0; i < n / 2; i++) await memory.append({ userId: "u", conversationId }, turn(i));
  });
}

/** Bytes allocated while `work` runs (V8 sampling heap profiler, collected objects included). */
async function allocated(work: () => Promise<void>): Promise<number> {
  const session = new Session();
  session.connect();
  await session.post("HeapProfiler.startSampling", {
    samplingInterval: 1024,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  await work();
  const { profile } = await session.post("HeapProfiler.stopSampling");
  session.disconnect();
  // `samples` is in the protocol (and Node sends it) but not in @types/node's SamplingHeapProfile.
  const { samples } = profile as typeof profile & { samples: { size: number }[] };
  return samples.reduce((sum, s) => sum + s.size, 0);
}

interface Cost {
  p50Ms: number;
  bytesPerTurn: number;
}

async function turnCost(db: ChatDb, window: number, conversationOf: (i: number) => string): Promise<Cost> {
  const memory = db.createMemory({ canSummarize: false, maxMessages: window });
  const runs = new RunManager({
    agent: defineAgent({ name: "bench", model: { provider: "demo", tokenDelayMs: 0 } }),
    memory,
  });
  const one = async (i: number) => {
    await runs.start({ input: `and then ${i}?`, userId: "u", conversationId: conversationOf(i) }).done;
  };
  for (let i = 0; i < 20; i++) await one(SAMPLES + i);
  const p50Ms = percentile(await timeEach(SAMPLES, one), 50);
  const bytes = await allocated(async () => {
    for (let i = 0; i < 50; i++) await one(2 * SAMPLES + i);
  });
  return { p50Ms, bytesPerTurn: bytes / 50 };
}

async function rowsFor(
  db: ChatDb,
  label: string,
  window: number,
  afterFill?: () => Promise<void>,
): Promise<Row[]> {
  // Short: a fresh conversation of `window` messages per turn, so it stays that long. Long: one
  // conversation of 10,000 (each turn adds two; a few hundred more do not matter).
  const total = 2 * SAMPLES + 80;
  await db.transaction(async () => {
    for (let i = 0; i < total; i++) await seed(db, `short-${window}-${i}`, window);
  });
  await seed(db, `long-${window}`, LONG);
  await afterFill?.();
  const short = await turnCost(db, window, (i) => `short-${window}-${i}`);
  const long = await turnCost(db, window, () => `long-${window}`);
  const SHORT = window;
  label = `${label}, window ${window}`;
  return [
    {
      metric: `turn p50, ${LONG.toLocaleString("en")} vs ${SHORT} stored messages (${label})`,
      value: `${fmt(long.p50Ms)} ms`,
      baseline: `${fmt(short.p50Ms)} ms`,
      ratio: `${fmt(long.p50Ms / short.p50Ms)}x`,
      target: "<= 1.2x",
    },
    {
      metric: `bytes allocated per turn, ${LONG.toLocaleString("en")} vs ${SHORT} (${label})`,
      value: `${fmt(long.bytesPerTurn / 1024, 0)} KiB`,
      baseline: `${fmt(short.bytesPerTurn / 1024, 0)} KiB`,
      ratio: `${fmt(long.bytesPerTurn / short.bytesPerTurn)}x`,
      target: "<= 1.2x",
    },
  ];
}

export async function benchMemory(): Promise<Row[]> {
  const root = mkdtempSync(join(tmpdir(), "agentsvc-bench-memory-"));
  const rows: Row[] = [];
  try {
    // BENCH_MEMORY_DB=sqlite or postgres runs one database's rows only.
    const only = process.env.BENCH_MEMORY_DB;
    if (only !== "postgres") {
      const sqlite = ChatDb.open({ appRoot: root, path: "./chat.db" });
      for (const window of [10, 100]) rows.push(...(await rowsFor(sqlite, "SQLite", window)));
      sqlite.close();
    }
    if (only === "sqlite") return rows;
    const pg = await startPostgres();
    try {
      const url = await pg.createDatabase();
      const db = await openPostgresChatDb({
        name: "main",
        datasource: { type: "postgres", urlEnvVar: "BENCH_PG_URL", pool: 4 },
        appRoot: root,
        env: { BENCH_PG_URL: url },
      });
      // The planner's statistics as a database that has lived with its rows has them: autovacuum's
      // ANALYZE would otherwise land at a random moment of the row (the figure moved 1.1x-2.8x).
      const admin = await connectPostgres({ connectionString: url, ssl: "off", migrate: false, max: 1 });
      const analyze = async () => void (await admin.pool.query("ANALYZE memory_messages"));
      try {
        for (const window of [10, 100]) rows.push(...(await rowsFor(db, "PostgreSQL", window, analyze)));
      } finally {
        await admin.close();
      }
      db.close();
      await db.closedSettled;
    } finally {
      await pg.stop();
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return rows;
}
