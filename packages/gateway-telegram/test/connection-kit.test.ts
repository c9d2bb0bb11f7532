// The Telegram poll on the adapter kit's PollLoop, driven round by round (testkit's ManualScheduler:
// the delays the poll asks for advance a virtual clock), counted against the Telegram fake.
import type { GatewayContext } from "@agentsvc/adapter-kit";
import { ContractRig } from "@agentsvc/session-core/testing";
import { eventually, ManualScheduler } from "@agentsvc/testkit";
import { afterEach, describe, expect, it } from "vitest";
import type { TelegramGatewayOptions } from "../src/index.js";
import { type TelegramHarness, telegramHarness } from "./harness.js";

/** The harness, with the gateway's scheduler replaced by `scheduler`. */
async function manualHarness(scheduler: ManualScheduler, overrides: Partial<TelegramGatewayOptions>) {
  const g = await telegramHarness(overrides);
  const gateway = g.gateway;
  return {
    ...g,
    fake: g.fake,
    gateway: async () => {
      const gw = await gateway();
      const start = gw.start.bind(gw);
      gw.start = (ctx: GatewayContext) => start({ ...ctx, scheduler });
      return gw;
    },
  } as TelegramHarness;
}

describe("telegram: every delivery fails (#43 item 10)", () => {
  let g: TelegramHarness;
  let r: ContractRig;
  let s: ManualScheduler;
  afterEach(async () => {
    s?.stop();
    await r?.stop();
    await g?.close?.();
  });

  it("makes at most 10 Bot API calls in a minute of polling, not one per second", async () => {
    s = new ManualScheduler();
    // The defaults a deployment runs with: backoff 1 s doubling to 60 s.
    g = await manualHarness(s, { backoff: { baseMs: 1_000, maxMs: 60_000 } });
    r = new ContractRig(g);
    r.deliverHook = async () => {
      throw new Error("poisoned: the update cannot be recorded");
    };
    await r.start();
    g.fake.chat.userSends({ chatId: 101, text: "poison", from: { id: g.userId("user-1") } });
    await s.runFor("poll", 60_000, 1_000);
    // getMe once, then one getUpdates per backoff step (1, 2, 4, 8, 16, 32 s); a backoff reset per
    // working getUpdates (the hot loop of #43) made about 60.
    expect(g.fake.calls.length).toBeLessThanOrEqual(10);
    expect(g.fake.calls.filter((c) => c.method === "getUpdates").length).toBeGreaterThanOrEqual(4);
  });
});

describe("telegram: deafAfter (#43 item 11)", () => {
  let g: TelegramHarness;
  let r: ContractRig;
  afterEach(async () => {
    await r?.stop();
    await g?.close?.();
  });

  it("getUpdates answering nothing for deafAfter logs a warning and restarts the poll (getMe again, a reconnect)", async () => {
    g = await telegramHarness({ deafAfter: "1s" });
    r = new ContractRig(g);
    await r.start();
    await eventually(() => g.logs.some((l) => /deafAfter/.test(l.msg)), "the deafAfter warning");
    const warning = g.logs.find((l) => /deafAfter/.test(l.msg));
    expect(warning).toMatchObject({ level: 40, deafAfterMs: 1_000 });
    expect(warning?.msg).toMatch(/while getUpdates works \(deafAfter\); restarting the poll/);
    await eventually(() => g.fake.calls.filter((c) => c.method === "getMe").length >= 2, "getMe asked again");
  });

  it("without deafAfter a silent poll is never restarted", async () => {
    g = await telegramHarness();
    r = new ContractRig(g);
    await r.start();
    await eventually(
      () => g.fake.calls.filter((c) => c.method === "getUpdates").length >= 3,
      "three quiet polls",
    );
    expect(g.logs.some((l) => /deafAfter/.test(l.msg))).toBe(false);
    expect(g.fake.calls.filter((c) => c.method === "getMe")).toHaveLength(1);
  });
});
