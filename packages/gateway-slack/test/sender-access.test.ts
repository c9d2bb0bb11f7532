// Sender access on Slack: the sender is the event's `user` in an `im` channel
// (https://api.slack.com/events/message.im); a channel message's group id is its `channel`
// (https://api.slack.com/events/app_mention).
import {
  eventually,
  runSenderAccessSuite,
  type SessionRig,
  startSessionRig,
} from "@agentsvc/testkit/session";
import { afterEach, describe, expect, it } from "vitest";
import { type SlackHarness, slackHarness } from "./harness.js";

runSenderAccessSuite("slack", async () => {
  const harness = await slackHarness();
  return { harness, senderId: (_thread, author) => harness.userId(author) };
});

describe("slack: group policies", () => {
  let h: SlackHarness | undefined;
  let rig: SessionRig | undefined;
  afterEach(async () => {
    await rig?.stop();
    await h?.close?.();
  });

  async function mention(channel: string, text: string) {
    const { acked } = (h as SlackHarness).fake.workspace.userSays({
      channel,
      user: (h as SlackHarness).userId("ann"),
      text: `<@U0BOT> ${text}`,
    });
    await acked;
  }

  it("groupPolicy allowlist: a mention in a listed channel is answered; in another channel nothing, no model call", async () => {
    h = await slackHarness();
    rig = await startSessionRig(await h.gateway(), {
      access: { groupPolicy: "allowlist", groupAllowFrom: ["C0001"] },
    });
    await eventually(() => (h?.fake.openConnections.length ?? 0) === 1, "the connection");
    await mention("C0002", "hello from elsewhere");
    await rig.session.idle(10_000);
    expect(h.fake.workspace.botMessages).toEqual([]);
    expect(rig.modelCalls()).toBe(0);
    await mention("C0001", "hello team");
    await eventually(() => (h?.fake.workspace.botMessages.length ?? 0) > 0, "the answer in C0001");
    expect(h.fake.workspace.botMessages.every((m) => m.channel === "C0001")).toBe(true);
  });
});
