// Replies stream into the chat: a native draft in a private chat, send-then-edit in a group.
import { eventually, within } from "@agentsvc/testkit";
import { type SessionRig, startSessionRig } from "@agentsvc/testkit/session";
import { afterEach, describe, expect, it } from "vitest";
import type { TelegramGatewayOptions } from "../src/index.js";
import { type TelegramHarness, telegramHarness } from "./harness.js";

/** 20 tokens; the demo model streams one every 100 ms. */
const REPLY = Array.from({ length: 20 }, (_, i) => `word${i + 1}`).join(" ");
const PRIVATE = 101;
const GROUP = -1001234567890;

let h: TelegramHarness | undefined;
let rig: SessionRig | undefined;

afterEach(async () => {
  await rig?.stop();
  await h?.close?.();
  rig = undefined;
  h = undefined;
});

async function start(
  options: { streaming?: boolean; streamIntervalMs?: number; tokenDelayMs?: number } = {},
  overrides: Partial<TelegramGatewayOptions> = {},
): Promise<TelegramHarness> {
  const harness = await telegramHarness(overrides);
  h = harness;
  rig = await startSessionRig(await harness.gateway(), { replyText: REPLY, tokenDelayMs: 100, ...options });
  return harness;
}

async function says(harness: TelegramHarness, chatId: number, text: string): Promise<void> {
  const updateId = harness.fake.chat.userSends({ chatId, text, from: { id: 5_001 } });
  await within(harness.fake.confirmed(updateId), 3_000, `confirmation of "${text}"`);
}

function expectGrowing(updates: string[]): void {
  expect(updates.length).toBeGreaterThanOrEqual(3);
  for (let i = 1; i < updates.length; i++) {
    expect((updates[i] as string).length).toBeGreaterThan((updates[i - 1] as string).length);
    expect(updates[i]?.startsWith(updates[i - 1] as string)).toBe(true);
  }
}

describe("telegram: streamed replies", () => {
  it("a private chat sees one draft grow (one draft_id), then exactly one message with the whole reply, at the default 1 s interval", async () => {
    // 20 tokens at 200 ms: 4 s of writing, so about four drafts a second apart.
    const harness = await start({ tokenDelayMs: 200 });
    await says(harness, PRIVATE, "hi");
    await eventually(
      () => harness.fake.chat.botMessages.some((m) => m.text === REPLY),
      "the final message",
      10_000,
    );
    await rig?.session.idle(5_000);
    const drafts = harness.fake.chat.drafts.filter((d) => d.chatId === PRIVATE);
    expectGrowing(drafts.map((d) => d.text));
    expect(new Set(drafts.map((d) => d.draftId)).size).toBe(1);
    const last = drafts.at(-1)?.at as number;
    const finals = harness.fake.chat.botMessages.filter((m) => m.chatId === PRIVATE);
    expect(finals.map((m) => m.text)).toEqual([REPLY]);
    const sentAt = harness.fake.calls.find((c) => c.method === "sendMessage")?.at as number;
    expect(sentAt).toBeGreaterThanOrEqual(last);
    expect(harness.fake.rateLimited.refusals).toEqual([]);
  });

  it("a group gets no draft: the reply is sent early, edited as it grows, and ends as one message", async () => {
    const harness = await start({ streamIntervalMs: 400 }, { groupEditGapMs: 450 });
    await says(harness, GROUP, "@agentsvc_bot hi");
    await eventually(
      () => harness.fake.chat.botMessages.some((m) => m.chatId === GROUP && m.text === REPLY),
      "the whole reply in the group",
      10_000,
    );
    await rig?.session.idle(5_000);
    expect(harness.fake.calls.filter((c) => c.method === "sendMessageDraft")).toEqual([]);
    const shown = harness.fake.calls
      .filter(
        (c) =>
          (c.method === "sendMessage" || c.method === "editMessageText") &&
          Number(c.params.chat_id) === GROUP,
      )
      .map((c) => String(c.params.text));
    expect(shown.at(-1)).toBe(REPLY);
    expectGrowing(shown.slice(0, -1));
    expect(harness.fake.chat.botMessages.filter((m) => m.chatId === GROUP)).toHaveLength(1);
  });

  it("a group whose chat limit is forced down gets 429s, and no send or edit comes before their retry_after; the reply still ends whole, once", async () => {
    const harness = await start({ streamIntervalMs: 250 }, { groupEditGapMs: 100 });
    // Far below Telegram's 20 a minute: the adapter's edits run into it.
    harness.fake.limits = { ...harness.fake.limits, perGroup: { calls: 3, perMs: 2_000 } };
    await says(harness, GROUP, "@agentsvc_bot hi");
    await eventually(
      () => harness.fake.chat.botMessages.some((m) => m.chatId === GROUP && m.text === REPLY),
      "the whole reply in the group",
      20_000,
    );
    await rig?.session.idle(5_000);
    const refusals = harness.fake.rateLimited.refusals;
    expect(refusals.length).toBeGreaterThan(0);
    expect(refusals.filter((r) => r.early)).toEqual([]);
    expect(harness.fake.chat.botMessages.filter((m) => m.chatId === GROUP)).toHaveLength(1);
  });

  it("the fake refuses a draft in a group and an empty draft, as Telegram does", async () => {
    const harness = await start();
    const bot = harness.fake.bot;
    expect(
      harness.fake.chat.call("sendMessageDraft", { chat_id: GROUP, draft_id: 7, text: "x" }, bot),
    ).toMatchObject({
      ok: false,
      description: "Bad Request: TEXTDRAFT_PEER_INVALID",
    });
    expect(
      harness.fake.chat.call("sendMessageDraft", { chat_id: PRIVATE, draft_id: 7, text: " " }, bot),
    ).toMatchObject({
      ok: false,
    });
    expect(
      harness.fake.chat.call("sendMessageDraft", { chat_id: PRIVATE, draft_id: 0, text: "x" }, bot),
    ).toMatchObject({
      ok: false,
    });
  });
});

