// The contract every gateway adapter's tests run: `runGatewayContract(name, makeHarness)`.
// The harness plays the platform side; the suite plays the session through a recording context.
import type { DecisionKind } from "@agentsvc/agent-core";
import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type {
  DecideResult,
  DecisionInput,
  DeliverResult,
  Gateway,
  GatewayContext,
  Inbound,
  InteractionRequest,
} from "../gateway.js";
import { Scheduler } from "../scheduler.js";

export interface PlatformMessage {
  /** Undefined when the platform has no threads (or the harness cannot tell). */
  thread?: string;
  text: string;
}

/** The platform side of one adapter, built fresh for each test. */
export interface GatewayHarness {
  gateway: Gateway;
  /** Makes the platform deliver a message; resolves once the platform got a success acknowledgement, rejects otherwise. Omit when the adapter takes no inbound messages. */
  inject?(message: { id: string; thread: string; text: string }): Promise<void>;
  /** What reached the platform so far, in order. */
  sent(): Promise<PlatformMessage[]>;
  /** A user picks `decision` on a rendered request (adapters with `interactiveActions`). */
  choose?(request: InteractionRequest, decision: DecisionKind): Promise<void>;
  /** A thread id valid on this platform; default `t-1`. */
  thread?: string;
  close?(): Promise<void>;
}

/** The session side as the suite sees it: every call recorded, deliver controllable. */
export class RecordingContext {
  readonly delivered: Inbound[] = [];
  readonly decisions: { requestId: string; decision: DecisionInput; decidedBy: string }[] = [];
  readonly seen = new Set<string>();
  /** Replace to delay or fail ingest. */
  deliverImpl: (inbound: Inbound) => Promise<DeliverResult> = async (inbound) => this.record(inbound);
  readonly scheduler = new Scheduler(pino({ level: "silent" }));
  #nextId = 1;

  record(inbound: Inbound): DeliverResult {
    this.delivered.push(inbound);
    const key = `${inbound.gateway}\u0000${inbound.dedupKey}`;
    if (this.seen.has(key)) return { accepted: false, duplicate: true };
    this.seen.add(key);
    return { accepted: true, id: this.#nextId++ };
  }

