// Which mail never reaches the agent (two bots must never answer each other), judged on raw
// RFC 5322 mail parsed by mailparser as the gateway parses what IMAP returns. The headers follow
// their RFCs: Auto-Submitted (RFC 3834 section 5, https://www.rfc-editor.org/rfc/rfc3834#section-5),
// multipart/report (RFC 6522, https://www.rfc-editor.org/rfc/rfc6522) for bounces (RFC 3464) and
// read receipts (RFC 8098), List-Id (RFC 2919, https://www.rfc-editor.org/rfc/rfc2919), and the
// Precedence / X-Autoreply headers responders set (RFC 3834 section 3.1.8 lists Precedence).
import { simpleParser } from "mailparser";
import { describe, expect, it } from "vitest";
import { ignoreReason } from "../src/inbound.js";

const OWN = "Bot@Example.test";

async function reason(
  headers: string[],
  contentType = "text/plain; charset=utf-8",
): Promise<string | undefined> {
  const raw = [
    ...headers,
    "To: bot@example.test",
    "Subject: hello",
    "MIME-Version: 1.0",
    `Content-Type: ${contentType}`,
    "",
    contentType.startsWith("multipart/") || contentType.startsWith("Multipart/")
      ? "--b\r\nContent-Type: text/plain\r\n\r\nreport\r\n--b--"
      : "hello bot",
    "",
  ].join("\r\n");
  return ignoreReason(await simpleParser(raw), OWN);
}

const person = "From: Ann <ann@example.test>";

describe("mail that never reaches the agent", () => {
  it("a person's ordinary mail is not ignored", async () => {
    expect(await reason([person])).toBeUndefined();
  });

  it("a mail without a sender address is ignored", async () => {
    expect(await reason([])).toBe("no sender address");
  });

  it("a mail from the gateway's own address is ignored, whatever the letter case", async () => {
    expect(await reason(["From: Agent <BOT@example.TEST>"])).toBe("sent by this gateway's own address");
  });

  it("a bounce and a read receipt (multipart/report, any letter case) are ignored by their report-type", async () => {
    const report = (type: string) => `Multipart/Report; Report-Type=${type}; boundary="b"`;
    expect(await reason([person], report("Delivery-Status"))).toBe("delivery status notification (bounce)");
    expect(await reason([person], report("Disposition-Notification"))).toBe(
      "read receipt (disposition notification)",
    );
    expect(await reason([person], report("Feedback-Report"))).toBe("report (feedback-report)");
    expect(await reason([person], 'multipart/report; boundary="b"')).toBe("report (no report-type)");
  });

  it("another multipart mail (a person's with a part) is not a report", async () => {
    expect(await reason([person], 'multipart/mixed; boundary="b"')).toBeUndefined();
  });

  it("Auto-Submitted with any value but no is ignored, naming the value; Auto-Submitted: no is a person's mail", async () => {
    expect(await reason([person, "Auto-Submitted: Auto-Replied"])).toBe("Auto-Submitted: auto-replied");
    expect(await reason([person, "Auto-Submitted: auto-generated"])).toBe("Auto-Submitted: auto-generated");
    expect(await reason([person, "Auto-Submitted: No"])).toBeUndefined();
  });

  it("mail a list distributed (List-Id) is ignored, naming the list", async () => {
    expect(await reason([person, "List-Id: Team <team.example.test>"])).toBe(
      "mailing list (List-Id team.example.test)",
    );
  });

  it("Precedence bulk, junk, list and auto_reply (any case) are ignored; another precedence is not", async () => {
    for (const value of ["Bulk", "junk", "LIST", "auto_reply"])
      expect(await reason([person, `Precedence: ${value}`])).toBe(`Precedence: ${value.toLowerCase()}`);
    expect(await reason([person, "Precedence: first-class"])).toBeUndefined();
  });

  it("X-Autoreply and X-Autorespond mark an auto-responder", async () => {
    expect(await reason([person, "X-Autoreply: yes"])).toBe("auto-responder header");
    expect(await reason([person, "X-Autorespond: on"])).toBe("auto-responder header");
  });

  it("mail from a daemon, postmaster or no-reply address is ignored; an address merely containing those words is not", async () => {
    for (const address of [
      "MAILER-DAEMON@example.test",
      "postmaster@example.test",
      "noreply@example.test",
      "no-reply@example.test",
      "donotreply@example.test",
      "do-not-reply@example.test",
    ])
      expect(await reason([`From: ${address}`])).toBe(`sent by ${address.toLowerCase()}`);
    for (const address of ["ann.noreply@example.test", "noreplyfan@example.test", "postmasters@example.test"])
      expect(await reason([`From: ${address}`])).toBeUndefined();
  });
});
