// Sender access through one adapter and its platform fake: each dmPolicy and the per-sender rate
// limit, end to end (the fake delivers as the platform does, a real session decides, the answer
// reaches the fake). A refused sender starts no turn and costs no model call.
import type { SenderAccessOptions } from "@agentsvc/session-core";
import type { GatewayHarness } from "@agentsvc/session-core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type SessionRig, startSessionRig } from "./session-rig.js";
import { eventually } from "./wait.js";

export interface SenderAccessWorld {
  harness: GatewayHarness;
  /** The platform user id the session sees for `author` writing in `thread` (a direct chat). */
  senderId(thread: string, author: string): string;
}

const REFUSAL = "Sorry, this assistant only answers people its owner has allowed.";

export function runSenderAccessSuite(name: string, makeWorld: () => Promise<SenderAccessWorld>): void {
  describe(`${name}: sender access`, () => {
    let world: SenderAccessWorld | undefined;
    let rig: SessionRig | undefined;
    let seq = 0;

    afterEach(async () => {
      await rig?.stop();
      await world?.harness.close?.();
      rig = undefined;
      world = undefined;
    });

    async function boot(access: (ids: { ann: string; bob: string }) => SenderAccessOptions) {
      world = await makeWorld();
      const [annThread, bobThread] = world.harness.threads ?? ["t-1", "t-2"];
      const ids = { ann: world.senderId(annThread, "ann"), bob: world.senderId(bobThread, "bob") };
      rig = await startSessionRig(await world.harness.gateway(), { access: access(ids) });
      const w = world;
      const r = rig;
      return {
        rig: r,
        ids,
        ann: (text: string) =>
          w.harness.inject?.({ id: `m${++seq}`, thread: annThread, text, author: "ann" }),
        bob: (text: string) =>
          w.harness.inject?.({ id: `m${++seq}`, thread: bobThread, text, author: "bob" }),
        toBob: async () => (await w.harness.sent()).filter((m) => m.thread === bobThread).map((m) => m.text),
        toAnn: async () => (await w.harness.sent()).filter((m) => m.thread === annThread).map((m) => m.text),
        all: () => w.harness.sent(),
        bobMessages: () => r.userMessages(bobThread),
        inbox: async () => (await r.store.inbox.unfinished()).length,
      };
    }

    it("allowlist: a listed sender is answered; a stranger gets one short refusal, no turn and no model call", async () => {
      const t = await boot(({ ann }) => ({ dmPolicy: "allowlist", allowFrom: [ann] }));
      await t.bob("hello?");
      await t.bob("anyone there?");
      await t.rig.session.idle(10_000);
      const answers = await t.toBob();
      expect(answers).toHaveLength(1);
      // Platforms wrap or quote (e-mail): the refusal is in the one answer.
      expect(answers[0]?.replace(/\s+/g, " ")).toContain(REFUSAL);
      expect(await t.bobMessages()).toEqual([]);
      expect(t.rig.modelCalls()).toBe(0);
      await t.ann("hi, it's Ann");
      await eventually(async () => (await t.toAnn()).length > 0, "Ann's answer");
      expect(t.rig.modelCalls()).toBeGreaterThan(0);
    });

    it("allowlist with refusalReply false: a stranger gets no answer at all", async () => {
      const t = await boot(({ ann }) => ({ dmPolicy: "allowlist", allowFrom: [ann], refusalReply: false }));
      await t.bob("hello?");
      await t.rig.session.idle(10_000);
      expect(await t.toBob()).toEqual([]);
      expect(await t.bobMessages()).toEqual([]);
      expect(t.rig.modelCalls()).toBe(0);
    });

    it("pairing: a stranger gets one code; once the owner approves it, their next message is answered", async () => {
      const t = await boot(() => ({ dmPolicy: "pairing" }));
      await t.bob("hello?");
      await t.bob("still waiting");
      await t.rig.session.idle(10_000);
      const answers = await t.toBob();
      expect(answers).toHaveLength(1);
      const code = /pairing code: ([A-Z2-9]{8})/.exec(answers[0] ?? "")?.[1];
      expect(code, answers[0]).toBeDefined();
      expect(answers[0]).toContain(`agentsvc pairing approve ${code}`);
      expect(await t.bobMessages()).toEqual([]);
      expect(t.rig.modelCalls()).toBe(0);
      const approved = await t.rig.store.senderAccess?.approve(code as string, Date.now());
      expect(approved?.sender).toBe(t.ids.bob);
      await t.bob("now?");
      await eventually(async () => (await t.toBob()).length > 1, "Bob's answer");
      await t.rig.session.idle(10_000);
      expect(await t.bobMessages()).toEqual(["now?"]);
    });

    it("disabled: nobody is answered and no turn starts", async () => {
      const t = await boot(() => ({ dmPolicy: "disabled" }));
      await t.bob("hello?");
      await t.ann("hello?");
      await t.rig.session.idle(10_000);
      expect(await t.all()).toEqual([]);
      expect(t.rig.modelCalls()).toBe(0);
      expect(await t.inbox()).toBe(0);
    });

    it("rateLimit: the first messages up to the limit get turns; the next is answered once with when to try again", async () => {
      const t = await boot(() => ({ rateLimit: { messages: 2, perSeconds: 3600 } }));
      for (const text of ["one", "two", "three", "four"]) await t.bob(text);
      await t.rig.session.idle(10_000);
      expect(await t.bobMessages()).toEqual(["one", "two"]);
      const refusals = (await t.toBob()).filter((m) => m.includes("try again in"));
      expect(refusals).toHaveLength(1);
      expect(refusals[0]).toMatch(/2 per 60 minutes\)\. Please try again in (59|60) minutes\./);
    });
  });
}
