// Which Authentication-Results count when the receiving server writes them below its own Received
// line (Gmail, Postfix with OpenDKIM/OpenDMARC), with the entry's authResultsBelowReceived, and
// which never do: a forged one in the same block under the server's, one under a forged trace line.
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { entrySchema } from "../src/schema.js";
import { judgeSender, receivedBy, serverAuthResults } from "../src/sender-auth.js";

const lines = (...h: [string, string][]) => h.map(([key, value]) => ({ key, line: `${key}: ${value}` }));
const GMAIL = ["mx.google.com"];
const judge = (headers: ReturnType<typeof lines>, belowReceived: boolean) => {
  const found = serverAuthResults(headers, GMAIL, { belowReceived });
  return { found, verdict: judgeSender(found.own, "example.com", GMAIL, found.all) };
};

// Gmail's order in a mailbox (its "Show original"): internal hops on top, then mx.google.com's own
// Received, Received-SPF and Authentication-Results, then what came with the mail.
const gmail = (ownResults: string, ...cameWithTheMail: [string, string][]) =>
  lines(
    ["delivered-to", "bot@example.test"],
    [
      "received",
      "by 2002:a05:7300:5a1c:b0:15c:8e1f:2b0e with SMTP id q28csp1402817dyb;\r\n        Wed, 25 Nov 2026",
    ],
    ["arc-authentication-results", `i=1; mx.google.com; ${ownResults}`],
    [
      "received",
      "from mail-sor-f41.google.com (mail-sor-f41.google.com. [209.85.220.41])\r\n        by mx.google.com with SMTPS id a1sor123456qkb.40",
    ],
    [
      "received-spf",
      "pass (google.com: domain of ann@example.com designates 209.85.220.41) client-ip=209.85.220.41;",
    ],
    ["authentication-results", `mx.google.com; ${ownResults}`],
    ...cameWithTheMail,
    ["from", "Ann <ann@example.com>"],
  );

