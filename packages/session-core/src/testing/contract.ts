// Contract suite v2, run by every adapter: `runGatewayContract(name, makeHarness)`. Each case
// drives the adapter through a real session (see contract-rig.ts) from the platform side, and
// checks what the platform saw: one reply per message on its own thread, approvals rendered and
// applied once, nothing acknowledged before it is recorded, nothing delivered after stop, and
// exactly one reply through 429s, 5xx answers and a restart.
import { randomBytes } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ContractRig, type GatewayHarness, until } from "./contract-rig.js";

export type { GatewayHarness, PlatformMessage } from "./contract-rig.js";
export { ContractRig } from "./contract-rig.js";

type Case = (rig: ContractRig, harness: GatewayHarness) => Promise<void>;

const token = () => `tok${randomBytes(5).toString("hex")}`;
const threadsOf = (h: GatewayHarness): [string, string] => h.threads ?? ["t-1", "t-2"];

async function repliesWith(h: GatewayHarness, text: string) {
  return (await h.sent()).filter((m) => m.text.includes(text));
}

/** Injects and waits for exactly one reply carrying the message's token. */
async function roundTrip(rig: ContractRig, h: GatewayHarness, thread: string, id: string, text: string) {
  await h.inject?.({ id, thread, text, author: "user-1" });
  await until(async () => (await repliesWith(h, text)).length > 0, `a reply to "${text}"`);
  await rig.session.idle(10_000);
}

