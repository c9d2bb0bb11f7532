// The GatewayContext a gateway gets at start: the session's entry points, scoped to this gateway.
import type { Logger } from "pino";
import type {
  DecideResult,
  DecisionInput,
  DeliverResult,
  Gateway,
  GatewayContext,
  Inbound,
  InteractionView,
} from "./gateway.js";
import type { Scheduler } from "./scheduler.js";
import type { SessionStore } from "./store.js";

interface SessionEntryPoints {
  deliver(inbound: Inbound & { gateway: string }): Promise<DeliverResult>;
  decide(requestId: string, decision: DecisionInput, decidedBy: string): Promise<DecideResult>;
  interaction(requestId: string): Promise<InteractionView | undefined>;
  credentialsRejected(gateway: string, envVar: string, detail: string): void;
  reconnected(gateway: string): void;
  heard(gateway: string): void;
  platformCallSucceeded(gateway: string): void;
  undelivered(
    gateway: string,
    thread: string,
    platformId: string,
    detail: string,
    retryAfterMs?: number,
  ): Promise<boolean>;
}

export function contextFor(
  gateway: Gateway,
  input: {
    session: SessionEntryPoints;
    store: SessionStore;
    logger: Logger;
    scheduler: Scheduler;
    env: Readonly<Record<string, string | undefined>>;
    publicBaseUrl?: string;
  },
): GatewayContext {
  const { session, store } = input;
  const name = gateway.name;
  return {
    // The gateway key comes from the registry, never from what the adapter passes.
    deliver: (inbound) => session.deliver({ ...inbound, gateway: name }),
    decide: (requestId, decision, decidedBy) => session.decide(requestId, decision, decidedBy),
    // A gateway sees only its own requests.
    interaction: async (requestId) => {
      const view = await session.interaction(requestId);
      return view?.gateway === name ? view : undefined;
    },
    credentialsRejected: (envVar, detail) => session.credentialsRejected(name, envVar, detail),
    reconnected: () => session.reconnected(name),
    heard: () => session.heard(name),
    ...(store.blobs ? { blobs: store.blobs } : {}),
    platformCallSucceeded: () => session.platformCallSucceeded(name),
    state: {
      get: async <T>(key: string) => store.gatewayState.get<T>(name, key),
      set: async (key, value) => store.gatewayState.set(name, key, value),
      delete: async (key) => store.gatewayState.delete(name, key),
    },
    outbox: async (thread, after = 0, limit = 1000) =>
      (await store.outbox.list(name, thread, after, limit)).map((row) => ({
        seq: row.id,
        at: row.createdAt,
        thread: row.thread,
        kind: row.kind,
        status: row.status,
        payload: row.payload,
        idempotencyKey: row.idemKey,
      })),
    undelivered: (thread, platformMessageId, detail, options) =>
      session.undelivered(name, thread, platformMessageId, detail, options?.retryAfterMs),
    claimOnce: async (token, value, ttlMs) => store.seenTokens.claim(name, token, value, Date.now() + ttlMs),
    ...(input.publicBaseUrl ? { publicBaseUrl: input.publicBaseUrl } : {}),
    logger: input.logger,
    scheduler: input.scheduler.forGateway(name, input.logger),
    env: input.env,
  };
}
