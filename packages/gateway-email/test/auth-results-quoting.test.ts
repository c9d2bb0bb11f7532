// Quoted strings and comments inside Authentication-Results (RFC 8601 section 2.2,
// https://www.rfc-editor.org/rfc/rfc8601#section-2.2, with RFC 5322 section 3.2.4 quoted-string and
// section 3.2.2 comments): a `;` or `(` inside a quoted value neither splits the header nor opens a
// comment, so a DMARC verdict after it is still read; and a `;` inside a comment splits nothing.
import { describe, expect, it } from "vitest";
import { judgeSender, parseAuthResults } from "../src/sender-auth.js";

const trusted = ["mx.example.com"];

describe("quoted values and comments in Authentication-Results", () => {
  it("a `;` inside a quoted value does not split the results: the DMARC fail after it still refuses", () => {
    const value =
      'mx.example.com; dkim=pass header.d=example.com header.b="ab;"; dmarc=fail header.from=example.com';
    expect(judgeSender([value], "example.com", trusted)).toMatchObject({ ok: false });
    expect(parseAuthResults(value)?.results.map((r) => r.method)).toEqual(["dkim", "dmarc"]);
  });

  it("a `(` inside a quoted value opens no comment, so a later comment with a `;` is still removed", () => {
    const value =
      'mx.example.com; dkim=pass header.b="(" header.d=example.com; dmarc=fail (p=reject; dis=none) header.from=example.com';
    expect(judgeSender([value], "example.com", trusted)).toMatchObject({ ok: false });
    const escaped =
      'mx.example.com; dkim=pass header.b="a\\"(" header.d=example.com; dmarc=fail (p=reject; dis=none) header.from=example.com';
    expect(judgeSender([escaped], "example.com", trusted)).toMatchObject({ ok: false });
  });

  it("an escaped quote inside a quoted value does not end it", () => {
    const value =
      'mx.example.com; dkim=pass header.d=example.com header.b="a\\";"; dmarc=fail header.from=example.com';
    expect(parseAuthResults(value)?.results.map((r) => r.method)).toEqual(["dkim", "dmarc"]);
  });

  it("a value is unquoted only when it is quoted on both ends", () => {
    expect(parseAuthResults('mx.example.com; dkim=pass header.d=example.com"')?.results[0]?.props).toEqual({
      "header.d": 'example.com"',
    });
    expect(parseAuthResults('mx.example.com; dkim=pass header.d="example.com"')?.results[0]?.props).toEqual({
      "header.d": "example.com",
    });
  });

  it("a blank after `=` and an empty result after a trailing `;` are read as written", () => {
    const value = "mx.example.com; dkim= pass header.d=example.com;";
    expect(parseAuthResults(value)?.results).toEqual([
      { method: "dkim", result: "pass", props: { "header.d": "example.com" } },
    ]);
  });

  it("only DMARC's header.from refuses: a failing SPF naming the From domain does not outweigh an aligned DKIM pass", () => {
    const value = "mx.example.com; spf=fail header.from=example.com; dkim=pass header.d=example.com";
    expect(judgeSender([value], "example.com", trusted)).toEqual({
      ok: true,
      by: "mx.example.com",
      method: "dkim",
    });
  });
});
