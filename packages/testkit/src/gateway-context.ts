// A gateway started on its own, without a session: what a test of one adapter path (files in, files
// out, reconnects) needs from the context. Deliveries are recorded (a repeated dedup key is a
// duplicate, as the session answers), files go to memory blobs, tasks run on a real scheduler, log
// lines are kept, state is kept nowhere.
import type { Gateway, GatewayContext, Inbound } from "@agentsvc/session-core";
import { Scheduler } from "@agentsvc/session-core";
import { captureLogs, type LogLine } from "./logs.js";
import { type MemoryBlobs, memoryBlobs } from "./memory-blobs.js";

interface AloneOptions {
  /** The context's environment (default: this process's). */
  env?: Record<string, string | undefined>;
}

export interface StartedGateway {
  /** What the gateway delivered, in order (duplicates left out). */
  delivered: Inbound[];
  blobs: MemoryBlobs;
  /** The gateway's log lines so far. */
  logs(): LogLine[];
  /** Runs before each delivery is recorded: set it to hold one or fail it (a throw fails the deliver). */
  deliverHook: ((inbound: Inbound) => Promise<void>) | undefined;
  scheduler: Scheduler;
  /** Stops the gateway and its scheduled tasks. */
  stop(): Promise<void>;
}

/** The recording context for `gateway`, not started: `gateway.start(alone.context)` (a start that should fail). */
export function gatewayAlone(
  gateway: Gateway,
  options: AloneOptions = {},
): StartedGateway & { context: GatewayContext } {
  const { logger, lines } = captureLogs();
  const scheduler = new Scheduler(logger);
  const delivered: Inbound[] = [];
  const blobs = memoryBlobs();
  const seen = new Set<string>();
  const alone: StartedGateway & { context: GatewayContext } = {
    delivered,
    blobs,
    logs: lines,
    deliverHook: undefined,
    scheduler,
    stop: async () => {
      await gateway.stop();
      scheduler.stopAll();
    },
    context: {
      deliver: async (inbound: Inbound) => {
        await alone.deliverHook?.(inbound);
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
      env: options.env ?? process.env,
      blobs,
    } as unknown as GatewayContext,
  };
  return alone;
}

/** Starts `gateway` with a recording context; call `stop()` after the test. */
export async function startGatewayAlone(
  gateway: Gateway,
  options: AloneOptions = {},
): Promise<StartedGateway> {
  const alone = gatewayAlone(gateway, options);
  await gateway.start(alone.context);
  return alone;
}
