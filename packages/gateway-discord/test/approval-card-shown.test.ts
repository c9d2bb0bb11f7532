// How an approval card looks on Discord and what it becomes once decided: buttons styled by meaning
// (https://discord.com/developers/docs/components/reference#button-button-styles: 3 Success green,
// 4 Danger red, 2 Secondary grey), the outcome line naming a Discord user as a mention and anyone
// else not at all, a prompt cut to 2,000 characters never between the halves of an emoji.
import type { InteractionRequest } from "@agentsvc/adapter-kit";
import { eventually } from "@agentsvc/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { type DiscordGateway, MESSAGE_LIMIT } from "../src/index.js";
import { CHANNELS } from "./harness.js";
import { type Rigged, startRig, stopRig } from "./rig.js";

let r: Rigged | undefined;
afterEach(async () => {
  await stopRig(r);
  r = undefined;
});

const channel = CHANNELS[1];
let keys = 0;
const opts = () => ({ idempotencyKey: `card-${++keys}`, attempt: 1 });

function request(requestId: string, prompt: string, allowed = ["approve", "reject"]): InteractionRequest {
  return {
    requestId,
    threadId: `discord:${channel}`,
    gateway: "discord",
    thread: channel,
    allowedDecisions: allowed as InteractionRequest["allowedDecisions"],
    toolName: "delete_file",
    arguments: {},
    prompt,
    createdAt: Date.now(),
  };
}

const card = (x: Rigged, id: string | undefined) => x.h.fake.rest.botMessages.find((m) => m.id === id);

describe("discord approval cards", () => {
  it("shows Approve green and Reject red, in the allowed order, and no button for edit", async () => {
    r = await startRig();
    const gw = r.rig.gateway as DiscordGateway;
    const sent = await gw.requestDecision(request("req-s1", "May I?", ["reject", "edit", "approve"]), opts());
    const buttons = card(r, sent.messageId)?.components?.flatMap((row) => row.components ?? []);
    expect(buttons?.map((b) => [b.type, b.label, b.style])).toEqual([
      [2, "Reject", 4],
      [2, "Approve", 3],
    ]);
  });

  it("a decision made elsewhere replaces the buttons with the outcome: a Discord user as a mention, anyone else unnamed", async () => {
    r = await startRig();
    const gw = r.rig.gateway as DiscordGateway;
    const a = await gw.requestDecision(request("req-s2", "Delete a?"), opts());
    const b = await gw.requestDecision(request("req-s3", "Delete b?"), opts());
    const base = { gateway: "discord", thread: channel };
    // No interaction stored for these ids: the card falls back to a generic title.
    await gw.onDecided({
      ...base,
      requestId: "req-s2",
      decision: "approve",
      decidedBy: "700000000000000001",
      requestMessageId: a.messageId as string,
    });
    await gw.onDecided({
      ...base,
      requestId: "req-s3",
      decision: "reject",
      decidedBy: "session:expired",
      requestMessageId: b.messageId as string,
    });
    expect(card(r, a.messageId)).toMatchObject({
      content: "Approval request\n\n✅ Approved by <@700000000000000001>",
      components: [],
    });
    expect(card(r, b.messageId)).toMatchObject({
      content: "Approval request\n\n❌ Rejected",
      components: [],
    });
  });

  it("only a whole Discord user id becomes a mention: a Slack id ending in digits or an address starting with them does not", async () => {
    r = await startRig();
    const gw = r.rig.gateway as DiscordGateway;
    const base = { gateway: "discord", thread: channel, decision: "approve" } as const;
    for (const [requestId, decidedBy] of [
      ["req-s7", "U07ABC123"],
      ["req-s8", "1984reader@example.com"],
    ] as const) {
      const sent = await gw.requestDecision(request(requestId, "May I?"), opts());
      await gw.onDecided({ ...base, requestId, decidedBy, requestMessageId: sent.messageId as string });
      expect(card(r, sent.messageId)?.content, decidedBy).toBe("Approval request\n\n✅ Approved");
    }
  });

  it("a decision on a request that showed no card edits nothing", async () => {
    r = await startRig();
    const gw = r.rig.gateway as DiscordGateway;
    const before = r.h.fake.calls.length;
    await gw.onDecided({
      gateway: "discord",
      thread: channel,
      requestId: "req-s4",
      decision: "approve",
      decidedBy: "700000000000000001",
    });
    expect(r.h.fake.calls.slice(before).filter((c) => c.method === "PATCH")).toEqual([]);
  });

  it("a prompt cut at 2,000 characters ends in … and never splits an emoji; one of exactly 2,000 is kept whole", async () => {
    r = await startRig();
    const gw = r.rig.gateway as DiscordGateway;
    // The emoji's two halves straddle the cut (characters 1 999 and 2 000).
    const long = `${"a".repeat(MESSAGE_LIMIT - 2)}😀${"b".repeat(50)}`;
    const cut = await gw.requestDecision(request("req-s5", long), opts());
    expect(card(r, cut.messageId)?.content).toBe(`${"a".repeat(MESSAGE_LIMIT - 2)}…`);
    const exact = "c".repeat(MESSAGE_LIMIT);
    const kept = await gw.requestDecision(request("req-s6", exact), opts());
    expect(card(r, kept.messageId)?.content).toBe(exact);
  });

  it("a prompt of 2,100 characters is cut to 1,999 and …; an emoji before the cut costs it nothing", async () => {
    r = await startRig();
    const gw = r.rig.gateway as DiscordGateway;
    const plain = await gw.requestDecision(request("req-s9", "d".repeat(2_100)), opts());
    expect(card(r, plain.messageId)?.content).toBe(`${"d".repeat(MESSAGE_LIMIT - 1)}…`);
    const early = await gw.requestDecision(request("req-s10", `😀${"d".repeat(2_100)}`), opts());
    expect(card(r, early.messageId)?.content).toBe(`😀${"d".repeat(MESSAGE_LIMIT - 3)}…`);
  });

  it("an interaction callback Discord refuses is logged, and later presses are still answered", async () => {
    r = await startRig();
    const x = r;
    x.h.fake.failNext("^POST /interactions/", { status: 500 });
    await x.h.inject?.({
      id: "cb1",
      thread: CHANNELS[0],
      text: "please use delete_file cb1",
      author: "user-1",
    });
    await eventually(() => x.h.fake.rest.botMessages.some((m) => m.components?.length) === true, "the card");
    const shown = x.h.fake.rest.botMessages.find((m) => m.components?.length);
    const approve = shown?.components?.[0]?.components?.[0]?.custom_id as string;
    x.h.fake.sessions.press({ messageId: shown?.id as string, customId: approve, userId: "123456789" });
    await eventually(() => x.h.logs.some((l) => l.msg === "interaction callback failed"), "the warning");
    expect(x.h.logs.find((l) => l.msg === "interaction callback failed")).toMatchObject({
      level: 40,
      err: { message: expect.stringContaining("500") },
    });
    const again = x.h.fake.sessions.press({
      messageId: shown?.id as string,
      customId: approve,
      userId: "123456789",
    });
    await eventually(() => x.h.fake.rest.callbacks.get(again.interactionId) !== undefined, "the next answer");
  });
});
