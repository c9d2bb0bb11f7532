// Budget and cost-ledger cost (#40): the same messages through a real session over a durable SQLite
// store (demo model, one push gateway that sends nowhere), with no meter versus the server's spend
// meter (every model call written to the cost ledger, and service, per-user, per-gateway and
// per-agent day and month budgets, high enough to admit everything, summed before every call), so
// both sides do the same turns and only the metering differs. Ingest: messages recorded per second
// at concurrency 32; end to end: until every reply is sent. Rounds alternate off/on; the median
// round is reported, with the ledger's sum reads the budgets made (statements).
// BENCH_BEFORE_TREE=<a built worktree>: its server's spend meter (over this tree's store) as a third
// side, each round's order rotated. BENCH_SPEND_GROWN=<rows>: the ledger already holds that many
// rows this month (a busy service's month is 10^5-10^6). BENCH_SPEND_MODE=read: a budget's refresh
// read alone on a ledger of BENCH_SPEND_GROWN rows (default 200,000), on SQLite and PostgreSQL: the
// day's and month's full sums (two statements, as before the settled part) against the read since
// the settled part's cutoff (chat-store usage-sums.ts), per scope, median ms of alternated reads.
// BENCH_SPEND_MODE=meter-pg: the meter alone over a PostgreSQL ledger (spend-meter-pg.ts).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineAgent, RunManager } from "@agentsvc/agent-core";
import {
  ChatDb,
  openPostgresChatDb,
  type UsageEntry,
  type UsageScope,
  UsageSums,
} from "@agentsvc/chat-store";
import type { BudgetsConfig } from "@agentsvc/config-schema";
import { postgresMissing, startPostgres } from "@agentsvc/pg-test";
import { createSpendMeter, meterRuns } from "@agentsvc/server";
import { createGatewaySession, GatewayRegistry } from "@agentsvc/session-core";
import { pino } from "pino";
import { countingSink, onOffRow, type Throughput } from "./counting-sink.ts";
import { pgClient } from "./pg-client.ts";
import { benchMeterPg } from "./spend-meter-pg.ts";
import { fmt, percentile, type Row } from "./stats.ts";

const MESSAGES = Number(process.env.BENCH_SPEND_MESSAGES ?? 2000);
const GROWN = Number(
  process.env.BENCH_SPEND_GROWN ?? (process.env.BENCH_SPEND_MODE === "read" ? 200_000 : 0),
);
const SENDERS = 200;
const CONCURRENCY = 32;
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const senderOf = (i: number) => `+1555${String(i % SENDERS).padStart(7, "0")}`;
const HIGH = { day: { tokens: 1e12, cost: 1e9 }, month: { tokens: 1e12, cost: 1e9 } };
const BUDGETS: BudgetsConfig = { service: HIGH, perUser: HIGH, perGateway: HIGH, perAgent: HIGH };

type MeterFactory = typeof createSpendMeter;

/**
 * `count` ledger rows this month before `before`, in time order: over 1,000 users, 4 gateways and 2
 * agents, or (`ours`) the bench's own senders, gateway and agent, as a busy service's month would be.
 */
async function growLedger(db: ChatDb, count: number, before: number, ours = false): Promise<void> {
  const d = new Date(before);
  const month = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  const step = Math.max(1, Math.floor((before - month) / Math.max(1, count)));
  for (let from = 0; from < count; from += 500) {
    const rows: UsageEntry[] = [];
    for (let i = from; i < Math.min(count, from + 500); i++)
      rows.push(
        ours
          ? ledgerRow(month + i * step, `bench:${senderOf(i)}`, "bench", "bench")
          : grownRow(month + i * step, i),
      );
    await db.usageLedger.record(rows);
  }
}

interface Counted extends Throughput {
  reads: number;
  inserts: number;
  /** Wall ms spent in the sum reads (SQLite reads block the event loop: their CPU). */
  readMs: number;
}

