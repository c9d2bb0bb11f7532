// What reaches the agent through the Slack fake (which echoes the bot's own posts back, as Slack
// does): thread follow-ups in the bot's threads, the loop guard, the quiet connection kept.
import { ContractRig } from "@agentsvc/session-core/testing";
import { eventually, SlackFake } from "@agentsvc/testkit";
import { startSessionRig } from "@agentsvc/testkit/session";
import { afterEach, describe, expect, it } from "vitest";
import { createGateway, MESSAGE_LIMIT } from "../src/index.js";
import { type SlackHarness, slackHarness } from "./harness.js";

let h: SlackHarness;
let rig: ContractRig;

async function start(...args: Parameters<typeof slackHarness>): Promise<void> {
  h = await slackHarness(...args);
  rig = new ContractRig(h);
  await rig.start();
  await eventually(() => h.fake.openConnections.length === 1, "the first connection");
}

afterEach(async () => {
  await rig?.stop();
  await h?.close?.();
});

const repliesTo = (text: string) => h.fake.workspace.botMessages.filter((m) => m.text.includes(text));

/** A channel mention, answered in its thread; resolves to the thread's ts. */
async function mentionAnswered(text: string): Promise<string> {
  const { ts, acked } = h.fake.workspace.userSays({
    channel: "C0001",
    user: h.userId("user-1"),
    text: `<@U0BOT> ${text}`,
  });
  await acked;
  await eventually(() => repliesTo(text).length > 0, `the reply to ${text}`);
  return ts;
}

describe("slack threads", () => {
  it("a follow-up without a mention in a thread the bot answered in reaches the agent", async () => {
    await start();
    const ts = await mentionAnswered("first fu1");
    const { acked } = h.fake.workspace.userSays({
      channel: "C0001",
      user: h.userId("user-1"),
      text: "and a follow-up fu2",
      threadTs: ts,
    });
    await acked;
    await eventually(() => repliesTo("fu2").length === 1, "the reply to the follow-up");
    expect(repliesTo("fu2")[0]?.threadTs).toBe(ts);
    expect(await rig.userMessages(`C0001:${ts}`)).toEqual(["first fu1", "and a follow-up fu2"]);
  });

  it("a follow-up that arrives while Slack is still answering the bot's post reaches the agent", async () => {
    await start();
    h.fake.failNext("chat.postMessage", { slowAnswerMs: 1_000 });
    const { ts, acked } = h.fake.workspace.userSays({
      channel: "C0001",
      user: h.userId("user-1"),
      text: "<@U0BOT> slow post sp1",
    });
    await acked;
    await eventually(() => repliesTo("sp1").length === 1, "the reply in Slack (its answer still held)");
    await h.fake.workspace.userSays({
      channel: "C0001",
      user: h.userId("user-1"),
      text: "quick sp2",
      threadTs: ts,
    }).acked;
    await eventually(() => repliesTo("sp2").length === 1, "the reply to the quick follow-up");
  });

  it("the bot's threads are remembered across a restart", async () => {
    await start();
    const ts = await mentionAnswered("before restart rs1");
    await rig.restart();
    await eventually(() => h.fake.openConnections.length >= 1, "the new connection");
    await h.fake.workspace.userSays({
      channel: "C0001",
      user: h.userId("user-2"),
      text: "after rs2",
      threadTs: ts,
    }).acked;
    await eventually(() => repliesTo("rs2").length === 1, "the reply after the restart");
  });

  it("a reply without a mention in a thread the bot never answered in starts no turn", async () => {
    await start();
    const { ts, acked } = h.fake.workspace.userSays({
      channel: "C0001",
      user: h.userId("user-1"),
      text: "chatter nm1",
    });
    await acked;
    await h.fake.workspace.userSays({
      channel: "C0001",
      user: h.userId("user-2"),
      text: "more nm2",
      threadTs: ts,
    }).acked;
    await rig.session.idle(2_000);
    expect(await rig.userMessages(`C0001:${ts}`)).toEqual([]);
    expect(h.fake.workspace.botMessages).toEqual([]);
    expect(h.logs.filter((l) => l.level === 20 && /without a mention/.test(String(l.reason)))).toHaveLength(
      2,
    );
  });
});

