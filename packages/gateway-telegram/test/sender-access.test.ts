// Sender access on Telegram: the sender is `from.id` of a private chat's message
// (https://core.telegram.org/bots/api#message).
import { within } from "@agentsvc/testkit";
import {
  eventually,
  runSenderAccessSuite,
  type SessionRig,
  startSessionRig,
} from "@agentsvc/testkit/session";
import { afterEach, describe, expect, it } from "vitest";
import { type TelegramHarness, telegramHarness } from "./harness.js";

runSenderAccessSuite("telegram", async () => {
  const harness = await telegramHarness();
  return { harness, senderId: (_thread, author) => String(harness.userId(author)) };
});

// Groups: `chat.id` of a supergroup message (https://core.telegram.org/bots/api#chat).
describe("telegram: group policies", () => {
  let h: TelegramHarness | undefined;
  let rig: SessionRig | undefined;
  afterEach(async () => {
    await rig?.stop();
    await h?.close?.();
  });

  async function says(chatId: number, text: string) {
    const updateId = h?.fake.chat.userSends({ chatId, text, from: { id: h.userId("ann") } }) as number;
    await within(h?.fake.confirmed(updateId) as Promise<void>, 3_000, `confirmation of "${text}"`);
  }

  it("groupPolicy allowlist: a mention in a listed group is answered; in another group nothing, no model call", async () => {
    h = await telegramHarness();
    rig = await startSessionRig(await h.gateway(), {
      access: { groupPolicy: "allowlist", groupAllowFrom: ["-1001234567890"] },
    });
    await says(-1009999999999, "@agentsvc_bot hello from elsewhere");
    await rig.session.idle(10_000);
    expect(h.fake.chat.botMessages).toEqual([]);
    expect(rig.modelCalls()).toBe(0);
    await says(-1001234567890, "@agentsvc_bot hello team");
    await eventually(() => (h?.fake.chat.botMessages.length ?? 0) > 0, "the answer in the listed group");
    expect(h.fake.chat.botMessages.every((m) => m.chatId === -1001234567890)).toBe(true);
  });

  it("groupPolicy disabled: even a mention in a group starts no turn", async () => {
    h = await telegramHarness();
    rig = await startSessionRig(await h.gateway(), { access: { groupPolicy: "disabled" } });
    await says(-1001234567890, "@agentsvc_bot anyone?");
    await rig.session.idle(10_000);
    expect(h.fake.chat.botMessages).toEqual([]);
    expect(rig.modelCalls()).toBe(0);
  });
});
