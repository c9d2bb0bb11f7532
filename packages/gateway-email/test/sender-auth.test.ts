// Authentication-Results as receiving servers write them (RFC 8601 section 2.2 grammar; the
// Gmail shape with header.i instead of header.d, comments inside results, several results per
// header, results split over several headers).
import { simpleParser } from "mailparser";
import { describe, expect, it } from "vitest";
import { judgeSender, parseAuthResults, receivedAuthResults } from "../src/sender-auth.js";

const GMAIL_PASS = ` mx.google.com;
       dkim=pass header.i=@example.com header.s=s1 header.b=AbCdEf12;
       spf=pass (google.com: domain of ann@example.com designates 192.0.2.10 as permitted sender) smtp.mailfrom=ann@example.com;
       dmarc=pass (p=REJECT sp=REJECT dis=NONE) header.from=example.com`;
const GMAIL_FORGED = ` mx.google.com;
       spf=pass (google.com: domain of eve@evil.test designates 198.51.100.7 as permitted sender) smtp.mailfrom=eve@evil.test;
       dmarc=fail (p=NONE sp=NONE dis=NONE) header.from=example.com`;

describe("Authentication-Results", () => {
  it("parses authserv-id, methods, results and properties, ignoring comments and reasons", () => {
    expect(parseAuthResults(GMAIL_PASS)).toEqual({
      authservId: "mx.google.com",
      results: [
        {
          method: "dkim",
          result: "pass",
          props: { "header.i": "@example.com", "header.s": "s1", "header.b": "AbCdEf12" },
        },
        { method: "spf", result: "pass", props: { "smtp.mailfrom": "ann@example.com" } },
        { method: "dmarc", result: "pass", props: { "header.from": "example.com" } },
      ],
    });
    expect(parseAuthResults("mx.example.net 1; none")).toEqual({ authservId: "mx.example.net", results: [] });
    expect(
      parseAuthResults('mx.example.net; dkim = pass reason="good (sig)" header.d="example.com"')?.results,
    ).toEqual([{ method: "dkim", result: "pass", props: { "header.d": "example.com" } }]);
  });

  it("accepts a DMARC pass or an aligned DKIM pass from a trusted server only", () => {
    expect(judgeSender([GMAIL_PASS], "example.com", ["mx.google.com"])).toMatchObject({
      ok: true,
      method: "dmarc",
    });
    const dkimOnly = "mx.example.net; dkim=pass (2048-bit key) header.d=example.com header.s=k1";
    expect(judgeSender([dkimOnly], "example.com", ["mx.example.net"])).toMatchObject({
      ok: true,
      method: "dkim",
    });
    expect(judgeSender([dkimOnly], "sub.example.com", ["mx.example.net"])).toMatchObject({ ok: true });
    // Signed by another domain: not aligned with the From.
    const other = "mx.example.net; dkim=pass header.d=mailer.test; spf=pass smtp.mailfrom=example.com";
    expect(judgeSender([other], "example.com", ["mx.example.net"]).ok).toBe(false);
    // A bare TLD never aligns.
    expect(
      judgeSender(["mx.example.net; dkim=pass header.d=com"], "example.com", ["mx.example.net"]).ok,
    ).toBe(false);
    // The right verdict from a server that is not trusted counts for nothing.
    expect(judgeSender([GMAIL_PASS], "example.com", ["mx.example.net"])).toMatchObject({
      ok: false,
      reason: expect.stringContaining("no Authentication-Results from a trusted server"),
    });
    expect(judgeSender([GMAIL_PASS], "example.com", [])).toMatchObject({ ok: false });
  });

  it("refuses a forged From: dmarc=fail, even with a forged pass written below the server's header", () => {
    expect(judgeSender([GMAIL_FORGED], "example.com", ["mx.google.com"])).toMatchObject({
      ok: false,
      reason: expect.stringContaining("dmarc=fail"),
    });
    expect(judgeSender([GMAIL_FORGED, GMAIL_PASS], "example.com", ["mx.google.com"]).ok).toBe(false);
    // A pass for another domain than the From's says nothing about the From.
    const otherDomain = "mx.google.com; dmarc=pass header.from=evil.test";
    expect(judgeSender([otherDomain], "example.com", ["mx.google.com"]).ok).toBe(false);
  });
});

