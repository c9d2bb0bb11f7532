// Sender access on Telegram: the sender is `from.id` of a private chat's message
// (https://core.telegram.org/bots/api#message).
import { runSenderAccessSuite } from "@agentsvc/testkit/session";
import { telegramHarness } from "./harness.js";

runSenderAccessSuite("telegram", async () => {
  const harness = await telegramHarness();
  return { harness, senderId: (_thread, author) => String(harness.userId(author)) };
});
