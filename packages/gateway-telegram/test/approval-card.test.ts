// An approval as Telegram shows it: one message with an inline keyboard
// (https://core.telegram.org/bots/api#inlinekeyboardmarkup), the keyboard replaced by the outcome
// once decided (https://core.telegram.org/bots/api#editmessagereplymarkup), and every press answered
// (https://core.telegram.org/bots/api#answercallbackquery: text of 0-200 characters) whatever the
// session made of it.
import type { DecideResult, InteractionRequest } from "@agentsvc/adapter-kit";
import { encodeDecision } from "@agentsvc/adapter-kit";
import { eventually, within } from "@agentsvc/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { createRig, type TelegramRig } from "./rig.js";

let rig: TelegramRig;
const opts = { idempotencyKey: "k", attempt: 1 };

async function started(decide?: () => Promise<DecideResult>): Promise<void> {
  rig = await createRig();
  await rig.start(decide ? { ...rig.rec.context, decide } : undefined);
}

afterEach(() => rig.stop());

const request = (requestId: string, prompt = "Allow delete_file?"): InteractionRequest => ({
  requestId,
  threadId: "t",
  gateway: "telegram",
  thread: "101",
  allowedDecisions: ["approve", "reject"],
  toolName: "delete_file",
  arguments: {},
  prompt,
  createdAt: 0,
});

describe("the approval card", () => {
  it("shows the prompt as text, not markup, cut to one message of 4096 characters, with Approve and Reject", async () => {
    await started();
    const prompt = `<b>not bold</b> & ${"word ".repeat(1_200)}`;
    const sent = await rig.gateway.requestDecision(request("req_1", prompt), opts);
    expect(rig.fake.chat.botMessages).toHaveLength(1);
    const [card] = rig.fake.chat.botMessages;
    expect(sent.messageId).toBe(String(card?.messageId));
    // Cut between words, within sendMessage's 4096 characters.
    expect(card?.text.length).toBeLessThanOrEqual(4096);
    expect(card?.text.length).toBeGreaterThan(4000);
    expect(card?.text.startsWith("<b>not bold</b> & word word")).toBe(true);
    expect(card?.replyMarkup?.inline_keyboard).toEqual([
      [
        { text: expect.stringMatching(/approve/i), callback_data: encodeDecision("req_1", "approve") },
        { text: expect.stringMatching(/reject/i), callback_data: encodeDecision("req_1", "reject") },
      ],
    ]);
  });

  it("with a prompt that shows nothing is refused by Telegram as empty, not sent with text of ours", async () => {
    await started();
    await expect(rig.gateway.requestDecision(request("req_1", "  "), opts)).rejects.toThrow(
      /message text is empty/,
    );
    expect(rig.fake.chat.botMessages).toEqual([]);
  });

  it("is replaced by its outcome (approved, rejected, edited), one button naming the request", async () => {
    await started();
    const decisions = ["approve", "reject", "edit"] as const;
    for (const [i, decision] of decisions.entries()) {
      const sent = await rig.gateway.requestDecision(request(`req_${i}`), opts);
      await rig.gateway.onDecided({
        requestId: `req_${i}`,
        gateway: "telegram",
        thread: "101",
        decision,
        decidedBy: "5001",
        requestMessageId: sent.messageId,
      });
    }
    expect(rig.fake.chat.botMessages.map((m) => m.replyMarkup?.inline_keyboard)).toEqual([
      [[{ text: "✅ Approved", callback_data: "x:req_0" }]],
      [[{ text: "❌ Rejected", callback_data: "x:req_1" }]],
      [[{ text: "✏️ Edited", callback_data: "x:req_2" }]],
    ]);
  });

  it("a notice for a card already showing its outcome is no error, and one without the card's id edits nothing", async () => {
    await started();
    const sent = await rig.gateway.requestDecision(request("req_1"), opts);
    const notice = {
      requestId: "req_1",
      gateway: "telegram",
      thread: "101",
      decision: "approve" as const,
      decidedBy: "5001",
      requestMessageId: sent.messageId,
    };
    await rig.gateway.onDecided(notice);
    // Telegram answers 400 "message is not modified" for the same keyboard again.
    await expect(rig.gateway.onDecided(notice)).resolves.toBeUndefined();
    const { requestMessageId: _none, ...withoutId } = notice;
    await rig.gateway.onDecided({ ...withoutId, requestId: "req_2" });
    expect(rig.fake.calls.filter((c) => c.method === "editMessageReplyMarkup")).toHaveLength(2);
  });

  it("a notice for a card Telegram no longer has fails (only 'not modified' is taken as done)", async () => {
    await started();
    await expect(
      rig.gateway.onDecided({
        requestId: "req_9",
        gateway: "telegram",
        thread: "101",
        decision: "approve",
        decidedBy: "5001",
        requestMessageId: "424242",
      }),
    ).rejects.toThrow(/message to edit not found/);
  });
});

describe("a press on the card", () => {
  async function press(requestId: string, decision: "approve" | "reject"): Promise<string | undefined> {
    await rig.gateway.requestDecision(request(requestId), opts);
    const card = rig.fake.chat.botMessages.at(-1);
    const { callbackQueryId } = rig.fake.chat.press({
      chatId: 101,
      messageId: card?.messageId as number,
      data: encodeDecision(requestId, decision),
      from: { id: 5001 },
    });
    await eventually(() => rig.fake.chat.callbackAnswers.get(callbackQueryId) !== undefined, "the answer");
    return rig.fake.chat.callbackAnswers.get(callbackQueryId)?.text;
  }

  it("is answered with the decision taken: Approved or Rejected", async () => {
    await started();
    expect(await press("req_1", "approve")).toBe("Approved");
    expect(await press("req_2", "reject")).toBe("Rejected");
    expect(rig.rec.decided).toEqual([
      { requestId: "req_1", decision: "approve", by: "5001" },
      { requestId: "req_2", decision: "reject", by: "5001" },
    ]);
  });

  it("is answered with the session's refusal in its words, cut to Telegram's 200 characters", async () => {
    const refusal = `Only the person who asked can decide. ${"y".repeat(300)}`;
    await started(async () => ({ ok: false, code: "forbidden", message: refusal }));
    expect(await press("req_1", "approve")).toBe(refusal.slice(0, 200));
  });

  it("is decided once when Telegram refuses its answer (query too old), the refusal logged, not fetched again", async () => {
    await started();
    rig.fake.failNext("answerCallbackQuery", {
      status: 400,
      description: "Bad Request: query is too old and response timeout expired or query ID is invalid",
    });
    await rig.gateway.requestDecision(request("req_1"), opts);
    const card = rig.fake.chat.botMessages.at(-1);
    const { updateId } = rig.fake.chat.press({
      chatId: 101,
      messageId: card?.messageId as number,
      data: encodeDecision("req_1", "approve"),
      from: { id: 5001 },
    });
    await within(rig.fake.confirmed(updateId), 5_000, "the press confirmed");
    expect(rig.rec.decided).toHaveLength(1);
    expect(rig.rec.logs().filter((l) => l.msg === "answerCallbackQuery failed")).toEqual([
      expect.objectContaining({
        err: expect.objectContaining({ message: expect.stringMatching(/query is too old/) }),
      }),
    ]);
  });

  it("is answered 'already closed' when deciding fails", async () => {
    await started(async () => {
      throw new Error("store unavailable");
    });
    expect(await press("req_1", "approve")).toBe("This request is already closed.");
  });
});
