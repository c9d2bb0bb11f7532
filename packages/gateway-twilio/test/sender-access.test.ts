// Sender access on SMS: the sender is the From number (https://www.twilio.com/docs/messaging/guides/webhook-request).
import { runSenderAccessSuite } from "@agentsvc/testkit/session";
import { twilioHarness } from "./harness.js";

runSenderAccessSuite("twilio", async () => ({
  harness: await twilioHarness(),
  senderId: (thread) => thread,
}));
