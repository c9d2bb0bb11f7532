// What the gateway declares to the session, which acts on it (session-core): a push gateway holds a
// connection, so one instance at a time polls (session-lead.ts holdsConnection); threads keep several
// approval requests apart (approvals.ts); no buttons, so an approval is answered by replying with text.
import { describe, expect, it } from "vitest";
import { createGateway } from "../src/index.js";

describe("the email gateway's declaration", () => {
  it("is a push gateway of type email with threads and no interactive buttons", () => {
    const gw = createGateway({
      name: "email",
      imapHostEnvVar: "IMAP_HOST",
      imapUsernameEnvVar: "IMAP_USER",
      imapPasswordEnvVar: "IMAP_PASS",
      fromAddressEnvVar: "MAIL_FROM",
    });
    expect([gw.kind, gw.type, gw.name]).toEqual(["push", "email", "email"]);
    expect(gw.capabilities).toEqual({ threads: true, interactiveActions: false });
  });
});
