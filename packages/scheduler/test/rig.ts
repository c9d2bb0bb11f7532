// A real GatewaySession (RunManager on the demo model, a real SQLite ChatDb file, session-core's mock
// push gateway) and schedule runners over it, on a clock the test moves by hand.
import { type DemoStep, defineAgent, RunManager } from "@agentsvc/agent-core";
import { ChatDb } from "@agentsvc/chat-store";
import { createGatewaySession, GatewayRegistry, type GatewaySession } from "@agentsvc/session-core";
import { createMockGateway, type MockGateway } from "@agentsvc/session-core/testing";
import { testTempDir } from "../../../tooling/vitest.temp-dirs.js";
import { remindTools, type ScheduleDef, ScheduleRunner, type SchedulerObserver } from "../src/index.js";

export const MINUTE = 60_000;

export interface LogLine {
  level: "info" | "warn" | "error";
  msg: string;
  obj: Record<string, unknown>;
}

export interface Rig {
  db: ChatDb;
  session: GatewaySession;
  gateway: MockGateway;
  logs: LogLine[];
  clock: { now: number };
  runner(
    schedules: ScheduleDef[],
    options?: { instance?: string; observer?: SchedulerObserver },
  ): ScheduleRunner;
  close(): Promise<void>;
}

export function every(name: string, everyMs = MINUTE, extra: Partial<ScheduleDef> = {}): ScheduleDef {
  return {
    name,
    everyMs,
    timezone: "UTC",
    prompt: `tick of ${name}`,
    to: { gateway: "telegram", thread: "chat-1" },
    enabled: true,
    catchUp: "none",
    ...extra,
  };
}

export async function rig(
  options: {
    dir?: string;
    start?: number;
    /** The demo model's script (default: one step answering "Here is your digest."). */
    script?: DemoStep[];
    /** The remind tools on (their clock is the rig's) and the runner reading reminders. */
    reminders?: { maxPerUser?: number; timezone?: string };
  } = {},
): Promise<Rig> {
  const dir = options.dir ?? testTempDir("agentsvc-scheduler-");
  const db = ChatDb.open({ appRoot: dir, path: "data/chat.db" });
  const agent = defineAgent({
    name: "root",
    model: { provider: "demo", script: options.script ?? [{ text: "Here is your digest." }] },
  });
  const clock = { now: options.start ?? Date.UTC(2026, 11, 1, 9, 0, 30) };
  const runs = new RunManager({
    agent,
    ...(options.reminders
      ? {
          tools: remindTools({
            store: db.reminders,
            agent: "root",
            ...options.reminders,
            now: () => clock.now,
          }),
        }
      : {}),
    memory: db.createMemory({ canSummarize: false }),
    runStore: db.runStore,
    logger: { info() {}, warn() {}, error() {} },
  });
  await runs.ready();
  const registry = new GatewayRegistry();
  const gateway = createMockGateway({ kind: "push", type: "telegram" });
  registry.register(gateway);
  const session = createGatewaySession({
    runs,
    store: db,
    registry,
    agent,
    outbox: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 20 },
  });
  await session.start();
  const logs: LogLine[] = [];
  const logger = {
    info: (obj: object, msg: string) =>
      logs.push({ level: "info", msg, obj: obj as Record<string, unknown> }),
    warn: (obj: object, msg: string) =>
      logs.push({ level: "warn", msg, obj: obj as Record<string, unknown> }),
    error: (obj: object, msg: string) =>
      logs.push({ level: "error", msg, obj: obj as Record<string, unknown> }),
  };
  const runners: ScheduleRunner[] = [];
  return {
    db,
    session,
    gateway,
    logs,
    clock,
    runner(schedules, o = {}) {
      const r = new ScheduleRunner({
        schedules,
        store: db.scheduleTicks,
        sink: {
          deliver: (inbound, opts) => session.deliver(inbound, opts),
          hasGateway: (g) => registry.has(g),
        },
        instance: o.instance ?? "a",
        logger,
        ...(o.observer ? { observer: o.observer } : {}),
        now: () => clock.now,
        ...(options.reminders ? { reminders: db.reminders } : {}),
      });
      runners.push(r);
      return r;
    },
    async close() {
      for (const r of runners) await r.stop();
      await session.stop(2_000);
      db.close();
    },
  };
}
