import { PassThrough } from "node:stream";
import { pino } from "pino";
import type { DecisionInput, GatewayContext } from "@agentsvc/adapter-kit";
import { Scheduler } from "@agentsvc/session-core";

export interface Recorded {
  requestId: string;
  decision: DecisionInput;
  decidedBy: string;
}

/** Streams standing in for a terminal, plus a context that records decisions. */
export function terminal() {
  const input = new PassThrough();
  const output = new PassThrough();
  let text = "";
  output.on("data", (c) => {
    text += String(c);
  });
  const decisions: Recorded[] = [];
  const warnings: string[] = [];
  const logger = pino({ level: "warn" }, { write: (l: string) => warnings.push(l) });
  const context: GatewayContext = {
    deliver: async () => ({ accepted: false, duplicate: true }),
    decide: async (requestId, decision, decidedBy) => {
      decisions.push({ requestId, decision, decidedBy });
      return { ok: true, requestId, decision: decision.decision };
    },
    interaction: async () => undefined,
    state: { get: async () => undefined, set: async () => {}, delete: async () => {} },
    outbox: async () => [],
    claimOnce: async () => ({ claimed: true }),
    credentialsRejected: () => {},
    logger,
    scheduler: new Scheduler(logger).forGateway("cli", logger),
    env: {},
  };
  return { input, output, context, decisions, warnings, text: () => text };
}

/** One polling helper for every package: testkit's (`eventually(check, what, ms)`). */
export { eventually } from "@agentsvc/testkit";
