// BENCH_SPEND_MODE=meter-pg (pnpm bench spend): the spend meter alone over a PostgreSQL ledger, where
// a ledger insert is a round trip: each of 6,000 calls from 200 users at concurrency 32 asks the four
// budget scopes (admit), waits 2 ms for its stand-in model call, then is recorded. Reported: the
// time an admit waits (mean of every call, median round) and the ledger inserts a round, this tree
// against BENCH_BEFORE_TREE's meter (rounds alternate, order rotated), else against the same meter
// with no budgets (the ledger writes alone). A refresh read that wrote the open window first cost an
// insert and its round trip in the admit's wait.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openPostgresChatDb } from "@agentsvc/chat-store";
import type { BudgetsConfig } from "@agentsvc/config-schema";
import { postgresMissing, startPostgres, type TestPostgres } from "@agentsvc/pg-test";
import { createSpendMeter } from "@agentsvc/server";
import { fmt, percentile, type Row } from "./stats.ts";

const CALLS = 6_000;
const USERS = 200;
const CONCURRENCY = 32;
const MODEL_MS = 2;
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 5));
const HIGH = { day: { tokens: 1e12, cost: 1e9 }, month: { tokens: 1e12, cost: 1e9 } };
const BUDGETS: BudgetsConfig = { service: HIGH, perUser: HIGH, perGateway: HIGH, perAgent: HIGH };

type MeterFactory = typeof createSpendMeter;
interface Measured {
  admitMs: number;
  inserts: number;
}

async function round(pg: TestPostgres, factory: MeterFactory, budgets: boolean): Promise<Measured> {
  const root = mkdtempSync(join(tmpdir(), "agentsvc-bench-meter-pg-"));
  const db = await openPostgresChatDb({
    name: "bench",
    datasource: { type: "postgres", urlEnvVar: "BENCH_PG_URL", pool: 4, ssl: "off" },
    appRoot: root,
    env: { BENCH_PG_URL: await pg.createDatabase() },
  });
  const ledger = db.usageLedger;
  let inserts = 0;
  const meter = factory({
    ledger: {
      record: (rows) => {
        inserts++;
        return ledger.record(rows);
      },
      spendSplit: (...args) => ledger.spendSplit(...args),
    },
    ...(budgets ? { budgets: BUDGETS } : {}),
    prices: { "demo/m": { input: 1, output: 1 } },
    logger: { warn: () => {}, error: () => {} },
  });
  const waits: number[] = [];
  let next = 0;
  try {
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        for (let i = next++; i < CALLS; i = next++) {
          const scope = { agent: "bench", userId: `u${i % USERS}`, conversationId: "c", gateway: "bench" };
          const t = performance.now();
          if (await meter.admit(scope, "turn")) throw new Error("a call was refused");
          waits.push(performance.now() - t);
          await new Promise((resolve) => setTimeout(resolve, MODEL_MS));
          meter.record({
            scope,
            kind: "turn",
            provider: "demo",
            modelId: "m",
            outcome: "ok",
            usage: { inputTokens: 100, outputTokens: 20 },
          });
        }
      }),
    );
    await meter.flush();
  } finally {
    db.close();
    await db.closedSettled;
    rmSync(root, { recursive: true, force: true });
  }
  return { admitMs: waits.reduce((sum, w) => sum + w, 0) / waits.length, inserts };
}

export async function benchMeterPg(): Promise<Row[]> {
  if (postgresMissing) throw new Error(`BENCH_SPEND_MODE=meter-pg: ${postgresMissing}`);
  const beforeTree = process.env.BENCH_BEFORE_TREE;
  const before = beforeTree
    ? ((await import(join(beforeTree, "apps/server/dist/index.js"))) as { createSpendMeter: MeterFactory })
        .createSpendMeter
    : undefined;
  const sides: [string, MeterFactory, boolean][] = [
    ["this tree", createSpendMeter, true],
    before ? ["BENCH_BEFORE_TREE", before, true] : ["no budgets", createSpendMeter, false],
  ];
  const results = new Map<string, Measured[]>(sides.map(([name]) => [name, []]));
  const pg = await startPostgres({ durable: true });
  try {
    for (let i = 0; i < ROUNDS; i++)
      for (let j = 0; j < sides.length; j++) {
        const [name, factory, budgets] = sides[(i + j) % sides.length]!;
        results.get(name)!.push(await round(pg, factory, budgets));
      }
  } finally {
    await pg.stop();
  }
  const [ours, base] = sides.map(([name]) => results.get(name)!) as [Measured[], Measured[]];
  const against = sides[1]![0];
  const admit = (rs: Measured[]) =>
    percentile(
      rs.map((r) => r.admitMs),
      50,
    );
  const inserts = (rs: Measured[]) =>
    percentile(
      rs.map((r) => r.inserts),
      50,
    );
  const what = `${CALLS} calls from ${USERS} users at ${CONCURRENCY}, PostgreSQL ledger`;
  return [
    {
      metric: `admit's wait, mean of a round's calls (${what}; this tree vs ${against})`,
      value: `${fmt(admit(ours), 3)} ms`,
      baseline: `${fmt(admit(base), 3)} ms`,
      ratio: fmt(admit(ours) / admit(base), 2),
      target: "",
    },
    {
      metric: `ledger inserts a round (${what}; this tree vs ${against}), each round: ${ours.map((r) => r.inserts).join(", ")} / ${base.map((r) => r.inserts).join(", ")}`,
      value: fmt(inserts(ours), 0),
      baseline: fmt(inserts(base), 0),
      ratio: fmt(inserts(ours) / inserts(base), 2),
      target: "",
    },
  ];
}
