// Replies stream into Slack: a native AI-app stream in a channel thread, post then update in a DM
// or where the workspace refuses the stream methods. Either way one message ends with the reply.
import { eventually, SlackFake } from "@agentsvc/testkit";
import { type SessionRig, startSessionRig } from "@agentsvc/testkit/session";
import { afterEach, describe, expect, it } from "vitest";
import { markdownToMrkdwn } from "../src/format.js";
import { createGateway } from "../src/index.js";

/** 20 tokens; the demo model streams one every 100 ms. */
const REPLY = Array.from({ length: 20 }, (_, i) => `word${i + 1}`).join(" ");

let fake: SlackFake | undefined;
let rig: SessionRig | undefined;

afterEach(async () => {
  await rig?.stop();
  await fake?.close();
  rig = undefined;
  fake = undefined;
});

async function start(
  refuseStreaming = false,
  stream: { streamIntervalMs?: number; tokenDelayMs?: number; replyText?: string } = {
    streamIntervalMs: 500,
  },
): Promise<SlackFake> {
  const f = await SlackFake.start({ echoOwnMessages: false });
  fake = f;
  f.workspace.refuseStreaming = refuseStreaming;
  const gateway = createGateway({
    name: "slack",
    botTokenEnvVar: "SLACK_BOT",
    appTokenEnvVar: "SLACK_APP",
    env: { SLACK_BOT: f.botToken, SLACK_APP: f.appToken },
    apiBaseUrl: f.apiBaseUrl,
  });
  rig = await startSessionRig(gateway, { replyText: REPLY, tokenDelayMs: 100, ...stream });
  await eventually(() => f.openConnections.length === 1, "the connection");
  return f;
}

/** What the message showed after each call that changed it (stream text accumulates). */
function shown(f: SlackFake, methods: string[]): string[] {
  let text = "";
  const out: string[] = [];
  for (const c of f.calls) {
    if (!methods.includes(c.method)) continue;
    const p = c.params;
    if (c.method === "chat.startStream") text = String(p.markdown_text ?? "");
    else if (c.method === "chat.appendStream" || c.method === "chat.stopStream")
      text += String(p.markdown_text ?? "");
    else text = String(p.text ?? "");
    out.push(text);
  }
  return out;
}

function expectGrowing(updates: string[]): void {
  expect(updates.length).toBeGreaterThanOrEqual(3);
  for (let i = 1; i < updates.length; i++) {
    expect((updates[i] as string).length).toBeGreaterThan((updates[i - 1] as string).length);
    expect(updates[i]?.startsWith(updates[i - 1] as string)).toBe(true);
  }
}

describe("slack: streamed replies", () => {
  it("a channel thread gets a native stream that grows, is stopped once, and ends as one message with the reply, at the default 1 s interval", async () => {
    // 20 tokens at 200 ms: 4 s of writing, so about four updates a second apart.
    const f = await start(false, { tokenDelayMs: 200 });
    await f.workspace.userSays({ channel: "C0001", user: "U0001", text: `<@${f.workspace.botUserId}> hi` })
      .acked;
    await eventually(
      () => f.workspace.botMessages.some((m) => m.text === REPLY && !m.streaming),
      "the finished reply",
      10_000,
    );
    await rig?.session.idle(5_000);
    const started = f.calls.find((c) => c.method === "chat.startStream");
    expect(started?.params).toMatchObject({ channel: "C0001", recipient_user_id: "U0001" });
    expect(typeof started?.params.thread_ts).toBe("string");
    expect(typeof started?.params.recipient_team_id).toBe("string");
    expectGrowing(shown(f, ["chat.startStream", "chat.appendStream"]));
    expect(f.calls.filter((c) => c.method === "chat.stopStream")).toHaveLength(1);
    expect(f.calls.filter((c) => c.method === "chat.postMessage")).toEqual([]);
    expect(f.workspace.botMessages.map((m) => m.text)).toEqual([REPLY]);
    expect(f.rateLimited.refusals).toEqual([]);
  });

  it("with chat.appendStream's limit forced down, the 429s are honoured (no call before Retry-After) and the reply still ends whole, once", async () => {
    const f = await start(false, { streamIntervalMs: 250 });
    // Far below Slack's Tier 4 (100 a minute): the stream's appends run into it.
    f.limits = { ...f.limits, "chat.appendStream": { calls: 2, perMs: 2_000 } };
    await f.workspace.userSays({ channel: "C0001", user: "U0001", text: `<@${f.workspace.botUserId}> hi` })
      .acked;
    await eventually(
      () => f.workspace.botMessages.some((m) => m.text === REPLY && !m.streaming),
      "the finished reply",
      15_000,
    );
    await rig?.session.idle(5_000);
    expect(f.rateLimited.refusals.length).toBeGreaterThan(0);
    expect(f.rateLimited.refusals.filter((r) => r.early)).toEqual([]);
    expect(f.calls.filter((c) => c.method === "chat.stopStream")).toHaveLength(1);
    expect(f.workspace.botMessages.map((m) => m.text)).toEqual([REPLY]);
  });

  it("a workspace that refuses the stream methods gets postMessage then updates, one message in the end", async () => {
    const f = await start(true);
    await f.workspace.userSays({ channel: "C0001", user: "U0001", text: `<@${f.workspace.botUserId}> hi` })
      .acked;
    await eventually(() => f.workspace.botMessages.some((m) => m.text === REPLY), "the reply", 10_000);
    await rig?.session.idle(5_000);
    const updates = shown(f, ["chat.postMessage", "chat.update"]);
    expect(updates.at(-1)).toBe(REPLY);
    expectGrowing(updates.slice(0, -1));
    expect(f.workspace.botMessages.map((m) => m.text)).toEqual([REPLY]);
  });

  it("a DM (no thread) is posted then updated; the fake refuses a stream outside a thread", async () => {
    const f = await start();
    await f.workspace.userSays({ channel: "D0001", user: "U0001", text: "hi" }).acked;
    await eventually(() => f.workspace.botMessages.some((m) => m.text === REPLY), "the reply", 10_000);
    await rig?.session.idle(5_000);
    expect(f.calls.filter((c) => c.method === "chat.startStream")).toEqual([]);
    expect(f.workspace.botMessages.map((m) => m.text)).toEqual([REPLY]);
    expect(f.workspace.call("chat.startStream", { channel: "C0001", markdown_text: "x" })).toEqual({
      ok: false,
      error: "invalid_arguments",
    });
  });
});

