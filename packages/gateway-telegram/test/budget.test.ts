// A spent budget on Telegram: the meter the server sets around every run (withMeter) refuses the
// model call, so a private-chat sender gets agentsvc's one-line budget answer through the Bot API
// fake (https://core.telegram.org/bots/api#sendmessage) and no model call is made.
import { type ModelMeter, withMeter } from "@agentsvc/agent-core";
import { within } from "@agentsvc/testkit";
import { eventually, type SessionRig, startSessionRig } from "@agentsvc/testkit/session";
import { afterEach, describe, expect, it } from "vitest";
import { type TelegramHarness, telegramHarness } from "./harness.js";

describe("telegram: budget_exceeded", () => {
  let h: TelegramHarness | undefined;
  let rig: SessionRig | undefined;
  afterEach(async () => {
    await rig?.stop();
    await h?.close?.();
  });

  it("a sender past the budget gets one line saying so and when to try again; no turn reaches the model", async () => {
    h = await telegramHarness();
    rig = await startSessionRig(await h.gateway());
    const spent: ModelMeter = {
      admit: async () => ({
        code: "budget_exceeded",
        message: "The daily budget of this user is used up; it resets at 2026-12-02T00:00:00.000Z.",
        retryAfterMs: 3 * 3_600_000,
        resetsAt: "2026-12-02T00:00:00.000Z",
      }),
      record: () => {},
    };
    const runs = rig.runs;
    const start = runs.start.bind(runs);
    runs.start = (input) =>
      withMeter(
        spent,
        { agent: runs.agent.name, userId: input.userId, conversationId: input.conversationId },
        () => start(input),
      );
    const chatId = h.userId("ann");
    const updateId = h.fake.chat.userSends({ chatId, text: "hello", from: { id: chatId } }) as number;
    await within(h.fake.confirmed(updateId), 3_000, "confirmation of hello");
    await eventually(() => (h?.fake.chat.botMessages.length ?? 0) > 0, "the budget answer");
    expect(h.fake.chat.botMessages.map((m) => m.text)).toEqual([
      "Sorry, this service has used up its AI budget for now. Please try again in 3 hours.",
    ]);
    expect(rig.modelCalls()).toBe(0);
  });
});
