import { runGatewayContract } from "@agentsvc/session-core/testing";
import { afterAll, describe, it } from "vitest";
import { type Dovecot, dovecotMissing, startDovecot } from "@agentsvc/testkit";
import { emailHarness } from "./harness.js";

let dovecot: Promise<Dovecot> | undefined;
afterAll(async () => {
  await (await dovecot)?.close();
});

if (dovecotMissing) {
  describe("gateway contract v2: email", () => {
    it.skip(`skipped: ${dovecotMissing}`, () => {});
  });
} else {
  runGatewayContract("email", async () => {
    dovecot ??= startDovecot();
    return emailHarness(await dovecot);
  });
}
