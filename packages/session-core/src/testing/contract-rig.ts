// The session side of the contract suite: a real GatewaySession over a real RunManager (demo
// model, one approval-gated tool) and an in-process store, around the adapter under test.
import {
  type AgentDefinition,
  defineAgent,
  defineTool,
  type Memory,
  RunManager,
  WindowMemory,
} from "@agentsvc/agent-core";
import { pino } from "pino";
import type { DecisionKind, DemoStep } from "@agentsvc/agent-core";
import type { Gateway, GatewayContext } from "../gateway.js";
import { GatewayRegistry } from "../registry.js";
import { type GatewaySession, createGatewaySession } from "../session.js";
import type { SessionStore } from "../store.js";
import { createMemorySessionStore } from "./memory-store.js";

export interface PlatformMessage {
  /** The platform thread the message went to, as the platform fake saw it. */
  thread?: string;
  text: string;
}

/** The platform side of one adapter: a fake platform plus a way to build the adapter against it. */
export interface GatewayHarness {
  /** Builds the adapter under test. Called again for a restart (same platform fake behind it). */
  gateway(): Gateway | Promise<Gateway>;
  /** The platform delivers a message; resolves once the platform got its success acknowledgement, rejects otherwise. */
  inject?(message: { id: string; thread: string; text: string; author: string }): Promise<void>;
  /** Everything that reached the platform so far, in order (replies, requests, card updates). */
  sent(): Promise<PlatformMessage[]>;
  /** A user presses `decision` on the rendered request (adapters with `interactiveActions`). */
  choose?(
    request: { requestId: string; thread: string },
    decision: DecisionKind,
    author: string,
  ): Promise<void>;
  /** The platform's next outbound call fails with this status (429 with a short retry-after). */
  failNext?(status: 429 | 500): void;
  /**
   * The adapter reads messages from a position it keeps (an IMAP UID, a stream position) instead of
   * answering each push: a message whose recording failed must be read again by the adapter itself,
   * ahead of later ones and across a restart. Enables the cursor case of the contract.
   */
  cursor?: boolean;
  /** Two thread ids valid on this platform. Default `t-1` and `t-2`. */
  threads?: [string, string];
  close?(): Promise<void>;
}

/** One adapter inside a real session, with the store kept across restarts. */
export class ContractRig {
  readonly store: SessionStore = createMemorySessionStore();
  readonly memory: Memory = new WindowMemory();
  readonly executed: string[] = [];
  readonly logger = pino({ level: process.env.CONTRACT_LOG ?? "silent" });
  gateway!: Gateway;
  session!: GatewaySession;
  /** The context the session last started the adapter with. */
  #context: GatewayContext | undefined;
  /** The adapter as the session has it (its `start` passes through `deliverHook`). */
  #registered: Gateway | undefined;
  runs!: RunManager;
  /** Replace to delay or fail ingest as the adapter sees it. */
  deliverHook:
    | ((
        inbound: Parameters<GatewayContext["deliver"]>[0],
        next: GatewayContext["deliver"],
      ) => ReturnType<GatewayContext["deliver"]>)
    | undefined;

  constructor(private readonly harness: GatewayHarness) {}

  async start(): Promise<void> {
    const inner = await this.harness.gateway();
    // The adapter's context passes through a hook so a test can hold or fail `deliver`.
    const start = (ctx: GatewayContext) => {
      this.#context = ctx;
      return inner.start({
        ...ctx,
        deliver: (inbound) =>
          this.deliverHook ? this.deliverHook(inbound, ctx.deliver) : ctx.deliver(inbound),
      });
    };
    const gateway = new Proxy(inner, {
      get(target, prop) {
        if (prop === "start") return start;
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    this.gateway = inner;
    this.#registered = gateway;
    const registry = new GatewayRegistry(this.logger);
    registry.register(gateway);
    this.runs = new RunManager({
      agent: contractAgent(this.executed),
      memory: this.memory,
      runStore: this.store.runStore,
      logger: this.logger,
    });
    await this.runs.ready();
    this.session = createGatewaySession({
      runs: this.runs,
      store: this.store,
      registry,
      agent: this.runs.agent,
      loggers: { root: this.logger },
      outbox: { baseDelayMs: 20, maxDelayMs: 200 },
    });
    await this.session.start();
  }

  /**
   * Stops the adapter and starts the same object again, as a session does when this instance
   * loses its lead and takes it back (several instances): nothing else restarts.
   */
  async restartAdapterInPlace(): Promise<void> {
    const ctx = this.#context;
    if (!ctx) throw new Error("contract rig: the adapter was never started");
    const gateway = this.#registered as Gateway;
    await gateway.stop();
    await gateway.start(ctx);
  }

  async restart(): Promise<void> {
    await this.session.stop(2_000);
    await this.start();
  }

  async stop(): Promise<void> {
    await this.session?.stop(2_000);
  }

  /** User messages the agent's memory holds for one thread of this gateway. */
  async userMessages(thread: string): Promise<string[]> {
    const messages = await this.memory.load({ userId: this.gateway.name, conversationId: thread });
    return messages.flatMap((m) => (m.role === "user" ? [m.content] : []));
  }
}

/**
 * The agent the contract suite (and testkit's session rig) drives: the demo model and one
 * approval-gated tool, `delete_file`, that records its runs in `executed`. `replyText` makes every
 * plain reply that text (to see it chunked at a platform's limit).
 */
export function contractAgent(
  executed: string[],
  replyText?: string,
  /** Pause before each streamed token (a slow model, to watch a reply stream). */
  tokenDelayMs?: number,
  /** The model's steps, in place of the default script (text, tool calls). */
  script?: DemoStep[],
): AgentDefinition {
  const delay = tokenDelayMs ? { tokenDelayMs } : {};
  const steps = script ?? (replyText ? [{ text: replyText }] : undefined);
  return defineAgent({
    name: "contract",
    model: steps ? { provider: "demo", script: steps, ...delay } : { provider: "demo", ...delay },
    tools: [
      defineTool({
        name: "delete_file",
        description: "Deletes a file (needs approval).",
        input: {
          type: "json-schema" as const,
          schema: { type: "object", properties: { note: { type: "string" } }, required: ["note"] },
        },
        needsApproval: true,
        execute: async (input: { note: string }) => {
          executed.push(input.note);
          return "deleted";
        },
      }),
    ],
  });
}

/** Polls `check` every 10 ms until it holds, or fails naming `what`. */
export async function until(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 8_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline)
      throw new Error(`gateway contract: ${what} did not happen within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