describe("which Authentication-Results count", () => {
  const lines = (...h: [string, string][]) => h.map(([key, value]) => ({ key, line: `${key}: ${value}` }));
  it("only the trusted server's own, above the trace of earlier hops; a trusted name below it came with the mail", () => {
    const headers = lines(
      ["authentication-results", "mx.example.net; spf=pass smtp.mailfrom=eve@evil.test"],
      ["authentication-results", "mx.example.net; dkim=none"],
      ["received", "from mta.evil.test by mx.example.net"],
      ["authentication-results", "mx.example.net; dmarc=pass header.from=example.com"],
      ["from", "ann@example.com"],
    );
    expect(receivedAuthResults(headers, ["mx.example.net"])).toEqual([
      " mx.example.net; spf=pass smtp.mailfrom=eve@evil.test",
      " mx.example.net; dkim=none",
    ]);
    expect(
      judgeSender(receivedAuthResults(headers, ["mx.example.net"]), "example.com", ["mx.example.net"]).ok,
    ).toBe(false);
  });

  it("nothing when the trusted server wrote no results above the first Received: a trusted name below it came with the mail", () => {
    const headers = lines(
      ["received", "from mta.evil.test by mx.example.net"],
      ["authentication-results", "spam-filter.test; spf=pass"],
      ["authentication-results", "mx.example.net; dmarc=pass header.from=example.com"],
      ["received", "from laptop by mail.example.com"],
    );
    expect(receivedAuthResults(headers, ["mx.example.net"])).toEqual([]);
    expect(
      judgeSender(receivedAuthResults(headers, ["mx.example.net"]), "example.com", ["mx.example.net"]).ok,
    ).toBe(false);
  });

  it("other servers' results above the trusted one's do not end the search", () => {
    const headers = lines(
      ["authentication-results", "spam-filter.test; spf=pass"],
      ["authentication-results", "mx.example.net; dmarc=pass header.from=example.com"],
      ["received", "from mail.example.com by mx.example.net"],
    );
    expect(receivedAuthResults(headers, ["mx.example.net"])).toEqual([
      " mx.example.net; dmarc=pass header.from=example.com",
    ]);
  });

  it("reads them from a raw message as the gateway does (mailparser's header lines)", async () => {
    const raw = [
      "Received: from mta.evil.test by mx.example.net with ESMTP",
      "Authentication-Results: mx.example.net; dmarc=pass header.from=example.com",
      "From: ann@example.com",
      "Subject: Re: approve?",
      "",
      "approve",
    ].join("\r\n");
    const mail = await simpleParser(raw);
    expect(receivedAuthResults(mail.headerLines, ["mx.example.net"])).toEqual([]);
    const vouched = await simpleParser(
      raw.replace(/^(Received: .*)\r\n(Authentication-Results: .*)\r\n/, "$2\r\n$1\r\n"),
    );
    expect(
      judgeSender(receivedAuthResults(vouched.headerLines, ["mx.example.net"]), "example.com", [
        "mx.example.net",
      ]).ok,
    ).toBe(true);
  });
});

describe("DKIM alignment", () => {
  const dkim = (d: string) => [`mx.example.net; dkim=pass header.d=${d}`];
  it("aligns a signing domain only at a label boundary of the From domain", () => {
    expect(judgeSender(dkim("mple.com"), "example.com", ["mx.example.net"]).ok).toBe(false);
    expect(judgeSender(dkim("ample.com"), "mail.example.com", ["mx.example.net"]).ok).toBe(false);
    expect(judgeSender(dkim("example.com"), "mail.example.com", ["mx.example.net"]).ok).toBe(true);
    expect(judgeSender(dkim("EXAMPLE.com."), "example.com", ["mx.example.net"]).ok).toBe(true);
    // header.i's domain, the same rule.
    expect(
      judgeSender(["mx.example.net; dkim=pass header.i=@mple.com"], "example.com", ["mx.example.net"]).ok,
    ).toBe(false);
  });
});
