// Approvals as inline keyboards: every callback query is answered, only the participant decides,
// and the keyboard shows the outcome afterwards. Typing shows while a turn runs.
import { encodeDecision } from "@agentsvc/adapter-kit";
import { ContractRig } from "@agentsvc/session-core/testing";
import { eventually } from "@agentsvc/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type TelegramHarness, telegramHarness } from "./harness.js";

let h: TelegramHarness;
let rig: ContractRig;

beforeEach(async () => {
  h = await telegramHarness();
  rig = new ContractRig(h);
  await rig.start();
});

afterEach(async () => {
  await rig.stop();
  await h.close?.();
});

async function openRequest(note: string) {
  await h.inject?.({ id: note, thread: "101", text: `please use delete_file ${note}`, author: "user-1" });
  await eventually(
    () => rig.session.snapshot("telegram", "101").pendingRequestId !== undefined,
    "the request",
  );
  const requestId = rig.session.snapshot("telegram", "101").pendingRequestId as string;
  await eventually(() => h.fake.chat.botMessages.some((m) => m.replyMarkup), "the keyboard");
  const card = h.fake.chat.botMessages.find((m) => m.replyMarkup) as (typeof h.fake.chat.botMessages)[number];
  return { requestId, card };
}

describe("telegram approvals", () => {
  it("renders Approve and Reject buttons, answers the press and replaces the keyboard with the outcome", async () => {
    const { requestId, card } = await openRequest("n1");
    const buttons = card.replyMarkup?.inline_keyboard.flat().map((b) => b.callback_data);
    expect(buttons).toEqual([encodeDecision(requestId, "approve"), encodeDecision(requestId, "reject")]);
    const press = h.fake.chat.press({
      chatId: 101,
      messageId: card.messageId,
      data: encodeDecision(requestId, "approve"),
      from: { id: h.userId("user-1") },
    });
    await eventually(
      () => h.fake.chat.callbackAnswers.get(press.callbackQueryId) !== undefined,
      "the callback answer",
    );
    expect(h.fake.chat.callbackAnswers.get(press.callbackQueryId)?.text).toBe("Approved");
    await eventually(
      () => rig.executed.includes("n1") || rig.executed.some((n) => n.includes("n1")),
      "the tool running",
    );
    await eventually(
      () => card.replyMarkup?.inline_keyboard[0]?.[0]?.text === "✅ Approved",
      "the updated keyboard",
    );
    expect(card.replyMarkup?.inline_keyboard.flat()).toHaveLength(1);
  });

  it("a press by someone else is refused but still answered, and a second press is answered as closed", async () => {
    const { requestId, card } = await openRequest("n2");
    const stranger = h.fake.chat.press({
      chatId: 101,
      messageId: card.messageId,
      data: encodeDecision(requestId, "reject"),
      from: { id: 4242 },
    });
    await eventually(
      () => h.fake.chat.callbackAnswers.get(stranger.callbackQueryId) !== undefined,
      "the stranger's answer",
    );
    expect((await rig.session.interaction(requestId))?.status).toBe("open");
    const owner = h.fake.chat.press({
      chatId: 101,
      messageId: card.messageId,
      data: encodeDecision(requestId, "reject"),
      from: { id: h.userId("user-1") },
    });
    await eventually(
      () => h.fake.chat.callbackAnswers.get(owner.callbackQueryId) !== undefined,
      "the owner's answer",
    );
    expect((await rig.session.interaction(requestId))?.status).toBe("decided");
    await eventually(
      () => card.replyMarkup?.inline_keyboard[0]?.[0]?.text === "❌ Rejected",
      "the updated keyboard",
    );
    const again = h.fake.chat.press({
      chatId: 101,
      messageId: card.messageId,
      data: `x:${requestId}`,
      from: { id: h.userId("user-1") },
    });
    await eventually(
      () => h.fake.chat.callbackAnswers.get(again.callbackQueryId) !== undefined,
      "the late answer",
    );
    expect(rig.executed.some((n) => n.includes("n2"))).toBe(false);
  });

  it("shows the typing action in the chat while a turn runs", async () => {
    await h.inject?.({ id: "ty", thread: "101", text: "hello typing", author: "user-1" });
    await eventually(() => h.fake.chat.botMessages.some((m) => m.text.includes("hello typing")), "the reply");
    expect(h.fake.chat.chatActions.some((a) => a.chatId === 101 && a.action === "typing")).toBe(true);
  });
});

describe("telegram approvals and shared placeholder identities", () => {
  const group = { id: -1001234567890, title: "Team room", type: "supergroup" };
  const anonymousAdmin = { id: 1087968824, is_bot: true, first_name: "Group", username: "GroupAnonymousBot" };

  it("an anonymous admin's request is decided by nobody claiming the placeholder id, nor by another person", async () => {
    // https://core.telegram.org/bots/api#message: sender_chat is the supergroup itself for anonymous
    // administrators, and `from` is a fake user every anonymous admin shares.
    const text = "@agentsvc_bot please use delete_file anon1";
    const updateId = h.fake.pushUpdate({
      message: {
        message_id: 77,
        from: anonymousAdmin,
        sender_chat: group,
        chat: group,
        date: Math.floor(Date.now() / 1000),
        text,
        entities: [{ offset: 0, length: 13, type: "mention" }],
      },
    });
    await h.fake.confirmed(updateId);
    const thread = String(group.id);
    await eventually(
      () => rig.session.snapshot("telegram", thread).pendingRequestId !== undefined,
      "the request",
    );
    const requestId = rig.session.snapshot("telegram", thread).pendingRequestId as string;
    await eventually(() => h.fake.chat.botMessages.some((m) => m.replyMarkup), "the keyboard");
    const card = h.fake.chat.botMessages.find(
      (m) => m.replyMarkup,
    ) as (typeof h.fake.chat.botMessages)[number];
    for (const from of [anonymousAdmin.id, 136817688, 5055]) {
      const press = h.fake.chat.press({
        chatId: group.id,
        messageId: card.messageId,
        data: encodeDecision(requestId, "approve"),
        from: { id: from },
      });
      await eventually(
        () => h.fake.chat.callbackAnswers.get(press.callbackQueryId) !== undefined,
        `the answer to ${from}`,
      );
    }
    expect((await rig.session.interaction(requestId))?.status).toBe("open");
    expect(rig.executed.some((n) => n.includes("anon1"))).toBe(false);
  });
});
