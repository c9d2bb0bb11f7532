// Replies stream into the channel: posted, edited while the slow model writes, one final edit.
import { eventually } from "@agentsvc/testkit";
import { type SessionRig, startSessionRig } from "@agentsvc/testkit/session";
import { afterEach, describe, expect, it } from "vitest";
import { CHANNELS, type DiscordHarness, discordHarness } from "./harness.js";

/** 20 tokens; the demo model streams one every 100 ms. */
const REPLY = Array.from({ length: 20 }, (_, i) => `word${i + 1}`).join(" ");

let h: DiscordHarness | undefined;
let rig: SessionRig | undefined;

afterEach(async () => {
  await rig?.stop();
  await h?.close?.();
  rig = undefined;
  h = undefined;
});

async function start(
  options: { streaming?: boolean; streamIntervalMs?: number; tokenDelayMs?: number } = {},
) {
  h = await discordHarness();
  rig = await startSessionRig(await h.gateway(), {
    replyText: REPLY,
    tokenDelayMs: 100,
    ...options,
  });
  const harness = h;
  await eventually(() => harness.fake.sessions.current !== undefined, "READY");
  return harness;
}

/** What the channel's bot message showed, call by call (the post, then every accepted edit). */
function shown(harness: DiscordHarness, messageId: string): string[] {
  const post = harness.fake.calls.find(
    (c) => c.method === "POST" && /\/messages$/.test(c.path) && c.path.includes(CHANNELS[0]),
  );
  const edits = harness.fake.calls.filter(
    (c) => c.method === "PATCH" && c.path.endsWith(`/messages/${messageId}`),
  );
  return [post, ...edits].flatMap((c) => (typeof c?.body.content === "string" ? [c.body.content] : []));
}

describe("discord: streamed replies", () => {
  it("posts the reply early, edits it as it grows, and ends with one message holding the whole text, at the default 1 s interval", async () => {
    // 20 tokens at 200 ms: 4 s of writing, so about four updates a second apart.
    const harness = await start({ tokenDelayMs: 200 });
    harness.fake.sessions.userSays({ channelId: CHANNELS[0], authorId: harness.userId("u1"), content: "hi" });
    await eventually(
      () => harness.fake.rest.botMessages.some((m) => m.content === REPLY),
      "the complete reply",
      10_000,
    );
    await rig?.session.idle(5_000);
    const messages = harness.fake.rest.botMessages.filter((m) => m.channelId === CHANNELS[0]);
    expect(messages).toHaveLength(1);
    const updates = shown(harness, (messages[0] as { id: string }).id);
    const before = updates.slice(0, -1);
    expect(updates.at(-1)).toBe(REPLY);
    expect(before.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < before.length; i++) {
      expect((before[i] as string).length).toBeGreaterThan((before[i - 1] as string).length);
      expect(before[i]?.startsWith(before[i - 1] as string)).toBe(true);
    }
    expect(harness.fake.rest.rateLimited).toEqual([]);
  });

  it("with the edit limit forced down, the 429s are honoured and the reply still ends whole, once", async () => {
    const harness = await start({ streamIntervalMs: 200 });
    harness.fake.rest.editLimit = { edits: 1, perMs: 1_500 };
    harness.fake.sessions.userSays({ channelId: CHANNELS[0], authorId: harness.userId("u1"), content: "hi" });
    await eventually(
      () => harness.fake.rest.botMessages.some((m) => m.content === REPLY),
      "the complete reply after the rate limit",
      15_000,
    );
    expect(harness.fake.rest.botMessages.filter((m) => m.channelId === CHANNELS[0])).toHaveLength(1);
    expect(harness.fake.rest.rateLimited.length).toBeGreaterThan(0);
  });

  it("streaming: false sends the finished reply once, never edited", async () => {
    const harness = await start({ streaming: false });
    harness.fake.sessions.userSays({ channelId: CHANNELS[0], authorId: harness.userId("u1"), content: "hi" });
    await eventually(
      () => harness.fake.rest.botMessages.some((m) => m.content === REPLY),
      "the reply",
      10_000,
    );
    expect(harness.fake.calls.filter((c) => c.method === "PATCH")).toEqual([]);
  });
});