describe("telegram: a streamed reply cut short", () => {
  const NOTE = "\n\n(stopped)";

  function expectSaidThenNote(text: string | undefined): void {
    expect(text?.endsWith(NOTE)).toBe(true);
    const said = (text as string).slice(0, -NOTE.length);
    expect(said.length).toBeGreaterThan(0);
    expect(said.length).toBeLessThan(REPLY.length);
    expect(REPLY.startsWith(said)).toBe(true);
  }

  it("a private chat's draft is followed by one message with what was said plus (stopped), at the default 1 s interval", async () => {
    const harness = await start();
    await says(harness, PRIVATE, "hi");
    const drafts = () => harness.fake.chat.drafts.filter((d) => d.chatId === PRIVATE);
    await eventually(() => drafts().length >= 2, "the draft growing", 10_000);
    expect(await rig?.cancelRunning()).toBe(1);
    const finals = () => harness.fake.chat.botMessages.filter((m) => m.chatId === PRIVATE);
    await eventually(() => finals().length > 0, "the message after the draft", 10_000);
    await rig?.session.idle(5_000);
    expect(finals()).toHaveLength(1);
    expectSaidThenNote(finals()[0]?.text);
    expect(finals()[0]?.text.startsWith(drafts().at(-1)?.text as string)).toBe(true);
  });

  it("a group's early message is edited to what was said plus (stopped), at the default 1 s interval", async () => {
    // 4 s of writing: the first edit comes 3 s after the early message (the group's pace).
    const harness = await start({ tokenDelayMs: 200 });
    await says(harness, GROUP, "@agentsvc_bot hi");
    const inGroup = () => harness.fake.chat.botMessages.filter((m) => m.chatId === GROUP);
    const edits = () => harness.fake.calls.filter((c) => c.method === "editMessageText");
    await eventually(() => inGroup().length === 1 && edits().length >= 1, "the early message edited", 10_000);
    expect(await rig?.cancelRunning()).toBe(1);
    await eventually(() => inGroup()[0]?.text.endsWith(NOTE) === true, "the message finished", 10_000);
    await rig?.session.idle(5_000);
    expect(inGroup()).toHaveLength(1);
    expectSaidThenNote(inGroup()[0]?.text);
    expect(harness.fake.rateLimited.refusals).toEqual([]);
  });
});

describe("telegram: a streamed reply whose preview went away", () => {
  it("a group preview the user deleted: the final edit answers 'message to edit not found' and the whole reply goes out as a new message", async () => {
    const harness = await start({ streamIntervalMs: 300 }, { groupEditGapMs: 300 });
    await says(harness, GROUP, "@agentsvc_bot hi");
    const inGroup = () => harness.fake.chat.botMessages.filter((m) => m.chatId === GROUP);
    await eventually(() => inGroup().length === 1, "the early message", 10_000);
    const preview = inGroup()[0] as { messageId: number };
    expect(harness.fake.chat.deleteBotMessage(GROUP, preview.messageId)).toBe(true);
    await eventually(() => inGroup().some((m) => m.text === REPLY), "the reply as a new message", 15_000);
    await rig?.session.idle(5_000);
    expect(inGroup().map((m) => m.text)).toEqual([REPLY]);
    const refused = harness.fake.calls.filter(
      (c) => c.method === "editMessageText" && Number(c.params.message_id) === preview.messageId,
    );
    expect(refused.length).toBeGreaterThan(0);
    expect((await rig?.store.outbox.list("telegram", String(GROUP)))?.map((r) => r.status)).not.toContain(
      "dead",
    );
  });
});

describe("telegram: a draft during a long tool call", () => {
  it("is sent again while its text stays the same (Telegram shows a draft about 30 s), and never after the reply's message", async () => {
    const harness = await telegramHarness({ draftRefreshMs: 150 });
    h = harness;
    const g = await harness.gateway();
    rig = await startSessionRig(g);
    const stream = g.stream?.(String(PRIVATE), { meta: { chatType: "private" } });
    const ids = await stream?.update("Checking the logs…");
    const same = () =>
      harness.fake.chat.drafts.filter((d) => d.chatId === PRIVATE && d.text === "Checking the logs…");
    // Nothing new to show, as while a tool runs: the draft is sent again all the same.
    await eventually(() => same().length >= 4, "the draft refreshed", 10_000);
    expect(new Set(same().map((d) => d.draftId)).size).toBe(1);
    await g.finishDraft?.(String(PRIVATE), ids ?? {}, "All clear.", { idempotencyKey: "k", attempt: 1 });
    const after = same().length;
    const finalAt = harness.fake.calls.find((c) => c.method === "sendMessage")?.at as number;
    // Several refresh periods: a refresh still armed would show up here.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(same().length).toBe(after);
    expect(harness.fake.chat.drafts.filter((d) => d.at > finalAt)).toEqual([]);
  });
});
