// Mail whose headers are missing or not as RFC 5322 writes them (section 3.6.2 originator fields,
// https://www.rfc-editor.org/rfc/rfc5322#section-3.6.2; section 3.4 groups), as spam, scripts and
// old clients send it: the gateway neither throws on it nor invents an author, an address or a text.
// Parsed by mailparser as the gateway parses what IMAP returns.
import { simpleParser } from "mailparser";
import { describe, expect, it } from "vitest";
import { ignoreReason, mailFacts } from "../src/inbound.js";

const parse = (lines: string[]) => simpleParser([...lines, ""].join("\r\n"));
const OWN = "bot@example.test";

describe("mail with missing or malformed headers", () => {
  it("a From that is an empty group or empty names no sender, so the mail is ignored", async () => {
    for (const from of ["From: undisclosed-recipients:;", "From: "]) {
      const mail = await parse([from, "Subject: x", "Content-Type: text/plain", "", "hello"]);
      expect(ignoreReason(mail, OWN)).toBe("no sender address");
    }
  });

  it("a person's mail without a Content-Type header (plain text by RFC 2045's default) is not ignored", async () => {
    const mail = await parse(["From: ann@example.test", "Subject: x", "", "hello"]);
    expect(mail.headers.has("content-type")).toBe(false);
    expect(ignoreReason(mail, OWN)).toBeUndefined();
  });

  it("a List-Id without angle brackets still marks list mail", async () => {
    const mail = await parse([
      "From: ann@example.test",
      "List-Id: team",
      "Content-Type: text/plain",
      "",
      "x",
    ]);
    expect(ignoreReason(mail, OWN)).toBe("mailing list (List-Id )");
  });

  it("without a From header the facts name no author and no address to answer", async () => {
    const f = mailFacts(await parse(["Subject: x", "Content-Type: text/plain", "", "hello"]));
    expect([f.from, f.fromName, f.replyTo]).toEqual(["", undefined, ""]);
  });

  it("a Reply-To naming one plain address is where the answer goes; one naming no address leaves it with the author", async () => {
    const named = mailFacts(
      await parse(["From: ann@example.test", "Reply-To: Team <Team@Example.test>", "", "hello"]),
    );
    expect(named.replyTo).toBe("team@example.test");
    const nameOnly = mailFacts(await parse(["From: ann@example.test", "Reply-To: Team", "", "hello"]));
    expect(nameOnly.replyTo).toBe("ann@example.test");
  });

  it("a mail of only an attachment has no text (not a placeholder)", async () => {
    const f = mailFacts(
      await parse([
        "From: ann@example.test",
        "MIME-Version: 1.0",
        'Content-Type: multipart/mixed; boundary="b"',
        "",
        "--b",
        "Content-Type: application/octet-stream",
        "Content-Disposition: attachment; filename=x.bin",
        "",
        "abc",
        "--b--",
      ]),
    );
    expect(f.text).toBe("");
  });

  it("a body in another charset, quoted-printable, reaches the agent decoded", async () => {
    const f = mailFacts(
      await parse([
        "From: ann@example.test",
        "MIME-Version: 1.0",
        "Content-Type: text/plain; charset=iso-8859-1",
        "Content-Transfer-Encoding: quoted-printable",
        "",
        "Gr=FC=DFe aus K=F6ln",
      ]),
    );
    expect(f.text).toBe("Grüße aus Köln");
  });
});
