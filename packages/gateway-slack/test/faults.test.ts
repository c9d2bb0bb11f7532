// Fault injection against the Slack fake, each bounded in time: every message the fake delivered
// must produce exactly one turn and exactly one reply.
import { ContractRig } from "@agentsvc/session-core/testing";
import { eventually } from "@agentsvc/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type SlackHarness, slackHarness } from "./harness.js";

let h: SlackHarness;
let rig: ContractRig;

beforeEach(async () => {
  h = await slackHarness();
  rig = new ContractRig(h);
  await rig.start();
  await eventually(() => h.fake.openConnections.length === 1, "the first connection");
});

afterEach(async () => {
  await rig.stop();
  await h.close?.();
});

async function expectOnceEach(texts: string[], thread = "D0001"): Promise<void> {
  await eventually(
    async () => {
      const sent = await h.sent();
      return texts.every((t) => sent.some((m) => m.text.includes(t)));
    },
    "a reply to every message",
    10_000,
  );
  await rig.session.idle(10_000);
  const sent = await h.sent();
  const turns = await rig.userMessages(thread);
  for (const t of texts) {
    expect(
      sent.filter((m) => m.text.includes(t)),
      `replies to ${t}`,
    ).toHaveLength(1);
    expect(
      turns.filter((m) => m.includes(t)),
      `turns of ${t}`,
    ).toHaveLength(1);
  }
}

const say = (text: string) => h.inject?.({ id: text, thread: "D0001", text, author: "user-1" });

/** The replacement said hello before the replaced connection closed. */
function expectOverlap(oldId: number): void {
  const old = h.fake.connections.find((c) => c.id === oldId);
  const next = h.fake.connections.find((c) => c.id > oldId);
  expect(next?.helloAt, "a new connection").toBeDefined();
  expect(old?.closedAt, "the old connection closed").toBeDefined();
  expect(next?.helloAt as number).toBeLessThanOrEqual(old?.closedAt as number);
}

describe("slack faults", () => {
  for (const reason of ["warning", "refresh_requested"] as const) {
    it(`a disconnect (${reason}) opens the new connection before the old one closes, losing nothing`, async () => {
      const old = h.fake.openConnections[0]?.id as number;
      h.fake.disconnect(reason);
      await say(`during ${reason} x1`);
      await eventually(
        () => h.fake.connections.find((c) => c.id === old)?.closedAt !== undefined,
        "the old close",
      );
      expectOverlap(old);
      await say(`after ${reason} x2`);
      await expectOnceEach([`${reason} x1`, `${reason} x2`]);
    });
  }

  it("link_disabled (Socket Mode turned off) stops the gateway, its status naming the app token variable", async () => {
    h.fake.disconnect("link_disabled");
    await eventually(() => rig.session.status().slack?.state === "stopped", "the gateway stopped");
    expect(rig.session.status().slack?.reason).toMatch(
      /^credentials rejected by slack: check SLACK_APP \(.*link_disabled/,
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(h.fake.connections).toHaveLength(1);
    expect(h.fake.openConnections).toHaveLength(0);
  });

  it("a revoked bot token on a reply stops the gateway and keeps the reply for after the fix", async () => {
    h.fake.revoke("bot", "token_revoked");
    await say("while revoked rv1");
    await eventually(() => rig.session.status().slack?.state === "stopped", "the gateway stopped");
    expect(rig.session.status().slack?.reason).toContain("check SLACK_BOT");
    expect(h.fake.workspace.botMessages).toEqual([]);
    const posts = h.fake.calls.filter((c) => c.method === "chat.postMessage");
    expect(posts).toHaveLength(1);
  });

  it("a socket dropped mid-turn, before the ack went out, gets Slack's retry on a new connection and one turn", async () => {
    let dropped = false;
    rig.deliverHook = async (inbound, next) => {
      if (!dropped && inbound.text.includes("dm1")) {
        dropped = true;
        h.fake.drop();
      }
      return next(inbound);
    };
    await say("dropped mid turn dm1");
    await expectOnceEach(["dm1"]);
    expect(h.fake.connections.length).toBeGreaterThanOrEqual(2);
    expect(
      h.fake.tracker.sent.filter((e) => JSON.stringify(e.payload).includes("dm1")).length,
    ).toBeGreaterThanOrEqual(2);
  });

  it("a deaf socket (open, silent, no pongs) is replaced by the watchdog and the waiting message arrives once", async () => {
    const old = h.fake.openConnections[0]?.id as number;
    h.fake.deafen();
    await say("while deaf df1");
    await eventually(() => h.logs.some((l) => /silent past the watchdog/.test(l.msg)), "the watchdog");
    await eventually(
      () => h.fake.connections.find((c) => c.id === old)?.closedAt !== undefined,
      "the deaf one closed",
    );
    expectOverlap(old);
    await expectOnceEach(["df1"]);
  });

  it("an envelope not acknowledged in time is retried by Slack and still makes one turn and one reply", async () => {
    let slow = true;
    rig.deliverHook = async (inbound, next) => {
      if (slow && inbound.text.includes("sl1")) {
        slow = false;
        await new Promise((r) => setTimeout(r, 700)); // past the fake's 400 ms ack window
      }
      return next(inbound);
    };
    await say("slow ingest sl1");
    await expectOnceEach(["sl1"]);
    const attempts = h.fake.tracker.sent.filter((e) => JSON.stringify(e.payload).includes("sl1"));
    expect(attempts.map((e) => e.retry_attempt)).toContain(1);
  });

  it("a channel mention delivered as message and app_mention is one turn, answered in its thread", async () => {
    const { ts, acked } = h.fake.workspace.userSays({
      channel: "C0001",
      user: h.userId("user-1"),
      text: "<@U0BOT> twice mm1",
    });
    await acked;
    const fromUser = h.fake.tracker.sent.filter(
      (e) => JSON.stringify(e.payload).includes("mm1") && !JSON.stringify(e.payload).includes("B0BOT"),
    );
    expect(fromUser.map((e) => (e.payload.event as { type: string }).type).sort()).toEqual([
      "app_mention",
      "message",
    ]);
    await expectOnceEach(["mm1"], `C0001:${ts}`);
    const reply = h.fake.workspace.botMessages.find((m) => m.text.includes("mm1"));
    expect(reply?.threadTs).toBe(ts);
    expect(reply?.text).not.toContain("<@U0BOT>");
  });

  it("a restart in the middle of a backlog answers every message once", async () => {
    await rig.stop();
    const texts = Array.from({ length: 5 }, (_, i) => `backlog b${i}y`);
    for (const text of texts) h.fake.workspace.userSays({ channel: "D0001", user: h.userId("user-1"), text });
    let recorded = 0;
    rig.deliverHook = async (inbound, next) => {
      if (recorded >= 2) return new Promise(() => undefined); // the process dies while recording the 3rd
      recorded += 1;
      return next(inbound);
    };
    await rig.start();
    await eventually(() => recorded === 2, "two recorded before the crash");
    await rig.stop();
    rig.deliverHook = undefined;
    await rig.start();
    await expectOnceEach(texts);
  });

  it("a reply answered 429 with Retry-After: 3 waits those 3 s (not a default) and is posted once", async () => {
    h.fake.failNext("chat.postMessage", { status: 429, retryAfter: 3 });
    await say("limited rl1");
    await expectOnceEach(["rl1"]);
    const posts = h.fake.calls.filter((c) => c.method === "chat.postMessage");
    expect((posts[1]?.at as number) - (posts[0]?.at as number)).toBeGreaterThanOrEqual(2_950);
  });
});
