// With authResultsBelowReceived, which Received line is the server's and which header in its block
// is taken: the topmost Received naming a trusted host after `by` (a lower one may be the sender's),
// only an Authentication-Results header in the block right below it (not one further down, nor a
// header of another name carrying results), and what a mail without the server's results reads as.
import { describe, expect, it } from "vitest";
import { judgeSender, receivedBy, serverAuthResults } from "../src/sender-auth.js";

const lines = (...h: [string, string][]) => h.map(([key, value]) => ({ key, line: `${key}: ${value}` }));
const GMAIL = ["mx.google.com"];
const PASS = "mx.google.com; dkim=pass header.d=example.com; dmarc=pass header.from=example.com";
const judge = (headers: ReturnType<typeof lines>) => {
  const found = serverAuthResults(headers, GMAIL, { belowReceived: true });
  return { found, verdict: judgeSender(found.own, "example.com", GMAIL, found.all) };
};
const NO_PASS = { ok: false, reason: "no DMARC pass or aligned DKIM pass for example.com" };

describe("the server's own Received line", () => {
  it("is the topmost naming a trusted host: a lower one the sender wrote does not vouch for the pass below it", () => {
    // The server wrote its Received and a result with no pass; the sender's mail carries a
    // Received 'by mx.google.com' with a forged pass right below it.
    const mail = lines(
      ["received", "from mail.evil.test by mx.google.com with ESMTPS id a1"],
      ["authentication-results", "mx.google.com; spf=pass smtp.mailfrom=eve@evil.test"],
      ["received", "from laptop by mx.google.com with SMTP id b2"],
      ["authentication-results", PASS],
      ["from", "ann@example.com"],
    );
    expect(judge(mail).verdict).toEqual(NO_PASS);
    expect(judge(mail).found.own).toEqual([" mx.google.com; spf=pass smtp.mailfrom=eve@evil.test"]);
  });

  it("is the topmost even when it is the mail's first line and wrote no results", () => {
    const mail = lines(
      ["received", "from mail.evil.test by mx.google.com with ESMTPS id a1"],
      ["received", "from laptop by mx.google.com with SMTP id b2"],
      ["authentication-results", PASS],
      ["from", "ann@example.com"],
    );
    const { found, verdict } = judge(mail);
    expect(found.own).toEqual([]);
    expect(found.note).toContain("none right below the trusted server's own Received line");
    expect(verdict.ok).toBe(false);
  });
});

describe("the block right below it", () => {
  it("a pass further down, under the next Received, is not taken when the server's block has none", () => {
    const mail = lines(
      ["received", "by 2002:a05:7300:5a1c::0 with SMTP id q28csp"],
      ["received", "from mail-sor-f41.google.com by mx.google.com with SMTPS id a1"],
      ["received-spf", "pass (google.com: domain of ann@example.com designates 209.85.220.41)"],
      ["received", "from laptop by smtp.example.com with ESMTPSA id c3"],
      ["authentication-results", PASS],
      ["from", "ann@example.com"],
    );
    const { found, verdict } = judge(mail);
    expect(found.own).toEqual([]);
    expect(found.note).toContain("none right below the trusted server's own Received line");
    expect(verdict.ok).toBe(false);
  });

  it("a header of another name carrying results is not the server's, however it reads", () => {
    const mail = lines(
      ["received", "from mail.evil.test by mx.google.com with ESMTPS id a1"],
      ["x-authentication-results", PASS],
      ["authentication-results", ""],
      ["from", "ann@example.com"],
    );
    const { found, verdict } = judge(mail);
    expect(found).toEqual({ own: [], all: [] });
    expect(verdict.ok).toBe(false);
  });

  it("an untrusted server's results below the first Received are neither taken nor noted", () => {
    const mail = lines(
      ["received", "from mail.evil.test by mx.google.com with ESMTPS id a1"],
      ["authentication-results", "mail.evil.test; dmarc=pass header.from=example.com"],
      ["from", "ann@example.com"],
    );
    expect(serverAuthResults(mail, GMAIL)).toEqual({ own: [], all: [] });
    expect(judge(mail).found).toEqual({ own: [], all: [] });
  });
});

describe("a mail without any Received line", () => {
  it("takes its trusted results as the server's, with no note, with or without the option", () => {
    const mail = lines(["authentication-results", PASS], ["from", "ann@example.com"]);
    for (const belowReceived of [false, true])
      expect(serverAuthResults(mail, GMAIL, { belowReceived })).toEqual({
        own: [` ${PASS}`],
        all: [` ${PASS}`],
      });
  });
});

describe("receivedBy", () => {
  it("reads a by host that starts a folded line or follows more than one blank", () => {
    expect(receivedBy(" from a.test\r\n\tby mx.google.com with ESMTPS id x")).toBe("mx.google.com");
    expect(receivedBy(" from a.test by  mx.google.com with ESMTPS id x")).toBe("mx.google.com");
  });
});