async function round(metered: MeterFactory | undefined): Promise<Counted> {
  const root = mkdtempSync(join(tmpdir(), "agentsvc-bench-spend-"));
  const db = ChatDb.open({ appRoot: root, path: "./chat.db" });
  if (GROWN > 0) await growLedger(db, GROWN, Date.now() - 10 * 60_000, true);
  // The ledger's sums the budgets read (this tree's one statement a read, or an older tree's totals).
  let reads = 0;
  let inserts = 0;
  let readMs = 0;
  const ledger = db.usageLedger;
  const counted = {
    record: (...args: Parameters<typeof ledger.record>) => {
      inserts++;
      return ledger.record(...args);
    },
    spendSplit: async (...args: Parameters<typeof ledger.spendSplit>) => {
      reads++;
      const t = performance.now();
      try {
        return await ledger.spendSplit(...args);
      } finally {
        readMs += performance.now() - t;
      }
    },
    totals: async (...args: Parameters<typeof ledger.totals>) => {
      reads++;
      const t = performance.now();
      try {
        return await ledger.totals(...args);
      } finally {
        readMs += performance.now() - t;
      }
    },
  };
  const logger = pino({ level: "silent" });
  const registry = new GatewayRegistry(logger);
  const gateway = countingSink();
  registry.register(gateway);
  const agent = defineAgent({ name: "bench", model: { provider: "demo", script: [{ text: "ok" }] } });
  const runs = new RunManager({
    agent,
    memory: db.createMemory({ canSummarize: false }),
    runStore: db.runStore,
    logger,
  });
  const meter = metered
    ? metered({
        ledger: counted,
        prices: { "demo/agentsvc-demo (scripted demo model)": { input: 1, output: 1 } },
        ...(process.env.BENCH_SPEND_MODE === "ledger" ? {} : { budgets: BUDGETS }),
        logger,
      })
    : undefined;
  if (meter) meterRuns(runs, meter);
  await runs.ready();
  const session = createGatewaySession({
    runs,
    store: db,
    registry,
    agent,
    entries: [{ name: "bench", type: "bench" }],
    loggers: { root: logger },
  });
  await session.start();
  try {
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        for (let i = next++; i < MESSAGES; i = next++) {
          const from = senderOf(i);
          const r = await session.deliver({
            gateway: "bench",
            dedupKey: `d${i}`,
            thread: from,
            text: `hello ${i}`,
            author: { id: from },
            chat: { type: "direct", id: from },
          });
          if (!r.accepted) throw new Error(`message ${i} not accepted`);
        }
      }),
    );
    const ingested = performance.now();
    await session.idle(300_000);
    const done = performance.now();
    if (gateway.sent !== MESSAGES) throw new Error(`${gateway.sent} replies for ${MESSAGES} messages`);
    if (meter) {
      await meter.flush();
      const calls = (await db.usageLedger.totals({ since: 0 })).calls - GROWN;
      if (calls !== MESSAGES) throw new Error(`${calls} ledger rows for ${MESSAGES} model calls`);
    }
    return {
      ingest: MESSAGES / ((ingested - started) / 1000),
      e2e: MESSAGES / ((done - started) / 1000),
      reads,
      inserts,
      readMs,
    };
  } finally {
    await session.stop(5_000);
    db.close();
    rmSync(root, { recursive: true, force: true });
  }
}

export async function benchSpend(): Promise<Row[]> {
  if (process.env.BENCH_SPEND_MODE === "read") return benchRefreshRead();
  if (process.env.BENCH_SPEND_MODE === "meter-pg") return benchMeterPg();
  const beforeTree = process.env.BENCH_BEFORE_TREE;
  const before = beforeTree
    ? ((await import(join(beforeTree, "apps/server/dist/index.js"))) as { createSpendMeter: MeterFactory })
        .createSpendMeter
    : undefined;
  const sides: [string, MeterFactory | undefined][] = [
    ["off", undefined],
    ["this tree", createSpendMeter],
    ...(before ? [["before", before] as [string, MeterFactory]] : []),
  ];
  const results = new Map<string, Counted[]>(sides.map(([name]) => [name, []]));
  for (let i = 0; i < ROUNDS; i++)
    for (let j = 0; j < sides.length; j++) {
      const [name, factory] = sides[(i + j) % sides.length]!;
      results.get(name)!.push(await round(factory));
    }
  const off = results.get("off")!;
  const grown = GROWN > 0 ? `, ${GROWN.toLocaleString("en")} ledger rows this month before` : "";
  const rows: Row[] = [];
  for (const [name] of sides.slice(1)) {
    const on = results.get(name)!;
    const label = name === "this tree" ? "ledger + budgets" : "ledger + budgets, BENCH_BEFORE_TREE";
    rows.push(
      onOffRow(
        `ingest, ${MESSAGES} messages from ${SENDERS} senders at ${CONCURRENCY}${grown} (${label} vs no meter)`,
        "ingest",
        on,
        off,
      ),
      onOffRow(`end to end, every reply sent (${label} vs no meter)`, "e2e", on, off),
      {
        metric: `ledger sum reads / inserts / ms in the reads per ${MESSAGES} messages, each round (${label})`,
        value: on.map((r) => `${r.reads}/${r.inserts}/${fmt(r.readMs, 0)}`).join(", "),
        baseline: "",
        ratio: "",
        target: "",
      },
    );
  }
  return rows;
}

