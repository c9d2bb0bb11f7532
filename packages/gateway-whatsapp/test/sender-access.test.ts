// Sender access on WhatsApp: the sender is the message's `from` wa_id
// (https://developers.facebook.com/docs/whatsapp/cloud-api/webhooks/components).
import { runSenderAccessSuite } from "@agentsvc/testkit/session";
import { whatsappHarness } from "./harness.js";

runSenderAccessSuite("whatsapp", async () => ({
  harness: await whatsappHarness(),
  senderId: (thread) => thread,
}));
