// A GatewayContext with no session behind it, for the file tests: what the gateway delivers is
// recorded, its durable state is a Map (copied like the store's JSON), files go to testkit's
// in-memory blob store, and its log lines are kept.
import type { GatewayContext, Inbound } from "@agentsvc/adapter-kit";
import { Scheduler } from "@agentsvc/session-core";
import { captureLogs, type MemoryBlobs, memoryBlobs } from "@agentsvc/testkit/session";

export interface FilesContext {
  context: GatewayContext;
  delivered: Inbound[];
  state: Map<string, unknown>;
  blobs: MemoryBlobs;
  logs: ReturnType<typeof captureLogs>;
  stop(): void;
}

export function filesContext(): FilesContext {
  const logs = captureLogs();
  const delivered: Inbound[] = [];
  const state = new Map<string, unknown>();
  const blobs = memoryBlobs();
  const scheduler = new Scheduler(logs.logger);
  const context: GatewayContext = {
    deliver: async (inbound) => {
      delivered.push(inbound);
      return { accepted: true, id: delivered.length };
    },
    decide: async () => ({ ok: false, code: "not_found", message: "none" }),
    interaction: async () => undefined,
    state: {
      get: async <T>(key: string) => structuredClone(state.get(key)) as T | undefined,
      set: async (key, value) => void state.set(key, structuredClone(value)),
      delete: async (key) => void state.delete(key),
    },
    outbox: async () => [],
    claimOnce: async () => ({ claimed: true }),
    credentialsRejected: () => {},
    logger: logs.logger,
    scheduler: scheduler.forGateway("teams", logs.logger),
    env: process.env,
    blobs,
  };
  return { context, delivered, state, blobs, logs, stop: () => scheduler.stopAll() };
}
