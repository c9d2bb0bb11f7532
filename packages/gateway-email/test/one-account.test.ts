// One account for IMAP and SMTP (no SMTP variables in the entry, or empty ones): the start accepts it and a reply
// logs in to SMTP with the IMAP login. The test sink knows only its own login, so it refuses this one
// with 535 (RFC 4954 section 6), and the refusal names the IMAP password variable: the one to fix.
import { GatewaySendError } from "@agentsvc/adapter-kit";
import { dovecotMissing } from "@agentsvc/testkit";
import { describe, expect, it } from "vitest";
import { opts, useSteppedGateway } from "./stepped-gateway.js";

const { started } = useSteppedGateway();

describe.skipIf(dovecotMissing !== undefined)("one account for IMAP and SMTP", () => {
  it("without SMTP variables a reply logs in to SMTP with the IMAP login, and a refusal names IMAP_PASS", async () => {
    const { gw } = await started({ smtpUsernameEnvVar: undefined, smtpPasswordEnvVar: undefined });
    const err = await gw.send("ann@example.test", "hi", opts("one")).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewaySendError);
    expect(err).toMatchObject({ credentials: true, envVar: "IMAP_PASS" });
    expect((err as Error).message).toContain("code 535");
  });

  it("SMTP variables the entry names but the environment leaves empty fall back to the IMAP login as well", async () => {
    const { gw } = await started(
      { smtpHostEnvVar: "SMTP_HOST" },
      { SMTP_HOST: "", SMTP_USER: "", SMTP_PASS: "" },
    );
    const err = await gw.send("ann@example.test", "hi", opts("empty")).catch((e: unknown) => e);
    expect(err).toMatchObject({ credentials: true, envVar: "SMTP_PASS" });
    expect((err as Error).message).toContain("code 535");
  });
});
