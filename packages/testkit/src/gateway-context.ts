// A gateway started on its own, without a session: what a test of one adapter path (files in, files
// out) needs from the context. Deliveries are recorded (a repeated dedup key is a duplicate, as the
// session answers), files go to memory blobs, tasks run on a real scheduler, state is kept nowhere.
import type { Gateway, GatewayContext, Inbound } from "@agentsvc/session-core";
import { Scheduler } from "@agentsvc/session-core";
import { captureLogs } from "./logs.js";
import { type MemoryBlobs, memoryBlobs } from "./memory-blobs.js";

export interface StartedGateway {
  /** What the gateway delivered, in order (duplicates left out). */
  delivered: Inbound[];
  blobs: MemoryBlobs;
  /** Stops the gateway and its scheduled tasks. */
  stop(): Promise<void>;
}

/** Starts `gateway` with a recording context; call `stop()` after the test. */
export async function startGatewayAlone(gateway: Gateway): Promise<StartedGateway> {
  const { logger } = captureLogs();
  const scheduler = new Scheduler(logger);
  const delivered: Inbound[] = [];
  const blobs = memoryBlobs();
  const seen = new Set<string>();
  const context = {
    deliver: async (inbound: Inbound) => {
      if (seen.has(inbound.dedupKey)) return { accepted: false, duplicate: true };
      seen.add(inbound.dedupKey);
      delivered.push(inbound);
      return { accepted: true, id: delivered.length };
    },
    decide: async () => ({ ok: false, code: "not_found", message: "no request" }),
    interaction: async () => undefined,
    state: { get: async () => undefined, set: async () => {}, delete: async () => {} },
    outbox: async () => [],
    claimOnce: async () => ({ claimed: true }),
    credentialsRejected: () => {},
    logger,
    scheduler: scheduler.forGateway(gateway.name, logger),
    env: process.env,
    blobs,
  } as unknown as GatewayContext;
  await gateway.start(context);
  return {
    delivered,
    blobs,
    stop: async () => {
      await gateway.stop();
      scheduler.stopAll();
    },
  };
}
