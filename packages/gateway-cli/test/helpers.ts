import { PassThrough } from "node:stream";
import { pino } from "pino";
import type { DecisionInput, GatewayContext } from "@agentsvc/session-core";
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

/**
 * Polls `check` every 5 ms until it holds, or fails naming `what`: testkit's `eventually`, which
 * this package cannot import (testkit depends on the server, which depends on this package).
 */
export async function eventually(check: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
