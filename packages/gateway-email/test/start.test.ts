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
  // What the message tells the operator to set each variable to.
  const said: Record<string, string> = {
    IMAP_HOST: "the IMAP server's host name",
    IMAP_USER: "the IMAP login (usually the full address)",
    IMAP_PASS: "the IMAP password (an app password where the provider requires one)",
    MAIL_FROM: "the address replies come from",
  };
  for (const [missing, what] of Object.entries(said)) {
    it(`an empty ${missing} fails the start with MissingConfigError naming it and what it holds`, async () => {
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
      expect((failure as Error).message).toContain(`set it to ${what} (`);
    });
  }
});
