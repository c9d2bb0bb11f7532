// What the gateway reads off an inbound mail: who wrote it, where the answer goes and how it
// threads. Raw RFC 5322 mail parsed by mailparser, as the gateway parses what IMAP returns.
// Originator fields: RFC 5322 section 3.6.2 (https://www.rfc-editor.org/rfc/rfc5322#section-3.6.2),
// groups in address lists section 3.4; identification fields (Message-ID, In-Reply-To,
// References): section 3.6.4 (https://www.rfc-editor.org/rfc/rfc5322#section-3.6.4).
import { simpleParser } from "mailparser";
import { describe, expect, it } from "vitest";
import { mailFacts } from "../src/inbound.js";

async function facts(headers: string[], body = "hello bot") {
  const raw = [
    ...headers,
    "To: bot@example.test",
    "MIME-Version: 1.0",
    "Content-Type: text/plain",
    "",
    body,
    "",
  ];
  return mailFacts(await simpleParser(raw.join("\r\n")));
}

describe("what the gateway reads off an inbound mail", () => {
  it("the author's address in lower case, the display name, the subject and Message-ID", async () => {
    const f = await facts([
      "From: Ann Example <Ann@Example.TEST>",
      "Subject: Plans for Monday",
      "Message-ID: <m1@example.test>",
    ]);
    expect(f).toMatchObject({
      from: "ann@example.test",
      fromName: "Ann Example",
      replyTo: "ann@example.test",
      subject: "Plans for Monday",
      messageId: "<m1@example.test>",
      inReplyTo: undefined,
      references: [],
    });
  });

  it("a bare address has no display name, and a mail without a Subject has an empty one", async () => {
    const f = await facts(["From: ann@example.test"]);
    expect(f.fromName).toBeUndefined();
    expect(f.subject).toBe("");
  });

  it("References keeps every id in the order written, folded over lines or not; In-Reply-To's first id is the parent", async () => {
    const f = await facts([
      "From: ann@example.test",
      "In-Reply-To: <p1@example.test> <p2@example.test>",
      "References: <root@example.test> <mid@example.test>\r\n <p1@example.test>",
    ]);
    expect(f.inReplyTo).toBe("<p1@example.test>");
    expect(f.references).toEqual(["<root@example.test>", "<mid@example.test>", "<p1@example.test>"]);
    const one = await facts(["From: ann@example.test", "References: <root@example.test>"]);
    expect(one.references).toEqual(["<root@example.test>"]);
  });

  it("the answer goes to every Reply-To address (groups opened, lower case, each once), the author stays From", async () => {
    const f = await facts([
      "From: Ann <ann@example.test>",
      "Reply-To: Team: Lead@Example.test, help@example.test;, lead@example.test",
    ]);
    expect(f.from).toBe("ann@example.test");
    expect(f.replyTo).toBe("lead@example.test, help@example.test");
  });

  it("the text is the new part of the mail, without the quote below it", async () => {
    const f = await facts(
      ["From: ann@example.test"],
      "sounds good\r\n\r\nOn Mon, 1 Jan 2024 at 10:00, Bot <bot@example.test> wrote:\r\n> old",
    );
    expect(f.text).toBe("sounds good");
  });
});
