// One gateway inside a real GatewaySession over a real RunManager (the offline demo model), with an
// in-process store: enough to drive a webhook gateway end to end from its platform fake. The agent
// has one approval-gated tool, `delete_file`; `replyText` makes every plain reply that long text
// (to see it chunked at the platform's limit).
import { type DemoStep, RunManager, WindowMemory } from "@agentsvc/agent-core";
import {
  createGatewaySession,
  type Gateway,
  GatewayRegistry,
  gatewayThreadId,
  type GatewaySession,
  type SenderAccessOptions,
  type SessionStore,
} from "@agentsvc/session-core";
import { contractAgent, createMemorySessionStore } from "@agentsvc/session-core/testing";
import { type Logger, pino } from "pino";

export interface SessionRigOptions {
  /** When set, the model answers every message that asks for no tool with this text. */
  replyText?: string;
  /** Platform user ids that may decide besides the thread's participant. */
  approvers?: string[];
  /** Pause before each token the demo model streams (a slow model). */
  tokenDelayMs?: number;
  /** The demo model's steps (text, tool calls) in place of the default script. */
  script?: DemoStep[];
  /** The entry's `streaming` and `streamIntervalMs` keys. */
  streaming?: boolean;
  streamIntervalMs?: number;
  /** The entry's sender access keys (dmPolicy, allowFrom, groupPolicy, rateLimit, ...). */
  access?: SenderAccessOptions;
  env?: Readonly<Record<string, string | undefined>>;
  publicBaseUrl?: string;
  /** Root logger (default: silent unless TESTKIT_LOG names a level); gateways log to its `gateway-<type>` children. */
  logger?: Logger;
}

export interface SessionRig {
  session: GatewaySession;
  /** The in-process store (its gateway state, inbox, outbox). */
  store: SessionStore;
  runs: RunManager;
  memory: WindowMemory;
  /** Notes the approved `delete_file` calls ran with. */
  executed: string[];
  /** Model calls made so far (every attempt, through RunManager's onModelAttempt). */
  modelCalls(): number;
  /** User messages the agent's memory holds for one thread. */
  userMessages(thread: string): Promise<string[]>;
  /** Cancels every running turn, as a user or operator cancelling a run does; how many were cancelled. */
  cancelRunning(): Promise<number>;
  stop(): Promise<void>;
}

export async function startSessionRig(
  gateway: Gateway,
  options: SessionRigOptions = {},
): Promise<SessionRig> {
  const logger = options.logger ?? pino({ level: process.env.TESTKIT_LOG ?? "silent" });
  const executed: string[] = [];
  const memory = new WindowMemory();
  const store = createMemorySessionStore();
  const registry = new GatewayRegistry(logger);
  registry.register(gateway);
  const agent = contractAgent(executed, options.replyText, options.tokenDelayMs, options.script);
  let modelCalls = 0;
  const runs = new RunManager({
    agent,
    memory,
    runStore: store.runStore,
    logger,
    onModelAttempt: () => {
      modelCalls++;
    },
  });
  await runs.ready();
  const session = createGatewaySession({
    runs,
    store,
    registry,
    agent,
    entries: [
      {
        name: gateway.name,
        type: gateway.type,
        ...(options.approvers ? { approvers: options.approvers } : {}),
        ...(options.streaming !== undefined ? { streaming: options.streaming } : {}),
        ...(options.streamIntervalMs !== undefined ? { streamIntervalMs: options.streamIntervalMs } : {}),
        ...(options.access ? { access: options.access } : {}),
      },
    ],
    loggers: { root: logger },
    outbox: { baseDelayMs: 20, maxDelayMs: 200 },
    ...(options.env ? { env: options.env } : {}),
    ...(options.publicBaseUrl ? { publicBaseUrl: options.publicBaseUrl } : {}),
  });
  await session.start();
  return {
    session,
    store,
    runs,
    memory,
    executed,
    modelCalls: () => modelCalls,
    userMessages: async (thread) =>
      (await memory.load({ userId: gateway.name, conversationId: thread })).flatMap((m) =>
        m.role === "user" ? [m.content] : [],
      ),
    cancelRunning: async () => {
      const running = (await store.inbox.unfinished()).filter((r) => r.status === "running");
      return running.filter((r) =>
        runs.cancel(gatewayThreadId(r.gateway, r.thread), { userId: r.gateway }, "cancelled by the user"),
      ).length;
    },
    stop: () => session.stop(2_000),
  };
}