describe("discord: a streamed reply that stops for an approval", () => {
  it("finalises the text so far as its own message before the request, and the end of the turn sends only the rest", async () => {
    const before = Array.from({ length: 12 }, (_, i) => `before${i + 1}`).join(" ");
    const after = "the file is gone";
    h = await discordHarness();
    const harness = h;
    rig = await startSessionRig(await harness.gateway(), {
      tokenDelayMs: 100,
      streamIntervalMs: 500,
      script: [
        { text: before, toolCalls: [{ name: "delete_file", arguments: { note: "n1" } }] },
        { text: after },
      ],
    });
    await eventually(() => harness.fake.sessions.current !== undefined, "READY");
    const author = harness.userId("u1");
    harness.fake.sessions.userSays({ channelId: CHANNELS[0], authorId: author, content: "delete it" });
    const card = () => harness.fake.rest.botMessages.find((m) => m.components?.length);
    await eventually(() => card() !== undefined, "the approval request", 10_000);
    const inChannel = () => harness.fake.rest.botMessages.filter((m) => m.channelId === CHANNELS[0]);
    // The draft was finished with the text so far before the request was posted.
    expect(inChannel().map((m) => m.content)).toEqual([before, card()?.content]);
    const button = card()?.components?.[0]?.components?.find((b) => b.label === "Approve");
    harness.fake.sessions.press({
      messageId: card()?.id as string,
      customId: button?.custom_id as string,
      userId: author,
    });
    await eventually(() => inChannel().length === 3, "the rest of the reply", 10_000);
    await rig.session.idle(5_000);
    // The rest's draft gets its final edit from the outbox; on a starved machine that edit can be
    // scheduled for a retry (a 429 of the channel's edit limit) when idle() returns, which counts
    // only pieces due now: seen as 'the' at idle and the whole text 0.8-1 s later. Wait for it.
    await eventually(() => inChannel()[2]?.content === after, "the rest's final edit", 10_000);
    expect(inChannel()[0]?.content).toBe(before);
    expect(inChannel()).toHaveLength(3);
    expect(rig.executed).toEqual(["n1"]);
  });
});

describe("discord: a streamed reply longer than one message", () => {
  it("streams the first piece into the draft and sends the rest as ordinary pieces", async () => {
    // 30 tokens of 100 characters: 3 000 characters, two messages at Discord's 2 000.
    const words = Array.from({ length: 30 }, (_, i) => `${String(i).padStart(2, "0")}${"x".repeat(97)}`);
    const long = words.join(" ");
    h = await discordHarness();
    const harness = h;
    rig = await startSessionRig(await harness.gateway(), {
      replyText: long,
      tokenDelayMs: 100,
      streamIntervalMs: 500,
    });
    await eventually(() => harness.fake.sessions.current !== undefined, "READY");
    harness.fake.sessions.userSays({
      channelId: CHANNELS[0],
      authorId: harness.userId("u1"),
      content: "long",
    });
    const inChannel = () => harness.fake.rest.botMessages.filter((m) => m.channelId === CHANNELS[0]);
    await eventually(() => inChannel().length === 2, "two messages", 15_000);
    await rig.session.idle(5_000);
    const [first, second] = inChannel();
    expect(first?.edits).toBeGreaterThanOrEqual(2);
    expect(first?.content.length).toBeLessThanOrEqual(2000);
    expect(`${first?.content} ${second?.content}`.replace(/\s+/g, " ")).toBe(long);
    expect(harness.fake.rest.rateLimited).toEqual([]);
  });
});

describe("discord: a streamed reply cut short", () => {
  it("a turn cancelled mid-stream leaves no half-written message: it is edited to what was said plus (stopped), at the default 1 s interval", async () => {
    const harness = await start();
    harness.fake.sessions.userSays({ channelId: CHANNELS[0], authorId: harness.userId("u1"), content: "hi" });
    const inChannel = () => harness.fake.rest.botMessages.filter((m) => m.channelId === CHANNELS[0]);
    await eventually(() => (inChannel()[0]?.edits ?? 0) >= 1, "the reply streaming", 10_000);
    expect(await rig?.cancelRunning()).toBe(1);
    await eventually(
      () => inChannel()[0]?.content.endsWith("\n\n(stopped)") === true,
      "the draft finished",
      10_000,
    );
    await rig?.session.idle(5_000);
    const messages = inChannel();
    expect(messages).toHaveLength(1);
    const said = (messages[0]?.content ?? "").slice(0, -"\n\n(stopped)".length);
    expect(said.length).toBeGreaterThan(0);
    expect(said.length).toBeLessThan(REPLY.length);
    expect(REPLY.startsWith(said)).toBe(true);
    expect(harness.fake.rest.rateLimited).toEqual([]);
  });

  it("a turn that fails mid-stream keeps what was said and adds the failure note, in the same message", async () => {
    const harness = await start();
    const memory = rig?.memory as NonNullable<typeof rig>["memory"];
    // The turn cannot be saved (as when the disk is full): it ends as failed.
    memory.append = async () => {
      throw new Error("disk full");
    };
    harness.fake.sessions.userSays({ channelId: CHANNELS[0], authorId: harness.userId("u1"), content: "hi" });
    const inChannel = () => harness.fake.rest.botMessages.filter((m) => m.channelId === CHANNELS[0]);
    const note = "\n\nSorry, I could not answer this message (persist_failed).";
    await eventually(
      () => inChannel()[0]?.content.endsWith(note) === true,
      "the draft finished with the note",
      10_000,
    );
    await rig?.session.idle(5_000);
    expect(inChannel()).toHaveLength(1);
    expect(inChannel()[0]?.content).toBe(`${REPLY}${note}`);
  });
});
