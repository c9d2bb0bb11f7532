// The signed target read off a serialized URL (signature.ts `targetOf`) is exactly `pathname + search`
// of that URL parsed: checked on fixed edge cases and on 20,000 generated URLs (seeded), since a
// difference would make the signature cover something other than what the router serves.
import { describe, expect, it } from "vitest";
import { targetOf } from "../src/signature.js";

const parsed = (href: string) => {
  const url = new URL(href);
  return `${url.pathname}${url.search}`;
};

/** mulberry32: the same URLs every run. */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const BASES = [
  "http://127.0.0.1:3000",
  "https://example.com",
  "http://[::1]:8080",
  "http://u:p%23w@host.test",
];
const PIECES = [
  "/",
  "?",
  "#",
  "%",
  "%2F",
  "%3F",
  "%23",
  " ",
  "\\",
  ".",
  "..",
  "./",
  "../",
  "a",
  "Z9",
  "é",
  "漢",
  "&",
  "=",
  "+",
  ";",
  "@",
  ":",
  '"',
  "'",
  "<",
  ">",
  "`",
  "{",
  "}",
  "|",
  "^",
  "[",
  "]",
  "\t",
  "~",
  "!",
  "$",
  "(",
  ")",
  "*",
  ",",
  "//",
];

describe("targetOf", () => {
  it("reads path and query off a serialized URL, without its fragment or an empty query", () => {
    const base = "http://127.0.0.1:3000";
    for (const [path, target] of [
      ["/gateways/hooks/events", "/gateways/hooks/events"],
      ["/gateways/hooks/threads/t/messages?after=3", "/gateways/hooks/threads/t/messages?after=3"],
      ["/a?", "/a"],
      ["/?", "/"],
      ["/a?b?", "/a?b?"],
      ["/a?#x", "/a"],
      ["/a#x?y", "/a"],
      ["/a?q#f?g", "/a?q"],
      ["", "/"],
    ] as const) {
      const href = new URL(`${base}${path}`).href;
      expect(targetOf(href)).toBe(target);
      expect(targetOf(href)).toBe(parsed(href));
    }
  });

  it("equals URL's pathname + search on 20,000 generated URLs", () => {
    const next = random(45);
    let checked = 0;
    for (let i = 0; i < 20_000; i++) {
      const base = BASES[Math.floor(next() * BASES.length)] as string;
      let rest = "";
      for (let n = Math.floor(next() * 8); n > 0; n--) rest += PIECES[Math.floor(next() * PIECES.length)];
      let href: string;
      try {
        href = new URL(`${base}/${rest}`).href;
      } catch {
        continue;
      }
      // Serialized once, a URL parses back to the same text: the handler's url is such a text.
      expect(new URL(href).href).toBe(href);
      if (targetOf(href) !== parsed(href))
        expect({ href, target: targetOf(href) }).toEqual({ href, target: parsed(href) });
      checked++;
    }
    expect(checked).toBeGreaterThan(19_000);
  });
});
