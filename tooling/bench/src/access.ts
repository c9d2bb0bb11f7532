// Sender access cost (#40): the same messages through a real session over a durable SQLite store
// (demo model, one push gateway that sends nowhere), with the entry open versus with an allowlist
// naming every sender plus a per-sender and a gateway rate limit high enough to admit them all,
// so both sides do the same turns and only the checks differ. Ingest: messages recorded per second
// (deliver resolved) at concurrency 32; end to end: until every reply is sent. Rounds alternate
// off/on; the median round is reported. BENCH_ACCESS_MODE=allow (allowlist only) or rate (the
// per-sender limit only) measures one check alone.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineAgent, RunManager } from "@agentsvc/agent-core";
import { ChatDb } from "@agentsvc/chat-store";
import { createGatewaySession, GatewayRegistry, type SenderAccessOptions } from "@agentsvc/session-core";
import { pino } from "pino";
import { countingSink, onOffRow, type Throughput } from "./counting-sink.ts";
import type { Row } from "./stats.ts";

const MESSAGES = Number(process.env.BENCH_ACCESS_MESSAGES ?? 2000);
const SENDERS = 200;
const CONCURRENCY = 32;
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const senderOf = (i: number) => `+1555${String(i % SENDERS).padStart(7, "0")}`;

const MODE = process.env.BENCH_ACCESS_MODE ?? "all";
const ACCESS: SenderAccessOptions = {
  ...(MODE !== "rate"
    ? { dmPolicy: "allowlist" as const, allowFrom: Array.from({ length: SENDERS }, (_, i) => senderOf(i)) }
    : {}),
  ...(MODE !== "allow" ? { rateLimit: { messages: 1_000_000, perSeconds: 3600 } } : {}),
  ...(MODE === "all" ? { gatewayRateLimit: { messages: 1_000_000, perSeconds: 3600 } } : {}),
};

async function round(access: SenderAccessOptions | undefined): Promise<{ ingest: number; e2e: number }> {
  const root = mkdtempSync(join(tmpdir(), "agentsvc-bench-access-"));
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
  await runs.ready();
  const session = createGatewaySession({
    runs,
    store: db,
    registry,
    agent,
    entries: [{ name: "bench", type: "bench", ...(access ? { access } : {}) }],
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
    return { ingest: MESSAGES / ((ingested - started) / 1000), e2e: MESSAGES / ((done - started) / 1000) };
  } finally {
    await session.stop(5_000);
    db.close();
    rmSync(root, { recursive: true, force: true });
  }
}

export async function benchAccess(): Promise<Row[]> {
  const off: Throughput[] = [];
  const on: Throughput[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    off.push(await round(undefined));
    on.push(await round(ACCESS));
  }
  const row = (metric: string, k: keyof Throughput): Row => onOffRow(metric, k, on, off);
  return [
    row(
      `ingest, ${MESSAGES} messages from ${SENDERS} senders at ${CONCURRENCY} (access on vs off)`,
      "ingest",
    ),
    row("end to end, every reply sent (access on vs off)", "e2e"),
  ];
}
