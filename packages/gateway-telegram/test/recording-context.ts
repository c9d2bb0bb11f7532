// A GatewayContext that records what the gateway hands the session (messages, decisions) instead of
// running turns: the fixture table asks only what the adapter made of each platform payload.
import type { DecideResult, DecisionInput, GatewayContext, Inbound } from "@agentsvc/adapter-kit";
import { Scheduler } from "@agentsvc/session-core";
import { captureLogs, type LogLine } from "@agentsvc/testkit";

export interface RecordedDecision {
  requestId: string;
  decision: DecisionInput["decision"];
  by: string;
}

export interface RecordingContext {
  context: GatewayContext;
  delivered: Inbound[];
  decided: RecordedDecision[];
  logs(): LogLine[];
  stop(): void;
}

export function recordingContext(env: Record<string, string>): RecordingContext {
  const { logger, lines } = captureLogs();
  const gatewayLogger = logger.child({ name: "gateway-telegram" });
  const scheduler = new Scheduler(logger);
  const state = new Map<string, unknown>();
  const delivered: Inbound[] = [];
  const decided: RecordedDecision[] = [];
  const context: GatewayContext = {
    deliver: async (inbound) => {
      delivered.push(inbound);
      return { accepted: true, id: delivered.length };
    },
    decide: async (requestId, input, by): Promise<DecideResult> => {
      decided.push({ requestId, decision: input.decision, by });
      return { ok: true, requestId, decision: input.decision };
    },
    interaction: async () => undefined,
    state: {
      get: async <T>(key: string) => state.get(key) as T | undefined,
      set: async (key, value) => void state.set(key, value),
      delete: async (key) => void state.delete(key),
    },
    outbox: async () => [],
    claimOnce: async () => ({ claimed: true }),
    credentialsRejected: () => {},
    logger: gatewayLogger,
    scheduler: scheduler.forGateway("telegram", gatewayLogger),
    env,
  };
  return { context, delivered, decided, logs: lines, stop: () => scheduler.stopAll() };
}
