// What `start` refuses: a required variable that is unset or empty fails it with session-core's
// MissingConfigError naming the variable (the session shows it; nothing polls with half a config).
import { MissingConfigError } from "@agentsvc/adapter-kit";
import { afterAll, describe, expect, it } from "vitest";
import { type Dovecot, dovecotMissing, startDovecot } from "@agentsvc/testkit";
import { emailRig } from "./rig.js";

let dovecot: Dovecot | undefined;
afterAll(async () => {
  await dovecot?.close();
});

describe.skipIf(dovecotMissing !== undefined)("starting the email gateway", () => {
  for (const missing of ["IMAP_HOST", "IMAP_USER", "IMAP_PASS", "MAIL_FROM"]) {
    it(`an empty ${missing} fails the start with MissingConfigError naming it`, async () => {
      dovecot ??= await startDovecot();
      const failure = await emailRig(dovecot, (b) => ({ env: { ...b.options().env, [missing]: "" } })).then(
        async (r) => {
          await r.close();
          return undefined;
        },
        (err: unknown) => err,
      );
      expect(failure).toBeInstanceOf(MissingConfigError);
      expect((failure as MissingConfigError).envVar).toBe(missing);
      expect((failure as Error).message).toMatch(new RegExp(`^email: ${missing} is not set: set it to `));
    });
  }
});
