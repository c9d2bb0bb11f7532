// Budget and cost-ledger cost (#40): the same messages through a real session over a durable SQLite
// store (demo model, one push gateway that sends nowhere), with no meter versus the server's spend
// meter (every model call written to the cost ledger, and service, per-user, per-gateway and
// per-agent day and month budgets, high enough to admit everything, summed before every call), so
// both sides do the same turns and only the metering differs. Ingest: messages recorded per second
// at concurrency 32; end to end: until every reply is sent. Rounds alternate off/on; the median
// round is reported.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineAgent, RunManager } from "@agentsvc/agent-core";
import { ChatDb } from "@agentsvc/chat-store";
import type { BudgetsConfig } from "@agentsvc/config-schema";
import { createSpendMeter, meterRuns } from "@agentsvc/server";
import { createGatewaySession, GatewayRegistry } from "@agentsvc/session-core";
import { pino } from "pino";
import { countingSink, onOffRow, type Throughput } from "./counting-sink.ts";
import type { Row } from "./stats.ts";

const MESSAGES = Number(process.env.BENCH_SPEND_MESSAGES ?? 2000);
const SENDERS = 200;
const CONCURRENCY = 32;
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const senderOf = (i: number) => `+1555${String(i % SENDERS).padStart(7, "0")}`;
const HIGH = { day: { tokens: 1e12, cost: 1e9 }, month: { tokens: 1e12, cost: 1e9 } };
const BUDGETS: BudgetsConfig = { service: HIGH, perUser: HIGH, perGateway: HIGH, perAgent: HIGH };

async function round(metered: boolean): Promise<{ ingest: number; e2e: number }> {
  const root = mkdtempSync(join(tmpdir(), "agentsvc-bench-spend-"));
  const db = ChatDb.open({ appRoot: root, path: "./chat.db" });
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
    ? createSpendMeter({
        ledger: db.usageLedger,
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
      const calls = (await db.usageLedger.totals({ since: 0 })).calls;
      if (calls !== MESSAGES) throw new Error(`${calls} ledger rows for ${MESSAGES} model calls`);
    }
    return { ingest: MESSAGES / ((ingested - started) / 1000), e2e: MESSAGES / ((done - started) / 1000) };
  } finally {
    await session.stop(5_000);
    db.close();
    rmSync(root, { recursive: true, force: true });
  }
}

export async function benchSpend(): Promise<Row[]> {
  const off: Throughput[] = [];
  const on: Throughput[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    off.push(await round(false));
    on.push(await round(true));
  }
  const row = (metric: string, k: keyof Throughput): Row => onOffRow(metric, k, on, off);
  return [
    row(
      `ingest, ${MESSAGES} messages from ${SENDERS} senders at ${CONCURRENCY} (ledger + budgets vs no meter)`,
      "ingest",
    ),
    row("end to end, every reply sent (ledger + budgets vs no meter)", "e2e"),
  ];
}
