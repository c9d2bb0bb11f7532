// Sender access on Slack: the sender is the event's `user` in an `im` channel
// (https://api.slack.com/events/message.im).
import { runSenderAccessSuite } from "@agentsvc/testkit/session";
import { slackHarness } from "./harness.js";

runSenderAccessSuite("slack", async () => {
  const harness = await slackHarness();
  return { harness, senderId: (_thread, author) => harness.userId(author) };
});