export const contractCases: Record<string, Case> = {
  "declares its kind, a type, a registry name, boolean capabilities and a positive message limit": async (
    rig,
  ) => {
    const g = rig.gateway;
    expect(["push", "channel"]).toContain(g.kind);
    expect(g.type).toMatch(/^[a-z][a-z0-9-]*$/);
    if (g.kind === "push") expect(g.name).toBe(g.type);
    expect(typeof g.capabilities.threads).toBe("boolean");
    expect(typeof g.capabilities.interactiveActions).toBe("boolean");
    expect(Number.isInteger(g.messageLimit) && g.messageLimit > 0).toBe(true);
    if (g.capabilities.interactiveActions) expect(typeof g.requestDecision).toBe("function");
  },

  "answers each message once, on the thread it came from": async (rig, h) => {
    const [a, b] = threadsOf(h);
    const ta = token();
    const tb = token();
    await h.inject?.({ id: `${ta}-id`, thread: a, text: `hello ${ta}`, author: "user-1" });
    await h.inject?.({ id: `${tb}-id`, thread: b, text: `hello ${tb}`, author: "user-2" });
    await until(
      async () => (await repliesWith(h, ta)).length > 0 && (await repliesWith(h, tb)).length > 0,
      "both replies",
    );
    await rig.session.idle(10_000);
    const ra = await repliesWith(h, ta);
    const rb = await repliesWith(h, tb);
    expect(ra).toHaveLength(1);
    expect(rb).toHaveLength(1);
    if (rig.gateway.capabilities.threads || ra[0]?.thread !== undefined) {
      expect(ra[0]?.thread).toBe(a);
      expect(rb[0]?.thread).toBe(b);
    }
  },

  "a platform delivering the same message three times gets one turn and one reply": async (rig, h) => {
    const [a] = threadsOf(h);
    const t = token();
    for (let i = 0; i < 3; i++)
      await h.inject?.({ id: `${t}-id`, thread: a, text: `again ${t}`, author: "user-1" });
    await until(async () => (await repliesWith(h, t)).length > 0, "the reply");
    await rig.session.idle(10_000);
    expect(await repliesWith(h, t)).toHaveLength(1);
    expect((await rig.userMessages(a)).filter((m) => m.includes(t))).toHaveLength(1);
  },

  "acknowledges the platform only after the message is recorded": async (rig, h) => {
    const [a] = threadsOf(h);
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let recorded = false;
    rig.deliverHook = async (inbound, next) => {
      await gate;
      const result = await next(inbound);
      recorded = true;
      return result;
    };
    let acked = false;
    const injected = h
      .inject?.({ id: `${token()}-id`, thread: a, text: "slow ingest", author: "user-1" })
      .then(() => {
        acked = true;
      });
    await new Promise((r) => setTimeout(r, 100));
    expect(acked, "acknowledged before deliver resolved").toBe(false);
    release();
    await injected;
    expect(recorded).toBe(true);
  },

  "does not acknowledge a message whose recording failed, so the platform can retry it": async (rig, h) => {
    const [a] = threadsOf(h);
    rig.deliverHook = async () => {
      throw new Error("store unavailable");
    };
    await expect(
      h.inject?.({ id: `${token()}-id`, thread: a, text: "lost?", author: "user-1" }),
    ).rejects.toThrow();
  },

  "a cursor adapter reads a message whose recording failed again, ahead of later ones, across a restart":
    async (rig, h) => {
      if (!h.cursor) return;
      const [a] = threadsOf(h);
      const t = token();
      let failures = 0;
      // The store fails the first recording of #1 only: the adapter must not move its cursor past it.
      rig.deliverHook = async (inbound, next) => {
        if (failures === 0 && inbound.text.includes(`${t} #1`)) {
          failures += 1;
          throw new Error("store unavailable");
        }
        return next(inbound);
      };
      await h.inject?.({ id: `${t}-1`, thread: a, text: `cursor ${t} #1`, author: "user-1" }).catch(() => {});
      await until(() => failures === 1, "the failed recording of #1");
      await h.inject?.({ id: `${t}-2`, thread: a, text: `cursor ${t} #2`, author: "user-1" }).catch(() => {});
      // Whatever the adapter kept in memory is gone; only its saved position counts now.
      await rig.restart();
      await until(async () => (await repliesWith(h, t)).length >= 2, "replies to #1 and #2");
      await rig.session.idle(10_000);
      const replies = (await repliesWith(h, t)).map((m) => m.text);
      expect(replies, replies.join("\n---\n")).toHaveLength(2);
      expect(replies[0]).toContain("#1");
      expect(replies[1]).toContain("#2");
    },

  "renders an approval request on the thread and applies the participant's decision once": async (rig, h) => {
    const [a] = threadsOf(h);
    const t = token();
    await h.inject?.({ id: `${t}-id`, thread: a, text: `please use delete_file ${t}`, author: "user-1" });
    await until(
      () => rig.session.snapshot(rig.gateway.name, a).pendingRequestId !== undefined,
      "the request",
    );
    const requestId = rig.session.snapshot(rig.gateway.name, a).pendingRequestId as string;
    await rig.session.idle(10_000);
    if (rig.gateway.capabilities.interactiveActions) {
      expect(h.choose, "an interactive adapter's harness must implement choose()").toBeDefined();
      await h.choose?.({ requestId, thread: a }, "approve", "user-1");
    } else {
      await until(
        async () => (await h.sent()).some((m) => /approve/i.test(m.text) && /reject/i.test(m.text)),
        "the text request",
      );
      await h.inject?.({ id: `${t}-yes`, thread: a, text: "approve", author: "user-1" });
    }
    await until(() => rig.executed.some((n) => n.includes(t)), "the approved tool running");
    await rig.session.idle(10_000);
    expect(rig.executed.filter((n) => n.includes(t))).toHaveLength(1);
    expect((await rig.session.interaction(requestId))?.status).toBe("decided");
  },

  "delivers nothing after stop": async (rig, h) => {
    const [a] = threadsOf(h);
    await rig.stop();
    const before = (await rig.store.inbox.unfinished()).length;
    const t = token();
    const attempt = h
      .inject?.({ id: `${t}-id`, thread: a, text: `late ${t}`, author: "user-1" })
      .catch(() => undefined);
    await Promise.race([attempt, new Promise((r) => setTimeout(r, 500))]);
    expect((await rig.store.inbox.unfinished()).length).toBe(before);
    expect(await rig.userMessages(a)).not.toContainEqual(expect.stringContaining(t));
  },

  "a reply answered 429 and then accepted reaches the platform exactly once": async (rig, h) => {
    if (!h.failNext) return;
    const [a] = threadsOf(h);
    h.failNext(429);
    const t = token();
    await roundTrip(rig, h, a, `${t}-id`, `busy ${t}`);
    expect(await repliesWith(h, t)).toHaveLength(1);
  },

  "a reply answered 5xx and then accepted reaches the platform exactly once": async (rig, h) => {
    if (!h.failNext) return;
    const [a] = threadsOf(h);
    h.failNext(500);
    const t = token();
    await roundTrip(rig, h, a, `${t}-id`, `flaky ${t}`);
    expect(await repliesWith(h, t)).toHaveLength(1);
  },

  "the same adapter object stopped and started again (its instance lost the lead, then took it back) answers once":
    async (rig, h) => {
      const [a] = threadsOf(h);
      const before = token();
      await roundTrip(rig, h, a, `${before}-id`, `before ${before}`);
      await rig.restartAdapterInPlace();
      const after = token();
      await roundTrip(rig, h, a, `${after}-id`, `after ${after}`);
      expect(await repliesWith(h, before)).toHaveLength(1);
      expect(await repliesWith(h, after)).toHaveLength(1);
    },

  "a backlog recorded before a restart is answered once per message, in order": async (rig, h) => {
    const [a] = threadsOf(h);
    await rig.stop();
    const t = token();
    for (let i = 1; i <= 3; i++) {
      await rig.store.inbox.accept({
        gateway: rig.gateway.name,
        dedupKey: `${t}-${i}`,
        thread: a,
        text: `backlog ${t} #${i}`,
        origin: { gateway: rig.gateway.name, thread: a, author: { id: "user-1" } },
      });
    }
    await rig.start();
    await until(async () => (await repliesWith(h, t)).length >= 3, "three backlog replies");
    await rig.session.idle(10_000);
    const replies = (await repliesWith(h, t)).map((m) => m.text);
    expect(replies, replies.join("\n---\n")).toHaveLength(3);
    for (const [i, text] of replies.entries()) expect(text).toContain(`#${i + 1}`);
  },
};

/** Cases that need inbound messages; skipped for adapters without `inject`. */
const INBOUND_FREE = new Set([
  "declares its kind, a type, a registry name, boolean capabilities and a positive message limit",
]);

/** Registers the contract tests for one adapter. Call at the top level of a test file. */
export function runGatewayContract(name: string, makeHarness: () => Promise<GatewayHarness>): void {
  describe(`gateway contract v2: ${name}`, () => {
    let harness: GatewayHarness;
    let rig: ContractRig;

    beforeEach(async () => {
      harness = await makeHarness();
      rig = new ContractRig(harness);
      await rig.start();
    });

    afterEach(async () => {
      await rig.stop();
      await harness.close?.();
    });

    for (const [title, run] of Object.entries(contractCases)) {
      it(title, async (t) => {
        if (!harness.inject && !INBOUND_FREE.has(title)) return t.skip();
        await run(rig, harness);
      }, 30_000);
    }
  });
}