describe("slack loop guard", () => {
  it("the bot's own posts, echoed back by Slack, start no turn: one message, one reply", async () => {
    await start();
    await mentionAnswered("echo lg1");
    await rig.session.idle(2_000);
    // The reply came back as a message event in the same thread; acknowledged and ignored.
    await eventually(() => h.fake.tracker.unacknowledged.length === 0, "every envelope acknowledged");
    expect(h.logs.some((l) => l.level === 20 && l.reason === "own message")).toBe(true);
    expect(repliesTo("lg1")).toHaveLength(1);
  });

  it("an event carrying the bot's bot_id, even one that mentions the bot, starts no turn", async () => {
    await start();
    await h.fake.workspace.event({
      type: "message",
      bot_id: "B0BOT",
      app_id: "A0APP",
      user: "U0OTHER",
      text: "<@U0BOT> from myself lg2",
      ts: h.fake.workspace.nextTs(),
      channel: "C0001",
      channel_type: "channel",
    });
    await h.fake.workspace.event({
      type: "app_mention",
      user: "U0BOT",
      text: "<@U0BOT> from my own user lg3",
      ts: h.fake.workspace.nextTs(),
      channel: "C0001",
    });
    await rig.session.idle(2_000);
    expect(h.fake.workspace.botMessages).toEqual([]);
    expect(h.logs.filter((l) => l.level === 20 && l.reason === "own message")).toHaveLength(2);
  });
});

describe("slack connection health", () => {
  it("a quiet connection that answers pings is kept across three watchdog periods", async () => {
    await start({}, { serverPingMs: 0 });
    await new Promise((r) => setTimeout(r, 3 * 600 + 300));
    expect(h.fake.connections).toHaveLength(1);
    expect(h.fake.openConnections).toHaveLength(1);
    expect(h.logs.some((l) => /silent past the watchdog/.test(l.msg))).toBe(false);
  });

  it("a connection whose pongs never come but that Slack keeps pinging is kept; without Slack's pings it is replaced", async () => {
    await start({}, { serverPingMs: 150, answerPings: false });
    await new Promise((r) => setTimeout(r, 3 * 600 + 300));
    expect(h.fake.connections).toHaveLength(1);
    await rig.stop();
    await h.close?.();
    await start({}, { serverPingMs: 0, answerPings: false });
    await eventually(() => h.logs.some((l) => /silent past the watchdog/.test(l.msg)), "the watchdog");
  });
});

describe("slack limits", () => {
  it("a 10,000-character reply without whitespace goes out in pieces of exactly 4 000, 4 000 and 2 000", async () => {
    const fake = await SlackFake.start({ echoOwnMessages: false });
    const gateway = createGateway({
      name: "slack",
      botTokenEnvVar: "SLACK_BOT",
      appTokenEnvVar: "SLACK_APP",
      env: { SLACK_BOT: fake.botToken, SLACK_APP: fake.appToken },
      apiBaseUrl: fake.apiBaseUrl,
    });
    const session = await startSessionRig(gateway, { replyText: "x".repeat(10_000) });
    try {
      await eventually(() => fake.openConnections.length === 1, "the connection");
      await fake.workspace.userSays({ channel: "D0001", user: "U0001", text: "a long answer please" }).acked;
      await eventually(() => fake.workspace.botMessages.length === 3, "three pieces");
      expect(fake.workspace.botMessages.map((m) => m.text.length)).toEqual([
        MESSAGE_LIMIT,
        MESSAGE_LIMIT,
        2_000,
      ]);
      expect(MESSAGE_LIMIT).toBe(4_000);
    } finally {
      await session.stop();
      await fake.close();
    }
  });
});
