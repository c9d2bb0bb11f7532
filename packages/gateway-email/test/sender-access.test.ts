// Sender access on e-mail: the sender is the From address (RFC 5322 3.6.2), against a real Dovecot.
import { type Dovecot, dovecotMissing, startDovecot } from "@agentsvc/testkit";
import { runSenderAccessSuite } from "@agentsvc/testkit/session";
import { afterAll, describe, it } from "vitest";
import { emailHarness } from "./harness.js";

let dovecot: Promise<Dovecot> | undefined;
afterAll(async () => {
  await (await dovecot)?.close();
});

if (dovecotMissing) {
  describe("email: sender access", () => {
    it.skip(`skipped: ${dovecotMissing}`, () => {});
  });
} else {
  runSenderAccessSuite("email", async () => {
    dovecot ??= startDovecot();
    return {
      harness: await emailHarness(await dovecot),
      senderId: (_thread, author) => `${author}@example.test`,
    };
  });
}
