// A hand-built GatewayContext for adapter-level tests: a real scheduler and a pino logger whose
// lines are kept, a Map for durable state, and a `deliver` that records (or fails on command).
import { Writable } from "node:stream";
import type { DeliverResult, GatewayContext, Inbound } from "@agentsvc/adapter-kit";
import { Scheduler } from "@agentsvc/session-core";
import { pino } from "pino";

export interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

export interface TestContext {
  ctx: GatewayContext;
  delivered: Inbound[];
  logs: LogLine[];
  state: Map<string, unknown>;
  /** Replace to hold or fail ingest. */
  deliverHook: ((inbound: Inbound) => Promise<void>) | undefined;
  scheduler: Scheduler;
}

export function testContext(
  env: Record<string, string> = {},
  state: Map<string, unknown> = new Map(),
): TestContext {
  const logs: LogLine[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split("\n")) if (line) logs.push(JSON.parse(line));
      done();
    },
  });
  const logger = pino({ level: "debug" }, sink);
  const scheduler = new Scheduler(logger);
  const delivered: Inbound[] = [];
  const seen = new Set<string>();
  const t: TestContext = {
    delivered,
    logs,
    state,
    scheduler,
    deliverHook: undefined,
    ctx: {
      async deliver(inbound): Promise<DeliverResult> {
        await t.deliverHook?.(inbound);
        if (seen.has(inbound.dedupKey)) return { accepted: false, duplicate: true };
        seen.add(inbound.dedupKey);
        delivered.push(inbound);
        return { accepted: true, id: delivered.length };
      },
      decide: async () => ({ ok: false, code: "not_found", message: "none" }),
      interaction: async () => undefined,
      state: {
        get: async <T>(key: string) => state.get(key) as T | undefined,
        set: async (key, value) => void state.set(key, value),
        delete: async (key) => void state.delete(key),
      },
      outbox: async () => [],
      claimOnce: async () => ({ claimed: true }),
      credentialsRejected: () => {},
      logger,
      scheduler: scheduler.forGateway("test", logger),
      env,
    },
  };
  return t;
}