  context(gateway: Gateway, requests: Map<string, InteractionRequest>): GatewayContext {
    const logger = pino({ level: "silent" });
    return {
      deliver: (inbound) => this.deliverImpl(inbound),
      decide: async (requestId, decision, decidedBy): Promise<DecideResult> => {
        this.decisions.push({ requestId, decision, decidedBy });
        return { ok: true, requestId, decision: decision.decision };
      },
      interaction: async (requestId) => {
        const r = requests.get(requestId);
        return r ? { ...r, status: "open" } : undefined;
      },
      logger,
      scheduler: this.scheduler.forGateway(gateway.name, logger),
      env: {},
    };
  }
}

function sampleRequest(gateway: Gateway, thread: string): InteractionRequest {
  return {
    requestId: `req_contract_${Math.random().toString(36).slice(2)}`,
    threadId: `gw:${gateway.name}:${thread}`,
    gateway: gateway.name,
    thread,
    allowedDecisions: ["approve", "reject"],
    toolName: "delete_file",
    arguments: { path: "notes.txt" },
    prompt:
      'Approval needed: the agent wants to run the tool "delete_file".\nReply with one of:\n- approve\n- reject',
    createdAt: Date.now(),
  };
}

async function until(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 5_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline)
      throw new Error(`gateway contract: ${what} did not happen within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Registers the contract tests for one adapter. Call at the top level of a test file. */
export function runGatewayContract(name: string, makeHarness: () => Promise<GatewayHarness>): void {
  describe(`gateway contract: ${name}`, () => {
    let harness: GatewayHarness;
    let ctx: RecordingContext;
    let requests: Map<string, InteractionRequest>;
    let thread: string;

    beforeEach(async () => {
      harness = await makeHarness();
      ctx = new RecordingContext();
      requests = new Map();
      thread = harness.thread ?? "t-1";
      await harness.gateway.start(ctx.context(harness.gateway, requests));
    });

    afterEach(async () => {
      await harness.gateway.stop();
      ctx.scheduler.stopAll();
      await harness.close?.();
    });

    it("declares its kind, a type, a registry name, boolean capabilities and a positive message limit", () => {
      const g = harness.gateway;
      expect(["push", "channel"]).toContain(g.kind);
      expect(g.type).toMatch(/^[a-z][a-z0-9-]*$/);
      if (g.kind === "push") expect(g.name).toBe(g.type);
      else expect(g.name.length).toBeGreaterThan(0);
      expect(typeof g.capabilities.threads).toBe("boolean");
      expect(typeof g.capabilities.interactiveActions).toBe("boolean");
      expect(Number.isInteger(g.messageLimit) && g.messageLimit > 0).toBe(true);
    });

    it("delivers a sent reply to the platform with its exact text", async () => {
      const text = `contract reply ${Math.random().toString(36).slice(2)}`;
      await harness.gateway.send(thread, text);
      await until(
        async () => (await harness.sent()).some((m) => m.text.includes(text)),
        "the reply reaching the platform",
      );
      const match = (await harness.sent()).find((m) => m.text.includes(text));
      if (harness.gateway.capabilities.threads && match?.thread !== undefined)
        expect(match.thread).toBe(thread);
    });

    it("accepts a piece of exactly messageLimit characters", async () => {
      const limit = harness.gateway.messageLimit;
      const text = "x".repeat(Math.min(limit, 100_000));
      await harness.gateway.send(thread, text);
      await until(
        async () => (await harness.sent()).some((m) => m.text.includes(text)),
        "the full-length piece reaching the platform",
      );
    });

    it("renders an approval request and reports the user's choice, or lists every allowed decision in text", async () => {
      const request = sampleRequest(harness.gateway, thread);
      requests.set(request.requestId, request);
      await harness.gateway.requestDecision(request);
      if (harness.gateway.capabilities.interactiveActions) {
        expect(harness.choose, "an interactive adapter's harness must implement choose()").toBeDefined();
        await harness.choose?.(request, "approve");
        await until(() => ctx.decisions.length > 0, "the decision reaching the session");
        expect(ctx.decisions[0]?.requestId).toBe(request.requestId);
        expect(ctx.decisions[0]?.decision.decision).toBe("approve");
        expect(ctx.decisions[0]?.decidedBy.length).toBeGreaterThan(0);
      } else {
        await until(async () => (await harness.sent()).length > 0, "the text request reaching the platform");
        const text = (await harness.sent()).map((m) => m.text.toLowerCase()).join("\n");
        for (const d of request.allowedDecisions) expect(text).toContain(d);
      }
    });

    it("passes an inbound message to deliver with its platform id as dedupKey and its thread", async (t) => {
      if (!harness.inject) return t.skip();
      await harness.inject({ id: "m-100", thread, text: "hello from the platform" });
      expect(ctx.delivered).toHaveLength(1);
      expect(ctx.delivered[0]).toMatchObject({ dedupKey: "m-100", thread, text: "hello from the platform" });
    });

    it("acknowledges the platform only after deliver has recorded the message", async (t) => {
      if (!harness.inject) return t.skip();
      let recorded = false;
      let release!: () => void;
      const gate = new Promise<void>((r) => {
        release = r;
      });
      ctx.deliverImpl = async (inbound) => {
        await gate;
        recorded = true;
        return ctx.record(inbound);
      };
      let acked = false;
      const injected = harness.inject({ id: "m-200", thread, text: "slow ingest" }).then(() => {
        acked = true;
      });
      // Give the adapter every chance to acknowledge early before the store "finishes".
      await new Promise((r) => setTimeout(r, 50));
      expect(acked).toBe(false);
      release();
      await injected;
      expect(recorded).toBe(true);
    });

    it("hands a repeated platform message id to deliver again with the same dedupKey and acknowledges it", async (t) => {
      if (!harness.inject) return t.skip();
      await harness.inject({ id: "m-300", thread, text: "once" });
      await harness.inject({ id: "m-300", thread, text: "once" });
      const keys = ctx.delivered.map((d) => d.dedupKey);
      expect(keys.filter((k) => k === "m-300").length).toBeGreaterThanOrEqual(1);
      expect(new Set(keys)).toEqual(new Set(["m-300"]));
    });

    it("does not acknowledge a message whose recording failed, so the platform can retry", async (t) => {
      if (!harness.inject) return t.skip();
      ctx.deliverImpl = async () => {
        throw new Error("store unavailable");
      };
      await expect(harness.inject({ id: "m-400", thread, text: "lost?" })).rejects.toThrow();
    });

    it("stops idempotently", async () => {
      await harness.gateway.stop();
      await harness.gateway.stop();
    });
  });
}
