// A GatewayContext that records what the adapter hands the session (no session behind it): for the
// fixture table, which checks the adapter's reading of each payload and nothing else.
import type { DecisionInput, GatewayContext, Inbound } from "@agentsvc/adapter-kit";
import { Scheduler } from "@agentsvc/session-core";
import type { Logger } from "pino";

export interface RecordingContext {
  context: GatewayContext;
  delivered: Inbound[];
  decided: { requestId: string; decision: DecisionInput["decision"]; by: string }[];
  state: Map<string, unknown>;
  /** What the adapter reported through `credentialsRejected`. */
  rejected: { envVar: string; detail: string }[];
  stop(): void;
}

export function recordingContext(logger: Logger, env: Record<string, string> = {}): RecordingContext {
  const delivered: Inbound[] = [];
  const decided: RecordingContext["decided"] = [];
  const state = new Map<string, unknown>();
  const rejected: RecordingContext["rejected"] = [];
  const scheduler = new Scheduler(logger);
  let next = 1;
  const context: GatewayContext = {
    deliver: async (inbound) => {
      delivered.push(inbound);
      return { accepted: true, id: next++ };
    },
    decide: async (requestId, input, by) => {
      decided.push({ requestId, decision: input.decision, by });
      return { ok: true, requestId, decision: input.decision };
    },
    interaction: async () => undefined,
    state: {
      get: async <T>(key: string) => structuredClone(state.get(key)) as T | undefined,
      set: async (key, value) => void state.set(key, structuredClone(value)),
      delete: async (key) => void state.delete(key),
    },
    outbox: async () => [],
    claimOnce: async () => ({ claimed: true }),
    credentialsRejected: (envVar, detail) => void rejected.push({ envVar, detail }),
    logger,
    scheduler: scheduler.forGateway("slack", logger),
    env,
  };
  return { context, delivered, decided, state, rejected, stop: () => scheduler.stopAll() };
}