const READ_SCOPES: [string, UsageScope][] = [
  ["the service", {}],
  ["a user", { userId: "grown-7" }],
  ["a gateway", { gateway: "g1" }],
  ["an agent", { agent: "a1" }],
];

/** One budget's refresh read, the full day and month sums against the read since the cutoff, per scope. */
async function refreshReads(
  store: string,
  db: ChatDb,
  rows: Row[],
  settle?: () => Promise<void>,
): Promise<void> {
  const now = Date.now();
  await growLedger(db, GROWN, now - 10 * 60_000);
  // The last ten minutes: one call every 3 s.
  const recent: UsageEntry[] = Array.from({ length: 200 }, (_, i) =>
    grownRow(now - 10 * 60_000 + i * 3_000, i),
  );
  await db.usageLedger.record(recent);
  await settle?.();
  const d = new Date(now);
  const starts = {
    day: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()),
    month: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1),
  };
  const READS = 100;
  for (const [name, scope] of READ_SCOPES) {
    const sums = new UsageSums(db.usageLedger);
    await sums.read(scope, starts, now);
    const full: number[] = [];
    const since: number[] = [];
    for (let i = 0; i < READS; i++) {
      const pair = [
        async () => {
          const t = performance.now();
          await db.usageLedger.totals({ since: starts.day, ...scope });
          await db.usageLedger.totals({ since: starts.month, ...scope });
          full.push(performance.now() - t);
        },
        async () => {
          const t = performance.now();
          await sums.read(scope, starts, now + 1_000);
          since.push(performance.now() - t);
        },
      ];
      for (const run of i % 2 === 0 ? pair : pair.reverse()) await run();
    }
    const a = percentile(since, 50);
    const b = percentile(full, 50);
    rows.push({
      metric: `${store}: ${name}'s refresh read, ${GROWN.toLocaleString("en")} rows this month (median of ${READS})`,
      value: `${fmt(a, 3)} ms`,
      baseline: `${fmt(b, 3)} ms`,
      ratio: fmt(a / b, 3),
      target: "",
    });
  }
}

async function benchRefreshRead(): Promise<Row[]> {
  const rows: Row[] = [];
  const root = mkdtempSync(join(tmpdir(), "agentsvc-bench-spend-read-"));
  const sqlite = ChatDb.open({ appRoot: root, path: "./chat.db" });
  try {
    await refreshReads("SQLite", sqlite, rows);
  } finally {
    sqlite.close();
  }
  if (!postgresMissing) {
    const pg = await startPostgres({ durable: true });
    try {
      const url = await pg.createDatabase();
      const db = await openPostgresChatDb({
        name: "bench",
        datasource: { type: "postgres", urlEnvVar: "BENCH_PG_URL", pool: 4, ssl: "off" },
        appRoot: root,
        env: { BENCH_PG_URL: url },
      });
      try {
        // What autovacuum has done within its naptime: the ledger analyzed, its BRIN ranges
        // summarized (autosummarize, store step 22; before it, only a VACUUM summarized them).
        await refreshReads("PostgreSQL", db, rows, async () => {
          const client = pgClient(url);
          await client.connect();
          try {
            await client.query("ANALYZE usage_ledger");
            await client.query("SELECT brin_summarize_new_values('usage_ledger_at')");
          } finally {
            await client.end();
          }
        });
      } finally {
        db.close();
        await db.closedSettled;
      }
    } finally {
      await pg.stop();
    }
  }
  rmSync(root, { recursive: true, force: true });
  return rows;
}

/** One demo model call's ledger row: 100 tokens in, 20 out. */
function ledgerRow(at: number, userId: string, gateway: string, agent: string): UsageEntry {
  return {
    at,
    userId,
    gateway,
    agent,
    conversationId: "c",
    provider: "demo",
    model: "m",
    kind: "turn",
    outcome: "ok",
    inputTokens: 100,
    outputTokens: 20,
    cachedInputTokens: 0,
    reasoningTokens: 0,
    costNanos: 120_000,
  };
}

/** A row of the grown ledger's other spenders: 1,000 users over 4 gateways and 2 agents. */
function grownRow(at: number, i: number): UsageEntry {
  return ledgerRow(at, `grown-${i % 1000}`, `g${i % 4}`, `a${i % 2}`);
}
