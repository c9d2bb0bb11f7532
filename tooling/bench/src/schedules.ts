// Schedules (#41): 1,000 schedules due in the same minute, each to its own chat, on one instance
// (a real session over a durable SQLite store, demo model, a push gateway that sends nowhere). The
// runner's clock is moved onto the tick; the figure is the wall time from that pass until every
// reply is sent (target: within the minute), beside the same 1,000 messages delivered straight into
// the session (the baseline: what the scheduler adds is the claim and the settle). RSS: the peak
// while they run against the idle process with the session and runner started (target <= 1.2x).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineAgent, RunManager } from "@agentsvc/agent-core";
import { ChatDb } from "@agentsvc/chat-store";
import { type ScheduleDef, ScheduleRunner } from "@agentsvc/scheduler";
import { createGatewaySession, GatewayRegistry } from "@agentsvc/session-core";
import { pino } from "pino";
import { countingSink } from "./counting-sink.ts";
import { fmt, type Row } from "./stats.ts";

const SCHEDULES = Number(process.env.BENCH_SCHEDULES ?? 1000);
const MINUTE = 60_000;

async function round(scheduled: boolean): Promise<{ seconds: number; idleRss: number; peakRss: number }> {
  const root = mkdtempSync(join(tmpdir(), "agentsvc-bench-schedules-"));
  const db = ChatDb.open({ appRoot: root, path: "./chat.db" });
  const logger = pino({ level: "silent" });
  const registry = new GatewayRegistry(logger);
  const gateway = countingSink();
  registry.register(gateway);
  const agent = defineAgent({ name: "bench", model: { provider: "demo", script: [{ text: "digest" }] } });
  const runs = new RunManager({
    agent,
    memory: db.createMemory({ canSummarize: false }),
    runStore: db.runStore,
    logger,
  });
  await runs.ready();
  const session = createGatewaySession({ runs, store: db, registry, agent, loggers: { root: logger } });
  await session.start();
  const tick = Math.ceil(Date.now() / MINUTE) * MINUTE;
  const clock = { now: tick - 1_000 };
  const schedules: ScheduleDef[] = Array.from({ length: SCHEDULES }, (_, i) => ({
    name: `s${i}`,
    cron: "* * * * *",
    timezone: "UTC",
    prompt: `digest ${i}`,
    to: { gateway: "bench", thread: `chat-${i}` },
    enabled: true,
    catchUp: "none",
  }));
  const runner = new ScheduleRunner({
    schedules,
    store: db.scheduleTicks,
    sink: { deliver: (i, o) => session.deliver(i, o), hasGateway: (g) => registry.has(g) },
    instance: "bench",
    logger,
    now: () => clock.now,
  });
  await runner.start();
  global.gc?.();
  const idleRss = process.memoryUsage().rss;
  let peakRss = idleRss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 50);
  try {
    clock.now = tick;
    const started = performance.now();
    if (scheduled) await runner.pass();
    else
      await Promise.all(
        schedules.map((s) =>
          session.deliver(
            {
              gateway: "bench",
              dedupKey: `d:${s.name}`,
              thread: "thread" in s.to ? s.to.thread : s.name,
              text: s.prompt,
              author: { id: "bench" },
            },
            { operator: true },
          ),
        ),
      );
    await session.idle(300_000);
    if (scheduled) await runner.pass(); // settles every tick's outcome
    const seconds = (performance.now() - started) / 1000;
    if (gateway.sent !== SCHEDULES) throw new Error(`${gateway.sent} replies for ${SCHEDULES} schedules`);
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
    return { seconds, idleRss, peakRss };
  } finally {
    clearInterval(sampler);
    await runner.stop();
    await session.stop(5_000);
    db.close();
    rmSync(root, { recursive: true, force: true });
  }
}

export async function benchSchedules(): Promise<Row[]> {
  const direct = await round(false);
  const scheduled = await round(true);
  return [
    {
      metric: `${SCHEDULES} schedules due in one minute: tick to every reply sent (vs the same messages delivered directly)`,
      value: `${fmt(scheduled.seconds, 1)} s`,
      baseline: `${fmt(direct.seconds, 1)} s`,
      ratio: fmt(scheduled.seconds / direct.seconds),
      target: "value < 60 s",
    },
    {
      metric: "peak RSS while they run vs the idle process (session and runner started)",
      value: `${fmt(scheduled.peakRss / 2 ** 20, 0)} MB`,
      baseline: `${fmt(scheduled.idleRss / 2 ** 20, 0)} MB`,
      ratio: fmt(scheduled.peakRss / scheduled.idleRss),
      target: "<= 1.2",
    },
  ];
}
