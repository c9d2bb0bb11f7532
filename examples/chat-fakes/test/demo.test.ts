// The example end to end: the real server loads the three adapter packages from this project,
// and each platform's fake sees a reply, an approval card and the approved tool's result.
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Demo, playConversations, startDemo } from "../scripts/conversation.ts";

let demo: Demo;
beforeAll(async () => {
  demo = await startDemo();
});
afterAll(async () => {
  await demo?.close();
});

it("telegram, slack and discord each answer, ask for approval with buttons, and run the approved tool", async () => {
  const lines = await playConversations(demo);
  for (const platform of ["telegram", "slack", "discord"]) {
    const bot = lines.filter((l) => l.startsWith(`[${platform}] bot:`));
    expect(bot[0], platform).toContain("hello from");
    expect(bot.at(-1), platform).toMatch(/send_note returned/);
  }
  expect(demo.telegram.chat.callbackAnswers.size).toBe(1);
  expect([...demo.telegram.chat.callbackAnswers.values()][0]?.text).toBe("Approved");
  expect(demo.slack.tracker.unacknowledged).toHaveLength(0);
  expect([...demo.discord.rest.callbacks.values()][0]?.type).toBe(7);
});
