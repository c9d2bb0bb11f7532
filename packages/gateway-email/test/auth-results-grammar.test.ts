// The corners of RFC 8601's Authentication-Results grammar (section 2.2) and RFC 5322's comments,
// quoted strings and folding (sections 3.2.2, 3.2.4, 2.2.3) that decide what sender-auth.ts reads
// from a receiving server's header, and the verdicts' refusals. A misread here either refuses a
// real sender's decision or accepts a forged one. Rows from `pnpm mutate gateway-email` survivors (#44).
import { describe, expect, it } from "vitest";
import { judgeSender, parseAuthResults, receivedAuthResults } from "../src/sender-auth.js";

const propsOf = (value: string) => parseAuthResults(value)?.results.map((r) => r.props);

describe("Authentication-Results grammar", () => {
  it("a quoted string keeps its parentheses, semicolons and escaped quotes, and is unquoted", () => {
    expect(propsOf('mx; dkim=pass header.d="exa(mple).com" header.s="a;b"')).toEqual([
      { "header.d": "exa(mple).com", "header.s": "a;b" },
    ]);
    expect(propsOf('mx; dkim=pass header.s="x\\"(y;z" header.d=example.com')).toEqual([
      { "header.s": 'x"(y;z', "header.d": "example.com" },
    ]);
    // A quote that only opens or only closes is kept as written.
    expect(propsOf('mx; dkim=pass header.s="open header.d=close"x')).toEqual([
      { "header.s": '"open', "header.d": 'close"x' },
    ]);
  });

  it("comments nest, may hold escaped parentheses, and stand for a blank between tokens", () => {
    expect(parseAuthResults("mx (outer (inner) still outer) 1; dkim=pass header.d=example.com")).toEqual({
      authservId: "mx",
      results: [{ method: "dkim", result: "pass", props: { "header.d": "example.com" } }],
    });
    expect(propsOf("mx; dkim=pass (a \\) b; header.d=evil.test) header.d=example.com")).toEqual([
      { "header.d": "example.com" },
    ]);
    expect(propsOf("mx;dkim=pass(good)header.d=example.com")).toEqual([{ "header.d": "example.com" }]);
    expect(propsOf("mx; dkim=pass header.d=example.com (a (b) header.d=evil.test)")).toEqual([
      { "header.d": "example.com" },
    ]);
  });

  it("reads a header folded over lines, CRLF or LF, and blanks around =", () => {
    const folded =
      "mx.example.com;\r\n\tdkim\r\n  =\r\n pass\r\n\theader.d\n =example.com;\n dmarc=pass header.from=example.com";
    expect(parseAuthResults(folded)).toEqual({
      authservId: "mx.example.com",
      results: [
        { method: "dkim", result: "pass", props: { "header.d": "example.com" } },
        { method: "dmarc", result: "pass", props: { "header.from": "example.com" } },
      ],
    });
  });

  it("skips none (any case), results without a method or value, properties without a ptype, and reasons", () => {
    expect(parseAuthResults("mx; NONE")?.results).toEqual([]);
    expect(parseAuthResults("mx; dkim; =pass; spf=")?.results).toEqual([
      { method: "spf", result: "", props: {} },
    ]);
    expect(propsOf("mx; dkim/1=pass header.d reason=x policy=y =z header.d=example.com")).toEqual([
      { "header.d": "example.com" },
    ]);
    expect(parseAuthResults("mx; DKIM/2=PASS header.d=example.com")?.results[0]).toMatchObject({
      method: "dkim",
      result: "pass",
    });
  });

  it("a value without an authserv-id is no header", () => {
    expect(parseAuthResults("")).toBeUndefined();
    expect(parseAuthResults("  (only a comment) ; dmarc=pass header.from=example.com")).toBeUndefined();
  });
});

describe("the receiving server's headers", () => {
  it("only Authentication-Results count, and one without an authserv-id is passed over", () => {
    const lines = [
      { key: "x-forged", line: "X-Forged: mx.example.com; dmarc=pass header.from=example.com" },
      { key: "authentication-results", line: "Authentication-Results: (nothing)" },
      {
        key: "authentication-results",
        line: "Authentication-Results: mx.example.com; dkim=pass header.d=example.com",
      },
      { key: "received", line: "Received: from a by b" },
    ];
    expect(receivedAuthResults(lines, ["mx.example.com"])).toEqual([
      " mx.example.com; dkim=pass header.d=example.com",
    ]);
  });
});

describe("verdicts", () => {
  const trusted = ["mx.example.com"];

  it("refuse without a From domain or without trusted servers, saying so", () => {
    expect(judgeSender(["mx.example.com; dmarc=pass header.from=example.com"], "", trusted)).toEqual({
      ok: false,
      reason: "no From domain",
    });
    expect(judgeSender(["mx.example.com; dmarc=pass header.from=example.com"], "example.com", [])).toEqual({
      ok: false,
      reason: "no trustedAuthservIds configured: no receiving server is trusted",
    });
  });

  it("refuse a pass written by an untrusted server, or in a header without an authserv-id, naming the trusted ones", () => {
    expect(
      judgeSender(["mx.evil.test; dmarc=pass header.from=example.com", "(none)"], "example.com", [
        "MX.example.com",
        "mx2.example.com",
      ]),
    ).toEqual({
      ok: false,
      reason: "no Authentication-Results from a trusted server (mx.example.com, mx2.example.com)",
    });
  });

  it("refuse what is not a DMARC pass for the domain or an aligned DKIM pass", () => {
    const refused = { ok: false, reason: "no DMARC pass or aligned DKIM pass for example.com" };
    for (const value of [
      "mx.example.com; dkim=pass header.d=other.test",
      "mx.example.com; dkim=fail header.d=example.com",
      "mx.example.com; spf=pass header.d=example.com smtp.mailfrom=example.com",
      "mx.example.com; dmarc=pass header.from=other.test",
      "mx.example.com; dkim=pass header.s=s1",
    ]) {
      expect(judgeSender([value], "example.com", trusted)).toEqual(refused);
    }
  });

  it("a DMARC fail for another domain does not refuse an aligned DKIM pass", () => {
    expect(
      judgeSender(
        ["mx.example.com; dmarc=fail header.from=other.test; dkim=pass header.d=example.com"],
        "example.com",
        trusted,
      ),
    ).toEqual({ ok: true, by: "mx.example.com", method: "dkim" });
  });

  it("a DKIM pass is aligned by header.d, else by header.i's domain (with or without a local part)", () => {
    for (const value of [
      "mx.example.com; dkim=pass header.i=@example.com",
      "mx.example.com; dkim=pass header.i=ann@example.com",
      "mx.example.com; dkim=pass header.i=example.com",
    ]) {
      expect(judgeSender([value], "example.com", trusted)).toEqual({
        ok: true,
        by: "mx.example.com",
        method: "dkim",
      });
    }
    expect(
      judgeSender(
        ["mx.example.com; dkim=pass header.d=other.test header.i=@example.com"],
        "example.com",
        trusted,
      ),
    ).toMatchObject({ ok: false });
  });
});
