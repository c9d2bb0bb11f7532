// Thread ids of Telegram (thread.ts): a chat is `<chatId>`, a forum topic `<chatId>:<topicId>`
// (https://core.telegram.org/bots/api#message: message_thread_id, is_topic_message). A reply in a
// non-forum supergroup also carries message_thread_id, and must stay in the chat's conversation
// (#44 item 9). Rows from the thread.ts survivors of `pnpm mutate gateway-telegram`.
import { describe, expect, it } from "vitest";
import { parseThread, threadOf } from "../src/thread.js";

describe("Telegram thread ids", () => {
  it("a forum topic message is its own thread; anything else is the chat", () => {
    expect(threadOf({ chat: { id: -1001 }, message_thread_id: 7, is_topic_message: true })).toBe("-1001:7");
    // A reply in a non-forum supergroup: message_thread_id without is_topic_message.
    expect(threadOf({ chat: { id: -1001 }, message_thread_id: 7 })).toBe("-1001");
    expect(threadOf({ chat: { id: -1001 }, message_thread_id: 7, is_topic_message: false })).toBe("-1001");
    expect(threadOf({ chat: { id: 42 } })).toBe("42");
    expect(threadOf({ chat: { id: -1001 }, is_topic_message: true })).toBe("-1001");
  });

  it("parses back to the chat and, for a topic, its number", () => {
    expect(parseThread("-1001:7")).toEqual({ chatId: "-1001", topicId: 7 });
    expect(parseThread("-1001")).toEqual({ chatId: "-1001" });
    expect(parseThread("42")).toEqual({ chatId: "42" });
    expect(parseThread(threadOf({ chat: { id: -5 }, message_thread_id: 3, is_topic_message: true }))).toEqual(
      {
        chatId: "-5",
        topicId: 3,
      },
    );
  });
});
