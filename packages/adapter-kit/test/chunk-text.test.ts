import { describe, expect, it } from "vitest";
import { chunkText } from "../src/index.js";

describe("chunkText", () => {
  it("returns short text as one piece", () => {
    expect(chunkText("hello world", 4096)).toEqual(["hello world"]);
  });

  it("returns no pieces for empty or whitespace-only text", () => {
    expect(chunkText("", 10)).toEqual([]);
    expect(chunkText("  \n\n ", 10)).toEqual([]);
  });

  it("cuts at the last paragraph break inside the limit", () => {
    const text = `${"a".repeat(30)}\n\n${"b".repeat(30)}\n\n${"c".repeat(30)}`;
    expect(chunkText(text, 70)).toEqual([`${"a".repeat(30)}\n\n${"b".repeat(30)}`, "c".repeat(30)]);
  });

  it("prefers a paragraph break over a later line break", () => {
    const text = `para one\n\nline a\nline b continues here`;
    expect(chunkText(text, 25)[0]).toBe("para one");
  });

  it("falls back to a line break, then to a space", () => {
    expect(chunkText("first line\nsecond line", 15)).toEqual(["first line", "second line"]);
    expect(chunkText("alpha beta gamma delta", 11)).toEqual(["alpha beta", "gamma delta"]);
  });

  it("cuts hard at the limit inside one long word", () => {
    expect(chunkText("abcdefghij", 4)).toEqual(["abcd", "efgh", "ij"]);
  });

  it("never splits a surrogate pair", () => {
    const pieces = chunkText("abc😀def", 4);
    expect(pieces).toEqual(["abc", "😀de", "f"]);
    for (const p of pieces) expect(p.length).toBeLessThanOrEqual(4);
  });

  it("keeps every piece within the limit and loses no words", () => {
    const words = Array.from({ length: 500 }, (_, i) => `word${i}`);
    const text = words
      .join(" ")
      .replace(/word(\d*)0 /g, "word$10\n")
      .replace(/word(\d*)5 /g, "word$15\n\n");
    for (const limit of [20, 64, 4096]) {
      const pieces = chunkText(text, limit);
      for (const p of pieces) expect(p.length).toBeLessThanOrEqual(limit);
      expect(pieces.join(" ").split(/\s+/)).toEqual(words);
    }
  });

  it("accepts a piece of exactly the limit", () => {
    expect(chunkText("x".repeat(10), 10)).toEqual(["x".repeat(10)]);
  });

  it("rejects a limit that is not a positive integer", () => {
    expect(() => chunkText("x", 0)).toThrow(/positive integer \(got 0\)/);
    expect(() => chunkText("x", 1.5)).toThrow(RangeError);
  });
});
