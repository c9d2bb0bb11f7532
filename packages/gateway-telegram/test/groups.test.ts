// A supergroup through the real session (privacy mode off: the fake hands the bot every message):
// only messages addressed to the bot start a turn, and the agent reads them without the mention.
import { ContractRig } from "@agentsvc/session-core/testing";
import { eventually, within } from "@agentsvc/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type TelegramHarness, telegramHarness } from "./harness.js";

let h: TelegramHarness;
let rig: ContractRig;
const group = -1001234567890;
const thread = String(group);

beforeEach(async () => {
  h = await telegramHarness();
  rig = new ContractRig(h);
  await rig.start();
});

afterEach(async () => {
  await rig.stop();
  await h.close?.();
});

async function says(text: string, extra: { replyTo?: number; from?: number } = {}): Promise<void> {
  const updateId = h.fake.chat.userSends({
    chatId: group,
    text,
    from: { id: extra.from ?? h.userId("user-1") },
    ...(extra.replyTo !== undefined ? { replyTo: extra.replyTo } : {}),
  });
  await within(h.fake.confirmed(updateId), 3_000, `confirmation of "${text}"`);
  await rig.session.idle(10_000);
}

const replies = () => h.fake.chat.botMessages.filter((m) => m.chatId === group);

describe("telegram group chats", () => {
  it("answers a mention, a command for it and a reply to it; ignores the rest of the group", async () => {
    await says("lunch anyone? g0");
    await says("/help@other_helper_bot g0b");
    expect(replies()).toHaveLength(0);

    await says("@agentsvc_bot hello group g1");
    await eventually(() => replies().some((m) => m.text.includes("g1")), "the reply to the mention");
    const first = replies().find((m) => m.text.includes("g1"));

    await says("and what about g2", { replyTo: first?.messageId as number, from: h.userId("user-2") });
    await eventually(() => replies().some((m) => m.text.includes("g2")), "the reply to the reply");

    await says("/summary@agentsvc_bot g3");
    await eventually(() => replies().some((m) => m.text.includes("g3")), "the reply to the command");

    expect(replies()).toHaveLength(3);
    const turns = await rig.userMessages(thread);
    expect(turns.filter((t) => /g0/.test(t))).toEqual([]);
    expect(turns.some((t) => t.includes("hello group g1") && !t.includes("@agentsvc_bot"))).toBe(true);
    expect(turns.some((t) => t.includes("/summary g3") && !t.includes("@agentsvc_bot"))).toBe(true);
  });
});