describe("slack: a streamed reply's markdown_text", () => {
  it("is Markdown, as chat.startStream/appendStream take it: bold stays **bold**, links [text](url), & < > unescaped; the final message is mrkdwn", async () => {
    const markdown =
      "**Bold** words & a [docs link](https://example.com/docs) where a < b and c > d then ~~old~~ and more words to stream";
    const f = await start(false, { streamIntervalMs: 300, tokenDelayMs: 100, replyText: markdown });
    await f.workspace.userSays({ channel: "C0001", user: "U0001", text: `<@${f.workspace.botUserId}> hi` })
      .acked;
    const finished = markdownToMrkdwn(markdown);
    await eventually(
      () => f.workspace.botMessages.some((m) => m.text === finished && !m.streaming),
      "the finished reply",
      15_000,
    );
    await rig?.session.idle(5_000);
    const streamed = shown(f, ["chat.startStream", "chat.appendStream"]);
    expect(streamed.length).toBeGreaterThanOrEqual(2);
    for (const text of streamed) expect(markdown.startsWith(text)).toBe(true);
    const last = streamed.at(-1) as string;
    expect(last).toContain("**Bold** words & a [docs link](https://example.com/docs)");
    expect(last).not.toMatch(/&amp;|&lt;|&gt;|<https/);
  });
});

describe("slack: a streamed reply cut short", () => {
  it("a turn cancelled mid-stream stops the stream once and ends as one message with what was said plus (stopped), at the default 1 s interval", async () => {
    const f = await start(false, {});
    await f.workspace.userSays({ channel: "C0001", user: "U0001", text: `<@${f.workspace.botUserId}> hi` })
      .acked;
    const appended = () => f.calls.filter((c) => c.method === "chat.appendStream");
    await eventually(() => appended().length >= 1, "the stream growing", 10_000);
    expect(await rig?.cancelRunning()).toBe(1);
    await eventually(
      () => f.workspace.botMessages.some((m) => !m.streaming && m.text.endsWith("\n\n(stopped)")),
      "the stream stopped and finished",
      10_000,
    );
    await rig?.session.idle(5_000);
    expect(f.calls.filter((c) => c.method === "chat.stopStream")).toHaveLength(1);
    const [message, ...others] = f.workspace.botMessages;
    expect(others).toEqual([]);
    const said = (message?.text ?? "").slice(0, -"\n\n(stopped)".length);
    expect(said.length).toBeGreaterThan(0);
    expect(said.length).toBeLessThan(REPLY.length);
    expect(REPLY.startsWith(said)).toBe(true);
    expect(f.rateLimited.refusals).toEqual([]);
  });
});