describe("results below the receiving server's own Received line", () => {
  it("with authResultsBelowReceived Gmail's pass right below its Received counts; without it the refusal names the option", () => {
    const mail = gmail("dkim=pass header.i=@example.com; dmarc=pass (p=NONE) header.from=example.com");
    expect(judge(mail, true).verdict).toEqual({ ok: true, by: "mx.google.com", method: "dmarc" });
    const strict = judge(mail, false);
    expect(strict.verdict.ok).toBe(false);
    expect(strict.found.own).toEqual([]);
    expect(strict.found.note).toContain("set authResultsBelowReceived: true");
  });

  it("a forged pass in the same block, under the server's own header, never counts", () => {
    const mail = gmail("spf=pass smtp.mailfrom=eve@evil.test", [
      "authentication-results",
      "mx.google.com; dkim=pass header.d=example.com; dmarc=pass header.from=example.com",
    ]);
    expect(judge(mail, true).verdict).toEqual({
      ok: false,
      reason: "no DMARC pass or aligned DKIM pass for example.com",
    });
  });

  it("a trusted DMARC result other than pass anywhere refuses, whatever the server's topmost header says", () => {
    const postfix = lines(
      [
        "received",
        "from mail-out.example.com (mail-out.example.com [192.0.2.25])\r\n\tby mail.example.org (Postfix) with ESMTPS id 4Zb1c2D3e4",
      ],
      [
        "authentication-results",
        'mail.example.org;\r\n\tdkim=pass (2048-bit key) header.d=example.com header.b="Kp3xY7qL"',
      ],
      ["dmarc-filter", "OpenDMARC Filter v1.4.2 mail.example.org 4Zb1c2D3e4"],
      ["authentication-results", "mail.example.org; dmarc=fail (p=reject dis=none) header.from=example.com"],
      ["from", "ann@example.com"],
    );
    const found = serverAuthResults(postfix, ["mail.example.org"], { belowReceived: true });
    expect(found.own).toHaveLength(1);
    expect(judgeSender(found.own, "example.com", ["mail.example.org"], found.all)).toEqual({
      ok: false,
      reason: "dmarc=fail for example.com (mail.example.org)",
    });
    // Without the option too: a forger can only refuse his own mail.
    const strict = serverAuthResults(postfix, ["mail.example.org"]);
    expect(judgeSender(strict.own, "example.com", ["mail.example.org"], strict.all).ok).toBe(false);
    expect(judgeSender(strict.own, "example.com", ["mail.example.org"], strict.all)).toMatchObject({
      reason: expect.stringContaining("dmarc=fail"),
    });
  });

  it("no Received line by a trusted host: nothing below the first Received is taken, and the note says why", () => {
    const mail = lines(
      ["received", "from mta.evil.test by mx1.example.net (Postfix)"],
      ["authentication-results", "example.net; dmarc=pass header.from=example.com"],
      ["from", "ann@example.com"],
    );
    const found = serverAuthResults(mail, ["example.net"], { belowReceived: true });
    expect(found.own).toEqual([]);
    expect(found.note).toContain("no Received line names a trusted server");
  });

  it("a trusted header above a trusted Received that is not the first: the trace is not the server's as expected, nothing below is taken", () => {
    // The server's own Received names mx1.example.net, its results name example.net; the forger's
    // mail carries a Received 'by example.net' with a pass right below it.
    const mail = lines(
      ["received", "from mta.evil.test by mx1.example.net (Postfix)"],
      ["authentication-results", "example.net; spf=pass smtp.mailfrom=eve@evil.test"],
      ["received", "from laptop by example.net"],
      ["authentication-results", "example.net; dmarc=pass header.from=example.com"],
      ["from", "ann@example.com"],
    );
    const found = serverAuthResults(mail, ["example.net"], { belowReceived: true });
    expect(found.own).toEqual([]);
    expect(judgeSender(found.own, "example.com", ["example.net"], found.all).ok).toBe(false);
    expect(found.note).toContain("not taken");
  });

  it("results above the first Received count as before, with or without the option", () => {
    const mail = lines(
      ["authentication-results", "mx.google.com; dmarc=pass header.from=example.com"],
      ["received", "from mail.example.com by mx.google.com"],
      ["from", "ann@example.com"],
    );
    for (const belowReceived of [false, true])
      expect(judge(mail, belowReceived)).toEqual({
        found: {
          own: [" mx.google.com; dmarc=pass header.from=example.com"],
          all: [" mx.google.com; dmarc=pass header.from=example.com"],
        },
        verdict: { ok: true, by: "mx.google.com", method: "dmarc" },
      });
  });

  it("reads the by host of a Received value past comments and folding", () => {
    expect(
      receivedBy(" from a.test (a.test. [192.0.2.1])\r\n        by MX.Google.COM. with ESMTPS id x"),
    ).toBe("mx.google.com");
    expect(receivedBy(" from x (helo by evil) by mail.example.org (Postfix) with ESMTP")).toBe(
      "mail.example.org",
    );
    expect(receivedBy(" by 2002:a05:7300:5a1c::0 with SMTP id q28csp;")).toBe("2002:a05:7300:5a1c::0");
    expect(receivedBy(" from localhost with LMTP")).toBeUndefined();
  });
});

describe("the entry key", () => {
  it("authResultsBelowReceived is a boolean", () => {
    const schema = v.object(entrySchema);
    const base = {
      imapHostEnvVar: "IMAP_HOST",
      imapUsernameEnvVar: "IMAP_USER",
      imapPasswordEnvVar: "IMAP_PASSWORD",
      fromAddressEnvVar: "MAIL_FROM",
    };
    expect(v.parse(schema, { ...base, authResultsBelowReceived: true }).authResultsBelowReceived).toBe(true);
    expect(v.parse(schema, base).authResultsBelowReceived).toBeUndefined();
    expect(v.safeParse(schema, { ...base, authResultsBelowReceived: "yes" }).success).toBe(false);
  });
});
